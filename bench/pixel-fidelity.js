#!/usr/bin/env node
/**
 * The pixel differential: every page of a corpus captured as a full-page PNG
 * by our built server (dist/src/bin.js over MCP, type `screenshot`) and by
 * playwright-core doing what the original adapter did (new context at the
 * viewport / DPR / colour scheme, goto DOMContentLoaded, the freeze style
 * tag, document.fonts.ready, page.screenshot({ fullPage: true })), both on
 * the same executable: the one the runtime launches by default (the
 * headless shell when installed), or `--executable PATH` for both.
 *
 * Playwright shoots every page twice, each in a fresh context; a page whose
 * two Playwright shots differ at all is counted as unstable (the page itself
 * does not render the same way twice: a race between load and capture,
 * script timing) and left out of the ratio. Verdicts (bench/lib/pixelDiff.js):
 * identical (every byte of RGBA equal), near (≤ 0.5% of pixels differ at
 * pixelmatch threshold 0.1), different.
 *
 * Pages are served from 127.0.0.1 (each corpus folder is a site root, plus
 * /_system-fonts/<file> for the machine's font files). A page picks its
 * viewport with <meta name="pixel-fidelity" content="width=… height=… dpr=…
 * scheme=…">, default 1280x800 at DPR 1, light; --dpr / --scheme / --width /
 * --height change the default for a whole run (a page's meta still wins).
 *
 * Run after `npm run build`:
 *   node bench/pixel-fidelity.js [DIR|FILE.html]... [--match RE] [--limit N]
 *        [--diff-dir OUT] [--json OUT.json] [--dpr N] [--scheme S] [--executable PATH]
 *        [--network-idle]   (both sides also wait for network idle: freeze.networkIdle)
 *        [--delay MS]       (every response of the corpus server held back MS ms)
 *        [--wait MS]        (Playwright waits MS ms after load before its shot; a page's
 *                            `wait=` in its pixel-fidelity meta wins)
 * Default corpus: bench/pixel-corpus. Breadth: test/aria/corpus. Explanations
 * of every remaining class of difference: docs/screenshot-differences.md.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport, getDefaultEnvironment } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { runtimeDefault, unnamedEnv, label } = require('./lib/engines');
const results = require('./lib/results');
const { DEFAULT_VIEWPORT, pageViewport, pageWait, playwrightShot, comparePngs, serveStatic } = require('./lib/pixelDiff');

const BIN = path.join(__dirname, '..', 'dist', 'src', 'bin.js');

function parseArgs(argv) {
  const opts = {
    inputs: [],
    networkIdle: false,
    match: null,
    limit: Infinity,
    diffDir: null,
    json: null,
    executable: null,
    delayMs: 0,
    waitMs: 0,
    base: { ...DEFAULT_VIEWPORT },
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => argv[++i];
    if (a === '--match') opts.match = new RegExp(next());
    else if (a === '--limit') opts.limit = Number(next());
    else if (a === '--diff-dir') opts.diffDir = path.resolve(next());
    else if (a === '--json') opts.json = path.resolve(next());
    else if (a === '--network-idle') opts.networkIdle = true;
    else if (a === '--delay') opts.delayMs = Number(next());
    else if (a === '--wait') opts.waitMs = Number(next());
    else if (a === '--executable') opts.executable = path.resolve(next());
    else if (a === '--dpr') opts.base.devicePixelRatio = Number(next());
    else if (a === '--scheme') opts.base.colorScheme = next();
    else if (a === '--width') opts.base.width = Number(next());
    else if (a === '--height') opts.base.height = Number(next());
    else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else opts.inputs.push(path.resolve(a));
  }
  if (!opts.inputs.length) opts.inputs.push(path.join(__dirname, 'pixel-corpus'));
  return opts;
}

/** Every *.html under the inputs, each with the folder it is served from. */
function listPages(inputs) {
  const pages = [];
  const walk = (root, dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((x, y) => x.name.localeCompare(y.name))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory() && e.name !== 'node_modules' && !e.name.startsWith('.')) walk(root, p);
      else if (e.isFile() && /\.html?$/i.test(e.name)) pages.push({ root, file: p, name: path.relative(root, p) });
    }
  };
  for (const input of inputs) {
    if (fs.statSync(input).isDirectory()) walk(input, input);
    else pages.push({ root: path.dirname(input), file: input, name: path.basename(input) });
  }
  return pages;
}

