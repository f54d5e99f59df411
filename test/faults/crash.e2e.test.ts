/**
 * A page's renderer that dies mid-capture ends the capture at once: through
 * the bundled provider attached to a Chromium this test starts with a small
 * JS heap (so a page allocating on click kills only its renderer), and with
 * CDP's Page.crash sent from a second connection while an action waits. The
 * answer is `failed` naming the crash and the step, well before the 10 s
 * action budget; nothing is written, the capture's browser context is gone,
 * and the next capture on the same browser works. The same through the
 * built server with its own launched browser (small heap via
 * DESIGN_PLAYBOOK_CHROME_ARGS): the browser survives and serves the next
 * capture.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { spawn, type ChildProcess } from 'child_process';
import puppeteer, { type Browser } from 'puppeteer-core';
import { CHROMIUM_PATH, CHROMIUM_TEST_ARGS, servePages, type PageServer } from '../helpers/browser';
import { captureArgs, launchedBrowser, makeRunRoot, startServer, waitFor, PAGES } from '../e2e/harness';
import { PuppeteerCaptureProvider } from '../../src/browser/capture/puppeteerProvider';
import { executeCapturePlan } from '../../src/boundary';

jest.setTimeout(120_000);

// The beacon tells the test when the click arrived (for the time-to-answer figure), then the page eats its heap.
const BOOM = `<!doctype html><body data-state="armed"><button id="boom" onclick="
  navigator.sendBeacon('/clicked');
  const hoard = []; for (;;) hoard.push(new Array(1e6).fill(Math.random()));
">boom</button></body>`;
let clickedAt = 0;
const HOLD = `<!doctype html><body data-state="holding"><p id="here">waiting for #never</p></body>`;

let chromium: ChildProcess;
let profile: string;
let observer: Browser;
let provider: PuppeteerCaptureProvider;
let pages: PageServer;
let root: string;

/** Starts Chromium with remote debugging and a 32 MB old-space heap; resolves its WebSocket endpoint. */
async function startSmallHeapChromium(): Promise<string> {
  profile = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-crash-'));
  chromium = spawn(
    CHROMIUM_PATH,
    [...CHROMIUM_TEST_ARGS, '--headless', `--user-data-dir=${profile}`, '--remote-debugging-port=0', '--js-flags=--max-old-space-size=32', 'about:blank'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`Chromium printed no DevTools endpoint: ${seen}`)), 30_000);
    chromium.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
  });
}

/** Browser contexts besides the default one, as the browser itself lists them. */
async function extraContexts(): Promise<string[]> {
  const session = await observer.target().createCDPSession();
  try {
    const { browserContextIds } = await session.send('Target.getBrowserContexts');
    return browserContextIds;
  } finally {
    await session.detach();
  }
}

beforeAll(async () => {
  pages = await servePages(PAGES, {
    '/boom': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(BOOM);
    },
    '/clicked': (_req, res) => {
      clickedAt = Date.now();
      res.writeHead(204);
      res.end();
    },
    '/hold': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(HOLD);
    },
  });
  root = makeRunRoot('crash');
  const ws = await startSmallHeapChromium();
  observer = await puppeteer.connect({ browserWSEndpoint: ws, defaultViewport: null });
  provider = new PuppeteerCaptureProvider({ flags: () => ({ wsEndpoints: [ws] }), env: { ...process.env, DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS: '60000' } });
});

afterAll(async () => {
  await provider?.close();
  await observer?.disconnect().catch(() => undefined);
  if (chromium && chromium.exitCode === null && chromium.signalCode === null) {
    const exited = new Promise((resolve) => chromium.once('exit', resolve));
    chromium.kill('SIGKILL');
    await exited;
  }
  await pages?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
  if (profile) fs.rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
});

function evidenceFiles(): string[] {
  const dir = path.join(root, 'evidence');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
}

async function expectNextCaptureWorks(leaf: string): Promise<void> {
  const next = await executeCapturePlan(captureArgs(root, pages.url('/plain.html'), leaf), { provider });
  expect(next.error).toBe('');
  expect(next.result).toBe('captured');
  expect(next.observed_state).toBe('plain');
  fs.rmSync(next.written_path);
  fs.rmSync(next.written_path.replace(/\.png$/, '.probe.json'), { force: true });
}

