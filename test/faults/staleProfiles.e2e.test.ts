/**
 * Nothing left behind in the temp folder. Through the built server (its
 * TMPDIR pointed at a private folder, so the test sees only its own files):
 * after SIGKILL of the server, one new start removes the orphaned profile
 * (and a stale Chromium singleton folder) at start-up, before any capture;
 * after SIGKILL of the browser, the server removes it itself; Chromium's own
 * temporary and singleton files never land beside them. Unit tests of the
 * sweep's rules (owner alive, pid reused, folder in use, being created).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { spawn, spawnSync } from 'child_process';
import { servePages, type PageServer } from '../helpers/browser';
import { captureArgs, isAlive, launchedBrowser, makeRunRoot, processList, profileDirOf, startServer, waitFor, PAGES } from '../e2e/harness';
import * as net from 'net';
import { createProfile, sweepStaleProfiles, sweepStaleSingletonFolders, PROFILE_PREFIX } from '../../src/browser/fleet/profiles';

jest.setTimeout(180_000);

let pages: PageServer;
let root: string;
const temps: string[] = [];

function privateTemp(): string {
  // Short: Chromium's singleton socket lives below it and Unix socket paths end at 107 bytes.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpeT-'));
  temps.push(dir);
  return dir;
}

beforeAll(async () => {
  pages = await servePages(PAGES);
  root = makeRunRoot('stale');
});

afterAll(async () => {
  await pages?.close();
  fs.rmSync(root, { recursive: true, force: true });
  for (const dir of temps) fs.rmSync(dir, { recursive: true, force: true });
});

/** Every process of a browser started with this profile is gone. */
async function browserGone(profileDir: string): Promise<void> {
  await waitFor(() => !processList().some((p) => p.args.includes(profileDir)), 20_000, 'the browser processes to exit');
}

test('SIGKILL of the server, then one new start: the temp folder holds nothing of ours', async () => {
  const tmp = privateTemp();
  const first = await startServer({ env: { TMPDIR: tmp } });
  const shot = await first.capture(captureArgs(root, pages.url('/plain.html'), 'stale-1.png'));
  expect(shot.result).toBe('captured');
  const browser = launchedBrowser(first.pid)!;
  const profileDir = profileDirOf(browser);
  expect(path.dirname(profileDir)).toBe(tmp);
  // Chromium's temporary files live inside the profile, not beside it.
  expect(fs.readdirSync(tmp)).toEqual([path.basename(profileDir)]);

  first.child.kill('SIGKILL');
  await waitFor(() => !isAlive(first.pid), 10_000, 'the server to die');
  await browserGone(profileDir);
  await first.close().catch(() => undefined);
  expect(fs.existsSync(profileDir)).toBe(true); // nobody could clean up
  // As a browser whose profile was too deep for its socket leaves it in the temp folder when killed.
  const singleton = singletonFolder(tmp, 'org.chromium.Chromium.kiLLed', 'dead');

  const second = await startServer({ env: { TMPDIR: tmp } });
  try {
    // Removed at start-up, before (and without) any capture.
    await waitFor(() => fs.readdirSync(tmp).length === 0, 20_000, 'the stale profile to be removed');
    expect(second.stderr()).toContain('removed 1 stale browser profile folder');
    expect(second.stderr()).toContain('removed 1 stale Chromium singleton folder');
    expect(fs.existsSync(singleton.dir)).toBe(false);
    expect(launchedBrowser(second.pid)).toBeUndefined();
  } finally {
    await second.close();
  }
  await waitFor(() => fs.readdirSync(tmp).length === 0, 20_000, 'an empty temp folder after a clean exit');
});

test('SIGKILL of the browser: the server removes its profile, relaunches, and leaves nothing on exit', async () => {
  const tmp = privateTemp();
  const server = await startServer({ env: { TMPDIR: tmp } });
  let profileDir = '';
  try {
    expect((await server.capture(captureArgs(root, pages.url('/plain.html'), 'stale-2.png'))).result).toBe('captured');
    const browser = launchedBrowser(server.pid)!;
    profileDir = profileDirOf(browser);
    process.kill(browser.pid, 'SIGKILL');
    await browserGone(profileDir);
    await waitFor(() => !fs.existsSync(profileDir), 20_000, "the killed browser's profile to go");
    expect((await server.capture(captureArgs(root, pages.url('/plain.html'), 'stale-3.png'))).result).toBe('captured');
    expect(fs.readdirSync(tmp).every((name) => name.startsWith(PROFILE_PREFIX))).toBe(true);
  } finally {
    await server.close();
  }
  await waitFor(() => fs.readdirSync(tmp).length === 0, 20_000, 'an empty temp folder after exit');
});

