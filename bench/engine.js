#!/usr/bin/env node
/**
 * What one capture costs each Chromium engine, in CPU: the full browser
 * (Debian's `chromium`) against the headless shell (`chromium-headless-shell`,
 * which the runtime prefers when installed; see docs/browser.md, "Which browser").
 *
 * Per engine, serially over small local pages, the Chromium CPU (the
 * browser's process tree, reaped renderers included: bench/lib/procMemory.js)
 * per step:
 *   blank page   a new browser context with one blank page, closed
 *   capture      a new context and page, the page loaded, a full-page PNG, closed
 *   reload       the same page loaded again in a page kept open (for scale)
 * CPU, not wall time, is what bounds bulk throughput on a busy machine.
 *
 *   node bench/engine.js [--ops 20] [--json OUT.json]
 */
const http = require('http');
const puppeteer = require('puppeteer-core');
const engines = require('./lib/engines');
const results = require('./lib/results');
const { treeCpuMs } = require('./lib/procMemory');

const argv = process.argv.slice(2);
const OPS = argv.includes('--ops') ? Number(argv[argv.indexOf('--ops') + 1]) : 20;
const ARGS = [...engines.BENCH_ARGS, '--disable-dev-shm-usage'];

const html = (i) => `<!doctype html><html><head><style>body{font:16px sans-serif;background:hsl(${(i * 47) % 360} 50% 90%)}
.c{padding:16px;margin:8px;border-radius:8px;background:#fff}</style></head><body data-state="p${i}">
${Array.from({ length: 10 }, (_, c) => `<div class=c><h2>Card ${c}</h2><p>${'Text that wraps. '.repeat(8)}</p><button>Go</button></div>`).join('')}</body></html>`;

async function measure(browser, op) {
  const pid = browser.process().pid;
  for (let i = 0; i < 3; i++) await op(i);
  await new Promise((r) => setTimeout(r, 300));
  const before = treeCpuMs(pid);
  for (let i = 0; i < OPS; i++) await op(i);
  await new Promise((r) => setTimeout(r, 500)); // closed renderers are reaped
  return (treeCpuMs(pid) - before) / OPS;
}

async function main() {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(html(Number(req.url.slice(2)) || 0));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const list = [['full browser', engines.FULL], ...(engines.SHELL ? [['headless shell', engines.SHELL]] : [])];
  console.log(`bench/engine.js: Chromium CPU per step, ${OPS} ops each, serial`);
  const captureCpu = {};
  const rows = [];
  for (const [name, executablePath] of list) {
    const browser = await puppeteer.launch({ executablePath, headless: engines.headlessMode(executablePath), pipe: true, args: ARGS, defaultViewport: null });
    try {
      const blank = await measure(browser, async () => {
        const context = await browser.createBrowserContext();
        await context.newPage();
        await context.close();
      });
      const capture = await measure(browser, async (i) => {
        const context = await browser.createBrowserContext();
        const page = await context.newPage();
        await page.setViewport({ width: 1280, height: 800 });
        await page.goto(`${origin}/p${i}`, { waitUntil: 'domcontentloaded' });
        await page.screenshot({ fullPage: true, optimizeForSpeed: true });
        await context.close();
      });
      const context = await browser.createBrowserContext();
      const page = await context.newPage();
      const reload = await measure(browser, (i) => page.goto(`${origin}/p${i}`, { waitUntil: 'domcontentloaded' }));
      await context.close();
      captureCpu[name] = capture;
      rows.push([
        `${name} (\`${executablePath}\`, ${await browser.version()})`,
        { value: Math.round(blank), unit: 'ms' },
        { value: Math.round(capture), unit: 'ms' },
        { value: Math.round(reload), unit: 'ms' },
      ]);
      console.log(
        `  ${name.padEnd(15)} blank page ${blank.toFixed(0)} ms, capture ${capture.toFixed(0)} ms, reload ${reload.toFixed(0)} ms  (${executablePath}, ${await browser.version()})`,
      );
    } finally {
      await browser.close();
    }
  }
  if (captureCpu['headless shell'])
    console.log(`a capture in the headless shell costs ${(captureCpu['headless shell'] / captureCpu['full browser']).toFixed(2)}x the full browser's CPU`);
  results.writeResults(results.jsonOutPath(process.argv.slice(2)), __filename, process.argv.slice(2), {
    bench: 'engine',
    engine: list.map(([name]) => name).join(' and '),
    tables: {
      engine: {
        caption: `Chromium CPU per step (the browser's process tree, reaped renderers included), ${OPS} each, serially: a new context with a blank page; a new context, the page loaded and a full-page PNG; the page loaded again in a page kept open`,
        columns: ['executable', 'blank page', 'capture', 'reload'],
        rows,
      },
    },
  });
  server.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
