#!/usr/bin/env node
/**
 * What deterministic evidence costs, and what it buys. One run, rounds
 * interleaved so machine load hits every driver alike, two pages:
 *   - "static": the card page bench/capture.js uses (nothing moves);
 *   - "motion": a requestAnimationFrame canvas, an elapsed-time text, a
 *     setInterval clock and Math.random tiles.
 * Drivers, each a full screenshot capture of the page:
 *   - ours, frozen (the default): virtual clock + freeze sheet + fonts, with
 *     DESIGN_PLAYBOOK_FIXED_TIME set — through the built server and the MCP SDK client;
 *   - ours, freeze.enabled false: no clock, no sheet, no fonts wait (the
 *     determinism's cost is the difference, an upper bound);
 *   - Playwright, warm browser: new context, goto, freeze style tag, fonts, PNG
 *     (what the original adapter did; no determinism);
 *   - Playwright with its clock: the same plus context.clock.install at the
 *     fixed instant, paused before the load, runFor(100) after it — the peer's hand-driven clock.
 *   - optionally, a build without the virtual clock (DETERMINISM_BASELINE_BIN=
 *     <that checkout>/dist/src/bin.js), frozen: the determinism's true cost is
 *     ours frozen vs that, same run.
 * Prints medians, the determinism's cost, and how many distinct PNGs each
 * driver wrote per page.
 *
 * Run after `npm run build`: node bench/determinism.js [rounds, default 8]
 */
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');
const { performance } = require('perf_hooks');
const { chromium } = require('playwright-core');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport, getDefaultEnvironment } = require('@modelcontextprotocol/sdk/client/stdio.js');
const engines = require('./lib/engines');

/** Both sides on one executable: DESIGN_PLAYBOOK_CHROME_PATH, else the one the runtime launches (the headless shell when installed). */
const CHROMIUM = process.env.DESIGN_PLAYBOOK_CHROME_PATH || engines.runtimeDefault();
console.log(`executable (both sides): ${engines.label(CHROMIUM)}`);
const ARGS = engines.BENCH_ARGS;
const ROUNDS = Number(process.argv[2] || 8);
const BIN = path.join(__dirname, '..', 'dist', 'src', 'bin.js');
const VIEWPORT = { width: 1280, height: 800, devicePixelRatio: 1, colorScheme: 'light' };
const FIXED = '2026-01-01T09:00:00Z';
// The original adapter's freeze sheet, as the pixel differential's Playwright side adds it.
const { FREEZE_CSS } = require('./lib/pixelDiff');

const STATIC = `<!doctype html><html><head><meta charset="utf-8"><title>bench</title>
<style>body{font:16px system-ui;margin:0;background:#f5f5f5;color:#1a1a1a} header{background:#fff;padding:16px 24px}
h1{font-size:24px;margin:0} main{max-width:640px;margin:24px auto;padding:0 24px} .card{background:#fff;border-radius:12px;padding:20px;margin:12px 0}
button{border:0;border-radius:8px;background:#0b6bcb;color:#fff;padding:8px 16px;font:inherit}</style></head>
<body data-state="ready"><header><h1>Bench page</h1></header><main>
${Array.from({ length: 8 }, (_, i) => `<section class="card"><h2>Card ${i + 1}</h2><p>Some text for card ${i + 1}, long enough to wrap a line or two in the layout.</p><button>Action ${i + 1}</button></section>`).join('\n')}
</main></body></html>`;

const MOTION = `<!doctype html><html><head><meta charset="utf-8"><title>motion</title>
<style>body{font:16px system-ui;margin:16px} #tiles{display:grid;grid-template-columns:repeat(16,24px);gap:2px} #tiles div{height:24px}</style></head>
<body data-state="ready"><h1>Dashboard</h1><canvas id="c" width="240" height="120"></canvas>
<p>Elapsed <span id="e"></span> ms · updated <time id="t"></time> · ticks <output id="k">0</output></p><div id="tiles"></div>
<script>
const ctx = document.getElementById('c').getContext('2d'); const t0 = performance.now();
(function draw(now) { ctx.clearRect(0, 0, 240, 120); ctx.fillStyle = '#0b6bcb'; ctx.fillRect(((now - t0) / 3) % 240, 40, 30, 30);
  document.getElementById('e').textContent = Math.round(now - t0); requestAnimationFrame(draw); })(t0);
let k = 0; setInterval(() => { document.getElementById('k').textContent = ++k; document.getElementById('t').textContent = new Date().toISOString(); }, 20);
for (let i = 0; i < 64; i++) { const d = document.createElement('div'); d.style.background = 'hsl(' + Math.floor(Math.random() * 360) + ',60%,55%)'; document.getElementById('tiles').appendChild(d); }
</script></body></html>`;

