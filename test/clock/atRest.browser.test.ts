/**
 * Pages captured at rest, against a real Chromium: after load and after the
 * actions the page's virtual time runs until nothing would move (no frame
 * requested, no timer due soon, no animation still running, no request in
 * flight) or until the bound, where a perpetual animation stops at the same
 * instant every time with a warning. Through the library API (the bundled
 * provider), and the settle itself on a page driven with Puppeteer.
 */
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import type { Browser } from 'puppeteer-core';
import { executeCapturePlan, closeBundledBrowser } from '../../src/index';
import { PageClock } from '../../src/browser/page/pageClock';
import { QUIET_WINDOW_MS, REST_HORIZON_MS } from '../../src/common/time';
import { decodePng } from '../../src/png/decode';
import { launchTestBrowser, servePages, type PageServer } from '../helpers/browser';
import { settledPage } from '../helpers/clock';
import { captureArgs, makeRunRoot } from '../e2e/harness';

const PAGES = path.join(__dirname, 'pages');
jest.setTimeout(300_000);

let server: PageServer;
let root: string;
let counter = 0;
const hanging: Array<() => void> = [];

beforeAll(async () => {
  server = await servePages(PAGES, {
    '/slow-data': (_req, res) => {
      const timer = setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"value":42}');
      }, 1000);
      res.on('close', () => clearTimeout(timer));
    },
    '/events': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      res.write('data: hello\n\n');
      hanging.push(() => res.end());
    },
    '/long-poll': (_req, res) => {
      hanging.push(() => res.end());
    },
  });
  root = makeRunRoot('at-rest');
}, 60_000);

afterAll(async () => {
  delete process.env.DESIGN_PLAYBOOK_SETTLE_MAX_MS;
  for (const end of hanging.splice(0)) end();
  await closeBundledBrowser();
  await server?.close();
});

afterEach(() => {
  delete process.env.DESIGN_PLAYBOOK_SETTLE_MAX_MS;
});

const sha = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const settleWarnings = (warnings: string[]) => warnings.filter((w) => w.startsWith('settle '));

interface Captured {
  file: string;
  warnings: string[];
  observedState: string;
  /** The aria snapshot text (a11y tree captures). */
  tree: string;
}

async function capture(page: string, extra: Record<string, unknown> = {}): Promise<Captured> {
  const type = (extra.type as string) ?? 'screenshot';
  const leaf = `${path.basename(page.split('?')[0], '.html')}-${counter++}.${type === 'screenshot' ? 'png' : 'json'}`;
  const result = await executeCapturePlan(
    captureArgs(root, server.url(page), leaf, { viewport: { width: 400, height: 300, devicePixelRatio: 1, colorScheme: 'light' }, ...extra }),
  );
  expect(result.error).toBe('');
  expect(result.result).toBe('captured');
  const tree = type === 'a11y tree' ? (JSON.parse(fs.readFileSync(result.written_path, 'utf8')).tree as string) : '';
  return { file: result.written_path, warnings: result.warnings, observedState: result.observed_state, tree };
}

/** The RGB of one pixel of a screenshot. */
function pixel(file: string, x: number, y: number): [number, number, number] {
  const { header, pixels } = decodePng(fs.readFileSync(file));
  const at = y * header.rowBytes + x * header.pixelBytes;
  return [pixels[at], pixels[at + 1], pixels[at + 2]];
}

const close = (a: number[], b: number[]) => a.every((v, i) => Math.abs(v - b[i]) <= 8);

