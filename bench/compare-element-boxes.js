#!/usr/bin/env node
/**
 * What the element boxes (the probe sidecar's `elements` face,
 * src/compare/elementBoxes.ts) cost a screenshot capture: the target is at
 * most 5% of its time.
 *
 *   A/B captures   the same page captured through the library
 *                  (executeCapturePlan, the bundled provider, warm browser),
 *                  alternately with the face and without it (the bench wraps
 *                  the built probe's screenshotProbe to pass
 *                  elementBoxes: false), the order switching every round;
 *                  medians of each side, their difference, the median of
 *                  each round's paired difference (which cancels drift in
 *                  the machine's load), and the probe's own time inside the
 *                  captures;
 *   probe step     on one loaded page, the probe alone with and without the
 *                  face (plus building and serializing the sidecar), many
 *                  times, interleaved: the same difference with less noise.
 *
 * Pages: `cards` (8 cards of text and buttons), `form` (test/trace/fixtures:
 * a form with a stylesheet, images, an iframe and a shadow root), `large`
 * (600 cards: about 3,000 elements worth naming, above the face's limit).
 *
 * Run after `npm run build`: node bench/compare-element-boxes.js [--rounds 20] [--page cards,form,large]
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');
const { performance } = require('perf_hooks');
const puppeteer = require('puppeteer-core');
const engines = require('./lib/engines');

const argv = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : fallback;
};
const ROUNDS = Number(opt('rounds', 20));
const PAGE_NAMES = (opt('page', null) || 'cards,form,large').split(',');
const PROBE_REPS = 30;
const ROOT = path.join(__dirname, '..');
const FIXTURES = path.join(ROOT, 'test', 'trace', 'fixtures');
const VIEWPORT = { width: 1280, height: 800, devicePixelRatio: 1, colorScheme: 'light' };

const probe = require('../dist/src/probe/index.js');
const { buildProbeSidecar } = require('../dist/src/probe/sidecar.js');
const original = probe.screenshotProbe;
let withBoxes = true;
// The B side: the same capture, the probe told not to record the face.
let probeMs = 0;
probe.screenshotProbe = async (session, design, options = {}) => {
  const start = performance.now();
  try {
    return await original(session, design, { ...options, elementBoxes: withBoxes });
  } finally {
    probeMs = performance.now() - start;
  }
};
const { executeCapturePlan, closeBundledBrowser } = require('../dist/src/index.js');

function cards(count) {
  return `<!doctype html><html data-state="ready"><head><meta charset="utf-8"><title>bench</title>
<style>body{font:16px system-ui;margin:0;background:#f5f5f5;color:#1a1a1a} header{background:#fff;padding:16px 24px}
h1{font-size:24px;margin:0} main{max-width:640px;margin:24px auto;padding:0 24px} .card{background:#fff;border-radius:12px;padding:20px;margin:12px 0}
button{border:0;border-radius:8px;background:#0b6bcb;color:#fff;padding:8px 16px;font:inherit}</style></head>
<body><header><h1>Bench page</h1></header><main>
${Array.from({ length: count }, (_, i) => `<section class="card"><h2>Card ${i + 1}</h2><p>Some text for card ${i + 1}, long enough to wrap a line or two in the layout.</p><button id="b${i + 1}">Action ${i + 1}</button></section>`).join('\n')}
</main></body></html>`;
}
const PAGES = { cards: { path: '/cards.html', state: 'ready' }, form: { path: '/index.html', state: 'idle' }, large: { path: '/large.html', state: 'ready' } };
const GENERATED = { '/cards.html': cards(8), '/large.html': cards(600) };

function serve() {
  const server = http.createServer((req, res) => {
    const url = req.url.split('?')[0];
    if (GENERATED[url]) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(GENERATED[url]);
      return;
    }
    const file = path.join(FIXTURES, path.normalize(decodeURIComponent(url)));
    if (!file.startsWith(FIXTURES) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404);
      res.end();
      return;
    }
    const types = { '.html': 'text/html; charset=utf-8', '.css': 'text/css', '.js': 'text/javascript', '.svg': 'image/svg+xml', '.json': 'application/json' };
    res.writeHead(200, { 'content-type': types[path.extname(file)] || 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function capture(root, url, state, leaf) {
  const start = performance.now();
  const result = await executeCapturePlan({
    schemaVersion: 1,
    url,
    type: 'screenshot',
    state,
    artifact_path: `evidence/${leaf}`,
    viewport: VIEWPORT,
    run_root: root,
    overwrite: true,
  });
  const ms = performance.now() - start;
  if (result.result !== 'captured') throw new Error(`capture failed: ${result.error}`);
  return { ms, probeMs, sidecarBytes: fs.statSync(result.written_path.replace(/\.png$/, '.probe.json')).size };
}

/** The probe step alone, with and without the face, interleaved on one loaded page. */
async function probeStep(url) {
  const browser = await puppeteer.launch({
    executablePath: engines.runtimeDefault(),
    headless: engines.headlessMode(engines.runtimeDefault()),
    args: engines.BENCH_ARGS,
  });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: VIEWPORT.width, height: VIEWPORT.height });
    await page.goto(url, { waitUntil: 'load' });
    const cdp = await page.createCDPSession();
    const times = { with: [], without: [] };
    let face = null;
    for (let r = 0; r < PROBE_REPS + 3; r++) {
      for (const side of r % 2 ? ['with', 'without'] : ['without', 'with']) {
        const start = performance.now();
        const measured = await original(cdp, undefined, { elementBoxes: side === 'with' });
        JSON.stringify(buildProbeSidecar({ page_facts: null, ...measured }), null, 2);
        const ms = performance.now() - start;
        if (r >= 3) times[side].push(ms);
        if (side === 'with') face = measured.element_boxes;
      }
    }
    return { with: median(times.with), without: median(times.without), items: face.items.length, omitted: face.omitted };
  } finally {
    await browser.close();
  }
}

