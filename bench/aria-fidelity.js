#!/usr/bin/env node
/**
 * Aria snapshot fidelity on any folder of saved pages: for each *.html, our
 * CDP snapshot vs Playwright's page.ariaSnapshot() of the same page in the
 * same system Chromium. Pages are served from 127.0.0.1; every other host is
 * made unresolvable, so saved pages that reference the web stay offline.
 * Prints the identical count and, per differing page, the first differing line.
 *
 * Both browsers show the page at the same viewport (Playwright's default,
 * 1280x720), so responsive CSS hides and shows the same content.
 *
 * JavaScript is disabled in both browsers unless --js is given. With --js each
 * browser loads the page and runs its scripts separately (offline: every
 * request off 127.0.0.1 fails), so the two DOMs are the same only when the
 * scripts are deterministic: timers, Math.random, Date and failed-request
 * handlers racing the load event can leave different DOMs, and such a page
 * differs without either snapshot being wrong. After load the script waits
 * --settle ms (default 500) before both snapshots are taken. Dialogs
 * (alert, confirm) are dismissed in both, as Playwright does by default.
 * --deterministic (with --js) installs the same clock and random source in
 * both browsers before any page script runs: Date and performance.now
 * start at a fixed instant and advance 1 ms per reading, Math.random is a
 * seeded generator. Scripts that only vary by time or chance (cache-busting
 * query strings) then build the same DOM on both sides.
 *
 * Run after `npm run build`:
 *   [OURS_CHROME_PATH=...] node bench/aria-fidelity.js <dir> [--diff-dir out/] [--js [--deterministic]] [--settle ms]
 */
const fs = require('fs');
const path = require('path');
const http = require('http');
const puppeteer = require('puppeteer-core');
const { chromium } = require('playwright-core');
const { ariaSnapshotText } = require('../dist/cdp/ariaSnapshot.js');
const engines = require('./lib/engines');

/** Both sides on one executable: DESIGN_PLAYBOOK_CHROME_PATH, else the one the runtime launches (the headless shell when installed). */
const CHROMIUM = process.env.DESIGN_PLAYBOOK_CHROME_PATH || engines.runtimeDefault();
const OURS = process.env.OURS_CHROME_PATH || CHROMIUM;
console.log(`executable: ${engines.label(CHROMIUM)}${OURS === CHROMIUM ? ' (both sides)' : ` for the peer; ours: ${engines.label(OURS)}`}`);
const ARGS = [...engines.BENCH_ARGS, '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'];

const dir = path.resolve(process.argv[2] || path.join(__dirname, '..', 'test', 'aria', 'corpus'));
const diffDirIndex = process.argv.indexOf('--diff-dir');
const diffDir = diffDirIndex > 0 ? path.resolve(process.argv[diffDirIndex + 1]) : null;
const javaScriptEnabled = process.argv.includes('--js');
const settleIndex = process.argv.indexOf('--settle');
const settleMs = settleIndex > 0 ? Number(process.argv[settleIndex + 1]) : 500;
const deterministic = javaScriptEnabled && process.argv.includes('--deterministic');
const VIEWPORT = { width: 1280, height: 720 };

// Same in both browsers, before any page script: a clock that advances one millisecond per
// reading from a fixed instant, and a seeded Math.random.
const DETERMINISTIC_SCRIPT = `(() => {
  const start = Date.UTC(2024, 0, 15, 12, 0, 0);
  let ticks = 0;
  const now = () => start + ticks++;
  const RealDate = Date;
  function FixedDate(...args) {
    if (!new.target) return new RealDate(now()).toString();
    return args.length ? new RealDate(...args) : new RealDate(now());
  }
  FixedDate.prototype = RealDate.prototype;
  FixedDate.now = now;
  FixedDate.UTC = RealDate.UTC;
  FixedDate.parse = RealDate.parse;
  globalThis.Date = FixedDate;
  let perf = 0;
  performance.now = () => perf++;
  let seed = 42;
  Math.random = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
})();`;

function serve(root) {
  const server = http.createServer((req, res) => {
    const file = path.join(root, path.normalize(decodeURIComponent(req.url.split('?')[0])));
    if (!file.startsWith(root) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': file.endsWith('.html') ? 'text/html; charset=utf-8' : 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function firstDifference(a, b) {
  const x = a.split('\n'),
    y = b.split('\n');
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if (x[i] !== y[i]) return { line: i + 1, ours: x[i], playwright: y[i] };
  }
  return null;
}

(async () => {
  const server = await serve(dir);
  const origin = `http://127.0.0.1:${server.address().port}`;
  const pages = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.html'))
    .sort();
  const [browser, pwBrowser] = await Promise.all([
    // OURS_CHROME_PATH: our side on another engine (a headless shell) against the oracle on CHROMIUM.
    puppeteer.launch({ executablePath: OURS, headless: engines.headlessMode(OURS), args: ARGS }),
    chromium.launch({ executablePath: CHROMIUM, args: ARGS }),
  ]);
  if (diffDir) fs.mkdirSync(diffDir, { recursive: true });
  let identical = 0;
  const differing = [];
  try {
    const page = await browser.newPage();
    await page.setJavaScriptEnabled(javaScriptEnabled);
    page.on('dialog', (dialog) => dialog.dismiss().catch(() => {}));
    if (deterministic) await page.evaluateOnNewDocument(DETERMINISTIC_SCRIPT);
    await page.setViewport(VIEWPORT);
    const session = await page.createCDPSession();
    const pwContext = await pwBrowser.newContext({ javaScriptEnabled, viewport: VIEWPORT });
    if (deterministic) await pwContext.addInitScript({ content: DETERMINISTIC_SCRIPT });
    const pwPage = await pwContext.newPage();
    for (const name of pages) {
      const url = `${origin}/${encodeURIComponent(name)}`;
      try {
        await Promise.all([page.goto(url, { waitUntil: 'load', timeout: 30000 }), pwPage.goto(url, { waitUntil: 'load', timeout: 30000 })]);
        if (javaScriptEnabled && settleMs > 0) await new Promise((r) => setTimeout(r, settleMs));
        const [ours, theirs] = await Promise.all([ariaSnapshotText(session), pwPage.ariaSnapshot()]);
        if (ours === theirs) {
          identical++;
          continue;
        }
        const d = firstDifference(ours, theirs);
        differing.push({ name, ...d });
        if (diffDir) {
          fs.writeFileSync(path.join(diffDir, name + '.ours.txt'), ours);
          fs.writeFileSync(path.join(diffDir, name + '.playwright.txt'), theirs);
        }
      } catch (err) {
        differing.push({ name, error: String((err && err.message) || err).split('\n')[0] });
      }
    }
  } finally {
    await Promise.allSettled([browser.close(), pwBrowser.close()]);
    server.close();
  }
  for (const d of differing) {
    if (d.error) console.log(`ERROR ${d.name}: ${d.error}`);
    else console.log(`DIFF  ${d.name} line ${d.line}\n  ours:       ${JSON.stringify(d.ours)}\n  playwright: ${JSON.stringify(d.playwright)}`);
  }
  console.log(
    `JavaScript ${javaScriptEnabled ? 'enabled' + (deterministic ? ' (deterministic clock and random)' : '') : 'disabled'}: ${identical}/${pages.length} pages byte-identical (${((100 * identical) / Math.max(1, pages.length)).toFixed(1)}%)`,
  );
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
