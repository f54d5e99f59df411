/**
 * Attaching to a Chromium someone else runs (this test starts it with
 * --remote-debugging-port=0): captures work over the http browser URL (CLI
 * flag and DESIGN_PLAYBOOK_CDP_URL) and the ws endpoint, leave that browser
 * running with exactly the tabs it had, and a browser that went away is
 * waited for within the capture's budget: back in time, the capture is
 * taken; gone for the whole budget, a clear failure.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { spawn } from 'child_process';
import { servePages, CHROMIUM_PATH, CHROMIUM_TEST_ARGS, type PageServer } from '../helpers/browser';
import { captureArgs, isAlive, makeRunRoot, startServer, waitFor, PAGES } from './harness';
import { getJson, stopUserBrowser, type UserBrowser } from '../helpers/userBrowser';

jest.setTimeout(120_000);

/**
 * Starts Chromium the way a user would for remote debugging. With port 0 the
 * port is read from the DevToolsActivePort file in its profile; a fixed port
 * is polled until /json/version answers.
 */
async function startUserBrowser(port = 0): Promise<UserBrowser> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-user-browser-'));
  const activePort = path.join(profile, 'DevToolsActivePort');
  // Its own process group, so stopping it can wait for every Chromium process, not only the first.
  const child = spawn(CHROMIUM_PATH, [...CHROMIUM_TEST_ARGS, '--headless', `--remote-debugging-port=${port}`, `--user-data-dir=${profile}`, 'about:blank'], {
    stdio: 'ignore',
    detached: true,
  });
  let actual = port;
  if (port === 0) {
    await waitFor(() => fs.existsSync(activePort) && fs.readFileSync(activePort, 'utf8').split('\n').length >= 2, 30_000, 'DevToolsActivePort');
    actual = Number(fs.readFileSync(activePort, 'utf8').split('\n')[0].trim());
  }
  let version: any;
  const deadline = Date.now() + 30_000;
  while (!version) {
    version = await getJson(`http://127.0.0.1:${actual}/json/version`).catch(() => undefined);
    if (!version) {
      if (Date.now() > deadline) throw new Error(`the user browser did not answer on port ${actual}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  // Settled once its about:blank tab is listed, so "the tabs it had" is well defined.
  let tabs: string[] = [];
  while (!tabs.length) {
    tabs = await pageTabs(actual).catch(() => []);
    if (!tabs.length) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, port: actual, wsEndpoint: version.webSocketDebuggerUrl, profile };
}

async function pageTabs(port: number): Promise<string[]> {
  const targets: Array<{ id: string; type: string }> = await getJson(`http://127.0.0.1:${port}/json/list`);
  return targets
    .filter((t) => t.type === 'page')
    .map((t) => t.id)
    .sort();
}

let pages: PageServer;
let root: string;
let user: UserBrowser;
let tabsBefore: string[];

beforeAll(async () => {
  pages = await servePages(PAGES);
  root = makeRunRoot('attach');
  user = await startUserBrowser();
  tabsBefore = await pageTabs(user.port);
});

afterAll(async () => {
  await stopUserBrowser(user, { keepProfile: true });
  await pages?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
  if (user) fs.rmSync(user.profile, { recursive: true, force: true, maxRetries: 5 });
});

const attachModes: Array<[string, () => { args?: string[]; env?: Record<string, string> }]> = [
  ['--browser-url http://127.0.0.1:PORT', () => ({ args: ['--browser-url', `http://127.0.0.1:${user.port}`] })],
  ['--ws-endpoint ws://…', () => ({ args: ['--ws-endpoint', user.wsEndpoint] })],
  ['DESIGN_PLAYBOOK_CDP_URL=127.0.0.1:PORT', () => ({ env: { DESIGN_PLAYBOOK_CDP_URL: `127.0.0.1:${user.port}` } })],
];

test.each(attachModes)('attached over %s: captures work and the browser keeps exactly its tabs', async (_label, options) => {
  const server = await startServer(options());
  try {
    const shot = await server.capture(
      captureArgs(root, pages.url('/delayed.html'), `attach-${Date.now()}.png`, {
        viewport: { width: 640, height: 480, devicePixelRatio: 2, colorScheme: 'dark' },
        actions: [
          { do: 'click', selector: '#go' },
          { do: 'wait_for_state', state: 'done' },
        ],
      }),
    );
    expect(shot.error).toBe('');
    expect(shot.result).toBe('captured');
    expect(shot.observed_state).toBe('done');
    // Captured in its own context: the user's tabs are exactly as before, during and after.
    expect(await pageTabs(user.port)).toEqual(tabsBefore);
    expect(server.stderr()).toContain('attached to');
  } finally {
    await server.close();
  }
  // The server exited without closing the user's browser.
  expect(isAlive(user.child.pid!)).toBe(true);
  expect(user.child.exitCode).toBeNull();
  expect(await pageTabs(user.port)).toEqual(tabsBefore);
  const version = await getJson(`http://127.0.0.1:${user.port}/json/version`);
  expect(version.Browser).toMatch(/Chrome/);
});

test('a vanished attached browser is waited for within the budget: back in time it is captured, gone for the whole budget it fails clearly', async () => {
  // A short budget: the wait for a browser that is gone lasts one budget.
  const server = await startServer({ args: ['--browser-url', `http://127.0.0.1:${user.port}`], env: { DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS: '8000' } });
  try {
    const first = await server.capture(captureArgs(root, pages.url('/plain.html'), 'reconnect-1.png'));
    expect(first.result).toBe('captured');

    const port = user.port;
    await stopUserBrowser(user, { keepProfile: true });
    const gone = await server.capture(captureArgs(root, pages.url('/plain.html'), 'reconnect-2.png'));
    expect(gone.result).toBe('failed');
    expect(gone.observed_state).toBe('unknown');
    expect(gone.error).toContain('no browser endpoint took the capture within its 8000 ms whole-capture budget');
    expect(gone.error).toContain(
      `could not attach to the browser at http://127.0.0.1:${port} (--browser-url): the connection was refused (ECONNREFUSED): nothing listens at 127.0.0.1:${port}; start Chrome with --remote-debugging-port=<port>`,
    );
    expect(fs.existsSync(gone.written_path)).toBe(false);

    // The user starts their browser again on the same address while a capture waits for it.
    fs.rmSync(user.profile, { recursive: true, force: true, maxRetries: 5 });
    const waiting = server.capture(captureArgs(root, pages.url('/plain.html'), 'reconnect-3.png'));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    user = await startUserBrowser(port);
    tabsBefore = await pageTabs(user.port);
    const again = await waiting;
    expect(again.error).toBe('');
    expect(again.result).toBe('captured');
    expect(await pageTabs(user.port)).toEqual(tabsBefore);
    expect(server.stderr()).toContain(`http://127.0.0.1:${port} answers again`);
  } finally {
    await server.close();
  }
});