describe("the issue's cases", () => {
  test('a canvas chart animated by requestAnimationFrame for 1 s is captured complete', async () => {
    const shot = await capture('chart-raf.html');
    expect(settleWarnings(shot.warnings)).toEqual([]);
    const bar: [number, number, number] = [0x1f, 0x77, 0xb4];
    // The tallest bar (value 1) reaches y = 10; the shortest (0.5) y = 100 — at full height, not part way.
    expect(close(pixel(shot.file, 185, 12), bar)).toBe(true);
    expect(close(pixel(shot.file, 45, 102), bar)).toBe(true);
    expect(close(pixel(shot.file, 45, 97), [255, 255, 255])).toBe(true);
    const tree = await capture('chart-raf.html', { type: 'a11y tree' });
    expect(tree.tree).toContain('status: "100"');
  });

  test('a counter that counts to 5000 with setTimeout shows 5000', async () => {
    const run = await capture('count-up.html', { type: 'a11y tree' });
    expect(run.tree).toContain('status: "5000"');
    expect(settleWarnings(run.warnings)).toEqual([]);
  });

  test('a perpetual animation stops at the bound with the warning, and two captures give identical bytes', async () => {
    const runs = [await capture('raf-canvas.html'), await capture('raf-canvas.html')];
    expect(sha(runs[0].file)).toBe(sha(runs[1].file));
    for (const run of runs) {
      expect(settleWarnings(run.warnings)).toEqual([
        'settle after load: the page was still busy after 5000 ms of its time (a requestAnimationFrame loop); captured as it stood at that instant — DESIGN_PLAYBOOK_SETTLE_MAX_MS on the server raises the bound',
      ]);
    }
    // The text the last frame wrote: the frame at 4992 ms, the last one before the bound.
    const tree = await capture('raf-canvas.html', { type: 'a11y tree' });
    expect(tree.tree).toContain('Elapsed: 4992 ms');
  });

  test('a page that fetches with a 2 s timeout from a server answering after 1 s shows the data, not the timeout', async () => {
    const run = await capture('fetch-timeout.html', { type: 'a11y tree' });
    expect(run.tree).toContain('Data: 42');
    expect(run.observedState).toBe('loaded');
    expect(settleWarnings(run.warnings)).toEqual([]);
  });
});

describe('at rest', () => {
  test('a page already at rest settles without reaching the bound and with no warning', async () => {
    const run = await capture('at-rest.html');
    expect(run.warnings).toEqual([]);
  });

  test('a page polling with setInterval(…, 1000) is at rest between polls', async () => {
    const run = await capture('polling.html', { type: 'a11y tree' });
    expect(run.tree).toContain('status: "0"');
    expect(settleWarnings(run.warnings)).toEqual([]);
  });

  test('after the actions the page settles again: a click that starts a 500 ms animation is captured finished', async () => {
    const run = await capture('click-animation.html', { type: 'a11y tree', state: 'open', actions: [{ do: 'click', selector: '#open' }] });
    expect(run.tree).toContain('status: "120"');
    expect(run.observedState).toBe('open');
    expect(settleWarnings(run.warnings)).toEqual([]);
  });

  test('a finite Web Animation is captured finished', async () => {
    const shot = await capture('grow-in.html');
    expect(settleWarnings(shot.warnings)).toEqual([]);
    // The bar is 300 px wide from x = 20 once grown in; part way, its right end is still white.
    expect(close(pixel(shot.file, 315, 35), [0x2a, 0x9d, 0x8f])).toBe(true);
  });

  test("a counter started by an IntersectionObserver (delivered at the browser's own frame) is captured at its end", async () => {
    const run = await capture('observed-counter.html', { type: 'a11y tree' });
    expect(run.tree).toContain('status: "1200"');
  });
});

describe('a page with a same-origin frame', () => {
  test('each frame runs to its own rest: both counts complete, and what the frame told the page is on it', async () => {
    const run = await capture('framed-counters.html', { type: 'a11y tree' });
    expect(settleWarnings(run.warnings)).toEqual([]);
    expect(run.tree).toContain('status: "300"');
    expect(run.tree).toContain('status: child 500');
  });

  test('a frame still busy at the bound is the one warned about; the page and the bytes are the same every time', async () => {
    const runs = [await capture('framed-counters.html?forever'), await capture('framed-counters.html?forever')];
    expect(sha(runs[0].file)).toBe(sha(runs[1].file));
    for (const run of runs) {
      const warnings = settleWarnings(run.warnings);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(`the frame ${server.url('/framed-child.html')} was still busy after 5000 ms of its time (a requestAnimationFrame loop)`);
    }
    const tree = await capture('framed-counters.html?forever', { type: 'a11y tree' });
    expect(tree.tree).toContain('status: "300"');
    expect(tree.tree).toContain('status: child 500');
  });
});