test('a renderer that runs out of memory on click ends the capture at once, naming the crash and the action', async () => {
  const before = evidenceFiles();
  clickedAt = 0;
  const started = Date.now();
  const result = await executeCapturePlan(captureArgs(root, pages.url('/boom'), 'boom.png', { actions: [{ do: 'click', selector: '#boom' }] }), { provider });
  const answered = Date.now();
  // eslint-disable-next-line no-console
  console.log(`renderer OOM on click: answered ${answered - started} ms after the call, ${clickedAt ? answered - clickedAt : '?'} ms after the click`);
  expect(result.result).toBe('failed');
  expect(result.observed_state).toBe('unknown');
  expect(result.error).toBe("the page's renderer crashed (out of memory?) during actions[0] click '#boom'; nothing was captured");
  // Not the 10 s action budget: the crash itself ended it.
  expect(clickedAt).toBeGreaterThan(0);
  expect(answered - clickedAt).toBeLessThan(3_000);
  expect(evidenceFiles()).toEqual(before);
  expect(await extraContexts()).toEqual([]);
  await expectNextCaptureWorks('after-oom.png');
});

test('Page.crash from a second connection while an action waits: failed at once, context gone, next capture works', async () => {
  const before = evidenceFiles();
  const outcome = executeCapturePlan(captureArgs(root, pages.url('/hold'), 'held.png', { actions: [{ do: 'wait_for_selector', selector: '#never' }] }), {
    provider,
  });
  // The capture's page, once it shows the held page: crashed from this test's own connection.
  let target: import('puppeteer-core').Target | undefined;
  await waitFor(() => !!(target = observer.targets().find((t) => t.type() === 'page' && t.url().endsWith('/hold'))), 30_000, 'the capture page');
  await new Promise((resolve) => setTimeout(resolve, 500)); // the action is waiting now
  const session = await target!.createCDPSession();
  const crashedAt = Date.now();
  void session.send('Page.crash').catch(() => undefined);
  const result = await outcome;
  const answeredIn = Date.now() - crashedAt;
  // eslint-disable-next-line no-console
  console.log(`Page.crash during an action: answered ${answeredIn} ms after the crash`);
  expect(result.result).toBe('failed');
  expect(result.error).toBe("the page's renderer crashed (out of memory?) during actions[0] wait_for_selector '#never'; nothing was captured");
  expect(answeredIn).toBeLessThan(3_000);
  expect(evidenceFiles()).toEqual(before);
  await waitFor(() => !observer.targets().some((t) => t.type() === 'page' && t.url().endsWith('/hold')), 10_000, 'the crashed page to go');
  expect(await extraContexts()).toEqual([]);
  await expectNextCaptureWorks('after-page-crash.png');
});

test('the attached browser going away mid-action: failed at once, naming the browser and the step', async () => {
  const before = evidenceFiles();
  const outcome = executeCapturePlan(captureArgs(root, pages.url('/hold'), 'gone.png', { actions: [{ do: 'wait_for_selector', selector: '#never' }] }), {
    provider,
  });
  await waitFor(() => observer.targets().some((t) => t.type() === 'page' && t.url().endsWith('/hold')), 30_000, 'the capture page');
  await new Promise((resolve) => setTimeout(resolve, 500));
  const killedAt = Date.now();
  chromium.kill('SIGKILL');
  const result = await outcome;
  const answeredIn = Date.now() - killedAt;
  // eslint-disable-next-line no-console
  console.log(`attached browser killed during an action: answered ${answeredIn} ms after the kill`);
  expect(result.result).toBe('failed');
  expect(result.error).toMatch(
    /^the attached browser at ws:\/\/127\.0\.0\.1:\d+\/devtools\/browser\/\S+ went away during actions\[0\] wait_for_selector '#never'; nothing was captured, and the next capture reconnects$/,
  );
  expect(answeredIn).toBeLessThan(3_000);
  expect(evidenceFiles()).toEqual(before);
});

test('through the built server, a launched browser with a small heap: the renderer crash is named, the browser lives on', async () => {
  const server = await startServer({ env: { DESIGN_PLAYBOOK_CHROME_ARGS: '--js-flags=--max-old-space-size=32' } });
  try {
    const before = evidenceFiles();
    clickedAt = 0;
    const result = await server.capture(captureArgs(root, pages.url('/boom'), 'boom-served.png', { actions: [{ do: 'click', selector: '#boom' }] }));
    const answeredIn = Date.now() - clickedAt;
    // eslint-disable-next-line no-console
    console.log(`built server, launched browser, renderer OOM on click: answered ${answeredIn} ms after the click`);
    expect(result.result).toBe('failed');
    expect(result.error).toBe("the page's renderer crashed (out of memory?) during actions[0] click '#boom'; nothing was captured");
    expect(answeredIn).toBeLessThan(3_000);
    expect(evidenceFiles()).toEqual(before);
    const browser = launchedBrowser(server.pid);
    expect(browser).toBeDefined();
    const next = await server.capture(captureArgs(root, pages.url('/plain.html'), 'after-served-oom.png'));
    expect(next.error).toBe('');
    expect(next.result).toBe('captured');
    // The same browser: only the renderer died.
    expect(launchedBrowser(server.pid)!.pid).toBe(browser!.pid);
  } finally {
    await server.close();
  }
});
