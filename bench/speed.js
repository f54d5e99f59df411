#!/usr/bin/env node
/**
 * Speed on an equal engine, per capture type: our built MCP server (dist/src/bin.js,
 * spoken to with the MCP SDK client) against a warm Playwright "server" (one
 * playwright-core browser kept open, a new context per capture, the original
 * adapter's steps per type), both on the same executable: the one the runtime
 * launches by default (the headless shell when installed), or `--executable PATH`.
 *
 *   screenshot         new context at the viewport -> goto -> freeze style -> fonts.ready
 *                      -> full-page PNG -> read data-state (ours also runs the
 *                      render-token probe and writes its sidecar)
 *   a11y tree          the same load, then page.ariaSnapshot() written as the JSON envelope
 *   interaction trace  context.tracing.start({screenshots, snapshots}) -> goto -> fill,
 *                      select_option, press Enter, click, wait for data-state=done -> the ZIP
 *
 * Rounds interleave every driver (ours and Playwright alternate who goes first)
 * so machine load hits them alike. By default each call follows the other
 * side's at once, so what one side's browser still does after its call
 * (closing a context, ours preparing the next page) is timed with the other's;
 * --gap MS leaves that much idle time before every timed call, as between an
 * agent's calls. Then:
 *   first call         a fresh server's first capture (its browser launch inside)
 *                      against Playwright's launch-and-capture, interleaved;
 *   step profile       (--profile) one warm capture per type in-process (the built
 *                      provider, told each step) next to Playwright's steps timed.
 * Prints medians and the ratio ours / Playwright (< 1 = ours faster).
 *
 * Run after `npm run build`:
 *   node bench/speed.js [--rounds 12] [--first 5] [--profile] [--floor] [--executable PATH]
 *                       [--page cards,form] [--bin dist/src/bin.js] [--gap 0] [--json OUT.json]
 * --floor adds a third driver to the warm rounds: bare Puppeteer doing only the load (and the
 * PNG, or the trace's actions unrecorded), the least any capture of that page on that engine takes
 * (startFloor).
 * (--rounds 0 skips the warm rounds and the profile; --first 0 the first calls.)
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');
const { performance } = require('perf_hooks');
const { spawn } = require('child_process');
const { chromium } = require('playwright-core');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport, getDefaultEnvironment } = require('@modelcontextprotocol/sdk/client/stdio.js');
const engines = require('./lib/engines');
const results = require('./lib/results');

const argv = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : fallback;
};
const ROUNDS = Number(opt('rounds', 12));
const FIRST = Number(opt('first', 5));
const PROFILE = argv.includes('--profile');
// --floor: a third driver, bare Puppeteer with no step of ours (what any capture on this engine needs at least).
const FLOOR = argv.includes('--floor');
// --json OUT: the figures as tables (bench/lib/results.js), for scripts/benchmark-tables.js.
const JSON_OUT = results.jsonOutPath(argv);
// Idle time before each timed call (ms), the same for both sides.
const GAP_MS = Number(opt('gap', 0));
const idle = () => (GAP_MS > 0 ? new Promise((resolve) => setTimeout(resolve, GAP_MS)) : Promise.resolve());
const EXECUTABLE = opt('executable', null) || engines.runtimeDefault();
const ARGS = engines.BENCH_ARGS;
const ROOT = path.join(__dirname, '..');
// --bin: another build of the server (plugin/server.cjs, an older checkout's dist/src/bin.js).
const BIN = path.resolve(opt('bin', path.join(ROOT, 'dist', 'src', 'bin.js')));
const FIXTURES = path.join(ROOT, 'test', 'trace', 'fixtures');
const VIEWPORT = { width: 1280, height: 800, devicePixelRatio: 1, colorScheme: 'light' };
// The original adapter's freeze sheet, as the pixel differential's Playwright side adds it.
const { FREEZE_CSS } = require('./lib/pixelDiff');
const MIME = { '.html': 'text/html; charset=utf-8', '.css': 'text/css', '.js': 'text/javascript', '.svg': 'image/svg+xml', '.json': 'application/json' };

/** The card page bench/capture.js shoots: text and buttons, no subresource. */
const CARDS = `<!doctype html><html data-state="ready"><head><meta charset="utf-8"><title>bench</title>
<style>body{font:16px system-ui;margin:0;background:#f5f5f5;color:#1a1a1a} header{background:#fff;padding:16px 24px}
h1{font-size:24px;margin:0} main{max-width:640px;margin:24px auto;padding:0 24px} .card{background:#fff;border-radius:12px;padding:20px;margin:12px 0}
button{border:0;border-radius:8px;background:#0b6bcb;color:#fff;padding:8px 16px;font:inherit}</style></head>
<body><header><h1>Bench page</h1></header><main>
${Array.from({ length: 8 }, (_, i) => `<section class="card"><h2>Card ${i + 1}</h2><p>Some text for card ${i + 1}, long enough to wrap a line or two in the layout.</p><button id="b${i + 1}">Action ${i + 1}</button></section>`).join('\n')}
</main></body></html>`;