function serve() {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(req.url.startsWith('/motion') ? MOTION : STATIC);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const hash = (file) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

async function playwrightCapture(browser, url, file, withClock) {
  const context = await browser.newContext({
    viewport: { width: VIEWPORT.width, height: VIEWPORT.height },
    deviceScaleFactor: VIEWPORT.devicePixelRatio,
    colorScheme: VIEWPORT.colorScheme,
  });
  try {
    if (withClock) {
      // Paused before the page loads, so the load itself does not race the peer's clock.
      await context.clock.install({ time: new Date(FIXED) });
      await context.clock.pauseAt(new Date(Date.parse(FIXED) + 1000));
    }
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 30000 });
    if (withClock) await page.clock.runFor(100);
    await page.addStyleTag({ content: FREEZE_CSS });
    await page.evaluate(() => document.fonts.ready);
    fs.writeFileSync(file, await page.screenshot({ fullPage: true, type: 'png' }));
  } finally {
    await context.close();
  }
}

async function main() {
  if (!fs.existsSync(BIN)) throw new Error('run `npm run build` first');
  const server = await serve();
  const origin = `http://127.0.0.1:${server.address().port}`;
  const runRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-bench-determinism-'));
  fs.writeFileSync(path.join(runRoot, 'plan.md'), '# bench\n');
  const peerDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-bench-determinism-peer-'));

  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN],
    env: { ...getDefaultEnvironment(), DESIGN_PLAYBOOK_CHROME_PATH: CHROMIUM, DESIGN_PLAYBOOK_FIXED_TIME: FIXED },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  const baselineBin = process.env.DETERMINISM_BASELINE_BIN;
  let baseline = null;
  if (baselineBin) {
    baseline = new Client({ name: 'bench-baseline', version: '1' });
    await baseline.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [baselineBin],
        env: { ...getDefaultEnvironment(), DESIGN_PLAYBOOK_CHROME_PATH: CHROMIUM },
        stderr: 'ignore',
      }),
    );
  }
  let n = 0;
  const ours =
    (enabled, via = client) =>
    async (page) => {
      const file = `evidence/${page}-${enabled ? 'frozen' : 'unfrozen'}-${n++}.png`;
      const result = await via.callTool(
        {
          name: 'execute_capture_plan',
          arguments: {
            schemaVersion: 1,
            url: `${origin}/${page}`,
            type: 'screenshot',
            state: 'ready',
            artifact_path: file,
            viewport: VIEWPORT,
            run_root: runRoot,
            freeze: { enabled },
          },
        },
        undefined,
        { timeout: 120000 },
      );
      const payload = result.structuredContent;
      if (!payload || payload.result !== 'captured') throw new Error(`our capture failed: ${JSON.stringify(result.content)}`);
      return payload.written_path;
    };
  const warmBrowser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  const peer = (withClock) => async (page) => {
    const file = path.join(peerDir, `${page}-${withClock ? 'clock' : 'plain'}-${n++}.png`);
    await playwrightCapture(warmBrowser, `${origin}/${page}`, file, withClock);
    return file;
  };
  const drivers = {
    'ours, frozen (virtual clock)': ours(true),
    'ours, freeze.enabled false': ours(false),
    'playwright, warm, freeze sheet': peer(false),
    'playwright, warm, + its clock': peer(true),
  };
  if (baseline) drivers['baseline build (no clock), frozen'] = ours(true, baseline);

  const times = {};
  const hashes = {};
  for (const page of ['static', 'motion']) {
    for (const name of Object.keys(drivers)) await drivers[name](page); // untimed warm-up (ours launches its browser)
    for (let i = 0; i < ROUNDS; i++) {
      for (const [name, run] of Object.entries(drivers)) {
        const t = performance.now();
        const file = await run(page);
        ((times[page] ??= {})[name] ??= []).push(performance.now() - t);
        ((hashes[page] ??= {})[name] ??= new Set()).add(hash(file));
      }
    }
  }
  await warmBrowser.close();
  await client.close();
  await baseline?.close();
  server.close();
  fs.rmSync(runRoot, { recursive: true, force: true });
  fs.rmSync(peerDir, { recursive: true, force: true });

  console.log(
    `rounds: ${ROUNDS} per page (interleaved), ${VIEWPORT.width}x${VIEWPORT.height}@${VIEWPORT.devicePixelRatio}, load ${os.loadavg()[0].toFixed(1)}`,
  );
  for (const page of Object.keys(times)) {
    console.log(`\n${page} page`);
    for (const name of Object.keys(drivers)) {
      const t = times[page][name];
      console.log(`  ${name.padEnd(32)} median ${median(t).toFixed(0).padStart(5)} ms   distinct PNGs ${hashes[page][name].size}/${ROUNDS}`);
    }
    const frozen = median(times[page]['ours, frozen (virtual clock)']);
    const unfrozen = median(times[page]['ours, freeze.enabled false']);
    const peerClock = median(times[page]['playwright, warm, + its clock']);
    console.log(`  frozen vs freeze.enabled false: ${(((frozen - unfrozen) / unfrozen) * 100).toFixed(1)}%`);
    if (baseline) {
      const before = median(times[page]['baseline build (no clock), frozen']);
      console.log(`  determinism cost (frozen, virtual clock vs the build without it): ${(((frozen - before) / before) * 100).toFixed(1)}%`);
    }
    console.log(`  ratio playwright-with-clock / ours frozen: ${(peerClock / frozen).toFixed(2)}x  (> 1 = ours faster)`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