/**
 * A Chromium singleton folder: `dead` holds the socket file of a process that
 * exited (nothing binds it any more), `live` one this test keeps listening on;
 * made older than the sweep's one-minute grace unless `young`.
 */
function singletonFolder(tmp: string, name: string, socket: 'dead' | 'live', young = false): { dir: string; close(): void } {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  fs.symlinkSync('1234567890', path.join(dir, 'SingletonCookie'));
  const socketPath = path.join(dir, 'SingletonSocket');
  let close = () => undefined as void;
  if (socket === 'dead') {
    spawnSync(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(socketPath)}, () => process.exit(0))`]);
  } else {
    const server = net.createServer().listen(socketPath);
    close = () => void server.close();
  }
  if (!young) {
    const past = new Date(Date.now() - 10 * 60_000);
    fs.utimesSync(dir, past, past);
  }
  return { dir, close };
}

describe('the singleton sweep', () => {
  test('removes old Chromium singleton folders whose socket nothing binds; keeps live, young, foreign-looking and unrelated ones', async () => {
    const tmp = privateTemp();
    const dead = singletonFolder(tmp, 'org.chromium.Chromium.dead01', 'dead');
    const live = singletonFolder(tmp, 'org.chromium.Chromium.live01', 'live');
    const young = singletonFolder(tmp, 'org.chromium.Chromium.young1', 'dead', true);
    const other = singletonFolder(tmp, 'org.chromium.Chromium.other1', 'dead');
    fs.writeFileSync(path.join(other.dir, 'someones-file'), "not Chromium's");
    const past = new Date(Date.now() - 10 * 60_000);
    fs.utimesSync(other.dir, past, past);
    const unrelated = fs.mkdtempSync(path.join(tmp, 'org.example.'));
    try {
      expect(fs.lstatSync(path.join(dead.dir, 'SingletonSocket')).isSocket()).toBe(true);
      const removed = await sweepStaleSingletonFolders(tmp);
      expect(removed).toEqual([dead.dir]);
      expect(
        fs
          .readdirSync(tmp)
          .map((n) => path.join(tmp, n))
          .sort(),
      ).toEqual([live.dir, young.dir, other.dir, unrelated].sort());
    } finally {
      live.close();
    }
  });
});

describe('the sweep', () => {
  test('removes folders whose owner is gone or was replaced by a reused pid; keeps live, in-use and just-created ones', async () => {
    const tmp = privateTemp();
    const live = createProfile(tmp);
    const dead = createProfile(tmp);
    const exited = spawnSync(process.execPath, ['-e', '0']).pid!;
    fs.writeFileSync(path.join(dead.dir, 'design-playbook-evidence.owner'), JSON.stringify({ pid: exited, started: '1' }));
    const reused = createProfile(tmp);
    fs.writeFileSync(path.join(reused.dir, 'design-playbook-evidence.owner'), JSON.stringify({ pid: process.pid, started: 'not-this-process' }));
    const unownedNew = fs.mkdtempSync(path.join(tmp, PROFILE_PREFIX));
    const unownedOld = fs.mkdtempSync(path.join(tmp, PROFILE_PREFIX));
    const past = new Date(Date.now() - 10 * 60_000);
    fs.utimesSync(unownedOld, past, past);
    const inUse = createProfile(tmp);
    fs.writeFileSync(path.join(inUse.dir, 'design-playbook-evidence.owner'), JSON.stringify({ pid: exited }));
    const holder = spawn('sh', ['-c', 'sleep 30', 'holder', `--user-data-dir=${inUse.dir}`], { stdio: 'ignore' });
    const unrelated = fs.mkdtempSync(path.join(tmp, 'someone-else-'));
    try {
      await waitFor(() => processList().some((p) => p.args.includes(inUse.dir)), 5_000, 'the holder to start');
      const removed = await sweepStaleProfiles(tmp);
      expect(removed.sort()).toEqual([dead.dir, reused.dir, unownedOld].sort());
      expect(
        fs
          .readdirSync(tmp)
          .map((n) => path.join(tmp, n))
          .sort(),
      ).toEqual([live.dir, unownedNew, inUse.dir, unrelated].sort());
    } finally {
      holder.kill('SIGKILL');
    }
  });
});