(async () => {
  const server = await serve();
  const origin = `http://127.0.0.1:${server.address().port}`;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'element-boxes-bench-'));
  fs.writeFileSync(path.join(root, 'plan.md'), '# bench\n');
  console.log(`executable: ${engines.label(engines.runtimeDefault())}; ${os.cpus().length} cores; load ${os.loadavg()[0].toFixed(2)}; ${ROUNDS} rounds`);
  try {
    for (const name of PAGE_NAMES) {
      const { path: p, state } = PAGES[name];
      const url = origin + p;
      // Warm-up: the browser, the page's resources, both paths of the probe.
      for (const side of [true, false]) {
        withBoxes = side;
        await capture(root, url, state, `warm-${name}.png`);
      }
      const times = { with: [], without: [] };
      // Each round's two captures run back to back: their difference cancels the machine's drift.
      const paired = [];
      const probeTimes = { with: [], without: [] };
      const bytes = { with: 0, without: 0 };
      for (let r = 0; r < ROUNDS; r++) {
        for (const side of r % 2 ? [true, false] : [false, true]) {
          withBoxes = side;
          const key = side ? 'with' : 'without';
          const { ms, probeMs: inCapture, sidecarBytes } = await capture(root, url, state, `${name}-${key}.png`);
          times[key].push(ms);
          probeTimes[key].push(inCapture);
          bytes[key] = sidecarBytes;
        }
        paired.push(times.with[times.with.length - 1] - times.without[times.without.length - 1]);
      }
      const a = median(times.with);
      const b = median(times.without);
      const step = await probeStep(url);
      console.log(
        `${name}: capture median ${a.toFixed(1)} ms with the face, ${b.toFixed(1)} without: ${(a - b).toFixed(1)} ms = ${(((a - b) / b) * 100).toFixed(1)}%;` +
          ` median of the rounds' paired differences ${median(paired).toFixed(1)} ms = ${((median(paired) / b) * 100).toFixed(1)}%;` +
          ` probe step ${step.with.toFixed(2)} vs ${step.without.toFixed(2)} ms: +${(step.with - step.without).toFixed(2)} ms = ${(((step.with - step.without) / b) * 100).toFixed(1)}% of the capture;` +
          ` the probe inside the captures ${median(probeTimes.with).toFixed(2)} vs ${median(probeTimes.without).toFixed(2)} ms;` +
          ` ${step.items} elements (${step.omitted} omitted); sidecar ${bytes.with} vs ${bytes.without} bytes`,
      );
    }
  } finally {
    withBoxes = true;
    await closeBundledBrowser();
    server.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
