/**
 * Sessions against Playwright on the same executable, with a test app that
 * keeps its sign-in in an HttpOnly cookie, a localStorage bearer token and
 * an IndexedDB record (./signInApp.ts):
 * - a state Playwright saved (`indexedDB: true`) starts our capture signed
 *   in, pixel-equal to Playwright's screenshot from the same state;
 * - per-call sessions are not sticky (admin, none, member);
 * - a state out of Playwright's shape, an unknown session, a missing folder
 *   are refused with the file and field named, nothing written; an expired
 *   session warns with its expiry.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { PNG } from 'pngjs';
import { chromium, type Browser as PwBrowser, type BrowserContextOptions } from 'playwright-core';
import { executeCapturePlan, closeBundledBrowser } from '../../src/index';
import type { SessionSettings } from '../../src/contract/sessions';
import { CHROMIUM_PATH, CHROMIUM_TEST_ARGS } from '../helpers/browser';
import { captureArgs, makeRunRoot } from '../e2e/harness';
import { serveSignInApp, UNTIL_CHECKED, type SignInApp } from './signInApp';
import { signIn } from '../../src/browser/capture/signIn';
import { writeStorageStateFile } from '../../src/cli/login';
import { parseActions } from '../../src/contract/actions';
import puppeteer from 'puppeteer-core';
import { PuppeteerCaptureProvider } from '../../src/browser/capture/puppeteerProvider';
import { isHeadlessShell } from '../../src/browser/fleet/findBrowser';

jest.setTimeout(180_000);

const VIEWPORT = { width: 800, height: 600, devicePixelRatio: 1, colorScheme: 'light' };

let app: SignInApp;
let pw: PwBrowser;
let sessionsDir: string;
let root: string;

/** Playwright signs in as `user` through the login page and saves the state, IndexedDB included. */
async function playwrightSignIn(user: string, file: string): Promise<void> {
  const context = await pw.newContext();
  try {
    const page = await context.newPage();
    await page.goto(app.url('/login'));
    await page.fill('#user', user);
    await page.fill('#password', app.passwords[user]);
    await page.click('#go');
    await page.waitForSelector('body[data-state="signed-in"]');
    await context.storageState({ path: file, indexedDB: true });
  } finally {
    await context.close();
  }
}

async function playwrightShot(storageState: BrowserContextOptions['storageState']): Promise<{ png: Buffer; text: string }> {
  const context = await pw.newContext({
    viewport: { width: VIEWPORT.width, height: VIEWPORT.height },
    deviceScaleFactor: 1,
    colorScheme: 'light',
    storageState,
  });
  try {
    const page = await context.newPage();
    await page.goto(app.url('/app'));
    await page.waitForSelector('body[data-state]');
    return { png: await page.screenshot({ fullPage: true, animations: 'disabled' }), text: await page.innerText('#who') };
  } finally {
    await context.close();
  }
}

let leafCount = 0;
async function capture(extra: Record<string, unknown>, sessions: SessionSettings) {
  const leaf = `shot-${++leafCount}.png`;
  return executeCapturePlan(captureArgs(root, app.url('/app'), leaf, { viewport: VIEWPORT, actions: UNTIL_CHECKED, ...extra }), { sessions });
}

function differingPixels(a: Buffer, b: Buffer): number {
  const [x, y] = [PNG.sync.read(a), PNG.sync.read(b)];
  if (x.width !== y.width || x.height !== y.height) return -1;
  let differing = 0;
  for (let i = 0; i < x.data.length; i += 4) if (x.data.readUInt32LE(i) !== y.data.readUInt32LE(i)) differing++;
  return differing;
}

beforeAll(async () => {
  app = await serveSignInApp();
  pw = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_TEST_ARGS });
  sessionsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-sessions-'));
  root = makeRunRoot('sessions');
  await Promise.all([playwrightSignIn('admin', path.join(sessionsDir, 'admin.json')), playwrightSignIn('member', path.join(sessionsDir, 'member.json'))]);
});

afterAll(async () => {
  await closeBundledBrowser();
  await pw?.close();
  await app?.close();
});

