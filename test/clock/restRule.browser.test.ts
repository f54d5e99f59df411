/**
 * The rest rule waits for what the page is waiting for (issue 34): a page
 * that fetches and then renders through a poll or a timer is captured with
 * its data whatever the response's speed; polls that change nothing do not
 * hold a capture to the bound; a carousel or a ticker is taken as a user
 * finds it after load, and an action lands on what that user sees; a
 * WebSocket kept open holds nothing. Through the library API (the bundled
 * provider) for all three capture types, and the settle itself on a page
 * driven with Puppeteer where the page's time is read.
 */
import * as fs from 'fs';
import * as path from 'path';
import JSZip from 'jszip';
import { WebSocketServer } from 'ws';
import type { Browser } from 'puppeteer-core';
import { executeCapturePlan, closeBundledBrowser } from '../../src/index';
import { DEFAULT_SETTLE_MAX_MS, QUIET_WINDOW_MS } from '../../src/common/time';
import { launchTestBrowser, servePages, type PageServer } from '../helpers/browser';
import { settledPage } from '../helpers/clock';
import { captureArgs, makeRunRoot } from '../e2e/harness';

jest.setTimeout(300_000);

let server: PageServer;
let sockets: WebSocketServer;
let root: string;
let counter = 0;

beforeAll(async () => {
  server = await servePages(path.join(__dirname, 'pages'), {
    '/data': (req, res) => {
      const query = new URL(req.url ?? '/', 'http://x').searchParams;
      const values: Record<string, number> = { a: 1, b: 2, c: 3, report: 42 };
      const timer = setTimeout(
        () => {
          res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
          res.end(JSON.stringify({ value: values[query.get('name') ?? ''] ?? 0 }));
        },
        Number(query.get('delay') ?? 0),
      );
      res.on('close', () => clearTimeout(timer));
    },
  });
  sockets = new WebSocketServer({ noServer: true });
  server.http.on('upgrade', (req, socket, head) =>
    sockets.handleUpgrade(req, socket, head, (ws) => {
      ws.send('hello');
      const ping = setInterval(() => ws.send('ping'), 2000);
      ws.on('close', () => clearInterval(ping));
    }),
  );
  root = makeRunRoot('rest-rule');
}, 60_000);

afterAll(async () => {
  for (const client of sockets?.clients ?? []) client.terminate();
  sockets?.close();
  await closeBundledBrowser();
  await server?.close();
});

const settleWarnings = (warnings: string[]) => warnings.filter((w) => w.startsWith('settle '));
const EXTENSION: Record<string, string> = { screenshot: 'png', 'a11y tree': 'json', 'interaction trace': 'trace.zip' };

interface Captured {
  warnings: string[];
  observedState: string;
  /** What the artifact holds as text: the aria snapshot, or the trace's events (empty for a PNG). */
  text: string;
}

/**
 * A trace of a page alone holds its navigation's snapshots (taken at the load); the page
 * at rest is in the snapshots of the first action, which runs on it: a key press that
 * changes nothing.
 */
const OBSERVING_ACTIONS: Record<string, unknown[]> = { 'interaction trace': [{ do: 'press', key: 'Shift' }] };

async function capture(page: string, type: string, extra: Record<string, unknown> = {}): Promise<Captured> {
  extra = { actions: OBSERVING_ACTIONS[type] ?? [], ...extra };
  const leaf = `${path.basename(page.split('?')[0], '.html')}-${counter++}.${EXTENSION[type]}`;
  const result = await executeCapturePlan(
    captureArgs(root, server.url(page), leaf, { type, viewport: { width: 500, height: 400, devicePixelRatio: 1, colorScheme: 'light' }, ...extra }),
  );
  expect(result.error).toBe('');
  expect(result.result).toBe('captured');
  let text = '';
  if (type === 'a11y tree') text = JSON.parse(fs.readFileSync(result.written_path, 'utf8')).tree;
  if (type === 'interaction trace') {
    const zip = await JSZip.loadAsync(fs.readFileSync(result.written_path));
    text = await zip.file('trace.trace')!.async('string');
  }
  return { warnings: result.warnings, observedState: result.observed_state, text };
}

