/**
 * `login --headed`: a visible browser window (the full browser, on a real X
 * display: Xvfb, which scripts/setup.sh installs) in which the sign-in is
 * done, saved once --until-selector or --until-url is reached. The actions
 * stand in for the person. Without a display, and --until-* without
 * --headed, are refused before any browser starts, nothing written.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { spawn, spawnSync, type ChildProcess } from 'child_process';
import { BIN, runBin, waitFor, type BinRun } from '../e2e/harness';
import { FULL_CHROMIUM_PATH } from '../helpers/browser';
import { serveSignInApp, type SignInApp } from './signInApp';

jest.setTimeout(120_000);

let app: SignInApp;
let dir: string;
let xvfb: ChildProcess | null = null;
let windowManager: ChildProcess | null = null;
let display = '';

function bin(args: string[], env: Record<string, string | undefined>): Promise<BinRun> {
  const merged: NodeJS.ProcessEnv = { ...process.env, DESIGN_PLAYBOOK_CHROME_PATH: FULL_CHROMIUM_PATH ?? undefined, ...env };
  for (const key of Object.keys(merged)) if (merged[key] === undefined) delete merged[key];
  return runBin(args, { env: merged });
}

const signInActions = (user: string) => [
  '--action',
  JSON.stringify({ do: 'fill', selector: '#user', value: user }),
  '--action',
  JSON.stringify({ do: 'fill', selector: '#password', value: app.passwords[user] }),
  '--action',
  JSON.stringify({ do: 'click', selector: '#go' }),
];

beforeAll(async () => {
  if (!FULL_CHROMIUM_PATH) throw new Error('login --headed needs the full chromium (apt-get install chromium)');
  app = await serveSignInApp();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-headed-'));
  // A free display number: the first whose lock file is not there.
  let n = 90 + (process.pid % 100);
  while (fs.existsSync(`/tmp/.X${n}-lock`)) n++;
  display = `:${n}`;
  xvfb = spawn('Xvfb', [display, '-screen', '0', '1280x800x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
  const spawnError = new Promise<Error>((resolve) => xvfb!.once('error', resolve));
  const started = Date.now();
  while (!fs.existsSync(`/tmp/.X11-unix/X${n}`)) {
    const failed = await Promise.race([spawnError, new Promise<null>((resolve) => setTimeout(() => resolve(null), 50))]);
    if (failed) throw new Error(`Xvfb could not start (${failed.message}): run scripts/setup.sh, which installs it`);
    if (Date.now() - started > 10_000) throw new Error('Xvfb did not open its display within 10 s');
  }
});

/**
 * A window manager on the display, so a window can be closed as a person
 * closes it (WM_DELETE_WINDOW), through wmctrl; started by the one test that
 * needs it, so the others run where openbox or wmctrl is missing.
 */
async function startWindowManager(): Promise<void> {
  // Started again if it exits (a display not yet taking connections): managing within 30 s.
  let wmLog = '';
  const wmStarted = Date.now();
  while (wmctrl(['-m']).status !== 0) {
    if (!windowManager || windowManager.exitCode !== null || windowManager.signalCode !== null) {
      windowManager = spawn('openbox', [], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, DISPLAY: display } });
      windowManager.stderr!.on('data', (chunk: Buffer) => (wmLog += chunk.toString('utf8')));
      const spawnFailed = await new Promise<Error | null>((resolve) => {
        windowManager!.once('error', resolve);
        setTimeout(() => resolve(null), 200);
      });
      if (spawnFailed) throw new Error(`openbox could not start (${spawnFailed.message}): run scripts/setup.sh, which installs it`);
    } else await new Promise((resolve) => setTimeout(resolve, 100));
    if (Date.now() - wmStarted > 30_000)
      throw new Error(
        `openbox did not manage the display within 30 s (is wmctrl installed? scripts/setup.sh installs both); openbox said: ${wmLog.slice(-500)}`,
      );
  }
}

function wmctrl(args: string[]): { status: number | null; stdout: string } {
  const run = spawnSync('wmctrl', args, { encoding: 'utf8', env: { ...process.env, DISPLAY: display } });
  return { status: run.error ? null : run.status, stdout: run.stdout ?? '' };
}

