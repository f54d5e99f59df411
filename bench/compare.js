#!/usr/bin/env node
/**
 * The screenshot comparison against its peers, side by side in one run, on
 * the same PNG pairs: full-page captures (1280 px wide, 2000 and 8000 px
 * tall) of a generated page, each pair the page as it is and with one
 * injected change (bench/lib/comparePairs.js), captured by the project's own
 * library (dist/); two pairs are two captures of the unchanged page, which
 * are byte-identical.
 *
 * Each tool runs as its users run it, end to end (read, decode, compare,
 * write the diff image, the result), at the same colour threshold with
 * anti-aliased pixels detected and not counted:
 *   ours        comparePngFiles(a, b, {diffImage: path}) from dist/ (in process)
 *   blazediff   compare(a, b, diff, {threshold, antialiasing: true}) from @blazediff/bin (its N-API binding)
 *   odiff       new ODiffServer().compare(a, b, diff, {threshold, antialiasing: true}) from odiff-bin
 *               (its persistent server, the fastest of its Node APIs; the process is started before timing)
 *   odiff-cli   compare(a, b, diff, …) from odiff-bin (spawns the binary per pair)
 *   reg-cli     the reg-cli CLI on a folder of one image each side (-M threshold -A), as a CI job runs it
 *   pixelmatch  pngjs PNG.sync.read of both, pixelmatch(…, {threshold}), PNG.sync.write of the diff (its README's Node example)
 *
 * Rounds: one untimed warm-up, then --rounds N (default 7); each round runs
 * every tool once per pair, the tools' order rotating from round to round.
 * Reported: the median wall time per tool and pair, the changed-pixel count
 * each tool reports (reg-cli reports none), and ours against the fastest
 * peer. The changed-pixel count of ours must equal pixelmatch's.
 *
 * The peers are not project dependencies: bench/peers.sh installs them under
 * $DPE_BENCH_PEERS (default /tmp/dpe-bench-peers), where this script loads them.
 *
 *   npm run build && bash bench/peers.sh && node bench/compare.js [--rounds 7] [--threshold 0] [--pairs DIR] [--recapture]
 *                                          [--only name,name] [--tools ours,blazediff,…] [--json OUT.json]
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFile } = require('child_process');
const { makePairs } = require('./lib/comparePairs');

const ROOT = path.join(__dirname, '..');
/** Where bench/peers.sh installed odiff, blazediff and reg-cli. */
const PEERS = process.env.DPE_BENCH_PEERS || '/tmp/dpe-bench-peers';
const requirePeer = (name) => {
  try {
    return require(require.resolve(name, { paths: [path.join(PEERS, 'node_modules')] }));
  } catch (err) {
    throw new Error(`${name} is not installed under ${PEERS}: run \`bash bench/peers.sh\` first (${err.message.split('\n')[0]})`);
  }
};
const PAIRS = [
  { name: 'identical-2000', height: 2000, change: 'none' },
  { name: 'identical-8000', height: 8000, change: 'none' },
  { name: 'colour-2000', height: 2000, change: 'colour' },
  { name: 'border-2000', height: 2000, change: 'border' },
  { name: 'moved-2000', height: 2000, change: 'moved' },
  { name: 'removed-button-2000', height: 2000, change: 'removed-button' },
  { name: 'text-2000', height: 2000, change: 'text' },
  { name: 'font-size-2000', height: 2000, change: 'font-size' },
  { name: 'bottom-change-8000', height: 8000, change: 'bottom-change' },
  { name: 'font-size-8000', height: 8000, change: 'font-size' },
];

function parseArgs(argv) {
  const opts = { rounds: 7, threshold: null, pairs: path.join(os.tmpdir(), 'dpe-compare-bench-pairs'), recapture: false, only: null, tools: null, json: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => argv[++i];
    if (a === '--rounds') opts.rounds = Number(next());
    else if (a === '--threshold') opts.threshold = Number(next());
    else if (a === '--pairs') opts.pairs = path.resolve(next());
    else if (a === '--recapture') opts.recapture = true;
    else if (a === '--only') opts.only = next().split(',');
    else if (a === '--tools') opts.tools = next().split(',');
    else if (a === '--json') opts.json = path.resolve(next());
    else throw new Error(`unknown argument ${a}`);
  }
  return opts;
}

function run(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    execFile(command, args, { maxBuffer: 64 * 1024 * 1024, ...options }, (err, stdout, stderr) => {
      // reg-cli exits 1 when it finds a change: that is an answer, not a failure.
      if (err && typeof err.code !== 'number') reject(err);
      else resolve({ code: err ? err.code : 0, stdout, stderr });
    });
  });
}

