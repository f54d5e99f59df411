#!/usr/bin/env node
/**
 * Bulk capture throughput: 100 screenshot captures of varied local pages.
 *
 * 1. The runner (`design-playbook-evidence run PLAN.jsonl --parallel 4`, the
 *    built bin as a child process) on one browser, against a Playwright
 *    script with a worker pool of 4 on one warm browser doing the original
 *    adapter's per-capture steps (new context at the viewport -> goto
 *    DOMContentLoaded -> freeze style -> fonts.ready -> full-page PNG ->
 *    read data-state). The runner is timed twice: attached to a warm
 *    Chromium (--browser-url, like the peer's warm browser) and launching its
 *    own (the launch is inside its time). Ours also runs the render-token
 *    probe and writes its sidecar and the PNG through the safe write; the
 *    peer only writes the PNG. Rounds interleave the drivers so machine load
 *    hits them alike; captures/s is 100 / the run's seconds (the runner's
 *    own summary, the peer's wall clock from first dispatch to last file).
 * 2. Scaling: the runner over 1, 2 and 3 local Chromium processes (started
 *    here with --remote-debugging-port=0, attached with repeated
 *    --browser-url) at --parallel 2 each.
 *
 * Engines (bench/lib/engines.js): the runner launching its own browser uses
 * the runtime's default (a headless shell when installed) and, for a
 * same-engine row, the full browser named explicitly; the Playwright pool runs
 * on the full browser (as the guide points it) and, when installed, on the
 * headless shell (the engine Playwright itself uses for headless). Every
 * runner row is reported against both peers.
 *
 * Run after `npm run build`:
 *   node bench/batch.js [--captures 100] [--rounds 2] [--skip-peer] [--skip-scaling] [--pool-engine full|shell] [--floor] [--json OUT.json]
 *
 * --floor adds the floor to the rounds: a bare Puppeteer pool of 4 on one warm browser of the runtime's
 * engine and launch flags, doing only what no capture can skip (a fresh context, the load, the full-page
 * PNG written), without the freeze, the probe, the observed state or the safe write (runFloorPool).
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');
const { spawn } = require('child_process');
const { performance } = require('perf_hooks');

const engines = require('./lib/engines');
const results = require('./lib/results');

const CHROMIUM = engines.FULL;
/** The engines the Playwright peer and the pool browsers run on: [key, executable]. */
const ENGINES = [['full', CHROMIUM], ...(engines.SHELL ? [['shell', engines.SHELL]] : [])];
const ARGS = [...engines.BENCH_ARGS, '--disable-dev-shm-usage'];
const BIN = path.join(__dirname, '..', 'dist', 'src', 'bin.js');
const VIEWPORT = { width: 1280, height: 800, devicePixelRatio: 1, colorScheme: 'light' };
// The original adapter's freeze sheet, as the pixel differential's Playwright side adds it.
const { FREEZE_CSS } = require('./lib/pixelDiff');

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : fallback;
};
const CAPTURES = option('captures', 100);
// --json OUT: the figures as tables (bench/lib/results.js), for scripts/benchmark-tables.js.
const JSON_OUT = results.jsonOutPath(argv);
/** The issue's target: the runner on one browser at --parallel 4 at least this many times the Playwright pool's throughput. */
const TARGET_RATIO = 1.5;
const ROUNDS = option('rounds', 2);