afterAll(async () => {
  if (windowManager && windowManager.exitCode === null) {
    const exited = new Promise((resolve) => windowManager!.once('exit', resolve));
    windowManager.kill();
    await exited;
  }
  if (xvfb && xvfb.exitCode === null) {
    const exited = new Promise((resolve) => xvfb!.once('exit', resolve));
    xvfb.kill();
    await exited;
  }
  await app?.close();
});

test('a visible window on the display; saved once --until-selector is reached: the state signs in, mode 0600', async () => {
  const file = path.join(dir, 'admin.json');
  const { code, stdout, stderr } = await bin(
    ['login', '--headed', '--url', app.url('/login'), ...signInActions('admin'), '--until-selector', 'body[data-state="signed-in"]', '--save-storage', file],
    { DISPLAY: display },
  );
  expect({ code, stderr }).toMatchObject({ code: 0 });
  expect(stderr).toContain('login: sign in in the browser window');
  // The full browser, not the headless shell, was launched.
  expect(stderr).toMatch(/launched \S*chromium\S* \(/);
  expect(stderr).not.toContain('headless shell');
  expect(JSON.parse(stdout)).toMatchObject({ saved: file, origins: [app.origin], cookies: 1, indexeddb_origins: 1 });
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  const state = JSON.parse(fs.readFileSync(file, 'utf8'));
  expect(state.cookies[0]).toMatchObject({ httpOnly: true });
});

test('--until-url: saved once the address contains it (after the page sent itself on)', async () => {
  const file = path.join(dir, 'hop.json');
  // /hop replaces itself with /whoami by script: the address it starts at does not contain /whoami.
  const { code, stdout } = await bin(['login', '--headed', '--url', app.url('/hop'), '--until-url', '/whoami', '--save-storage', file], { DISPLAY: display });
  expect(code).toBe(0);
  expect(JSON.parse(stdout)).toMatchObject({ saved: file });
  expect(fs.existsSync(file)).toBe(true);
});

test('without a display, and --until-* without --headed: refused before any browser starts, nothing written', async () => {
  const file = path.join(dir, 'never.json');
  const noDisplay = await bin(['login', '--headed', '--url', app.url('/login'), '--save-storage', file], { DISPLAY: undefined, WAYLAND_DISPLAY: undefined });
  expect(noDisplay.code).toBe(2);
  expect(noDisplay.stderr).toContain('--headed needs a display, and neither DISPLAY nor WAYLAND_DISPLAY is set');
  const untilAlone = await bin(['login', '--url', app.url('/login'), '--until-url', '/app', '--save-storage', file], {});
  expect(untilAlone.code).toBe(2);
  expect(untilAlone.stderr).toContain('--until-url goes with --headed');
  expect(fs.existsSync(file)).toBe(false);
});

test('closing the window saves the last reading: one window only, and the state signs in', async () => {
  await startWindowManager();
  const file = path.join(dir, 'closed.json');
  const env: NodeJS.ProcessEnv = { ...process.env, DESIGN_PLAYBOOK_CHROME_PATH: FULL_CHROMIUM_PATH ?? undefined, DISPLAY: display };
  const child = spawn(process.execPath, [BIN, 'login', '--headed', '--url', app.url('/login'), ...signInActions('admin'), '--save-storage', file], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    await waitFor(() => stderr.includes('login: sign in in the browser window'), 30_000, 'the "sign in in the browser window" line');
    expect(stderr).toContain('it is saved when you close the window');
    await waitFor(() => wmctrl(['-l']).stdout.includes('Sign in'), 30_000, 'the sign-in window');
    // Readings are taken every HEADED_POLL_MS (500 ms) once the actions ran: a few of them after the sign-in.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const windows = wmctrl(['-l']).stdout.trim().split('\n');
    // The sign-in window alone: no New Tab window of Chrome's own beside it.
    expect(windows).toHaveLength(1);
    expect(fs.existsSync(file)).toBe(false);
    expect(wmctrl(['-c', 'Sign in']).status).toBe(0);
    expect(await exited).toBe(0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
  expect(JSON.parse(stdout)).toMatchObject({ saved: file, origins: [app.origin], cookies: 1, indexeddb_origins: 1 });
  expect(stderr).not.toContain('warning');
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  expect(wmctrl(['-l']).stdout.trim()).toBe('');
});