describe('a state Playwright saved starts the capture signed in', () => {
  test("Playwright's file holds the three stores: the HttpOnly cookie, the bearer token, the IndexedDB record (not plain JSON)", () => {
    const state = JSON.parse(fs.readFileSync(path.join(sessionsDir, 'admin.json'), 'utf8'));
    expect(state.cookies.map((c: { name: string; httpOnly: boolean }) => [c.name, c.httpOnly])).toEqual([['sid', true]]);
    expect(state.origins[0].localStorage.map((i: { name: string }) => i.name)).toEqual(['bearer']);
    expect(state.origins[0].indexedDB[0].stores[0].records[0]).toHaveProperty('valueEncoded');
  });

  test("--storage-state: signed in, and pixel-equal to Playwright's screenshot from the same file", async () => {
    const file = path.join(sessionsDir, 'admin.json');
    const [ours, theirs] = await Promise.all([capture({}, { storageState: file }), playwrightShot(file)]);
    expect(ours.error).toBe('');
    expect(ours.observed_state).toBe('signed-in');
    expect(theirs.text).toBe('signed in as admin');
    expect(differingPixels(fs.readFileSync(ours.written_path), theirs.png)).toBe(0);
    // The request echo carries no session name for --storage-state (it names no session).
    expect(ours.request).not.toHaveProperty('session');
  });

  test('with the freeze off (no virtual clock) too', async () => {
    const result = await capture({ freeze: { enabled: false } }, { storageState: path.join(sessionsDir, 'admin.json') });
    expect(result.error).toBe('');
    expect(result.observed_state).toBe('signed-in');
  });

  test('without a state the same page is signed out', async () => {
    const result = await capture({}, {});
    expect(result.observed_state).toBe('signed-out');
  });
});

describe('sessions by name, per call', () => {
  test('admin, then none, then member: each call starts from its own state only (not sticky)', async () => {
    const sessions = { sessionsDir };
    const admin = await capture({ session: 'admin' }, sessions);
    const none = await capture({}, sessions);
    const member = await capture({ session: 'member' }, sessions);
    expect([admin.observed_state, none.observed_state, member.observed_state]).toEqual(['signed-in', 'signed-out', 'signed-in']);
    expect(admin.request?.session).toBe('admin');
    expect(none.request).not.toHaveProperty('session');
    expect(member.request?.session).toBe('member');
    const [adminShot, memberShot] = [fs.readFileSync(admin.written_path), fs.readFileSync(member.written_path)];
    expect(differingPixels(adminShot, memberShot)).toBeGreaterThan(0);
    const theirs = await playwrightShot(path.join(sessionsDir, 'member.json'));
    expect(differingPixels(memberShot, theirs.png)).toBe(0);
  });
});

