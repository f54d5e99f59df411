/**
 * The attached browser's own session (issue 42, item 3), through the built
 * server and the MCP SDK client. A Chromium started here with
 * --remote-debugging-port=0 and a fresh --user-data-dir is signed into a
 * 127.0.0.1 app through its default context (an HttpOnly cookie and a
 * localStorage token), its tab left open on another page of the app. Then:
 * with --browser-session, and with --auto-connect DIR, a capture of the
 * signed-in page shows it signed in (screenshot pixels and the aria
 * snapshot); without --browser-session it is signed out (isolated, as
 * before); and afterwards the browser's tabs are exactly as found (ids and
 * URLs), its cookie and token are still there, and the signed-in tab's
 * viewport and colour scheme are untouched. The refusals: --browser-session
 * with nothing attached, --auto-connect on a folder without
 * DevToolsActivePort, and a stale port.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as http from 'http';
import type { AddressInfo } from 'net';
import { spawn, spawnSync } from 'child_process';
import puppeteer from 'puppeteer-core';
import { decodePng } from '../../src/png/decode';
import { startUserBrowser, stopUserBrowser, pageTabs, type UserBrowser } from '../helpers/userBrowser';
import { BIN, captureArgs, closedPort, makeRunRoot, runBin, startServer } from './harness';

jest.setTimeout(180_000);

const SESSION_ID = 'sid-7f3a91';
const TOKEN = 'bearer-tok-55c2';

/** The app: /login sets the HttpOnly cookie and the localStorage token; /app shows who is signed in (green) or not (red). */
function startApp(): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const url = (req.url ?? '/').split('?')[0];
    const signedIn = (req.headers.cookie ?? '').split(/;\s*/).includes(`sid=${SESSION_ID}`);
    res.setHeader('content-type', 'text/html; charset=utf-8');
    if (url === '/login') {
      res.setHeader('set-cookie', `sid=${SESSION_ID}; HttpOnly; Path=/; SameSite=Lax`);
      res.end(`<!doctype html><title>Login</title><script>localStorage.setItem('token', ${JSON.stringify(TOKEN)}); location.replace('/home');</script>`);
    } else if (url === '/home') {
      res.end('<!doctype html><title>Home</title><h1>Home</h1>');
    } else if (url === '/app') {
      res.end(`<!doctype html><title>App</title>
<style>body{margin:0;font:16px sans-serif} #badge{width:200px;height:100px;background:${signedIn ? 'rgb(0,160,0)' : 'rgb(200,0,0)'}}</style>
<main><h1>${signedIn ? 'Signed in as Ada' : 'Signed out'}</h1><div id="badge"></div><p id="token"></p></main>
<script>document.getElementById('token').textContent = localStorage.getItem('token') === ${JSON.stringify(TOKEN)} ? 'Token present' : 'No token';</script>`);
    } else {
      res.statusCode = 404;
      res.end('not found');
    }
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ origin: `http://127.0.0.1:${port}`, close: () => new Promise<void>((done) => server.close(() => done())) });
    }),
  );
}

interface TabState {
  width: number;
  height: number;
  dpr: number;
  dark: boolean;
  url: string;
  token: string | null;
  cookies: string[];
}

/**
 * What the user's signed-in tab sees, through a connection of its own that
 * sets nothing (defaultViewport null) and is closed again.
 */
async function userTabState(user: UserBrowser): Promise<TabState> {
  const browser = await puppeteer.connect({ browserWSEndpoint: user.wsEndpoint, defaultViewport: null });
  try {
    const page = (await browser.pages()).find((p) => p.url().endsWith('/home'));
    if (!page) throw new Error('the signed-in tab is gone');
    const seen = await page.evaluate(() => ({
      width: innerWidth,
      height: innerHeight,
      dpr: devicePixelRatio,
      dark: matchMedia('(prefers-color-scheme: dark)').matches,
      url: location.href,
      token: localStorage.getItem('token'),
    }));
    const cdp = await page.createCDPSession();
    const { cookies } = (await cdp.send('Network.getAllCookies')) as { cookies: Array<{ name: string; value: string; httpOnly: boolean }> };
    await cdp.detach();
    return { ...seen, cookies: cookies.map((c) => `${c.name}=${c.value}${c.httpOnly ? ' (HttpOnly)' : ''}`) };
  } finally {
    await browser.disconnect();
  }
}