/**
 * The pages: `cards` (the card page above; the trace clicks a button) and
 * `form` (test/trace/fixtures: a form with a stylesheet, images, a script, a
 * same-origin iframe and a shadow root; the trace fills, selects, presses,
 * clicks and waits for the page's data-state to change after a fetch).
 */
const PAGES = {
  cards: {
    path: '/cards.html',
    types: {
      screenshot: { leaf: 'shot.png', state: 'ready', actions: [] },
      'a11y tree': { leaf: 'tree.json', state: 'ready', actions: [] },
      'interaction trace': { leaf: 'flow.trace.zip', state: 'ready', actions: [{ do: 'click', selector: '#b2' }] },
    },
  },
  form: {
    path: '/index.html',
    types: {
      screenshot: { leaf: 'shot.png', state: 'idle', actions: [] },
      'a11y tree': { leaf: 'tree.json', state: 'idle', actions: [] },
      'interaction trace': {
        leaf: 'flow.trace.zip',
        state: 'done',
        actions: [
          { do: 'fill', selector: '#name', value: 'Ann' },
          { do: 'select_option', selector: '#plan', value: 'pro' },
          { do: 'press', selector: '#name', key: 'Enter' },
          { do: 'click', selector: '#submit' },
          { do: 'wait_for_state', state: 'done' },
        ],
      },
    },
  },
};
const PAGE_NAMES = (opt('page', null) || 'cards,form').split(',');
let TYPES = PAGES[PAGE_NAMES[0]].types;