describe('a state our sign-in saves', () => {
  const signInAs = (user: string) =>
    signIn({
      url: app.url('/login'),
      actions: parseActions([
        { do: 'fill', selector: '#user', value: user },
        { do: 'fill', selector: '#password', value: app.passwords[user] },
        { do: 'click', selector: '#go' },
        { do: 'wait_for_selector', selector: 'body[data-state="signed-in"]' },
      ]),
      flags: {},
      env: process.env,
    });

  test("loads in Playwright and signs it in; written with mode 0600, in Playwright's shape (IndexedDB values in its tagged form)", async () => {
    const { state } = await signInAs('member');
    const file = path.join(sessionsDir, 'ours-member.json');
    writeStorageStateFile(file, state);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(sessionsDir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const saved = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(saved.cookies.map((c: { name: string; httpOnly: boolean }) => [c.name, c.httpOnly])).toEqual([['sid', true]]);
    expect(saved.origins[0].indexedDB[0].stores[0].records[0]).toMatchObject({ key: 'me', valueEncoded: expect.any(Object) });
    const theirs = await playwrightShot(file);
    expect(theirs.text).toBe('signed in as member');
    // And ours reads it back: the same page, pixel for pixel.
    const ours = await capture({}, { storageState: file });
    expect(ours.observed_state).toBe('signed-in');
    expect(differingPixels(fs.readFileSync(ours.written_path), theirs.png)).toBe(0);
  });

  test("Playwright's own IndexedDB record and ours encode alike", async () => {
    const { state } = await signInAs('admin');
    const theirs = JSON.parse(fs.readFileSync(path.join(sessionsDir, 'admin.json'), 'utf8'));
    const record = (s: { origins: Array<{ indexedDB: Array<{ stores: Array<{ records: unknown[] }> }> }> }) => s.origins[0].indexedDB[0].stores[0];
    expect(record(state as never)).toEqual(record(theirs));
  });
});

describe('a state with localStorage and no IndexedDB (written before the page runs, no extra navigation)', () => {
  let file: string;
  beforeAll(() => {
    const state = JSON.parse(fs.readFileSync(path.join(sessionsDir, 'admin.json'), 'utf8'));
    for (const origin of state.origins) delete origin.indexedDB;
    file = path.join(sessionsDir, 'admin-no-idb.json');
    fs.writeFileSync(file, JSON.stringify(state));
  });

  test("the page's own scripts see the token from their first line, as in Playwright", async () => {
    const at = (p: string, leaf: string) =>
      executeCapturePlan(captureArgs(root, app.url(p), leaf, { viewport: VIEWPORT, actions: UNTIL_CHECKED }), {
        sessions: { storageState: file },
      });
    expect((await at('/whoami', 'whoami.png')).observed_state).toBe('bearer');
    // The app without its record: cookie and token there, the record missing.
    const app1 = await capture({}, { storageState: file });
    expect(app1.observed_state).toBe('signed-out');
    const theirs = await playwrightShot(file);
    expect(differingPixels(fs.readFileSync(app1.written_path), theirs.png)).toBe(0);
    // A page that clears the storage and replaces itself: the session is not written again.
    expect((await at('/logout', 'logout.png')).observed_state).toBe('no-bearer');
    // A first load that another origin's script sends on (localhost -> 127.0.0.1) finds the storage, as in Playwright.
    const hop = await executeCapturePlan(
      captureArgs(root, app.url('/hop').replace('127.0.0.1', 'localhost'), 'hop.png', {
        viewport: VIEWPORT,
        actions: UNTIL_CHECKED,
      }),
      { sessions: { storageState: file } },
    );
    expect(hop.observed_state).toBe('bearer');
  });
});

describe('every capture type starts from the session', () => {
  test('an aria snapshot and a trace of the signed-in page; the history is as long as in a capture without a session', async () => {
    const file = path.join(sessionsDir, 'admin.json');
    const tree = await capture({ type: 'a11y tree', artifact_path: `evidence/tree-${++leafCount}.json` }, { storageState: file });
    expect(tree.error).toBe('');
    expect(JSON.parse(fs.readFileSync(tree.written_path, 'utf8')).tree).toContain('signed in as admin');
    const trace = await capture({ type: 'interaction trace', artifact_path: `evidence/trace-${++leafCount}.trace.zip` }, { storageState: file });
    expect(trace.error).toBe('');
    expect(trace.observed_state).toBe('signed-in');
    // The restore's own document is answered in the browser: the trace's network log never names it.
    const zip = fs.readFileSync(trace.written_path);
    expect(zip.includes(Buffer.from('.design-playbook-evidence-session'))).toBe(false);
    const history = (sessions: SessionSettings) =>
      executeCapturePlan(
        captureArgs(root, app.url('/history'), `history-${++leafCount}.png`, { viewport: VIEWPORT, actions: [{ do: 'click', selector: '#count' }] }),
        { sessions },
      );
    const [withSession, without] = [await history({ storageState: file }), await history({})];
    expect(withSession.observed_state).toMatch(/^history-\d$/);
    expect(withSession.observed_state).toBe(without.observed_state);
  });
});

describe('an attached browser', () => {
  test("a session starts the capture signed in in its own context: the browser's own cookies and tabs are left as found", async () => {
    const user = await puppeteer.launch({ executablePath: CHROMIUM_PATH, headless: isHeadlessShell(CHROMIUM_PATH) ? 'shell' : true, args: CHROMIUM_TEST_ARGS });
    const provider = new PuppeteerCaptureProvider({ flags: () => ({ wsEndpoints: [user.wsEndpoint()] }) });
    try {
      const tabsBefore = (await user.pages()).length;
      const result = await executeCapturePlan(
        captureArgs(root, app.url('/app'), `attached-${++leafCount}.png`, { viewport: VIEWPORT, actions: UNTIL_CHECKED, session: 'admin' }),
        { provider, sessions: { sessionsDir } },
      );
      expect(result.error).toBe('');
      expect(result.observed_state).toBe('signed-in');
      const [page] = await user.pages();
      const session = await page.createCDPSession();
      const { cookies } = await session.send('Network.getAllCookies');
      expect(cookies).toEqual([]);
      expect((await user.pages()).length).toBe(tabsBefore);
    } finally {
      await provider.close();
      await user.close();
    }
  });
});
