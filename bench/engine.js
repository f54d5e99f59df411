#!/usr/bin/env node
/**
 * What one capture costs each Chromium engine, in CPU: the full browser
 * (Debian's `chromium`) against the headless shell (`chromium-headless-shell`,
 * which the runtime prefers when installed; see README "Browser").
 *
 * Per engine, serially over small local pages, the Chromium CPU (every
 * process of the browser, renderers reaped included: utime+stime+cutime+cstime
 * from /proc) per step:
 *   blank page   a new browser context with one blank page, closed
 *   capture      a new context and page, the page loaded, a full-page PNG, closed
 *   reload       the same page loaded again in a page kept open (for scale)
 * CPU, not wall time, is what bounds bulk throughput on a busy machine.
 *
 *   node bench/engine.js [--ops 20]
 */
const fs = require('fs');
const http = require('http');
const puppeteer = require('puppeteer');
const engines = require('./lib/engines');

const argv = process.argv.slice(2);
const OPS = argv.includes('--ops') ? Number(argv[argv.indexOf('--ops') + 1]) : 20;
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run', '--disable-quic', '--disable-dev-shm-usage'];
const TICK_MS = 10; // USER_HZ is 100 on Linux

/** CPU ms of every Chromium process on the machine (the bench runs one browser at a time). */
function chromiumCpuMs() {
  let ticks = 0;
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let stat;
    let cmd;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!/chrom/.test(cmd)) continue;
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  }
  return ticks * TICK_MS;
}

const html = (i) => `<!doctype html><html><head><style>body{font:16px sans-serif;background:hsl(${(i * 47) % 360} 50% 90%)}
.c{padding:16px;margin:8px;border-radius:8px;background:#fff}</style></head><body data-state="p${i}">
${Array.from({ length: 10 }, (_, c) => `<div class=c><h2>Card ${c}</h2><p>${'Text that wraps. '.repeat(8)}</p><button>Go</button></div>`).join('')}</body></html>`;

async function measure(op) {
  for (let i = 0; i < 3; i++) await op(i);
  await new Promise((r) => setTimeout(r, 300));
  const before = chromiumCpuMs();
  for (let i = 0; i < OPS; i++) await op(i);
  await new Promise((r) => setTimeout(r, 500)); // closed renderers are reaped
  return (chromiumCpuMs() - before) / OPS;
}

async function main() {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(html(Number(req.url.slice(2)) || 0));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const list = [['full browser', engines.FULL, true], ...(engines.SHELL ? [['headless shell', engines.SHELL, 'shell']] : [])];
  console.log(`bench/engine.js: Chromium CPU per step, ${OPS} ops each, serial`);
  const results = {};
  for (const [name, executablePath, headless] of list) {
    const browser = await puppeteer.launch({ executablePath, headless, pipe: true, args: ARGS, defaultViewport: null });
    try {
      const blank = await measure(async () => {
        const context = await browser.createBrowserContext();
        await context.newPage();
        await context.close();
      });
      const capture = await measure(async (i) => {
        const context = await browser.createBrowserContext();
        const page = await context.newPage();
        await page.setViewport({ width: 1280, height: 800 });
        await page.goto(`${origin}/p${i}`, { waitUntil: 'domcontentloaded' });
        await page.screenshot({ fullPage: true, optimizeForSpeed: true });
        await context.close();
      });
      const context = await browser.createBrowserContext();
      const page = await context.newPage();
      const reload = await measure((i) => page.goto(`${origin}/p${i}`, { waitUntil: 'domcontentloaded' }));
      await context.close();
      results[name] = capture;
      console.log(`  ${name.padEnd(15)} blank page ${blank.toFixed(0)} ms, capture ${capture.toFixed(0)} ms, reload ${reload.toFixed(0)} ms  (${executablePath}, ${await browser.version()})`);
    } finally {
      await browser.close();
    }
  }
  if (results['headless shell']) console.log(`a capture in the headless shell costs ${(results['headless shell'] / results['full browser']).toFixed(2)}x the full browser's CPU`);
  server.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