function serve() {
  const server = http.createServer((req, res) => {
    if (req.url === '/cards.html') {
      res.writeHead(200, { 'content-type': MIME['.html'] });
      res.end(CARDS);
      return;
    }
    const file = path.join(FIXTURES, path.normalize(decodeURIComponent(req.url.split('?')[0])));
    if (!file.startsWith(FIXTURES) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': MIME[path.extname(file)] || 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const ms = (x) => `${x.toFixed(0)} ms`;

let callCount = 0;

/** Our server, started on EXECUTABLE; `call(type, n)` captures once and fails loudly on anything but captured. */
async function startOurs(runRoot, url) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN],
    env: { ...getDefaultEnvironment(), DESIGN_PLAYBOOK_CHROME_PATH: EXECUTABLE },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-speed', version: '1' });
  await client.connect(transport);
  const call = async (type) => {
    const spec = TYPES[type];
    const result = await client.callTool(
      {
        name: 'execute_capture_plan',
        arguments: {
          schemaVersion: 1,
          url,
          type,
          state: spec.state,
          artifact_path: `evidence/${callCount++}-${spec.leaf}`,
          viewport: VIEWPORT,
          run_root: runRoot,
          ...(spec.actions.length ? { actions: spec.actions } : {}),
        },
      },
      undefined,
      { timeout: 120000 },
    );
    const payload = result.structuredContent;
    if (!payload || payload.result !== 'captured') throw new Error(`our ${type} capture failed: ${JSON.stringify(result.content)}`);
  };
  return { call, close: () => client.close() };
}

/**
 * The floor (--floor): bare Puppeteer on the same executable with the runtime's launch flags, a page made
 * ahead in a fresh context as ours is, then only what no capture can skip: the load (to the load event)
 * and, for a screenshot, the full-page PNG written. No freeze, settle, probe, observed state or safe
 * write. Puppeteer has no aria snapshot, so for an a11y tree the floor is the load alone; for a trace it
 * is the load and the same actions through Puppeteer's own input calls, with nothing recorded.
 */
async function startFloor(url, dir) {
  const browser = await engines.launchFloorBrowser(EXECUTABLE);
  const ahead = () => engines.openFloorPage(browser, VIEWPORT);
  let spare = ahead();
  let after = Promise.resolve();
  let n = 0;
  const call = async (type) => {
    const { context, page } = await spare;
    const png = await engines.floorLoad(page, url, { shot: type === 'screenshot' });
    if (png) fs.writeFileSync(path.join(dir, `floor-${n++}.png`), png);
    for (const action of TYPES[type].actions) await floorAction(page, action);
    spare = ahead();
    after = Promise.all([spare, context.close()]);
  };
  // Untimed, before the next driver's call: the floor's close and next page do not land in another's time.
  return { call, quiet: () => after, close: () => browser.close() };
}

/** One of the bench's actions through Puppeteer's own calls (the floor's trace). */
async function floorAction(page, action) {
  switch (action.do) {
    case 'fill':
      await page.focus(action.selector);
      return page.keyboard.sendCharacter(action.value);
    case 'select_option':
      return page.select(action.selector, action.value);
    case 'press':
      await page.focus(action.selector);
      return page.keyboard.press(action.key);
    case 'click':
      return page.click(action.selector);
    case 'wait_for_state':
      return page.waitForSelector(`html[data-state="${action.state}"]`);
    default:
      throw new Error(`the floor has no ${action.do}`);
  }
}

/** What the floor does for a type. */
const floorOf = (type) =>
  ({ screenshot: 'the load and the PNG', 'a11y tree': 'the load alone', 'interaction trace': 'the load and the actions, nothing recorded' })[type];

/** The original adapter's per-type steps on a Playwright browser; `steps` (optional) collects each step's time. */
async function playwrightCapture(browser, url, type, file, steps) {
  let t = performance.now();
  const step = (name) => {
    const now = performance.now();
    if (steps) steps[name] = (steps[name] || 0) + (now - t);
    t = now;
  };
  const context = await browser.newContext({
    viewport: { width: VIEWPORT.width, height: VIEWPORT.height },
    deviceScaleFactor: VIEWPORT.devicePixelRatio,
    colorScheme: VIEWPORT.colorScheme,
  });
  try {
    const traced = type === 'interaction trace';
    if (traced) await context.tracing.start({ screenshots: true, snapshots: true });
    const page = await context.newPage();
    step('context');
    await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 30000 });
    step('navigation');
    await page.addStyleTag({ content: FREEZE_CSS });
    await page.evaluate(() => document.fonts.ready);
    step('settle');
    if (traced && TYPES === PAGES.cards.types) {
      await page.click('#b2');
      step('action');
      await context.tracing.stop({ path: file });
    } else if (traced) {
      await page.fill('#name', 'Ann');
      await page.selectOption('#plan', 'pro');
      await page.press('#name', 'Enter');
      await page.click('#submit');
      await page.waitForSelector('html[data-state="done"]');
      step('action');
      await context.tracing.stop({ path: file });
    } else if (type === 'a11y tree') {
      fs.writeFileSync(file, JSON.stringify({ format: 'aria_snapshot', tree: await page.ariaSnapshot() }, null, 2));
    } else {
      fs.writeFileSync(file, await page.screenshot({ fullPage: true, type: 'png' }));
    }
    step('capture');
    const state = await page.evaluate(() => document.documentElement.getAttribute('data-state'));
    step('observed-state');
    if (state !== TYPES[type].state) throw new Error(`playwright ${type}: data-state ${state}`);
  } finally {
    await context.close();
    step('close');
  }
}