/** Signs the user's browser in through its default context: its first tab goes to /login, which lands on /home. */
async function signIn(user: UserBrowser, origin: string): Promise<void> {
  const browser = await puppeteer.connect({ browserWSEndpoint: user.wsEndpoint, defaultViewport: null });
  try {
    const [tab] = await browser.pages();
    await Promise.all([tab.waitForNavigation({ waitUntil: 'load' }).catch(() => undefined), tab.goto(`${origin}/login`)]);
    await tab.waitForFunction(() => location.pathname === '/home');
  } finally {
    await browser.disconnect();
  }
}

/** The RGB of a device pixel of a screenshot. */
function pixelAt(file: string, x: number, y: number): [number, number, number] {
  const { header, pixels } = decodePng(fs.readFileSync(file));
  const at = y * header.rowBytes + x * header.pixelBytes;
  return [pixels[at], pixels[at + 1], pixels[at + 2]];
}

let app: { origin: string; close(): Promise<void> };
let user: UserBrowser;
let root: string;
let before: TabState;
let tabsBefore: Array<{ id: string; url: string }>;

beforeAll(async () => {
  app = await startApp();
  root = makeRunRoot('browser-session');
  user = await startUserBrowser();
  await signIn(user, app.origin);
  tabsBefore = await pageTabs(user.port);
  before = await userTabState(user);
});

