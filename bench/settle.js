#!/usr/bin/env node
/**
 * What the settle costs on a page already at rest, against a screenshot.
 * The settle (src/browser/page/pageClock.ts) runs a page's virtual time until the
 * page is at rest; on a page where nothing moves it should cost little next
 * to the capture itself (target: at most 15% of a screenshot's median).
 * One run, rounds interleaved so machine load hits every measure alike, on
 * the engine the runtime launches (findBrowser):
 *   - settle: in-process, the built PageClock on a fresh context's page that
 *     has loaded the card page bench/capture.js uses (nothing moves): the
 *     wall time of one `settle()` (the load-event check, the in-page run to
 *     rest with its one rendered frame, media stilled);
 *   - page.screenshot: the same page's full-page PNG (Puppeteer, in-process);
 *   - screenshot capture: a whole screenshot capture of the same page through
 *     the built server (dist/src/bin.js), spoken to with the MCP SDK client
 *     (first capture launches the browser and is not timed).
 * Also, for scale, the settle of a chart that draws itself in over 1 s of
 * requestAnimationFrame (settle runs its 1 s of page time as fast as the page
 * executes it).
 * Prints medians and settle / screenshot ratios.
 *
 * Run after `npm run build`: node bench/settle.js [rounds, default 15]
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');
const { performance } = require('perf_hooks');
const puppeteer = require('puppeteer-core');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport, getDefaultEnvironment } = require('@modelcontextprotocol/sdk/client/stdio.js');

const DIST = path.join(__dirname, '..', 'dist', 'src');
const { PageClock } = require(path.join(DIST, 'browser', 'page', 'pageClock.js'));
const { findBrowser, isHeadlessShell } = require(path.join(DIST, 'browser', 'fleet', 'findBrowser.js'));
const engines = require('./lib/engines');

const ROUNDS = Number(process.argv[2] || 15);
const BIN = path.join(DIST, 'bin.js');
const ENGINE = findBrowser({ env: process.env }).executablePath;
const ARGS = engines.BENCH_ARGS;
const VIEWPORT = { width: 1280, height: 800, devicePixelRatio: 1, colorScheme: 'light' };

const STATIC = `<!doctype html><html><head><meta charset="utf-8"><title>bench</title>
<style>body{font:16px system-ui;margin:0;background:#f5f5f5;color:#1a1a1a} header{background:#fff;padding:16px 24px}
h1{font-size:24px;margin:0} main{max-width:640px;margin:24px auto;padding:0 24px} .card{background:#fff;border-radius:12px;padding:20px;margin:12px 0}
button{border:0;border-radius:8px;background:#0b6bcb;color:#fff;padding:8px 16px;font:inherit}</style></head>
<body data-state="ready"><header><h1>Bench page</h1></header><main>
${Array.from({ length: 8 }, (_, i) => `<section class="card"><h2>Card ${i + 1}</h2><p>Some text for card ${i + 1}, long enough to wrap a line or two in the layout.</p><button>Action ${i + 1}</button></section>`).join('\n')}
</main></body></html>`;

const CHART = `<!doctype html><html><head><meta charset="utf-8"><title>chart</title></head><body data-state="ready">
<canvas id="c" width="600" height="300"></canvas><script>
const ctx = document.getElementById('c').getContext('2d'); const values = [0.4, 0.9, 0.6, 1, 0.75, 0.5]; let start = null;
(function frame(now) { if (start === null) start = now; const t = Math.min(1, (now - start) / 1000); const e = 1 - Math.pow(1 - t, 3);
  ctx.clearRect(0, 0, 600, 300); values.forEach((v, i) => { ctx.fillStyle = '#1f77b4'; const h = 280 * v * e; ctx.fillRect(20 + i * 95, 290 - h, 70, h); });
  if (t < 1) requestAnimationFrame(frame); })(performance.now());
</script></body></html>`;

function serve() {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(req.url.startsWith('/chart') ? CHART : STATIC);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** A fresh context's page with the clock installed, loaded to DOMContentLoaded (as a capture loads it). */
async function loadedPage(browser, url) {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.setViewport({ width: VIEWPORT.width, height: VIEWPORT.height, deviceScaleFactor: 1 });
  const session = await page.createCDPSession();
  const clock = await PageClock.install(page, session, null);
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  return { context, page, clock };
}

async function main() {
  const server = await serve();
  const base = `http://127.0.0.1:${server.address().port}`;
  const browser = await puppeteer.launch({ executablePath: ENGINE, headless: isHeadlessShell(ENGINE) ? 'shell' : true, args: ARGS });
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-bench-settle-'));
  fs.writeFileSync(path.join(root, 'plan.md'), '# bench\n');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN],
    env: { ...getDefaultEnvironment(), DESIGN_PLAYBOOK_CHROME_PATH: ENGINE },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-settle', version: '1.0.0' });
  await client.connect(transport);
  const capture = async (i) => {
    const result = await client.callTool({
      name: 'execute_capture_plan',
      arguments: {
        schemaVersion: 1,
        url: `${base}/static`,
        type: 'screenshot',
        state: 'ready',
        artifact_path: `evidence/shot-${i}.png`,
        viewport: VIEWPORT,
        run_root: root,
      },
    });
    if (result.isError || result.structuredContent.error) throw new Error(JSON.stringify(result.content));
    const warnings = result.structuredContent.warnings ?? [];
    if (warnings.some((w) => w.startsWith('settle '))) throw new Error(`the static page did not come to rest: ${warnings.join('; ')}`);
  };
  await capture('warm-up');

  const times = { settle: [], pageScreenshot: [], capture: [], chartSettle: [] };
  for (let round = 0; round < ROUNDS; round++) {
    {
      const { context, page, clock } = await loadedPage(browser, `${base}/static`);
      let t = performance.now();
      const warnings = await clock.settle();
      times.settle.push(performance.now() - t);
      if (warnings.length) throw new Error(`the static page did not come to rest: ${warnings.join('; ')}`);
      t = performance.now();
      await page.screenshot({ fullPage: true });
      times.pageScreenshot.push(performance.now() - t);
      await context.close();
    }
    {
      const t = performance.now();
      await capture(round);
      times.capture.push(performance.now() - t);
    }
    {
      const { context, clock } = await loadedPage(browser, `${base}/chart`);
      const t = performance.now();
      await clock.settle();
      times.chartSettle.push(performance.now() - t);
      await context.close();
    }
  }
  await client.close();
  await browser.close();
  server.close();
  fs.rmSync(root, { recursive: true, force: true });

  const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
  const ms = (x) => `${x.toFixed(1)} ms`;
  console.log(`engine: ${ENGINE}; ${ROUNDS} rounds, interleaved`);
  console.log(`settle, page at rest (median):          ${ms(m.settle)}`);
  console.log(`page.screenshot full page (median):     ${ms(m.pageScreenshot)}`);
  console.log(`screenshot capture via server (median): ${ms(m.capture)}`);
  console.log(`settle / screenshot capture:            ${((100 * m.settle) / m.capture).toFixed(1)}% (target <= 15%)`);
  console.log(`settle / page.screenshot:               ${((100 * m.settle) / m.pageScreenshot).toFixed(1)}%`);
  console.log(`settle, chart drawn in over 1 s of page time (median): ${ms(m.chartSettle)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
