/**
 * Nothing left behind in the temp folder. Through the built server (its
 * TMPDIR pointed at a private folder, so the test sees only its own files):
 * after SIGKILL of the server, one new start removes the orphaned profile;
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
import { createProfile, sweepStaleProfiles, PROFILE_PREFIX } from '../../src/browser/profiles';

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

  const second = await startServer({ env: { TMPDIR: tmp } });
  try {
    // Removed when the new server starts its browser (its first capture).
    expect((await second.capture(captureArgs(root, pages.url('/plain.html'), 'stale-1b.png'))).result).toBe('captured');
    await waitFor(() => !fs.existsSync(profileDir), 20_000, 'the stale profile to be removed');
    expect(second.stderr()).toContain('removed 1 stale browser profile folder');
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
    await waitFor(() => !fs.existsSync(profileDir), 20_000, 'the killed browser\'s profile to go');
    expect((await server.capture(captureArgs(root, pages.url('/plain.html'), 'stale-3.png'))).result).toBe('captured');
    expect(fs.readdirSync(tmp).every((name) => name.startsWith(PROFILE_PREFIX))).toBe(true);
  } finally {
    await server.close();
  }
  await waitFor(() => fs.readdirSync(tmp).length === 0, 20_000, 'an empty temp folder after exit');
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
      expect(fs.readdirSync(tmp).map((n) => path.join(tmp, n)).sort()).toEqual([live.dir, unownedNew, inUse.dir, unrelated].sort());
    } finally {
      holder.kill('SIGKILL');
    }
  });
});
