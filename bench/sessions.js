#!/usr/bin/env node
/**
 * What starting a capture from a session costs, side by side in one run:
 *   - restore: the built restoreStorageState() alone, on a fresh context's
 *     blank page as a capture opens it, for a state of cookies and
 *     localStorage, and for the same state with an IndexedDB database;
 *   - capture: whole screenshot captures through the built library
 *     (executeCapturePlan) with no state, with cookies+localStorage, and with
 *     IndexedDB too; the added ms is the median's difference.
 * Rounds interleave the three so machine load hits them alike. The page is
 * served on 127.0.0.1. Targets (issue 42): <= 20 ms added for cookies and
 * localStorage, <= 50 ms with IndexedDB.
 *
 * Run after `npm run build`: node bench/sessions.js [rounds, default 30] [--json]
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');
const { performance } = require('perf_hooks');
const puppeteer = require('puppeteer-core');

const DIST = path.join(__dirname, '..', 'dist', 'src');
const { restoreStorageState } = require(path.join(DIST, 'browser', 'page', 'storageState.js'));
const { findBrowser, isHeadlessShell } = require(path.join(DIST, 'browser', 'fleet', 'findBrowser.js'));
const { executeCapturePlan, closeBundledBrowser } = require(path.join(DIST, 'index.js'));
const engines = require('./lib/engines');

const ROUNDS = Number(process.argv.find((a, i) => i > 1 && /^\d+$/.test(a)) || 30);
const JSON_OUT = process.argv.includes('--json');
const ENGINE = findBrowser({ env: process.env }).executablePath;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const round1 = (x) => Math.round(x * 10) / 10;

const PAGE = `<!doctype html><html><body><h1>signed in?</h1><p id="t"></p>
<script>document.getElementById('t').textContent = (localStorage.getItem('token') || 'no token') + ' ' + document.cookie.length;</script></body></html>`;

/** A state like a real app's: three cookies (one HttpOnly), five localStorage items; with `indexedDB`, one database of ten records (half not plain JSON). */
function makeState(origin, indexedDB) {
  const expires = Math.floor(Date.now() / 1000) + 86400;
  const cookie = (name, httpOnly) => ({
    name,
    value: `v-${name}-${'x'.repeat(40)}`,
    domain: '127.0.0.1',
    path: '/',
    expires,
    httpOnly,
    secure: false,
    sameSite: 'Lax',
  });
  const state = {
    cookies: [cookie('sid', true), cookie('csrf', false), cookie('prefs', false)],
    origins: [{ origin, localStorage: Array.from({ length: 5 }, (_, i) => ({ name: `item${i}`, value: `value-${i}-${'y'.repeat(200)}` })) }],
  };
  if (indexedDB) {
    const records = Array.from({ length: 10 }, (_, i) =>
      i % 2
        ? { key: `k${i}`, value: { user: 'admin', n: i } }
        : { key: `k${i}`, valueEncoded: { o: [{ k: 'since', v: { d: '2026-01-01T00:00:00.000Z' } }], id: 1 } },
    );
    state.origins[0].indexedDB = [{ name: 'app', version: 1, stores: [{ name: 'profile', autoIncrement: false, records, indexes: [] }] }];
  }
  return state;
}

async function main() {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(PAGE);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const states = { none: null, 'cookies+localStorage': makeState(origin, false), 'with IndexedDB': makeState(origin, true) };

  // Restore alone, on a blank page of a fresh context (as the capture's context stage opens it).
  const browser = await puppeteer.launch({ executablePath: ENGINE, headless: isHeadlessShell(ENGINE) ? 'shell' : true, args: engines.BENCH_ARGS });
  const restore = { 'cookies+localStorage': [], 'with IndexedDB': [] };
  for (let round = 0; round < ROUNDS + 3; round++) {
    for (const kind of Object.keys(restore)) {
      const context = await browser.createBrowserContext();
      const page = await context.newPage();
      const cdp = await page.createCDPSession();
      const started = performance.now();
      const restored = await restoreStorageState(cdp, states[kind]);
      await restored.settle();
      const ms = performance.now() - started;
      if (round >= 3) restore[kind].push(ms);
      await context.close();
    }
  }
  await browser.close();

  // Whole captures through the library, each kind from its own file.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-bench-sessions-'));
  fs.writeFileSync(path.join(dir, 'plan.md'), '# bench\n');
  const files = {};
  for (const [kind, state] of Object.entries(states)) {
    if (!state) continue;
    files[kind] = path.join(dir, `${kind.replace(/\W+/g, '-')}.json`);
    fs.writeFileSync(files[kind], JSON.stringify(state));
  }
  const capture = { none: [], 'cookies+localStorage': [], 'with IndexedDB': [] };
  let n = 0;
  for (let round = 0; round < ROUNDS + 3; round++) {
    for (const kind of Object.keys(capture)) {
      const args = {
        schemaVersion: 1,
        url: `${origin}/`,
        type: 'screenshot',
        state: 'ready',
        artifact_path: `evidence/shot-${n++}.png`,
        viewport: { width: 800, height: 600, devicePixelRatio: 1, colorScheme: 'light' },
        run_root: dir,
      };
      const started = performance.now();
      const result = await executeCapturePlan(args, { sessions: files[kind] ? { storageState: files[kind] } : {} });
      const ms = performance.now() - started;
      if (result.result !== 'captured') throw new Error(`${kind}: ${result.error}`);
      if (round >= 3) capture[kind].push(ms);
    }
  }
  await closeBundledBrowser();
  server.close();
  fs.rmSync(dir, { recursive: true, force: true });

  const figures = {
    rounds: ROUNDS,
    engine: ENGINE,
    restore_ms: Object.fromEntries(Object.entries(restore).map(([k, xs]) => [k, round1(median(xs))])),
    capture_ms: Object.fromEntries(Object.entries(capture).map(([k, xs]) => [k, round1(median(xs))])),
  };
  figures.added_ms = {
    'cookies+localStorage': round1(figures.capture_ms['cookies+localStorage'] - figures.capture_ms.none),
    'with IndexedDB': round1(figures.capture_ms['with IndexedDB'] - figures.capture_ms.none),
  };
  if (JSON_OUT) {
    process.stdout.write(JSON.stringify(figures, null, 2) + '\n');
    return;
  }
  process.stdout.write(`sessions: ${ROUNDS} rounds, ${ENGINE}\n`);
  process.stdout.write(
    `restore alone (median):  cookies+localStorage ${figures.restore_ms['cookies+localStorage']} ms, with IndexedDB ${figures.restore_ms['with IndexedDB']} ms\n`,
  );
  process.stdout.write(
    `whole capture (median):  none ${figures.capture_ms.none} ms, cookies+localStorage ${figures.capture_ms['cookies+localStorage']} ms, with IndexedDB ${figures.capture_ms['with IndexedDB']} ms\n`,
  );
  process.stdout.write(
    `added per capture:       cookies+localStorage ${figures.added_ms['cookies+localStorage']} ms (target <= 20), with IndexedDB ${figures.added_ms['with IndexedDB']} ms (target <= 50)\n`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