const TYPES = ['screenshot', 'a11y tree', 'interaction trace'];
const DELAYS = [0, 200, 1500];

describe('fetched data rendered through a poll or a timer is captured, whatever the response time', () => {
  describe.each(TYPES)('%s', (type) => {
    test.each(DELAYS)('three requests answered after %i ms, rendered by a 500 ms poll', async (delay) => {
      const run = await capture(`fetch-poll.html?delay=${delay}`, type);
      expect(run.observedState).toBe('loaded');
      expect(settleWarnings(run.warnings)).toEqual([]);
      if (type !== 'screenshot') expect(run.text).toContain('Data: 1, 2, 3');
    });

    test.each(DELAYS)('a response after %i ms, rendered by a 1 s setTimeout', async (delay) => {
      const run = await capture(`fetch-then-timeout.html?delay=${delay}`, type);
      expect(run.observedState).toBe('loaded');
      expect(settleWarnings(run.warnings)).toEqual([]);
      if (type !== 'screenshot') expect(run.text).toContain('Data: 42');
    });
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

  const settled = (file: string) => settledPage(browser, server.url(file));

  test('polls that run for ever and change nothing (50 ms, 700 ms, a 100 ms setTimeout chain) do not hold the page to the bound', async () => {
    const { page, warnings, now } = await settled('quiet-poll.html');
    expect(warnings).toEqual([]);
    // The window, and the few firings it takes to see that the fast polls change nothing.
    expect(now).toBeLessThan(2 * QUIET_WINDOW_MS);
    expect(now).toBeLessThan(DEFAULT_SETTLE_MAX_MS);
    await page.close();
  });

  test('a ticker (a new state every 500 ms, for ever) is taken after load, not advanced to the bound', async () => {
    const { page, warnings, now } = await settled('ticker.html');
    expect(warnings).toEqual([]);
    expect(now).toBe(QUIET_WINDOW_MS);
    expect(await page.$eval('#tick', (e) => e.textContent)).toBe('1');
    await page.close();
  });

  test('the data page is at rest one window after its poll rendered, with the requests answered at once', async () => {
    const { page, warnings, now } = await settled('fetch-poll.html?delay=0');
    expect(warnings).toEqual([]);
    expect(await page.$eval('#out', (e) => e.textContent)).toBe('Data: 1, 2, 3');
    expect(now).toBeLessThan(DEFAULT_SETTLE_MAX_MS);
    await page.close();
  });
});

describe('without warnings, and without waiting for the bound', () => {
  test('polls that change nothing: every capture type, no settle warning', async () => {
    for (const type of TYPES) expect(settleWarnings((await capture('quiet-poll.html', type)).warnings)).toEqual([]);
  });

  test('a WebSocket kept open holds nothing: connected, no settle warning', async () => {
    for (const type of TYPES) {
      const run = await capture('websocket.html', type);
      expect(run.observedState).toBe('connected');
      expect(settleWarnings(run.warnings)).toEqual([]);
    }
  });
});

describe('an auto-rotating carousel (a turn every 5 s)', () => {
  test.each(['carousel.html', 'carousel.html?chain'])('%s is captured on its first slide', async (page) => {
    const run = await capture(page, 'a11y tree');
    expect(run.text).toContain('First slide');
    expect(run.text).not.toContain('Second slide');
    expect(settleWarnings(run.warnings)).toEqual([]);
  });

  test.each(['text=Learn more', 'button:visible', 'role=button[name="Learn more"] >> visible=true'])(
    "a click on the first slide's button (%s) lands there",
    async (selector) => {
      for (const type of ['screenshot', 'interaction trace']) {
        const run = await capture('carousel.html', type, { state: 'clicked-1', actions: [{ do: 'click', selector }] });
        expect(run.observedState).toBe('clicked-1');
      }
    },
  );
});