/** Page i of the corpus: cards, a table, a chart, a form, in varied amounts, heights and colours. */
function pageHtml(i) {
  const hue = (i * 47) % 360;
  const cards = 2 + (i % 9);
  const rows = (i * 7) % 23;
  const radius = [0, 4, 8, 12, 20][i % 5];
  const dark = i % 4 === 3;
  const bars = Array.from(
    { length: 6 + (i % 7) },
    (_, b) =>
      `<rect x="${b * 34}" y="${120 - ((b * 37 + i * 13) % 110)}" width="26" height="${(b * 37 + i * 13) % 110}" fill="hsl(${(hue + b * 20) % 360} 60% 50%)"/>`,
  ).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Page ${i}</title>
<style>
body{font:${14 + (i % 4) * 2}px system-ui, sans-serif;margin:0;background:${dark ? '#16181d' : '#f5f5f5'};color:${dark ? '#e8e8e8' : '#1a1a1a'}}
header{background:hsl(${hue} 55% ${dark ? 25 : 92}%);padding:16px 24px} h1{font-size:${20 + (i % 3) * 4}px;margin:0}
main{max-width:${640 + (i % 3) * 160}px;margin:24px auto;padding:0 24px;display:grid;grid-template-columns:repeat(${1 + (i % 3)},1fr);gap:12px}
.card{background:${dark ? '#22252c' : '#fff'};border-radius:${radius}px;padding:16px;box-shadow:0 1px 3px rgba(0,0,0,.15)}
button{border:0;border-radius:${Math.max(2, radius / 2)}px;background:hsl(${hue} 70% 40%);color:#fff;padding:8px 16px;font:inherit}
table{border-collapse:collapse;width:100%;grid-column:1/-1} td,th{border-bottom:1px solid #ccc;padding:6px;text-align:left}
</style></head>
<body data-state="page-${i}"><header><h1>Screen ${i}: ${['Settings', 'Orders', 'Profile', 'Reports', 'Inbox'][i % 5]}</h1></header>
<main>
${Array.from({ length: cards }, (_, c) => `<section class="card"><h2>Card ${c + 1}</h2><p>${'Text that wraps over a few lines of the card. '.repeat(1 + ((i + c) % 4))}</p><button>Action ${c + 1}</button></section>`).join('\n')}
<section class="card"><svg width="240" height="120" role="img" aria-label="chart ${i}">${bars}</svg></section>
<form class="card"><label>Name <input value="user ${i}"></label><label><input type="checkbox" ${i % 2 ? 'checked' : ''}> Remember</label>
<select><option>One</option><option ${i % 3 ? 'selected' : ''}>Two</option></select></form>
${rows ? `<table><tr><th>Item</th><th>Qty</th><th>Price</th></tr>${Array.from({ length: rows }, (_, r) => `<tr><td>Item ${r + 1}</td><td>${(r * 3 + i) % 17}</td><td>${((r + 1) * 9.5).toFixed(2)}</td></tr>`).join('')}</table>` : ''}
</main></body></html>`;
}

function serve() {
  const server = http.createServer((req, res) => {
    const i = Number((/^\/p(\d+)\.html/.exec(req.url || '') || [])[1]);
    if (!Number.isInteger(i)) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(pageHtml(i));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** A Chromium anyone could run for remote debugging; the port comes from DevToolsActivePort. */
async function startChromium(executable = CHROMIUM) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-bench-browser-'));
  const child = spawn(executable, [...ARGS, '--headless', '--remote-debugging-port=0', `--user-data-dir=${profile}`, 'about:blank'], {
    stdio: 'ignore',
    detached: true,
  });
  const file = path.join(profile, 'DevToolsActivePort');
  const deadline = Date.now() + 30_000;
  while (!(fs.existsSync(file) && fs.readFileSync(file, 'utf8').split('\n').length >= 2)) {
    if (Date.now() > deadline) throw new Error('Chromium did not write DevToolsActivePort');
    await new Promise((r) => setTimeout(r, 50));
  }
  const port = Number(fs.readFileSync(file, 'utf8').split('\n')[0]);
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        // Its own process group: the renderers go with it, so the profile is free to remove.
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
        await exited;
      }
      fs.rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    },
  };
}

function runRoot(label) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `dpe-bench-batch-${label}-`));
  fs.writeFileSync(path.join(root, 'plan.md'), '# bench\n');
  return root;
}

let lastStderr = '';

/** The runner over a fresh run folder; returns its summary. */
async function runRunner(origin, { parallel, browserUrls = [], label, executablePath, bin = BIN }) {
  const root = runRoot(label);
  const plan = path.join(root, 'plan.jsonl');
  const lines = Array.from({ length: CAPTURES }, (_, i) =>
    JSON.stringify({
      schemaVersion: 1,
      url: `${origin}/p${i}.html`,
      type: 'screenshot',
      state: `page-${i}`,
      artifact_path: `evidence/p${i}.png`,
      viewport: { ...VIEWPORT, colorScheme: i % 4 === 3 ? 'dark' : 'light' },
    }),
  );
  fs.writeFileSync(plan, lines.join('\n') + '\n');
  const args = [bin, 'run', plan, '--run-root', root, '--parallel', String(parallel), ...browserUrls.flatMap((u) => ['--browser-url', u])];
  // No path named: the runtime's own choice of browser, as a user gets it.
  const env = engines.unnamedEnv();
  delete env.DESIGN_PLAYBOOK_CDP_URL;
  if (executablePath) env.DESIGN_PLAYBOOK_CHROME_PATH = executablePath;
  const out = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (code) => {
      lastStderr = stderr
        .split(/\r|\n/)
        .filter((l) => l && !/^\[design-playbook-evidence\] \d+\/\d+/.test(l))
        .slice(-40)
        .join('\n');
      if (code === 0) resolve(stdout);
      else reject(new Error(`runner exited ${code}: ${stderr.slice(-2000)}`));
    });
  });
  if (process.env.BENCH_SHOW_STDERR) process.stderr.write(`--- ${label} stderr ---\n${lastStderr}\n`);
  const lastLine = out.trim().split('\n').pop();
  const { summary } = JSON.parse(lastLine);
  const written = fs.readdirSync(path.join(root, 'evidence')).filter((f) => f.endsWith('.png')).length;
  fs.rmSync(root, { recursive: true, force: true });
  if (summary.captured !== CAPTURES || written !== CAPTURES) throw new Error(`${label}: ${summary.captured} captured, ${written} PNGs`);
  return summary.seconds;
}

/**
 * Times CAPTURES captures by `workers` workers taking the next page index in
 * turn; `captureOne(i, dir)` writes page i's PNG into a scratch folder,
 * removed afterwards. Returns the seconds from first dispatch to last file.
 */
async function timePool(prefix, workers, captureOne) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (next < CAPTURES) await captureOne(next++, dir);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  fs.rmSync(dir, { recursive: true, force: true });
  return seconds;
}

/** The peer: a pool of 4 workers on one warm Playwright browser, the original adapter's steps per capture. */
function runPlaywright(browser, origin, workers) {
  return timePool('dpe-bench-batch-pw-', workers, async (i, dir) => {
    const context = await browser.newContext({
      viewport: { width: VIEWPORT.width, height: VIEWPORT.height },
      deviceScaleFactor: VIEWPORT.devicePixelRatio,
      colorScheme: i % 4 === 3 ? 'dark' : 'light',
    });
    try {
      const page = await context.newPage();
      await page.goto(`${origin}/p${i}.html`, { waitUntil: 'domcontentloaded', timeout: 30000 });
      await page.addStyleTag({ content: FREEZE_CSS });
      await page.evaluate(() => document.fonts.ready);
      fs.writeFileSync(path.join(dir, `p${i}.png`), await page.screenshot({ fullPage: true, type: 'png' }));
      await page.evaluate(() => document.body.getAttribute('data-state'));
    } finally {
      await context.close();
    }
  });
}

/** The floor (--floor): a bare Puppeteer pool of 4 workers on `browser`, each capture a fresh context, the load and the PNG. */
function runFloorPool(browser, origin, workers) {
  return timePool('dpe-bench-batch-floor-', workers, async (i, dir) => {
    const { context, page } = await engines.openFloorPage(browser, VIEWPORT);
    try {
      if (i % 4 === 3) await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
      fs.writeFileSync(path.join(dir, `p${i}.png`), await engines.floorLoad(page, `${origin}/p${i}.html`, { shot: true }));
    } finally {
      await context.close();
    }
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const rate = (seconds) => CAPTURES / seconds;
/** An engine's name without its path, for a table's headings. */
const engineName = (exe) => engines.label(exe).replace(/ \(.*\)$/, '');

async function main() {
  if (!fs.existsSync(BIN)) throw new Error('run `npm run build` first');
  const server = await serve();
  const origin = `http://127.0.0.1:${server.address().port}`;
  console.log(
    `bench/batch.js: ${CAPTURES} screenshot captures of varied pages, ${ROUNDS} round(s), ${os.cpus().length} cores, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const browsers = [];
  const tables = {};
  try {
    if (!argv.includes('--skip-peer')) {
      const { chromium } = require('playwright-core');
      const ours = engines.runtimeDefault();
      // --same-engine: only the engine the runtime launches, on both sides (the issue's comparison).
      const sameEngine = argv.includes('--same-engine');
      const peers = sameEngine ? ENGINES.filter(([, exe]) => exe === ours) : ENGINES;
      const runners = [
        ['default', `runner, launching its default browser, ${engines.label(ours)}`, { executablePath: undefined }],
        ...(ours !== CHROMIUM && !sameEngine ? [['full', `runner, launching the full browser named (${CHROMIUM})`, { executablePath: CHROMIUM }]] : []),
      ];
      // --bin PATH: the same runner from another build (an earlier checkout's dist/src/bin.js), to compare builds in one run.
      if (argv.includes('--bin')) {
        const other = path.resolve(argv[argv.indexOf('--bin') + 1]);
        runners.push(['other-build', `runner from ${other}, launching its default browser`, { executablePath: undefined, bin: other }]);
      }
      if (!sameEngine) {
        const warm = await startChromium();
        browsers.push(warm);
        runners.push(['attached', `runner, attached to a warm full browser (--browser-url)`, { browserUrls: [warm.url] }]);
      }
      if (engines.SHELL) {
        const warmShell = await startChromium(engines.SHELL);
        browsers.push(warmShell);
        runners.push(['attached-shell', `runner, attached to a warm headless shell (--browser-url)`, { browserUrls: [warmShell.url] }]);
      }
      const peerBrowsers = {};
      for (const [key, exe] of peers) peerBrowsers[key] = await chromium.launch({ executablePath: exe, args: ARGS, headless: true });
      const times = {};
      for (const [key] of peers) times[`peer-${key}`] = [];
      for (const [key] of runners) times[key] = [];
      // --floor: bare Puppeteer on the runtime's engine with the runtime's launch flags.
      let floorBrowser = null;
      if (argv.includes('--floor')) {
        floorBrowser = await engines.launchFloorBrowser(ours);
        times.floor = [];
      }
      try {
        // Warm-up: one untimed pass of each peer.
        for (const [key] of peers) await runPlaywright(peerBrowsers[key], origin, 4).catch(() => undefined);
        if (floorBrowser) await runFloorPool(floorBrowser, origin, 4);
        for (let round = 0; round < ROUNDS; round++) {
          const line = [];
          for (const [key] of peers) {
            times[`peer-${key}`].push(await runPlaywright(peerBrowsers[key], origin, 4));
            line.push(`playwright ${key} ${rate(times[`peer-${key}`].at(-1)).toFixed(2)}/s`);
          }
          if (floorBrowser) {
            times.floor.push(await runFloorPool(floorBrowser, origin, 4));
            line.push(`floor ${rate(times.floor.at(-1)).toFixed(2)}/s`);
          }
          for (const [key, , options] of runners) {
            times[key].push(await runRunner(origin, { parallel: 4, label: key, ...options }));
            line.push(`runner ${key} ${rate(times[key].at(-1)).toFixed(2)}/s`);
          }
          console.log(`  round ${round + 1}: ${line.join(', ')}`);
        }
      } finally {
        for (const b of Object.values(peerBrowsers)) await b.close();
        await floorBrowser?.close();
      }
      console.log(`\none browser, 4 at once (median of ${ROUNDS}):`);
      for (const [key, exe] of peers)
        console.log(`  Playwright worker pool of 4, warm browser, ${engines.label(exe)}: ${rate(median(times[`peer-${key}`])).toFixed(2)} captures/s`);
      const verdicts = [];
      for (const [key, label] of runners) {
        const ours = rate(median(times[key]));
        const ratios = peers.map(([peer]) => `${(ours / rate(median(times[`peer-${peer}`]))).toFixed(2)}x Playwright on the ${peer} browser`);
        console.log(`  ${label}: ${ours.toFixed(2)} captures/s = ${ratios.join(', ')}`);
      }
      if (times.floor) {
        const floor = rate(median(times.floor));
        const ratios = peers.map(([peer]) => `${(floor / rate(median(times[`peer-${peer}`]))).toFixed(2)}x Playwright on the ${peer} browser`);
        console.log(
          `  floor: bare Puppeteer pool of 4, warm ${engines.label(ours)}, the load and the PNG only: ${floor.toFixed(2)} captures/s = ${ratios.join(', ')}`,
        );
      }
      // The target is against the Playwright pool on the engine the runner itself ran.
      const engineOf = (key) => (key === 'full' || key === 'attached' ? 'full' : engines.SHELL && ours === engines.SHELL ? 'shell' : 'full');
      for (const [key] of runners) {
        const peer = peers.some(([k]) => k === engineOf(key)) ? engineOf(key) : peers[0][0];
        const ratio = rate(median(times[key])) / rate(median(times[`peer-${peer}`]));
        verdicts.push(`${key} ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'} (${ratio.toFixed(2)}x the ${peer} pool)`);
      }
      console.log(`target ${TARGET_RATIO}x the Playwright pool on the same engine: ${verdicts.join(', ')}`);
      const peerRate = (peer) => rate(median(times[`peer-${peer}`]));
      const against = (key) => peers.map(([peer]) => results.pair(rate(median(times[key])), peerRate(peer), 'captures/s'));
      tables.bulk = {
        caption: `${CAPTURES} screenshot captures of varied local pages, 4 at once on one browser, median of ${ROUNDS} round(s) interleaved; ours / the pool's (> 1: ours faster)`,
        columns: ['driver', ...peers.map(([, exe]) => `against the Playwright pool on the ${engineName(exe)}`)],
        rows: [
          ...peers.map(([key, exe]) => [
            `Playwright worker pool of 4, warm ${engineName(exe)}`,
            ...peers.map(([peer]) => (peer === key ? { value: Math.round(peerRate(key) * 100) / 100, unit: 'captures/s' } : '—')),
          ]),
          ...runners.map(([key, label]) => [label.replace(/ \(\/[^)]*\)/g, ''), ...against(key)]),
          ...(times.floor ? [[`floor: bare Puppeteer pool of 4, warm ${engineName(ours)}, the load and the PNG only`, ...against('floor')]] : []),
        ],
      };
    }
    if (!argv.includes('--skip-scaling')) {
      const only = argv.includes('--pool-engine') ? argv[argv.indexOf('--pool-engine') + 1] : null;
      const poolEngines = ENGINES.filter(([engine]) => !only || engine === only);
      for (const [engine, exe] of poolEngines) {
        const pool = [];
        try {
          while (pool.length < 3) pool.push(await startChromium(exe));
          const curve = [];
          for (let n = 1; n <= 3; n++) {
            const runs = [];
            for (let round = 0; round < ROUNDS; round++)
              runs.push(await runRunner(origin, { parallel: 2, browserUrls: pool.slice(0, n).map((b) => b.url), label: `pool${n}` }));
            curve.push(rate(median(runs)));
            console.log(
              `  ${engine} browsers, ${n} x --parallel 2: ${curve.at(-1).toFixed(2)} captures/s (${(curve.at(-1) / curve[0]).toFixed(2)}x one browser)`,
            );
          }
          console.log(`scaling at --parallel 2 per browser, ${engines.label(exe)}: ${curve.map((r, i) => `${i + 1}: ${r.toFixed(2)}/s`).join(', ')}\n`);
          const scaling = (tables['bulk-scaling'] ??= {
            caption: `the runner at --parallel 2 per browser over local browsers attached with repeated --browser-url, ${CAPTURES} captures, median of ${ROUNDS} round(s)`,
            columns: ['browsers'],
            rows: [['1'], ['2'], ['3']],
          });
          scaling.columns.push(engineName(exe));
          curve.forEach((r, i) => scaling.rows[i].push({ value: Math.round(r * 100) / 100, unit: 'captures/s' }));
        } finally {
          for (const b of pool) await b.stop();
        }
      }
    }
    results.writeResults(JSON_OUT, __filename, argv, {
      bench: 'batch',
      engine: `the runner's default browser, ${engines.label(engines.runtimeDefault())}`,
      tables,
    });
  } finally {
    for (const b of browsers) await b.stop();
    server.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
