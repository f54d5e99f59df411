#!/usr/bin/env node
/**
 * Browser CPU per screenshot capture, which bounds bulk throughput on a busy
 * machine: our built provider in-process (frozen, the default, and with
 * freeze.enabled false) against Playwright's per-capture steps (new context,
 * goto DOMContentLoaded, freeze style tag, fonts.ready, full-page PNG, read
 * data-state), and the floor: bare Puppeteer on the runtime's launch flags doing
 * only a fresh context, the load and the full-page PNG (what no capture can
 * skip; bench/speed.js --floor). All on the executable the runtime launches,
 * the same card page, N sequential captures per driver, drivers alternating.
 * CPU is read from /proc for each browser's process tree (bench/lib/procMemory.js), so it
 * stays meaningful while other work shares the machine. Node's own CPU is
 * this process's (both drivers run in it).
 *
 * Run after `npm run build`: node bench/cpu.js [captures per driver, default 20] [--json OUT.json]
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');
const { execFileSync } = require('child_process');
const { chromium } = require('playwright-core');
const { treeCpuMs } = require('./lib/procMemory');
const engines = require('./lib/engines');
const results = require('./lib/results');
const { PuppeteerCaptureProvider } = require('../dist/src/browser/capture/puppeteerProvider.js');
const { planCapture } = require('../dist/src/boundary/index.js');

const ARGV = process.argv.slice(2);
// --json OUT: the figures as a table (bench/lib/results.js), for scripts/benchmark-tables.js.
const JSON_OUT = results.jsonOutPath(ARGV);
const N = Number(ARGV.find((a, i) => /^\d+$/.test(a) && ARGV[i - 1] !== '--json') || 20);
const EXECUTABLE = process.env.DESIGN_PLAYBOOK_CHROME_PATH || engines.runtimeDefault();
const ARGS = engines.BENCH_ARGS;
const VIEWPORT = { width: 1280, height: 800, devicePixelRatio: 1, colorScheme: 'light' };
// The original adapter's freeze sheet, as the pixel differential's Playwright side adds it.
const { FREEZE_CSS } = require('./lib/pixelDiff');
const CARDS = `<!doctype html><html><head><meta charset="utf-8"><title>bench</title>
<style>body{font:16px system-ui;margin:0;background:#f5f5f5} .card{background:#fff;border-radius:12px;padding:20px;margin:12px auto;max-width:640px}</style></head>
<body data-state="ready"><h1>Bench page</h1>${Array.from({ length: 8 }, (_, i) => `<section class="card"><h2>Card ${i + 1}</h2><p>Some text for card ${i + 1}, long enough to wrap a line or two.</p><button>Action</button></section>`).join('')}</body></html>`;

/** The browser processes this process started (their trees hold the renderers). */
const browserRoots = () =>
  execFileSync('pgrep', ['-P', String(process.pid)])
    .toString()
    .trim()
    .split('\n')
    .map(Number)
    .filter((pid) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(path.basename(EXECUTABLE)));

(async () => {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(CARDS);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/`;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-bench-cpu-'));
  fs.writeFileSync(path.join(root, 'plan.md'), '# bench\n');
  const provider = new PuppeteerCaptureProvider({ env: { ...process.env, DESIGN_PLAYBOOK_CHROME_PATH: EXECUTABLE } });
  let n = 0;
  const ours = (enabled) => async () => {
    const plan = planCapture({
      schemaVersion: 1,
      url,
      type: 'screenshot',
      state: 'ready',
      artifact_path: `evidence/${n++}.png`,
      viewport: VIEWPORT,
      run_root: root,
      freeze: { enabled },
    });
    await provider.captureWithinLimits(plan.fields, plan.request, {});
  };
  const pw = await chromium.launch({ executablePath: EXECUTABLE, args: ARGS });
  const peer = async () => {
    const context = await pw.newContext({ viewport: { width: VIEWPORT.width, height: VIEWPORT.height }, deviceScaleFactor: 1, colorScheme: 'light' });
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'domcontentloaded' });
    await page.addStyleTag({ content: FREEZE_CSS });
    await page.evaluate(() => document.fonts.ready);
    await page.screenshot({ fullPage: true });
    await page.evaluate(() => document.body.getAttribute('data-state'));
    await context.close();
  };
  const bare = await engines.launchFloorBrowser(EXECUTABLE);
  const floor = async () => {
    const { context, page } = await engines.openFloorPage(bare, VIEWPORT);
    await engines.floorLoad(page, url, { shot: true });
    await context.close();
  };
  try {
    await ours(true)();
    await peer();
    await floor();
    const roots = browserRoots();
    const cpu = () => roots.reduce((sum, pid) => sum + treeCpuMs(pid), 0);
    const totals = {};
    const drivers = [
      ['ours, frozen (default)', ours(true)],
      ['ours, freeze.enabled false', ours(false)],
      ['playwright', peer],
      ['floor: bare Puppeteer', floor],
    ];
    for (let round = 0; round < 2; round++) {
      for (const [name, fn] of drivers) {
        const before = cpu();
        const node = process.cpuUsage();
        for (let i = 0; i < N; i++) await fn();
        await new Promise((resolve) => setTimeout(resolve, 500)); // the last context's close is counted too
        const used = process.cpuUsage(node);
        (totals[name] ??= []).push({ browser: (cpu() - before) / N, node: (used.user + used.system) / 1000 / N });
      }
    }
    console.log(`${engines.label(EXECUTABLE)}, ${N} captures per driver, 2 rounds; browser CPU per capture (all browsers' trees), node CPU per capture:`);
    const mean = (rows, key) => rows.reduce((s, r) => s + r[key], 0) / rows.length;
    for (const [name, rows] of Object.entries(totals))
      console.log(`  ${name.padEnd(28)} browser ${mean(rows, 'browser').toFixed(0)} ms  node ${mean(rows, 'node').toFixed(0)} ms`);
    const ratio = mean(totals['ours, frozen (default)'], 'browser') / mean(totals.playwright, 'browser');
    console.log(`ratio ours / playwright, browser CPU: ${ratio.toFixed(2)}`);
    const label = {
      'ours, frozen (default)': 'ours, frozen (the default)',
      'ours, freeze.enabled false': 'ours, `freeze.enabled: false`',
      playwright: "Playwright's steps",
    };
    results.writeResults(JSON_OUT, __filename, ARGV, {
      bench: 'cpu',
      engine: engines.label(EXECUTABLE),
      tables: {
        'cpu-per-capture': {
          caption: `CPU per screenshot capture of the card page, ${N} captures per driver in a row, twice, drivers taking turns; Chromium: every process of the browser's tree`,
          columns: ['driver', 'Chromium (all processes)', 'Node'],
          rows: Object.entries(totals).map(([name, rows]) => [
            label[name] ?? name,
            { value: Math.round(mean(rows, 'browser')), unit: 'ms' },
            { value: Math.round(mean(rows, 'node')), unit: 'ms' },
          ]),
        },
      },
    });
  } finally {
    await pw.close();
    await bare.close();
    await provider.close();
    server.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