async function timeIt(fn) {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function warmLatency(url, runRoot, peerDir) {
  const ours = await startOurs(runRoot, url);
  const browser = await chromium.launch({ executablePath: EXECUTABLE, args: ARGS });
  const floor = FLOOR ? await startFloor(url, peerDir) : null;
  let k = 0;
  const peer = (type) => playwrightCapture(browser, url, type, path.join(peerDir, `${k++}-${TYPES[type].leaf}`));
  // Untimed: ours launches its browser, both warm their code paths for every type.
  for (const type of Object.keys(TYPES)) {
    await ours.call(type);
    await peer(type);
    if (floor) await floor.call(type);
  }
  const times = Object.fromEntries(Object.keys(TYPES).map((type) => [type, { ours: [], peer: [], floor: [] }]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const type of Object.keys(TYPES)) {
      const drivers = [['ours', () => ours.call(type)], ['peer', () => peer(type)], ...(floor ? [['floor', () => floor.call(type)]] : [])];
      // Each driver goes first as often as the others.
      const order = drivers.map((_, i) => drivers[(i + round) % drivers.length]);
      for (const [who, fn] of order) {
        await idle();
        times[type][who].push(await timeIt(fn));
        if (who === 'floor') await floor.quiet();
      }
    }
  }
  await browser.close();
  await ours.close();
  await floor?.close();
  return times;
}

async function firstCall(url, peerDir) {
  const ours = [];
  const peer = [];
  for (let round = 0; round < FIRST; round++) {
    const runRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-bench-first-'));
    fs.writeFileSync(path.join(runRoot, 'plan.md'), '# bench\n');
    const runOurs = async () => {
      const t = performance.now();
      const server = await startOurs(runRoot, url);
      await server.call('screenshot');
      const elapsed = performance.now() - t;
      await server.close();
      return elapsed;
    };
    // Playwright's side in a fresh node process too, as a Playwright server's first call would be: timed to its 'captured' line.
    const runPeer = () =>
      new Promise((resolve, reject) => {
        const t = performance.now();
        const child = spawn(process.execPath, [__filename, '--peer-first', url, path.join(peerDir, `first-${round}.png`), '--executable', EXECUTABLE], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let elapsed = null;
        child.stdout.on('data', (chunk) => {
          if (elapsed === null && String(chunk).includes('captured')) elapsed = performance.now() - t;
        });
        child.on('exit', (code) => (elapsed !== null ? resolve(elapsed) : reject(new Error(`the Playwright first-call child exited ${code}`))));
      });
    if (round % 2) {
      peer.push(await runPeer());
      ours.push(await runOurs());
    } else {
      ours.push(await runOurs());
      peer.push(await runPeer());
    }
    fs.rmSync(runRoot, { recursive: true, force: true });
  }
  return { ours, peer };
}

/** One warm capture per type in-process, each step's wall time (the provider tells each step as it starts). */
async function stepProfile(url, runRoot, peerDir) {
  const { PuppeteerCaptureProvider } = require(path.join(ROOT, 'dist', 'src', 'browser', 'capture', 'puppeteerProvider.js'));
  const { planCapture } = require(path.join(ROOT, 'dist', 'src', 'boundary', 'index.js'));
  const provider = new PuppeteerCaptureProvider({ env: { ...process.env, DESIGN_PLAYBOOK_CHROME_PATH: EXECUTABLE } });
  const browser = await chromium.launch({ executablePath: EXECUTABLE, args: ARGS });
  const reps = Math.max(3, Math.floor(ROUNDS / 2));
  const rows = {};
  try {
    let n = 0;
    for (const type of Object.keys(TYPES)) {
      const spec = TYPES[type];
      const ourSteps = {};
      const peerSteps = {};
      for (let rep = -1; rep < reps; rep++) {
        const plan = planCapture({
          schemaVersion: 1,
          url,
          type,
          state: spec.state,
          artifact_path: `evidence/p${n++}-${spec.leaf}`,
          viewport: VIEWPORT,
          run_root: runRoot,
          ...(spec.actions.length ? { actions: spec.actions } : {}),
        });
        if (plan.kind !== 'plan') throw new Error(`plan refused: ${JSON.stringify(plan)}`);
        await idle();
        const mine = rep < 0 ? {} : ourSteps;
        let t = performance.now();
        let current = 'queue';
        const onStep = (report) => {
          const now = performance.now();
          mine[current] = (mine[current] || 0) + (now - t);
          current = report.step;
          t = now;
        };
        await provider.captureWithinLimits(plan.fields, plan.request, { onStep });
        onStep({ step: 'close' });
        // The context closes after the outcome is returned: in the idle gap when there is one (as between a
        // server's calls), else alongside Playwright's capture.
        await idle();
        await playwrightCapture(browser, url, type, path.join(peerDir, `p${n}-${spec.leaf}`), rep < 0 ? undefined : peerSteps);
      }
      for (const steps of [ourSteps, peerSteps]) for (const key of Object.keys(steps)) steps[key] /= reps;
      rows[type] = { ours: ourSteps, peer: peerSteps };
    }
  } finally {
    await browser.close();
    await provider.close();
  }
  return rows;
}

async function main() {
  if (!fs.existsSync(BIN)) throw new Error('run `npm run build` first');
  const server = await serve();
  const origin = `http://127.0.0.1:${server.address().port}`;
  const runRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-bench-speed-'));
  fs.writeFileSync(path.join(runRoot, 'plan.md'), '# bench\n');
  const peerDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-bench-speed-peer-'));
  const chromiumVersion = await (async () => {
    const b = await chromium.launch({ executablePath: EXECUTABLE, args: ARGS });
    const v = b.version();
    await b.close();
    return v;
  })();
  console.log(
    `both sides on ${engines.label(EXECUTABLE)}, Chromium ${chromiumVersion}; viewport ${VIEWPORT.width}x${VIEWPORT.height}; ${new Date().toISOString()}`,
  );
  const pace = GAP_MS ? `${GAP_MS} ms idle before each call` : 'back to back';
  const warmRows = [];
  const floorRows = [];
  const tables = {};
  try {
    for (const name of ROUNDS > 0 ? PAGE_NAMES : []) {
      TYPES = PAGES[name].types;
      const url = origin + PAGES[name].path;
      const times = await warmLatency(url, runRoot, peerDir);
      console.log(
        `\n${name} page (${url}): warm latency, ${ROUNDS} rounds interleaved, ${GAP_MS ? `${GAP_MS} ms idle before each call` : 'back to back'} (median; ratio ours / Playwright, < 1 = ours faster):`,
      );
      for (const [type, t] of Object.entries(times)) {
        const o = median(t.ours);
        const p = median(t.peer);
        console.log(`  ${type.padEnd(18)} ours ${ms(o).padStart(7)}  playwright ${ms(p).padStart(7)}  ratio ${(o / p).toFixed(2)}x`);
      }
      warmRows.push([name, ...Object.values(times).map((t) => results.pair(median(t.ours), median(t.peer), 'ms'))]);
      if (Object.values(times).some((t) => t.floor.length)) {
        floorRows.push([name, ...Object.values(times).map((t) => (t.floor.length ? results.pair(median(t.floor), median(t.peer), 'ms') : '—'))]);
      }
      for (const [type, t] of Object.entries(times)) {
        if (!t.floor.length) continue;
        const f = median(t.floor);
        console.log(
          `  floor, ${type}: bare Puppeteer, ${floorOf(type)} ${ms(f)} = ${(f / median(t.peer)).toFixed(2)}x Playwright (no capture of this page on this engine is faster)`,
        );
      }
      if (PROFILE) {
        const rows = await stepProfile(url, runRoot, peerDir);
        console.log(`  step profile, one warm capture in-process (mean ms per step; Playwright's steps are its own calls):`);
        for (const [type, { ours, peer }] of Object.entries(rows)) {
          const fmt = (steps) =>
            Object.entries(steps)
              .map(([k, v]) => `${k} ${v.toFixed(0)}`)
              .join(', ');
          const total = (steps) => Object.values(steps).reduce((a, b) => a + b, 0);
          console.log(`    ${type}\n      ours       ${total(ours).toFixed(0)} ms: ${fmt(ours)}\n      playwright ${total(peer).toFixed(0)} ms: ${fmt(peer)}`);
        }
      }
    }
    if (FIRST > 0) {
      TYPES = PAGES.cards.types;
      const first = await firstCall(origin + PAGES.cards.path, peerDir);
      const o = median(first.ours);
      const p = median(first.peer);
      console.log(`\nfirst call (cards page, screenshot, launch included), ${FIRST} rounds interleaved:`);
      console.log(`  ours (server spawn, initialize, browser launch, capture) ${ms(o)} [${first.ours.map(ms).join(', ')}]`);
      console.log(`  playwright (node spawn, require, launch, capture)        ${ms(p)} [${first.peer.map(ms).join(', ')}]  ratio ${(o / p).toFixed(2)}x`);
      tables['speed-first-call'] = {
        caption: `median of ${FIRST} rounds interleaved: our server spawned, initialize, the call with the browser launch inside, against a fresh node process that requires playwright-core, launches and captures`,
        columns: ['call', 'ours / Playwright'],
        rows: [['first call, launch included (cards page, screenshot)', results.pair(o, p, 'ms')]],
      };
    }
    const typeNames = Object.keys(PAGES[PAGE_NAMES[0]].types);
    if (warmRows.length) {
      tables['speed-warm'] = {
        caption: `warm captures, median of ${ROUNDS} rounds interleaved, ${pace}; ours / Playwright (< 1: ours faster)`,
        columns: ['page', ...typeNames],
        rows: warmRows,
      };
    }
    if (floorRows.length) {
      tables['speed-floor'] = {
        caption: `bare Puppeteer in the same rounds, doing only ${typeNames.map((type) => `${floorOf(type)} (${type})`).join(', ')}; floor / Playwright`,
        columns: ['page', ...typeNames],
        rows: floorRows,
      };
    }
    results.writeResults(JSON_OUT, __filename, argv, {
      bench: 'speed',
      engine: `both sides on ${engines.label(EXECUTABLE)}, Chromium ${chromiumVersion}`,
      tables,
    });
  } finally {
    server.close();
    fs.rmSync(runRoot, { recursive: true, force: true });
    fs.rmSync(peerDir, { recursive: true, force: true });
  }
}

/** The first-call peer's child: launch, one screenshot, say so, close. */
async function peerFirst(url, file) {
  const browser = await chromium.launch({ executablePath: EXECUTABLE, args: ARGS });
  TYPES = PAGES.cards.types;
  await playwrightCapture(browser, url, 'screenshot', file);
  process.stdout.write('captured\n');
  await browser.close();
}

(argv[0] === '--peer-first' ? peerFirst(argv[1], argv[2]) : main()).catch((err) => {
  console.error(err);
  process.exit(1);
});