describe('the bound', () => {
  test('DESIGN_PLAYBOOK_SETTLE_MAX_MS sets it, and the warning names what kept the page busy', async () => {
    process.env.DESIGN_PLAYBOOK_SETTLE_MAX_MS = '1000';
    const run = await capture('interval-clock.html', { type: 'a11y tree' });
    expect(settleWarnings(run.warnings)).toEqual([
      'settle after load: the page was still busy after 1000 ms of its time (a setInterval every 10 ms); captured as it stood at that instant — DESIGN_PLAYBOOK_SETTLE_MAX_MS on the server raises the bound',
    ]);
    expect(run.tree).toContain('status: "100"');
  });

  test('after the actions the bound is counted again, and the warning says which settle', async () => {
    process.env.DESIGN_PLAYBOOK_SETTLE_MAX_MS = '800';
    const run = await capture('other-motion.html', { type: 'a11y tree', actions: [{ do: 'wait', ms: 100 }] });
    const warnings = settleWarnings(run.warnings);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^settle after load: the page was still busy after 800 ms of its time \(2 endless animations\)/);
    expect(warnings[1]).toMatch(/^settle after the actions: the page was still busy after 800 ms of its time \(2 endless animations\)/);
  });

  test('a value that is not a positive integer falls back to the default', async () => {
    process.env.DESIGN_PLAYBOOK_SETTLE_MAX_MS = 'soon';
    const run = await capture('raf-canvas.html', { type: 'a11y tree' });
    expect(settleWarnings(run.warnings)[0]).toContain('after 5000 ms of its time');
  });
});

describe('long-lived connections do not hold the clock', () => {
  test('an open EventSource neither paces the page nor keeps it from rest', async () => {
    // A bound shorter than the long-request limit: were the stream counted, the settle would stop at it, paced, with a warning.
    process.env.DESIGN_PLAYBOOK_SETTLE_MAX_MS = '1000';
    const run = await capture('event-stream.html', { type: 'a11y tree' });
    expect(settleWarnings(run.warnings)).toEqual([]);
  });

  test('a long-poll the server never answers stops counting after the long-request limit, before the bound', async () => {
    const run = await capture('long-poll.html', { type: 'a11y tree' });
    expect(settleWarnings(run.warnings)).toEqual([]);
    expect(run.tree).toContain('Waiting for news');
  });

  test('a request still open at the bound is named in the warning', async () => {
    process.env.DESIGN_PLAYBOOK_SETTLE_MAX_MS = '600';
    const run = await capture('long-poll.html', { type: 'a11y tree' });
    expect(settleWarnings(run.warnings)).toEqual([
      `settle after load: the page was still busy after 600 ms of its time (1 request in flight (${server.url('long-poll')})); captured as it stood at that instant — DESIGN_PLAYBOOK_SETTLE_MAX_MS on the server raises the bound`,
    ]);
  });
});

describe('freeze.enabled false', () => {
  test('nothing settles: no clock, no settle warning, the animation keeps running on the wall clock', async () => {
    const run = await capture('raf-canvas.html', { type: 'a11y tree', freeze: { enabled: false } });
    expect(settleWarnings(run.warnings)).toEqual([]);
    expect(run.tree).not.toContain('Elapsed: 4992 ms');
  });
});

describe('the settle on a page driven directly', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchTestBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  const settled = (file: string, settleMaxMs?: number) => settledPage(browser, server.url(file), settleMaxMs);

  test('a page at rest moves exactly the quiet window', async () => {
    const { page, warnings, now } = await settled('at-rest.html');
    expect({ warnings, now }).toEqual({ warnings: [], now: QUIET_WINDOW_MS });
    await page.close();
  });

  test('a page polling every second is at rest before its first poll: the window ends before what falls due at its end', async () => {
    const { page, warnings, now } = await settled('polling.html');
    expect({ warnings, now }).toEqual({ warnings: [], now: QUIET_WINDOW_MS });
    expect(await page.$eval('#polls', (e) => e.textContent)).toBe('0');
    expect(REST_HORIZON_MS).toBeLessThan(1000);
    await page.close();
  });

  test('the counter comes to rest one quiet window after its last tick', async () => {
    // 100 ticks, one every 20 ms: the last at 1980 ms.
    const { page, warnings, now } = await settled('count-up.html');
    expect({ warnings, now }).toEqual({ warnings: [], now: 1980 + QUIET_WINDOW_MS });
    await page.close();
  });

  test('a perpetual animation stops at exactly the bound', async () => {
    const { page, warnings, now } = await settled('raf-canvas.html', 700);
    expect(now).toBe(700);
    expect(warnings).toHaveLength(1);
    await page.close();
  });

  test('a second settle (after the actions) counts its bound from where the first stopped', async () => {
    const { page, now } = await settled('raf-canvas.html', 300);
    const again = await PageClock.of(page)!.settle();
    expect(now).toBe(300);
    expect(await page.evaluate('globalThis.__designPlaybookClock.now()')).toBe(600);
    expect(again[0]).toMatch(/^settle after the actions: /);
    await page.close();
  });
});