/** Each tool: setup() once, then compare(pair) → { changed } (null when it reports no count). */
function tools(threshold, outDir) {
  const diffPath = (tool, pair) => path.join(outDir, `${tool}-${pair.name}.png`);
  return {
    ours: {
      async setup() {
        this.lib = require(path.join(ROOT, 'dist', 'src', 'compare', 'pixels', 'index.js'));
      },
      async compare(pair) {
        const { result } = await this.lib.comparePngFiles(pair.a, pair.b, { threshold, diffImage: diffPath('ours', pair) });
        return { changed: result.changedPixels, identical: result.identicalBytes };
      },
    },
    blazediff: {
      async setup() {
        this.lib = requirePeer('@blazediff/bin');
        this.native = this.lib.hasNativeBinding();
      },
      async compare(pair) {
        const r = await this.lib.compare(pair.a, pair.b, diffPath('blazediff', pair), { threshold, antialiasing: true });
        if (r.reason === 'file-not-exists' || r.reason === 'layout-diff') throw new Error(`blazediff: ${r.reason}`);
        return { changed: r.match ? 0 : r.diffCount };
      },
    },
    odiff: {
      async setup() {
        const { ODiffServer } = requirePeer('odiff-bin');
        this.server = new ODiffServer();
        // Started before timing: a warm server is how its users keep it.
        const warm = PAIRS_READY[0];
        await this.server.compare(warm.a, warm.b, diffPath('odiff', warm), { threshold, antialiasing: true });
      },
      async compare(pair) {
        const r = await this.server.compare(pair.a, pair.b, diffPath('odiff', pair), { threshold, antialiasing: true });
        if (r.reason === 'file-not-exists' || r.reason === 'layout-diff') throw new Error(`odiff: ${r.reason}`);
        return { changed: r.match ? 0 : r.diffCount };
      },
      async teardown() {
        this.server.stop();
      },
    },
    'odiff-cli': {
      async setup() {
        this.lib = requirePeer('odiff-bin');
      },
      async compare(pair) {
        const r = await this.lib.compare(pair.a, pair.b, diffPath('odiff-cli', pair), { threshold, antialiasing: true });
        if (r.reason === 'file-not-exists' || r.reason === 'layout-diff') throw new Error(`odiff: ${r.reason}`);
        return { changed: r.match ? 0 : r.diffCount };
      },
    },
    'reg-cli': {
      async setup() {
        this.bin = path.join(PEERS, 'node_modules', 'reg-cli', 'dist', 'cli.js');
        // reg-cli compares folders: one folder per pair and side, holding the image under one name.
        for (const pair of PAIRS_READY) {
          for (const side of ['a', 'b']) {
            const dir = path.join(outDir, 'reg-cli', pair.name, side);
            fs.mkdirSync(dir, { recursive: true });
            fs.copyFileSync(pair[side], path.join(dir, 'shot.png'));
          }
        }
      },
      async compare(pair) {
        const base = path.join(outDir, 'reg-cli', pair.name);
        const json = path.join(base, 'reg.json');
        const { code, stderr } = await run(
          process.execPath,
          [this.bin, path.join(base, 'b'), path.join(base, 'a'), path.join(base, 'diff'), '-J', json, '-M', String(threshold), '-A'],
          { cwd: base },
        );
        if (code > 1) throw new Error(`reg-cli exited ${code}: ${stderr}`);
        return { changed: null, failed: JSON.parse(fs.readFileSync(json, 'utf8')).failedItems.length };
      },
    },
    pixelmatch: {
      async setup() {
        this.PNG = require('pngjs').PNG;
        this.pixelmatch = require('pixelmatch');
      },
      async compare(pair) {
        const { PNG, pixelmatch } = this;
        const img1 = PNG.sync.read(fs.readFileSync(pair.a));
        const img2 = PNG.sync.read(fs.readFileSync(pair.b));
        const { width, height } = img1;
        const diff = new PNG({ width, height });
        const changed = pixelmatch(img1.data, img2.data, diff.data, width, height, { threshold });
        fs.writeFileSync(diffPath('pixelmatch', pair), PNG.sync.write(diff));
        return { changed };
      },
    },
  };
}

/** Filled in main(): the pairs with their file paths (odiff's warm-up uses the first). */
const PAIRS_READY = [];

