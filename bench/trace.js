#!/usr/bin/env node
/**
 * Interaction-trace cost: our CDP trace recorder (dist/cdp/trace/recorder.js,
 * Puppeteer session) against Playwright's own context.tracing
 * ({screenshots, snapshots}) recording the same four actions (fill,
 * select_option, press, click) on the same fixture page, same system
 * Chromium, same run. Each round runs both, interleaved, each on a fresh
 * page: start tracing -> navigate -> 4 actions -> trace bytes. The same
 * session without tracing is also timed in each driver, so the tracing
 * overhead (traced - untraced) can be compared too, apart from how fast
 * Puppeteer and Playwright execute the actions themselves.
 * Prints per-round times, both ZIP sizes and the median ratios ours/theirs
 * (< 1 = ours faster / smaller).
 *
 * Run after `npm run build`: node bench/trace.js [rounds, default 9]
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');
const { performance } = require('perf_hooks');
const puppeteer = require('puppeteer-core');
const { chromium } = require('playwright-core');
const { TraceRecorder } = require('../dist/cdp/trace/recorder.js');
const { traceCallOf } = require('../dist/src/contract/actions.js');
const engines = require('./lib/engines');

/** Both sides on one executable: DESIGN_PLAYBOOK_CHROME_PATH, else the one the runtime launches (the headless shell when installed). */
const CHROMIUM = process.env.DESIGN_PLAYBOOK_CHROME_PATH || engines.runtimeDefault();
console.log(`executable (both sides): ${engines.label(CHROMIUM)}`);
const ARGS = engines.BENCH_ARGS;
const FIXTURES = path.join(__dirname, '..', 'test', 'trace', 'fixtures');
const FONT = ['/usr/share/fonts/truetype/dejavu/DejaVuSans-ExtraLight.ttf'].find((f) => fs.existsSync(f));
const ROUNDS = Number(process.argv[2] || 9);
const VIEWPORT = { width: 800, height: 600 };
const TYPES = { '.html': 'text/html; charset=utf-8', '.css': 'text/css', '.js': 'text/javascript', '.svg': 'image/svg+xml', '.json': 'application/json' };

