/**
 * Connecting to a browser farm, in process, against the stand-in farm
 * (test/farm/standInFarm.ts) in front of a real Chromium: every way a
 * connection fails is worded with its cause and a hint for the address
 * given (never `[object Object]`), refusals waiting cannot fix fail at once,
 * the others are waited out within the capture's budget (Retry-After
 * honoured), the http form keeps its token when it asks /json/version, and
 * the token appears in no message and no log line.
 */
import * as net from 'net';
import { BrowserPool } from '../../src/browser/fleet/browserPool';
import type { BrowserFlags } from '../../src/browser/options';
import { closedPort } from '../e2e/harness';
import { startBrowser, type TestBrowser } from '../batch/browsers';
import { waitUntil } from '../batch/harness';
import { farmFor, type StandInFarm } from './standInFarm';

jest.setTimeout(120_000);

const TOKEN = 's3cret-farm-token-4711';
const WRONG = 'not-the-token-0815';

let browser: TestBrowser;
let farm: StandInFarm;
let stderr = '';
let writeSpy: jest.SpyInstance;

beforeAll(async () => {
  browser = await startBrowser('farm-connect');
  farm = await farmFor(browser, { token: TOKEN });
});

afterAll(async () => {
  await farm?.close();
  await browser?.stop();
});

beforeEach(() => {
  farm.answerEveryUpgrade(null);
  writeSpy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  });
});

afterEach(() => {
  writeSpy.mockRestore();
  // No log line of any test carries either token.
  expect(stderr).not.toContain(TOKEN);
  expect(stderr).not.toContain(WRONG);
});

/** One capture through a pool over `flags`, with a short budget: the browser's product string, or the error. */
async function attempt(flags: BrowserFlags, budgetMs = 3_000): Promise<{ value?: string; error?: string; ms: number }> {
  const pool = new BrowserPool(() => flags, { DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS: String(budgetMs) });
  const started = Date.now();
  try {
    const { value } = await pool.run(async (session) => (await session.acquire()).version());
    return { value, ms: Date.now() - started };
  } catch (err) {
    return { error: (err as Error).message, ms: Date.now() - started };
  } finally {
    await pool.close();
  }
}

const farmFlags = (url: string): BrowserFlags => ({ wsEndpoints: [url], connectPerCapture: true });

function expectClean(error: string | undefined): void {
  expect(error).toBeDefined();
  expect(error).not.toContain('[object Object]');
  expect(error).not.toContain(TOKEN);
  expect(error).not.toContain(WRONG);
}

test('a healthy farm: the ws form and the http form (its token kept on /json/version and carried to the endpoint it names)', async () => {
  const ws = await attempt(farmFlags(farm.wsUrl()));
  expect(ws.error).toBeUndefined();
  expect(ws.value).toMatch(/Chrome/);
  const askedBefore = farm.stats.versionWithToken;
  const viaHttp = await attempt({ browserUrls: [farm.httpUrl()], connectPerCapture: true });
  expect(viaHttp.error).toBeUndefined();
  expect(viaHttp.value).toMatch(/Chrome/);
  expect(farm.stats.versionWithToken).toBe(askedBefore + 1);
  // The bare host:port form takes a query too.
  const bare = await attempt({ browserUrls: [`127.0.0.1:${farm.port}?token=${TOKEN}`], connectPerCapture: true });
  expect(bare.error).toBeUndefined();
  expect(stderr).toContain(`attached to ws://127.0.0.1:${farm.port}/chromium?token=***`);
});

test('a bad token (401) fails at once, says to check the token, and hides it', async () => {
  const upgrades = farm.stats.upgrades;
  const bad = await attempt(farmFlags(farm.wsUrl(WRONG)), 20_000);
  expectClean(bad.error);
  expect(bad.error).toBe(
    `could not attach to the browser at ws://127.0.0.1:${farm.port}/chromium?token=*** (--ws-endpoint): it answered HTTP 401 Unauthorized ("Bad or missing authentication."): ` +
      "the credentials were refused; check the token in the address (its token= parameter) against the farm's own (browserless: its TOKEN setting)",
  );
  // Not waited for: one attempt, well inside the budget.
  expect(farm.stats.upgrades).toBe(upgrades + 1);
  expect(bad.ms).toBeLessThan(10_000);
  // The http form: its /json/version refuses the token.
  const viaHttp = await attempt({ browserUrls: [farm.httpUrl(WRONG)] }, 20_000);
  expectClean(viaHttp.error);
  expect(viaHttp.error).toContain(
    `could not attach to the browser at http://127.0.0.1:${farm.port}/?token=*** (--browser-url): its /json/version answered HTTP 401 Unauthorized`,
  );
  expect(viaHttp.error).toContain('check the token in the address');
});

test('a wrong path (404) fails at once with the path to use; a page that is not a WebSocket endpoint says so', async () => {
  const wrongPath = await attempt(farmFlags(farm.wsUrl(TOKEN, '/playwright')), 20_000);
  expectClean(wrongPath.error);
  expect(wrongPath.error).toContain(
    "it answered HTTP 404 Not Found: nothing serves a DevTools WebSocket at this path; check the endpoint's path (browserless: ws://host:port/chromium?token=…",
  );
  farm.answerEveryUpgrade(200);
  const notWs = await attempt(farmFlags(farm.wsUrl()), 20_000);
  expectClean(notWs.error);
  expect(notWs.error).toContain(
    'it answered HTTP 200 OK ("This is a web page.") instead of switching to a WebSocket: this address is not a DevTools WebSocket endpoint',
  );
  expect(notWs.ms).toBeLessThan(10_000);
});