afterAll(async () => {
  // The browser's processes are all gone before its profile is removed.
  await stopUserBrowser(user);
  await app?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

test('the user browser is signed in, on /home, in one tab', () => {
  expect(tabsBefore).toHaveLength(1);
  expect(tabsBefore[0].url).toBe(`${app.origin}/home`);
  expect(before.token).toBe(TOKEN);
  expect(before.cookies).toContain(`sid=${SESSION_ID} (HttpOnly)`);
});

async function captureBoth(label: string, options: { args?: string[]; env?: Record<string, string> }) {
  const server = await startServer(options);
  try {
    const viewport = { width: 640, height: 480, devicePixelRatio: 2, colorScheme: 'dark' };
    const shot = await server.capture(captureArgs(root, `${app.origin}/app`, `${label}.png`, { viewport }));
    const aria = await server.capture(captureArgs(root, `${app.origin}/app`, `${label}.aria.json`, { type: 'a11y tree', viewport }));
    // While the server still holds its connection: no tab of ours is left open.
    const tabsBetween = await pageTabs(user.port);
    return { shot, aria, tabsBetween, stderr: server.stderr() };
  } finally {
    await server.close();
  }
}

const sessionModes: Array<[string, () => { args?: string[]; env?: Record<string, string> }]> = [
  ['--browser-session --browser-url', () => ({ args: ['--browser-session', '--browser-url', `http://127.0.0.1:${user.port}`] })],
  ['DESIGN_PLAYBOOK_BROWSER_SESSION=1 with --ws-endpoint', () => ({ args: ['--ws-endpoint', user.wsEndpoint], env: { DESIGN_PLAYBOOK_BROWSER_SESSION: '1' } })],
  ['--auto-connect DIR', () => ({ args: ['--auto-connect', user.profile] })],
];

test.each(sessionModes)('%s: the capture is signed in, and the browser is left as found', async (label, options) => {
  const leaf = `signed-in-${label.replace(/[^a-z]+/gi, '-')}-${Date.now()}`;
  const { shot, aria, tabsBetween, stderr } = await captureBoth(leaf, options());
  expect(shot.error).toBe('');
  expect(shot.result).toBe('captured');
  expect(aria.result).toBe('captured');
  const tree = JSON.parse(fs.readFileSync(aria.written_path, 'utf8'));
  const text = JSON.stringify(tree);
  expect(text).toContain('Signed in as Ada');
  expect(text).toContain('Token present');
  // The badge is green (signed in), at the capture's own DPR 2.
  const [r, g, b] = pixelAt(shot.written_path, 100 * 2, 60 * 2 + 40);
  expect(g).toBeGreaterThan(120);
  expect(r).toBeLessThan(60);
  expect(b).toBeLessThan(60);
  expect(stderr).toContain('captures run in new tabs of its own session');
  expect(tabsBetween).toEqual(tabsBefore);
  // Exactly the tabs it had (ids and URLs), still signed in, its own tab's viewport and colour scheme untouched.
  expect(await pageTabs(user.port)).toEqual(tabsBefore);
  expect(await userTabState(user)).toEqual(before);
});

test('without --browser-session an attached capture stays isolated: signed out', async () => {
  const { shot, aria, tabsBetween } = await captureBoth(`isolated-${Date.now()}`, { args: ['--browser-url', `http://127.0.0.1:${user.port}`] });
  expect(shot.result).toBe('captured');
  const text = fs.readFileSync(aria.written_path, 'utf8');
  expect(text).toContain('Signed out');
  expect(text).toContain('No token');
  const [r, g] = pixelAt(shot.written_path, 200, 160);
  expect(r).toBeGreaterThan(150);
  expect(g).toBeLessThan(60);
  expect(tabsBetween).toEqual(tabsBefore);
  expect(await pageTabs(user.port)).toEqual(tabsBefore);
  expect(await userTabState(user)).toEqual(before);
});

test('a capture that fails in the browser session closes its tab too', async () => {
  const server = await startServer({ args: ['--browser-session', '--browser-url', `http://127.0.0.1:${user.port}`] });
  try {
    const failed = await server.capture(
      captureArgs(root, `${app.origin}/app`, `fails-${Date.now()}.png`, { actions: [{ do: 'click', selector: '#missing' }] }),
    );
    expect(failed.result).toBe('failed');
    expect(await pageTabs(user.port)).toEqual(tabsBefore);
  } finally {
    await server.close();
  }
  expect(await userTabState(user)).toEqual(before);
});

describe('the capture tab is closed however the capture ends', () => {
  const attach = () => ['--browser-session', '--browser-url', `http://127.0.0.1:${user.port}`];
  const waiting = (leaf: string) => captureArgs(root, `${app.origin}/app`, leaf, { actions: [{ do: 'wait_for_selector', selector: '#never' }] });

  /** Until the browser shows exactly the tabs it had (a closed tab leaves /json/list a moment later). */
  async function tabsAsFound(server: { stderr(): string }): Promise<void> {
    const deadline = Date.now() + 5_000;
    while (JSON.stringify(await pageTabs(user.port)) !== JSON.stringify(tabsBefore) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const tabs = await pageTabs(user.port);
    // The server's log goes with a failure: it says which tab it opened and how its close went.
    if (JSON.stringify(tabs) !== JSON.stringify(tabsBefore)) throw new Error(`tabs left: ${JSON.stringify(tabs)}; the server's log:\n${server.stderr()}`);
  }

  test('three captures at once each get a tab of their own, all signed in', async () => {
    const server = await startServer({ args: attach() });
    try {
      const results = await Promise.all(
        [1, 2, 3].map((n) => server.capture(captureArgs(root, `${app.origin}/app`, `parallel-${n}-${Date.now()}.aria.json`, { type: 'a11y tree' }))),
      );
      for (const result of results) {
        expect(result.result).toBe('captured');
        expect(fs.readFileSync(result.written_path, 'utf8')).toContain('Signed in as Ada');
      }
      await tabsAsFound(server);
    } finally {
      await server.close();
    }
  });

  test('timed out: the whole-capture budget spent', async () => {
    const server = await startServer({ args: attach(), env: { DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS: '3000' } });
    try {
      const result = await server.capture(waiting(`timeout-${Date.now()}.png`));
      expect(result.result).toBe('failed');
      await tabsAsFound(server);
    } finally {
      await server.close();
    }
  });

  test('cancelled by the client', async () => {
    const server = await startServer({ args: attach() });
    try {
      const cancel = new AbortController();
      const call = server.client.callTool({ name: 'execute_capture_plan', arguments: waiting(`cancel-${Date.now()}.png`) }, undefined, {
        signal: cancel.signal,
      });
      const deadline = Date.now() + 10_000;
      while ((await pageTabs(user.port)).length === tabsBefore.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect((await pageTabs(user.port)).length).toBe(tabsBefore.length + 1);
      cancel.abort('the test cancelled');
      await expect(call).rejects.toBeDefined();
      await tabsAsFound(server);
    } finally {
      await server.close();
    }
  });

  test('the server shut down mid-capture (SIGTERM)', async () => {
    const server = await startServer({ args: attach() });
    const call = server.capture(waiting(`sigterm-${Date.now()}.png`)).catch((err: unknown) => err);
    const deadline = Date.now() + 10_000;
    while ((await pageTabs(user.port)).length === tabsBefore.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect((await pageTabs(user.port)).length).toBe(tabsBefore.length + 1);
    const exited = new Promise((resolve) => server.child.once('exit', resolve));
    server.child.kill('SIGTERM');
    await call;
    await exited;
    await tabsAsFound(server);
    await server.close().catch(() => undefined);
    expect(await userTabState(user)).toEqual(before);
  });
});

test('the capture subcommand takes the flags too', async () => {
  const out = `evidence/cli-${Date.now()}.aria.json`;
  const args = ['capture', '--browser-session', '--browser-url', `http://127.0.0.1:${user.port}`, '--url', `${app.origin}/app`, '--type', 'a11y tree'];
  const run = await runBin([...args, '--out', out, '--run-root', root]);
  expect(JSON.parse(run.stdout)).toMatchObject({ result: 'captured', error: '' });
  expect(run.code).toBe(0);
  expect(fs.readFileSync(path.join(root, out), 'utf8')).toContain('Signed in as Ada');
  expect(await pageTabs(user.port)).toEqual(tabsBefore);
});

test('login --browser-session saves what the browser is signed into, for the sites the page shows only; the tabs as found', async () => {
  // A cookie of another site in the user's browser: it must not reach the file.
  const elsewhere = { name: 'elsewhere', value: 'other-site-cookie-91', domain: 'other.example', path: '/' };
  const browser = await puppeteer.connect({ browserWSEndpoint: user.wsEndpoint, defaultViewport: null });
  const cdp = await browser.target().createCDPSession();
  await cdp.send('Storage.setCookies', { cookies: [elsewhere] });
  const file = path.join(root, `own-session-${Date.now()}.json`);
  try {
    const run = await runBin([
      'login',
      '--browser-session',
      '--browser-url',
      `http://127.0.0.1:${user.port}`,
      '--url',
      `${app.origin}/app`,
      '--save-storage',
      file,
    ]);
    expect(run.stderr).not.toContain('failed');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ saved: file, origins: [app.origin], cookies: 1 });
    expect(run.stderr).toContain("the browser's own session holds 1 cookie of other sites; only those of the sites the page shows were saved");
    const text = fs.readFileSync(file, 'utf8');
    expect(text).not.toContain(elsewhere.value);
    const state = JSON.parse(text);
    expect(state.cookies).toEqual([expect.objectContaining({ name: 'sid', value: SESSION_ID, httpOnly: true })]);
    expect(state.origins).toEqual([{ origin: app.origin, localStorage: [{ name: 'token', value: TOKEN }], indexedDB: [] }]);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(await pageTabs(user.port)).toEqual(tabsBefore);
  } finally {
    // The browser's jar as it was: every cookie but this one put back (the browser target has no Network.deleteCookies).
    const { cookies } = await cdp.send('Storage.getCookies');
    await cdp.send('Storage.clearCookies');
    await cdp.send('Storage.setCookies', { cookies: cookies.filter((cookie) => cookie.name !== elsewhere.name) as never });
    await cdp.detach().catch(() => undefined);
    await browser.disconnect();
  }
  expect(await userTabState(user)).toEqual(before);
});

function runCli(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('the run subcommand takes the flags too: every line of a plan signed in', async () => {
  const plan = path.join(root, `plan-${Date.now()}.jsonl`);
  const lines = [1, 2].map((n) => JSON.stringify(captureArgs(root, `${app.origin}/app`, `run-${n}-${Date.now()}.aria.json`, { type: 'a11y tree' })));
  fs.writeFileSync(plan, lines.join('\n') + '\n');
  const run = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
    const child = spawn(process.execPath, [BIN, '--auto-connect', user.profile, 'run', plan, '--parallel', '2'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.once('exit', (code) => resolve({ code, stdout }));
  });
  expect(run.code).toBe(0);
  const results = run.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
    .filter((result) => result.line !== undefined);
  expect(results).toHaveLength(2);
  for (const result of results) {
    expect(result.result).toBe('captured');
    expect(fs.readFileSync(result.written_path, 'utf8')).toContain('Signed in as Ada');
  }
  expect(await pageTabs(user.port)).toEqual(tabsBefore);
});

test('doctor reports the mode: attached, the browser session and the DevToolsActivePort file found; and leaves the tabs as found', () => {
  const auto = runCli(['doctor', '--json', '--auto-connect', user.profile]);
  expect(auto.status).toBe(0);
  const report = JSON.parse(auto.stdout);
  expect(report.browser).toMatchObject({
    mode: 'attach',
    works: true,
    browserSession: { on: true, source: 'implied by --auto-connect' },
    autoConnect: { file: path.join(user.profile, 'DevToolsActivePort'), found: true, port: user.port },
  });
  expect(report.browser.detail).toContain('opened and closed a tab in its own session');
  const text = runCli(['--browser-url', `http://127.0.0.1:${user.port}`, '--browser-session', 'doctor']);
  expect(text.status).toBe(0);
  expect(text.stdout).toContain("session:   the browser's own (--browser-session)");
  const isolated = runCli(['--browser-url', `http://127.0.0.1:${user.port}`, 'doctor']);
  expect(isolated.stdout).toContain('session:   isolated');
  const missing = runCli(['--browser-session', 'doctor']);
  expect(missing.status).toBe(1);
  expect(missing.stdout).toContain('session:   NOT USABLE — --browser-session runs captures in an attached browser');
  return pageTabs(user.port).then((tabs) => expect(tabs).toEqual(tabsBefore));
});

describe('refusals', () => {
  test('--browser-session with nothing attached is refused at start, naming the flag and what to do', () => {
    for (const [args, env] of [
      [['--browser-session'], {}],
      [[], { DESIGN_PLAYBOOK_BROWSER_SESSION: '1' }],
      [['--browser-session', 'capture', '--url', `${app.origin}/app`, '--out', 'evidence/x.png', '--run-root', root], {}],
    ] as Array<[string[], Record<string, string>]>) {
      const run = runCli(args, env);
      expect(run.status).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('--browser-session runs captures in an attached browser');
      expect(run.stderr).toContain('--browser-url');
      expect(run.stderr).toContain('--auto-connect');
    }
    expect(fs.existsSync(path.join(root, 'evidence', 'x.png'))).toBe(false);
  });

  test('--auto-connect on a folder without DevToolsActivePort fails the capture at once, naming the file and what to do', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-no-chrome-'));
    const server = await startServer({ args: ['--auto-connect', empty] });
    try {
      const started = Date.now();
      const result = await server.capture(captureArgs(root, `${app.origin}/app`, `no-port-${Date.now()}.png`));
      expect(result.result).toBe('failed');
      expect(result.error).toContain(path.join(empty, 'DevToolsActivePort'));
      expect(result.error).toContain('does not exist');
      expect(result.error).toContain('--remote-debugging-port');
      expect(result.error).toContain('chrome://inspect/#remote-debugging');
      expect(fs.existsSync(result.written_path)).toBe(false);
      // Not waited for as a farm restarting would be.
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await server.close();
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  test('--auto-connect through a stale DevToolsActivePort names the file, the port and what to do', async () => {
    const stale = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-stale-chrome-'));
    const port = await closedPort();
    fs.writeFileSync(path.join(stale, 'DevToolsActivePort'), `${port}\n/devtools/browser/0b5c3d6e-gone\n`);
    const server = await startServer({ env: { DESIGN_PLAYBOOK_AUTO_CONNECT: stale } });
    try {
      const result = await server.capture(captureArgs(root, `${app.origin}/app`, `stale-${Date.now()}.png`));
      expect(result.result).toBe('failed');
      expect(result.error).toContain(path.join(stale, 'DevToolsActivePort'));
      expect(result.error).toContain(`127.0.0.1:${port}`);
      expect(result.error).toContain('stale');
      expect(result.error).toContain('--remote-debugging-port');
      expect(fs.existsSync(result.written_path)).toBe(false);
    } finally {
      await server.close();
      fs.rmSync(stale, { recursive: true, force: true });
    }
  });
});