function serve(dir) {
  const server = http.createServer((req, res) => {
    const urlPath = decodeURIComponent(req.url.split('?')[0]);
    if (urlPath === '/font.ttf' && FONT) {
      res.writeHead(200, { 'content-type': 'font/ttf' });
      fs.createReadStream(FONT).pipe(res);
      return;
    }
    const file = path.join(dir, path.normalize(urlPath));
    if (!file.startsWith(dir) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

/** Our side: the provider's shape — recorder.action around Puppeteer calls. */
async function oursSession(browser, url, traced) {
  const page = await browser.newPage();
  await page.setViewport(VIEWPORT);
  const session = await page.createCDPSession();
  const started = performance.now();
  let recorder;
  if (traced) {
    recorder = await TraceRecorder.start(session, {
      viewport: VIEWPORT,
      deviceScaleFactor: 1,
      colorScheme: 'light',
      browserName: 'chromium',
      browserVersion: (await browser.version()).replace(/^[^/]*\//, ''),
    });
  }
  const act = (action, run, point) => (recorder ? recorder.action(traceCallOf(action), run, point) : run());
  const nav = () => page.goto(url, { waitUntil: 'load' }).then(() => undefined);
  await (recorder ? recorder.navigation(url, nav) : nav());
  await act({ do: 'fill', selector: '#name', value: 'Ann' }, () =>
    page.$eval(
      '#name',
      (el, v) => {
        el.value = v;
        el.dispatchEvent(new Event('input', { bubbles: true }));
        el.dispatchEvent(new Event('change', { bubbles: true }));
      },
      'Ann',
    ),
  );
  await act({ do: 'select_option', selector: '#plan', value: 'pro' }, () => page.select('#plan', 'pro'));
  await act({ do: 'press', selector: '#name', key: 'Enter' }, async () => {
    await page.focus('#name');
    await page.keyboard.press('Enter');
  });
  await act(
    { do: 'click', selector: '#submit' },
    () => page.click('#submit'),
    async () => {
      const box = await (await page.$('#submit')).boundingBox();
      return box && { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    },
  );
  const bytes = recorder ? await recorder.finish() : undefined;
  const ms = performance.now() - started;
  await page.close();
  return { ms, size: bytes ? bytes.length : 0 };
}

/** Playwright's side: its own tracing of the same actions, written to a file as the CLI would. */
async function playwrightSession(browser, url, traced, zipPath) {
  const context = await browser.newContext({ viewport: VIEWPORT, colorScheme: 'light' });
  const started = performance.now();
  if (traced) await context.tracing.start({ screenshots: true, snapshots: true });
  const page = await context.newPage();
  await page.goto(url, { waitUntil: 'load' });
  await page.fill('#name', 'Ann');
  await page.selectOption('#plan', 'pro');
  await page.press('#name', 'Enter');
  await page.click('#submit');
  if (traced) await context.tracing.stop({ path: zipPath });
  const ms = performance.now() - started;
  await context.close();
  return { ms, size: traced ? fs.statSync(zipPath).size : 0 };
}

(async () => {
  const server = await serve(FIXTURES);
  const url = `http://127.0.0.1:${server.address().port}/index.html`;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-trace-'));
  const [browser, pwBrowser] = await Promise.all([
    puppeteer.launch({ executablePath: CHROMIUM, headless: engines.headlessMode(CHROMIUM), args: ARGS }),
    chromium.launch({ executablePath: CHROMIUM, args: ARGS }),
  ]);
  try {
    const rows = [];
    // Round 0 warms both browsers and is not counted.
    for (let round = 0; round <= ROUNDS; round++) {
      const ours = await oursSession(browser, url, true);
      const theirs = await playwrightSession(pwBrowser, url, true, path.join(tmp, `pw-${round}.zip`));
      const oursBare = await oursSession(browser, url, false);
      const theirsBare = await playwrightSession(pwBrowser, url, false);
      if (round === 0) continue;
      rows.push({ ours, theirs, oursBare, theirsBare });
      console.log(
        `round ${round}: ours ${ours.ms.toFixed(0)} ms (${kb(ours.size)}, untraced ${oursBare.ms.toFixed(0)} ms) | ` +
          `playwright ${theirs.ms.toFixed(0)} ms (${kb(theirs.size)}, untraced ${theirsBare.ms.toFixed(0)} ms)`,
      );
    }
    const oursMs = median(rows.map((r) => r.ours.ms));
    const theirsMs = median(rows.map((r) => r.theirs.ms));
    // Difference of medians: steadier than the median of per-round differences on a busy machine.
    const oursOverhead = oursMs - median(rows.map((r) => r.oursBare.ms));
    const theirsOverhead = theirsMs - median(rows.map((r) => r.theirsBare.ms));
    const oursSize = median(rows.map((r) => r.ours.size));
    const theirsSize = median(rows.map((r) => r.theirs.size));
    console.log(
      `\nfour-action traced session, median of ${ROUNDS}: ours ${oursMs.toFixed(0)} ms, playwright ${theirsMs.toFixed(0)} ms, ` +
        `time ratio ours/playwright = ${(oursMs / theirsMs).toFixed(2)}`,
    );
    console.log(
      `tracing overhead (median traced - median untraced): ours ${oursOverhead.toFixed(0)} ms, playwright ${theirsOverhead.toFixed(0)} ms, ` +
        `ratio = ${(oursOverhead / theirsOverhead).toFixed(2)}`,
    );
    console.log(`ZIP size: ours ${kb(oursSize)}, playwright ${kb(theirsSize)}, ratio = ${(oursSize / theirsSize).toFixed(2)}`);
  } finally {
    await Promise.all([browser.close(), pwBrowser.close()]);
    server.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