/** Our built server over stdio, choosing its browser as it would for a user unless one is named. */
async function startOurs(executable) {
  const env = { ...getDefaultEnvironment(), ...unnamedEnv(process.env) };
  if (executable) env.DESIGN_PLAYBOOK_CHROME_PATH = executable;
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN], env, stderr: 'pipe' });
  transport.stderr?.on('data', () => undefined);
  const client = new Client({ name: 'pixel-fidelity', version: '1.0.0' });
  await client.connect(transport);
  const runRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'pixel-fidelity-'));
  fs.writeFileSync(path.join(runRoot, 'plan.md'), '# pixel fidelity bench\n');
  let n = 0;
  return {
    async shot(url, viewport, networkIdle) {
      const result = await client.callTool(
        {
          name: 'execute_capture_plan',
          arguments: {
            schemaVersion: 1,
            url,
            type: 'screenshot',
            state: 'bench',
            artifact_path: `evidence/shot-${n++}.png`,
            overwrite: true,
            viewport,
            run_root: runRoot,
            ...(networkIdle ? { freeze: { networkIdle: true } } : {}),
          },
        },
        undefined,
        { timeout: 180_000 },
      );
      const payload = result.structuredContent;
      if (result.isError || !payload || payload.result !== 'captured')
        throw new Error(`ours failed: ${payload ? payload.error : JSON.stringify(result.content)}`);
      const bytes = fs.readFileSync(payload.written_path);
      fs.rmSync(payload.written_path, { force: true });
      fs.rmSync(payload.written_path.replace(/\.png$/, '.probe.json'), { force: true });
      return bytes;
    },
    async close() {
      await client.close();
      fs.rmSync(runRoot, { recursive: true, force: true });
    },
  };
}

const pct = (r) => (r === null || r === undefined ? '—' : `${(r * 100).toFixed(3)}%`);

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  let pages = listPages(opts.inputs);
  if (opts.match) pages = pages.filter((p) => opts.match.test(p.name));
  pages = pages.slice(0, opts.limit);
  const executable = opts.executable || runtimeDefault();
  const roots = [...new Set(pages.map((p) => p.root))];
  const servers = new Map(await Promise.all(roots.map(async (r) => [r, await serveStatic([r], { delayMs: opts.delayMs })])));
  const [ours, pw] = await Promise.all([startOurs(opts.executable), chromium.launch({ executablePath: executable, args: ['--no-sandbox'] })]);
  console.log(
    `engine: ${label(executable)}; ${pages.length} page(s); responses delayed ${opts.delayMs} ms; Playwright waits ${opts.waitMs} ms after load unless a page says`,
  );
  if (opts.diffDir) fs.mkdirSync(opts.diffDir, { recursive: true });

  const rows = [];
  for (const page of pages) {
    const html = fs.readFileSync(page.file, 'utf8');
    const viewport = pageViewport(html, opts.base);
    const waitMs = pageWait(html) || opts.waitMs;
    const url = servers.get(page.root).url(page.name);
    const row = { page: page.name, viewport };
    try {
      const peer = () =>
        playwrightShot(pw, url, viewport, { networkIdle: opts.networkIdle, waitMs }).catch((err) => {
          throw new Error(`playwright failed: ${err.message}`);
        });
      const first = await peer();
      const mine = await ours.shot(url, viewport, opts.networkIdle);
      const second = await peer();
      const stability = comparePngs(first, second);
      const cmp = comparePngs(mine, first, { withDiff: !!opts.diffDir });
      Object.assign(row, {
        verdict: cmp.verdict,
        reason: cmp.reason,
        ratio: cmp.ratio,
        diffPixels: cmp.diffPixels,
        sizes: { ours: cmp.sizes[0], playwright: cmp.sizes[1] },
      });
      row.unstable = stability.verdict !== 'identical';
      if (row.unstable) row.stability = { verdict: stability.verdict, ratio: stability.ratio, sizes: stability.sizes };
      if (opts.diffDir && cmp.verdict !== 'identical') {
        const stem = path.join(opts.diffDir, page.name.replace(/[\\/]/g, '__').replace(/\.html?$/i, ''));
        fs.writeFileSync(`${stem}.ours.png`, mine);
        fs.writeFileSync(`${stem}.playwright.png`, first);
        if (cmp.diffPng) fs.writeFileSync(`${stem}.diff.png`, cmp.diffPng);
      }
    } catch (err) {
      Object.assign(row, { verdict: 'error', error: String(err && err.message ? err.message : err).split('\n')[0] });
    }
    rows.push(row);
    const flag = row.unstable ? ' [unstable]' : '';
    const detail =
      row.verdict === 'error'
        ? row.error
        : row.reason === 'size'
          ? `size ${row.sizes.ours} vs ${row.sizes.playwright}`
          : `${pct(row.ratio)} (${row.diffPixels} px)`;
    console.log(`${row.verdict.padEnd(9)} ${page.name}  ${detail}${flag}`);
  }

  await Promise.all([ours.close(), pw.close(), ...[...servers.values()].map((s) => s.close())]);
  const stable = rows.filter((r) => !r.unstable && r.verdict !== 'error');
  const count = (list, v) => list.filter((r) => r.verdict === v).length;
  const summary = {
    engine: executable,
    pages: rows.length,
    stable: stable.length,
    unstable: rows.filter((r) => r.unstable).length,
    errors: count(rows, 'error'),
    identical: count(stable, 'identical'),
    near: count(stable, 'near'),
    different: count(stable, 'different'),
  };
  summary.identicalOrNear = stable.length ? (summary.identical + summary.near) / stable.length : null;
  console.log(
    `\n${summary.pages} pages: ${summary.stable} stable (${summary.identical} identical, ${summary.near} near, ${summary.different} different), ` +
      `${summary.unstable} unstable, ${summary.errors} errors; identical or near: ${pct(summary.identicalOrNear)} of stable pages`,
  );
  const unstableRows = rows.filter((r) => r.unstable);
  if (unstableRows.length) console.log(`unstable (ours vs Playwright's first shot): ${unstableRows.map((r) => `${r.page} ${r.verdict}`).join(', ')}`);
  if (opts.json) fs.writeFileSync(opts.json, JSON.stringify({ ...fidelityTable(opts, summary), summary, rows }, null, 2));
}

