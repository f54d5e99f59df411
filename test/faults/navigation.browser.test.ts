/**
 * What the caller is told when a page does not load, one wording per kind
 * (src/common/failures.ts), through the bundled provider attached to a test
 * browser: a refused connection, a host name that does not resolve, a redirect loop, a TLS failure, a body that
 * trickles forever (navigation budget, and the whole-capture budget) as
 * opposed to a page hanging its main thread. An HTTP 404 or 500 page is
 * captured with a warning naming the status; a page raising dialogs is
 * captured; a page opening pop-ups is captured and leaves no target behind.
 * No error names an internal path.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { Browser } from 'puppeteer-core';
import { launchTestBrowser, servePages, type PageServer } from '../helpers/browser';
import { captureArgs, closedPort, makeRunRoot, PAGES } from '../e2e/harness';
import { PuppeteerCaptureProvider } from '../../src/browser/capture/puppeteerProvider';
import { executeCapturePlan } from '../../src/boundary';
import type { CaptureResult } from '../../src/contract/result';

jest.setTimeout(120_000);

let browser: Browser;
let pages: PageServer;
let root: string;
const providers: PuppeteerCaptureProvider[] = [];
const trickles = new Set<NodeJS.Timeout>();

function providerWith(env: Record<string, string> = {}): PuppeteerCaptureProvider {
  const provider = new PuppeteerCaptureProvider({ flags: () => ({ wsEndpoints: [browser.wsEndpoint()] }), env: { ...process.env, ...env } });
  providers.push(provider);
  return provider;
}

function html(status: number, body: string) {
  return (_req: unknown, res: import('http').ServerResponse) => {
    res.writeHead(status, { 'content-type': 'text/html' });
    res.end(body);
  };
}

beforeAll(async () => {
  browser = await launchTestBrowser();
  pages = await servePages(PAGES, {
    '/loop': (_req, res) => {
      res.writeHead(302, { location: '/loop' });
      res.end();
    },
    // Headers, then one byte every 500 ms, forever: the document never finishes.
    '/trickle': (req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<!doctype html><body data-state="trickling">');
      const timer = setInterval(() => res.write(' '), 500);
      trickles.add(timer);
      req.socket.on('close', () => {
        clearInterval(timer);
        trickles.delete(timer);
      });
    },
    '/busy': html(200, '<!doctype html><body data-state="busy"><script>for (;;) {}</script></body>'),
    '/missing': html(404, '<!doctype html><title>Not here</title><body data-state="not-found">no such page</body>'),
    '/broken': html(500, '<!doctype html><body data-state="server-error">it broke</body>'),
    '/dialogs': html(
      200,
      `<!doctype html><body data-state="start"><button id="ask" onclick="
        document.body.dataset.state = confirm('sure?') ? 'confirmed' : 'dismissed'; alert('done'); prompt('name?');
      ">ask</button><script>alert('hello on load')</script></body>`,
    ),
    '/popups': html(
      200,
      `<!doctype html><body data-state="opener"><button id="open" onclick="window.open('/plain.html'); window.open('/popup-alert')">open</button>
      <a id="blank" href="/plain.html" target="_blank">new tab</a><script>window.open('/plain.html')</script></body>`,
    ),
    '/popup-alert': html(200, `<!doctype html><body><script>alert('from the pop-up')</script></body>`),
  });
  root = makeRunRoot('navigation');
});

afterAll(async () => {
  for (const timer of trickles) clearInterval(timer);
  await Promise.allSettled(providers.map((p) => p.close()));
  await browser?.close();
  await pages?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

function evidence(): string[] {
  const dir = path.join(root, 'evidence');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
}

async function failed(provider: PuppeteerCaptureProvider, url: string, leaf: string): Promise<CaptureResult> {
  const before = evidence();
  const result = await executeCapturePlan(captureArgs(root, url, leaf), { provider });
  expect(result.result).toBe('failed');
  expect(result.observed_state).toBe('unknown');
  expect(evidence()).toEqual(before);
  expect(result.error).not.toMatch(/\/proc\/|\.partial|node_modules|puppeteer|\.ts:\d/);
  return result;
}

describe('navigation failures, one wording each', () => {
  test('a refused connection', async () => {
    const port = await closedPort();
    const result = await failed(providerWith(), `http://127.0.0.1:${port}/`, 'refused.png');
    expect(result.error).toBe(
      `navigation to http://127.0.0.1:${port}/ failed: the connection was refused: nothing accepts connections at 127.0.0.1:${port}; start the page's server or fix the port (net::ERR_CONNECTION_REFUSED)`,
    );
  });

  test('a port browsers refuse to load (9): the rule and another port, not the raw net error alone', async () => {
    const result = await failed(providerWith(), 'http://127.0.0.1:9/', 'unsafe-port.png');
    expect(result.error).toBe(
      'navigation to http://127.0.0.1:9/ failed: port 9 is one browsers refuse to load (a port of another protocol, such as 9 discard, 25 SMTP or 6000 X11); ' +
        'serve the page on another port, e.g. 8080 (net::ERR_UNSAFE_PORT)',
    );
  });

  test('a host name that does not resolve', async () => {
    const url = 'http://no-such-host.invalid/';
    const result = await failed(providerWith({ DESIGN_PLAYBOOK_NAVIGATION_TIMEOUT_MS: '10000' }), url, 'dns.png');
    expect(result.error).toBe(
      'navigation to http://no-such-host.invalid/ failed: the host name no-such-host.invalid could not be resolved (DNS); check the URL (net::ERR_NAME_NOT_RESOLVED)',
    );
  });

  test('a redirect loop', async () => {
    const url = pages.url('/loop');
    const result = await failed(providerWith(), url, 'loop.png');
    expect(result.error).toBe(
      `navigation to ${url} failed: the page redirects in a loop (too many redirects); capture the final address instead (net::ERR_TOO_MANY_REDIRECTS)`,
    );
  });

  test('a TLS failure (https to a plain-HTTP server)', async () => {
    const url = pages.origin.replace('http://', 'https://') + '/plain.html';
    const result = await failed(providerWith(), url, 'tls.png');
    expect(result.error).toMatch(
      new RegExp(
        `^navigation to ${url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} failed: the TLS connection to 127\\.0\\.0\\.1:\\d+ failed \\(certificate or handshake refused\\) \\(net::ERR_SSL_PROTOCOL_ERROR\\)$`,
      ),
    );
  });

  test('a body that trickles forever, within the navigation budget: the body is named, not the main thread', async () => {
    const url = pages.url('/trickle');
    const started = Date.now();
    const result = await failed(providerWith({ DESIGN_PLAYBOOK_NAVIGATION_TIMEOUT_MS: '3000' }), url, 'trickle-nav.png');
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result.error).toBe(
      `navigation to ${url} did not reach DOMContentLoaded within 3000 ms: the document's body was still arriving from the server; the page's main thread was not the cause`,
    );
  });

  test('a body that trickles forever, within the whole-capture budget: the body is named, not the main thread', async () => {
    const url = pages.url('/trickle');
    const result = await failed(providerWith({ DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS: '3000' }), url, 'trickle-capture.png');
    expect(result.error).toBe(
      `capture did not finish within the 3000 ms whole-capture budget (DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS) during navigation to ${url}: ` +
        "the document's body was still arriving from the server; the page's main thread was not the cause. Its browser context was closed; nothing was captured",
    );
    expect(result.error).not.toContain('hanging');
  });

  test('a page hanging its main thread while it loads: the main thread is named', async () => {
    const url = pages.url('/busy');
    const result = await failed(providerWith({ DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS: '3000' }), url, 'busy.png');
    expect(result.error).toBe(
      `capture did not finish within the 3000 ms whole-capture budget (DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS) during navigation to ${url}: ` +
        "the page's main thread was busy (a script running without pause did not answer within 1 s). Its browser context was closed; nothing was captured",
    );
  });
});

describe('pages that load but are odd', () => {
  test.each([
    ['/missing', 404, 'Not Found', 'not-found'],
    ['/broken', 500, 'Internal Server Error', 'server-error'],
  ])('%s (HTTP %p) is captured as served, with a warning naming the status', async (route, status, text, state) => {
    const url = pages.url(route);
    const result = await executeCapturePlan(captureArgs(root, url, `status-${status}.png`), { provider: providerWith() });
    expect(result.error).toBe('');
    expect(result.result).toBe('captured');
    expect(result.observed_state).toBe(state);
    expect(result.warnings).toContain(
      `the page at ${url} answered HTTP ${status} ${text}; it was captured as served (an error page, not the page the plan may expect)`,
    );
    expect(fs.existsSync(result.written_path)).toBe(true);
  });

  test('dialogs on load and from an action are dismissed; the capture completes', async () => {
    const result = await executeCapturePlan(captureArgs(root, pages.url('/dialogs'), 'dialogs.png', { actions: [{ do: 'click', selector: '#ask' }] }), {
      provider: providerWith(),
    });
    expect(result.error).toBe('');
    expect(result.result).toBe('captured');
    expect(result.observed_state).toBe('dismissed');
  });

  test('pop-ups (on load, from a click, a target=_blank link, one that alerts) are blocked: captured, no target left', async () => {
    const pagesBefore = (await browser.pages()).length;
    const contextsBefore = browser.browserContexts().length;
    const started = Date.now();
    const result = await executeCapturePlan(
      captureArgs(root, pages.url('/popups'), 'popups.png', {
        actions: [
          { do: 'click', selector: '#open' },
          { do: 'click', selector: '#blank' },
        ],
      }),
      { provider: providerWith({ DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS: '30000' }) },
    );
    expect(result.error).toBe('');
    expect(result.result).toBe('captured');
    expect(result.observed_state).toBe('opener');
    expect(Date.now() - started).toBeLessThan(20_000);
    // Every target the capture opened is gone with its context.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await browser.pages()).length).toBe(pagesBefore);
    expect(browser.browserContexts().length).toBe(contextsBefore);
  });
});
