#!/usr/bin/env node
/**
 * Warm-capture speed: a screenshot capture of a small local page through our
 * built MCP server (dist/src/bin.js, spoken to with the MCP SDK client; its
 * first capture launches the browser, the timed ones are the 2nd and later)
 * against two Playwright peers doing what the original Python adapter did
 * per capture (new context at the viewport/DPR/colour scheme -> goto
 * DOMContentLoaded -> freeze style tag -> fonts.ready -> full-page PNG ->
 * read data-state):
 *   - "launch per capture": launches Chromium for every capture, as the original did;
 *   - "warm browser": one Chromium kept open, a new context per capture.
 * Same system Chromium and flags, same page, same run; rounds interleave the
 * three so machine load hits them alike. Ours also writes the PNG through the
 * safe write, runs the render-token probe and writes its sidecar; the peers
 * only write the PNG.
 * Then ours and the warm peer again, each back to back with no other work
 * in between (ours prepares its next context+page after each capture; back
 * to back shows what that is worth when captures arrive without pause).
 * Prints per-driver medians and the ratios peer/ours (> 1 = ours faster).
 *
 * Run after `npm run build`: [OURS_CHROME_PATH=...] node bench/capture.js [rounds, default 10]
 */
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
/** OURS_CHROME_PATH: our server on another engine (the headless shell it launches by default) against the peers on CHROMIUM. */
const OURS = process.env.OURS_CHROME_PATH || CHROMIUM;
console.log(`executable: ${engines.label(CHROMIUM)}${OURS === CHROMIUM ? ' (both sides)' : ` for the peer; ours: ${engines.label(OURS)}`}`);
const ARGS = engines.BENCH_ARGS;
const ROUNDS = Number(process.argv[2] || 10);
const BIN = path.join(__dirname, '..', 'dist', 'src', 'bin.js');
const VIEWPORT = { width: 1280, height: 800, devicePixelRatio: 1, colorScheme: 'light' };
// The original adapter's freeze sheet, as the pixel differential's Playwright side adds it.
const { FREEZE_CSS } = require('./lib/pixelDiff');

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>bench</title>
<style>body{font:16px system-ui;margin:0;background:#f5f5f5;color:#1a1a1a} header{background:#fff;padding:16px 24px}
h1{font-size:24px;margin:0} main{max-width:640px;margin:24px auto;padding:0 24px} .card{background:#fff;border-radius:12px;padding:20px;margin:12px 0}
button{border:0;border-radius:8px;background:#0b6bcb;color:#fff;padding:8px 16px;font:inherit}</style></head>
<body data-state="ready"><header><h1>Bench page</h1></header><main>
${Array.from({ length: 8 }, (_, i) => `<section class="card"><h2>Card ${i + 1}</h2><p>Some text for card ${i + 1}, long enough to wrap a line or two in the layout.</p><button>Action ${i + 1}</button></section>`).join('\n')}
</main></body></html>`;

function serve() {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(PAGE);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** The original adapter's per-capture steps, on a Playwright browser. */
async function playwrightCapture(browser, url, file) {
  const context = await browser.newContext({
    viewport: { width: VIEWPORT.width, height: VIEWPORT.height },
    deviceScaleFactor: VIEWPORT.devicePixelRatio,
    colorScheme: VIEWPORT.colorScheme,
  });
  try {
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 30000 });
    await page.addStyleTag({ content: FREEZE_CSS });
    await page.evaluate(() => document.fonts.ready);
    fs.writeFileSync(file, await page.screenshot({ fullPage: true, type: 'png' }));
    return await page.evaluate(() => document.body.getAttribute('data-state'));
  } finally {
    await context.close();
  }
}

async function main() {
  if (!fs.existsSync(BIN)) throw new Error('run `npm run build` first');
  const server = await serve();
  const url = `http://127.0.0.1:${server.address().port}/`;
  const runRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-bench-capture-'));
  fs.writeFileSync(path.join(runRoot, 'plan.md'), '# bench\n');
  const peerDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-bench-peer-'));

  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN],
    env: { ...getDefaultEnvironment(), DESIGN_PLAYBOOK_CHROME_PATH: OURS },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  let n = 0;
  const ours = async () => {
    const result = await client.callTool(
      {
        name: 'execute_capture_plan',
        arguments: {
          schemaVersion: 1,
          url,
          type: 'screenshot',
          state: 'ready',
          artifact_path: `evidence/bench-${n++}.png`,
          viewport: VIEWPORT,
          run_root: runRoot,
        },
      },
      undefined,
      { timeout: 120000 },
    );
    const payload = result.structuredContent;
    if (!payload || payload.result !== 'captured') throw new Error(`our capture failed: ${JSON.stringify(result.content)}`);
  };
  const launchPerCapture = async (i) => {
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    try {
      await playwrightCapture(browser, url, path.join(peerDir, `launch-${i}.png`));
    } finally {
      await browser.close();
    }
  };
  const warmBrowser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  const warm = (i) => playwrightCapture(warmBrowser, url, path.join(peerDir, `warm-${i}.png`));

  const timeIt = async (fn, i) => {
    const t = performance.now();
    await fn(i);
    return performance.now() - t;
  };

  // Untimed first capture each: ours launches its browser here; the peers warm their code paths.
  const firstOurs = await timeIt(ours, -1);
  await warm(-1);
  const times = { ours: [], launch: [], warm: [] };
  for (let i = 0; i < ROUNDS; i++) {
    times.ours.push(await timeIt(ours, i));
    times.launch.push(await timeIt(launchPerCapture, i));
    times.warm.push(await timeIt(warm, i));
  }
  // Back to back (no peer work in between): ours cannot prepare its next page while a peer runs.
  const backToBack = { ours: [], warm: [] };
  for (let i = 0; i < ROUNDS; i++) backToBack.ours.push(await timeIt(ours, 100 + i));
  for (let i = 0; i < ROUNDS; i++) backToBack.warm.push(await timeIt(warm, 100 + i));
  await warmBrowser.close();
  await client.close();
  server.close();
  fs.rmSync(runRoot, { recursive: true, force: true });
  fs.rmSync(peerDir, { recursive: true, force: true });

  const fmt = (ms) => `${ms.toFixed(0)} ms`;
  const m = { ours: median(times.ours), launch: median(times.launch), warm: median(times.warm) };
  console.log(`rounds: ${ROUNDS} (interleaved), page: ${url} at ${VIEWPORT.width}x${VIEWPORT.height}@${VIEWPORT.devicePixelRatio}`);
  console.log(`ours, first capture (includes the browser launch): ${fmt(firstOurs)}`);
  console.log(`ours, warm server (MCP round trip, 2nd+ captures), median: ${fmt(m.ours)}  [${times.ours.map(fmt).join(', ')}]`);
  console.log(`playwright, launch per capture, median:               ${fmt(m.launch)}  [${times.launch.map(fmt).join(', ')}]`);
  console.log(`playwright, warm browser, median:                     ${fmt(m.warm)}  [${times.warm.map(fmt).join(', ')}]`);
  console.log(`ratio launch-per-capture / ours: ${(m.launch / m.ours).toFixed(2)}x  (> 1 = ours faster)`);
  console.log(`ratio warm-playwright / ours:    ${(m.warm / m.ours).toFixed(2)}x  (> 1 = ours faster)`);
  const b = { ours: median(backToBack.ours), warm: median(backToBack.warm) };
  console.log(`back to back, ${ROUNDS} captures each: ours median ${fmt(b.ours)} [${backToBack.ours.map(fmt).join(', ')}]`);
  console.log(`                              warm playwright median ${fmt(b.warm)} [${backToBack.warm.map(fmt).join(', ')}]`);
  console.log(`ratio warm-playwright / ours, back to back: ${(b.warm / b.ours).toFixed(2)}x  (> 1 = ours faster)`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