/**
 * The run's figures in the format of bench/lib/results.js, beside the summary and the rows:
 * one table row, named after the corpus and the options that change the shots, so runs over
 * several corpora fill one table of docs/benchmarks.md (a marker may name several tables).
 */
function fidelityTable(opts, summary) {
  const corpus = opts.inputs.length ? opts.inputs.map((input) => path.relative(process.cwd(), input) || '.').join(' ') : 'bench/pixel-corpus';
  // Each option that changes the shots: [its part of the table's name, how the row names it].
  const variant = [
    opts.base.devicePixelRatio !== DEFAULT_VIEWPORT.devicePixelRatio && [`dpr${opts.base.devicePixelRatio}`, `--dpr ${opts.base.devicePixelRatio}`],
    opts.base.colorScheme !== DEFAULT_VIEWPORT.colorScheme && [opts.base.colorScheme, `--scheme ${opts.base.colorScheme}`],
    opts.delayMs && [`delay${opts.delayMs}`, `--delay ${opts.delayMs}`],
    opts.waitMs && [`wait${opts.waitMs}`, `--wait ${opts.waitMs}`],
    opts.networkIdle && ['network-idle', '--network-idle'],
    opts.match && ['match', `--match ${opts.match.source}`],
    Number.isFinite(opts.limit) && [`limit${opts.limit}`, `--limit ${opts.limit}`],
  ].filter(Boolean);
  const name = ['pixel-fidelity', ...corpus.split(/[\s/]+/).slice(-1), ...variant.map(([part]) => part)].join('-').replace(/[^\w-]+/g, '-');
  const argv = process.argv.slice(2);
  return {
    format: results.FORMAT,
    bench: 'pixel-fidelity',
    command: results.commandOf(__filename, argv),
    date: new Date().toISOString(),
    engine: `both sides on ${label(summary.engine)}`,
    machine: `${os.cpus().length} cores, Node ${process.versions.node}`,
    source: 'run',
    tables: {
      [name]: {
        columns: ['corpus', 'pages', 'stable', 'identical', 'near', 'different', 'unstable', 'errors', 'identical or near, of stable'],
        rows: [
          [
            variant.length ? `${corpus} (${variant.map(([, flag]) => flag).join(' ')})` : corpus,
            summary.pages,
            summary.stable,
            summary.identical,
            summary.near,
            summary.different,
            summary.unstable,
            summary.errors,
            summary.identicalOrNear === null ? '—' : `${(summary.identicalOrNear * 100).toFixed(1).replace(/\.0$/, '')}%`,
          ],
        ],
      },
    },
  };
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