const median = (xs) => {
  const s = [...xs].sort((p, q) => p - q);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const lib = require(path.join(ROOT, 'dist', 'src', 'compare', 'pixels', 'index.js'));
  const threshold = opts.threshold ?? lib.DEFAULT_PIXEL_THRESHOLD;
  const selected = PAIRS.filter((p) => !opts.only || opts.only.includes(p.name));
  if (opts.recapture) for (const p of selected) for (const s of ['a', 'b']) fs.rmSync(path.join(opts.pairs, `${p.name}.${s}.png`), { force: true });
  await makePairs(opts.pairs, selected, { log: (m) => process.stderr.write(`${m}\n`) });
  for (const p of selected) PAIRS_READY.push({ ...p, a: path.join(opts.pairs, `${p.name}.a.png`), b: path.join(opts.pairs, `${p.name}.b.png`) });
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-compare-bench-out-'));
  const all = tools(threshold, outDir);
  const names = opts.tools ?? Object.keys(all);
  for (const name of names) await all[name].setup();
  process.stderr.write(`threshold ${threshold}, anti-aliasing detected and not counted; blazediff native binding: ${all.blazediff.native}\n`);

  const times = {};
  const counts = {};
  for (const pair of PAIRS_READY) {
    times[pair.name] = Object.fromEntries(names.map((n) => [n, []]));
    counts[pair.name] = {};
  }
  for (let round = 0; round <= opts.rounds; round++) {
    process.stderr.write(round === 0 ? 'warm-up round\n' : `round ${round}/${opts.rounds}\n`);
    for (const pair of PAIRS_READY) {
      const order = names.map((_, i) => names[(i + round) % names.length]);
      for (const name of order) {
        const t0 = process.hrtime.bigint();
        const r = await all[name].compare(pair);
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        if (round > 0) times[pair.name][name].push(ms);
        counts[pair.name][name] = r.changed;
      }
    }
  }
  for (const name of names) await all[name].teardown?.();

  const peers = names.filter((n) => n !== 'ours');
  const rows = [];
  const header = ['pair', ...names.map((n) => `${n} ms`), 'fastest peer', 'ours / fastest', 'changed px: ours', 'pixelmatch', 'blazediff', 'odiff'];
  for (const pair of PAIRS_READY) {
    const med = Object.fromEntries(names.map((n) => [n, median(times[pair.name][n])]));
    const fastest = peers.reduce((best, n) => (med[n] < med[best] ? n : best), peers[0]);
    const ratio = med.ours / med[fastest];
    rows.push({ pair: pair.name, change: pair.change, medians: med, fastest, ratio, counts: counts[pair.name] });
  }
  const lines = [];
  lines.push(`| ${header.join(' | ')} |`);
  lines.push(`| ${header.map(() => '---').join(' | ')} |`);
  for (const r of rows) {
    const c = r.counts;
    lines.push(
      `| ${r.pair} | ${names.map((n) => fmt(r.medians[n])).join(' | ')} | ${r.fastest} | ${r.ratio.toFixed(3)}× | ${c.ours ?? '—'} | ${c.pixelmatch ?? '—'} | ${c.blazediff ?? '—'} | ${c.odiff ?? '—'} |`,
    );
  }
  const changed = rows.filter((r) => r.change !== 'none');
  const identical = rows.filter((r) => r.change === 'none');
  const summary = [];
  if (changed.length) {
    const ratios = changed.map((r) => r.ratio);
    summary.push(`changed pairs: ours / fastest peer, median ${median(ratios).toFixed(3)}×, worst ${Math.max(...ratios).toFixed(3)}×`);
  }
  for (const r of identical) {
    const slowestRatio = Math.min(...peers.map((n) => r.medians[n] / r.medians.ours));
    summary.push(`${r.pair}: every peer at least ${slowestRatio.toFixed(1)}× slower than ours (ours ${fmt(r.medians.ours)} ms)`);
  }
  const mismatch = changed.filter((r) => r.counts.pixelmatch !== undefined && r.counts.ours !== r.counts.pixelmatch);
  summary.push(
    mismatch.length
      ? `COUNT MISMATCH against pixelmatch: ${mismatch.map((r) => r.pair).join(', ')}`
      : 'changed-pixel counts: ours equals pixelmatch on every pair',
  );
  process.stdout.write(
    `${new Date().toISOString()} · node ${process.version} · ${os.cpus().length} cores · load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}\n`,
  );
  process.stdout.write(`${lines.join('\n')}\n\n${summary.join('\n')}\n`);
  if (opts.json) fs.writeFileSync(opts.json, JSON.stringify({ date: new Date().toISOString(), threshold, rounds: opts.rounds, rows, summary }, null, 2));
  fs.rmSync(outDir, { recursive: true, force: true });
}

main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exit(2);
});