test("a full farm (429) with none of ours on it is waited for, then worded: the farm's queue is full, lower --parallel", async () => {
  farm.answerEveryUpgrade(429);
  const full = await attempt(farmFlags(farm.wsUrl()), 3_000);
  expectClean(full.error);
  expect(full.error).toMatch(
    /^no browser endpoint took the capture within its 3000 ms whole-capture budget \(DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS\): it waited for one that whole time; nothing was captured\. The last attempt: /,
  );
  expect(full.error).toContain(
    'it answered HTTP 429 Too Many Requests ("The farm is starting."): the farm\'s sessions and queue are full; lower --parallel (DESIGN_PLAYBOOK_MAX_PARALLEL) or raise the farm\'s concurrency and queue (browserless: CONCURRENT, QUEUED)',
  );
  expect(full.ms).toBeGreaterThanOrEqual(2_900);
  expect(stderr).toContain(`ws://127.0.0.1:${farm.port}/chromium?token=*** does not answer (`);
});

test('a farm answering 503 with Retry-After is asked again no sooner than it says', async () => {
  farm.answerEveryUpgrade(503, 2);
  const upgrades = farm.stats.upgrades;
  const starting = await attempt(farmFlags(farm.wsUrl()), 3_000);
  expectClean(starting.error);
  expect(starting.error).toContain(
    'it answered HTTP 503 Service Unavailable ("The farm is starting."): the farm is not taking sessions now (starting, restarting or overloaded) (it asks to retry after 2 s)',
  );
  // At 0 s and at 2 s: never at the 1 s its own back-off would have chosen.
  expect(farm.stats.upgrades - upgrades).toBe(2);
});

test('refused: nothing listens — the farm hint for a farm URL, the Chrome hint for a Chrome address', async () => {
  const port = await closedPort();
  const farmDown = await attempt(farmFlags(`ws://127.0.0.1:${port}/chromium?token=${TOKEN}`), 2_000);
  expectClean(farmDown.error);
  expect(farmDown.error).toContain(
    `could not attach to the browser at ws://127.0.0.1:${port}/chromium?token=*** (--ws-endpoint): the connection was refused (ECONNREFUSED): nothing listens at 127.0.0.1:${port}; start the farm, or check its address and port`,
  );
  const chromeDown = await attempt({ browserUrls: [`http://127.0.0.1:${port}`] }, 2_000);
  expect(chromeDown.error).toContain(
    `could not attach to the browser at http://127.0.0.1:${port} (--browser-url): the connection was refused (ECONNREFUSED): nothing listens at 127.0.0.1:${port}; start Chrome with --remote-debugging-port=<port>`,
  );
});

test('no answer (a listener that never answers the upgrade) is a timeout within the budget', async () => {
  const held = new Set<net.Socket>();
  // It reads (so it sees our side hang up) and never answers.
  const silent = net.createServer((socket) => {
    socket.resume();
    held.add(socket);
    socket.on('close', () => held.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const port = (silent.address() as net.AddressInfo).port;
  try {
    const hung = await attempt(farmFlags(`ws://127.0.0.1:${port}/chromium?token=${TOKEN}`), 2_500);
    expectClean(hung.error);
    // The attempt is told what is left of the budget when it starts: 2500 ms, or a millisecond or two less.
    const worded = new RegExp(
      `could not attach to the browser at ws://127\\.0\\.0\\.1:${port}/chromium\\?token=\\*\\*\\* \\(--ws-endpoint\\): no answer within (\\d+) ms; the farm may be holding the connection in its queue`,
    );
    const told = worded.exec(hung.error ?? '');
    expect(told).not.toBeNull();
    expect(Number(told![1])).toBeGreaterThan(2_400);
    expect(Number(told![1])).toBeLessThanOrEqual(2_500);
    expect(hung.ms).toBeLessThan(15_000);
    // Our side gave up on every connection it opened.
    await waitUntil(() => held.size === 0, 10_000, 'the unanswered connections to be closed');
  } finally {
    for (const socket of held) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  }
});

test('TLS to a farm without it, and a host name that does not resolve, are worded', async () => {
  const tls = await attempt(farmFlags(`wss://127.0.0.1:${farm.port}/chromium?token=${TOKEN}`), 20_000);
  expectClean(tls.error);
  expect(tls.error).toMatch(/\(--ws-endpoint\): the TLS handshake failed \([^)]*\); use ws:\/\/ or http:\/\/ for a farm without TLS/);
  expect(tls.ms).toBeLessThan(10_000);
  const dns = await attempt(farmFlags(`ws://no-such-farm.invalid:3000/chromium?token=${TOKEN}`), 1_500);
  expectClean(dns.error);
  expect(dns.error).toMatch(/the host name no-such-farm\.invalid could not be resolved \((ENOTFOUND|EAI_AGAIN)\); check the host name in the address/);
});

test('a farm that is down when the capture starts is waited for: the capture is taken once it is back', async () => {
  const restart = farm.down(1_500);
  const captured = await attempt(farmFlags(farm.wsUrl()), 20_000);
  await restart;
  expect(captured.error).toBeUndefined();
  expect(captured.value).toMatch(/Chrome/);
  expect(stderr).toMatch(
    new RegExp(`ws://127\\.0\\.0\\.1:${farm.port}/chromium\\?token=\\*\\*\\* does not answer \\(could not attach .*the connection was refused`),
  );
  expect(stderr).toContain(`ws://127.0.0.1:${farm.port}/chromium?token=*** answers again`);
});
