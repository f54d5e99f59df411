#!/usr/bin/env node
/**
 * What the page time an input action takes (ACTION_STEP_MS, 50 ms of page
 * time after each click, fill, press…) costs in wall time, side by side
 * with what the same action costs Playwright, on the same engine:
 *   - step: in-process, the built PageClock's actionStep() on a loaded,
 *     settled page (the Date-keyed list of test/clock/pages): the wall time
 *     of moving its clock 50 ms, timers and frames due inside run;
 *   - press: the same page's Enter on the input, ours (the built action
 *     runner, its step included) and Playwright's page.press();
 *   - four actions: fill, Enter, fill, Enter, ours against Playwright's.
 * Rounds interleave the drivers so machine load hits them alike; prints
 * medians and ratios (ours / Playwright; < 1 = ours faster).
 *
 * Run after `npm run build`: node bench/action-step.js [rounds, default 30]
 */
const fs = require('fs');
const path = require('path');
const http = require('http');
const { performance } = require('perf_hooks');
const puppeteer = require('puppeteer-core');
const { chromium } = require('playwright-core');

const DIST = path.join(__dirname, '..', 'dist', 'src');
const { PageClock } = require(path.join(DIST, 'browser', 'page', 'pageClock.js'));
const { runOneAction } = require(path.join(DIST, 'browser', 'capture', 'actionRunner.js'));
const { findBrowser, isHeadlessShell } = require(path.join(DIST, 'browser', 'fleet', 'findBrowser.js'));
const { ACTION_STEP_MS } = require(path.join(DIST, 'common', 'time.js'));
const engines = require('./lib/engines');

const ROUNDS = Number(process.argv[2] || 30);
const ENGINE = findBrowser({ env: process.env }).executablePath;
const PAGE = fs.readFileSync(path.join(__dirname, '..', 'test', 'clock', 'pages', 'date-keyed-list.html'));

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function main() {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(PAGE);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/`;
  const [browser, pw] = await Promise.all([
    puppeteer.launch({ executablePath: ENGINE, headless: isHeadlessShell(ENGINE) ? 'shell' : true, args: engines.BENCH_ARGS }),
    chromium.launch({ executablePath: ENGINE, args: engines.BENCH_ARGS }),
  ]);
  const ours = async () => {
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    const session = await page.createCDPSession();
    const clock = await PageClock.install(page, session, null);
    await page.goto(url, { waitUntil: 'load' });
    await clock.settle();
    return { page, session, clock, close: () => context.close() };
  };
  const theirs = async () => {
    const context = await pw.newContext();
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'load' });
    return { page, close: () => context.close() };
  };
  const fourActions = [
    { do: 'fill', selector: '#new', value: 'Buy milk' },
    { do: 'press', selector: '#new', key: 'Enter' },
    { do: 'fill', selector: '#new', value: 'Walk the dog' },
    { do: 'press', selector: '#new', key: 'Enter' },
  ];
  const times = { step: [], oursPress: [], theirsPress: [], oursFour: [], theirsFour: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const a = await ours();
    let t = performance.now();
    await a.clock.actionStep();
    times.step.push(performance.now() - t);
    await runOneAction(a.page, { do: 'fill', selector: '#new', value: 'x' }, undefined, null, a.session);
    t = performance.now();
    await runOneAction(a.page, { do: 'press', selector: '#new', key: 'Enter' }, undefined, null, a.session);
    times.oursPress.push(performance.now() - t);
    await a.close();

    const b = await theirs();
    await b.page.fill('#new', 'x');
    t = performance.now();
    await b.page.press('#new', 'Enter');
    times.theirsPress.push(performance.now() - t);
    await b.close();

    const c = await ours();
    t = performance.now();
    for (const action of fourActions) await runOneAction(c.page, action, undefined, null, c.session);
    times.oursFour.push(performance.now() - t);
    const items = await c.page.$$eval('#list li', (lis) => lis.length);
    if (items !== 2) throw new Error(`ours kept ${items} records, not 2`);
    await c.close();

    const d = await theirs();
    t = performance.now();
    await d.page.fill('#new', 'Buy milk');
    await d.page.press('#new', 'Enter');
    await d.page.fill('#new', 'Walk the dog');
    await d.page.press('#new', 'Enter');
    times.theirsFour.push(performance.now() - t);
    await d.close();
  }
  await Promise.all([browser.close(), pw.close()]);
  server.close();
  const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
  const f = (x) => `${x.toFixed(1)} ms`;
  console.log(`engine: ${engines.label(ENGINE)}; ${ROUNDS} rounds; step = ${ACTION_STEP_MS} ms of page time`);
  console.log(`step (${ACTION_STEP_MS} ms of page time), wall:  ${f(m.step)}  (${((m.step / m.theirsPress) * 100).toFixed(0)}% of Playwright's press)`);
  console.log(`press Enter, ours (step included) / Playwright:  ${f(m.oursPress)} / ${f(m.theirsPress)} = ${(m.oursPress / m.theirsPress).toFixed(2)}x`);
  console.log(`fill, Enter, fill, Enter, ours / Playwright:     ${f(m.oursFour)} / ${f(m.theirsFour)} = ${(m.oursFour / m.theirsFour).toFixed(2)}x`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
