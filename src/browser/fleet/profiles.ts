/**
 * The launched browser's profile folder, and removing the ones a killed
 * server left behind.
 *
 * Each launch gets `<temp>/design-playbook-evidence-profile-XXXXXX/` holding
 * an owner file (this server's pid and start time) and a `tmp/` folder that
 * becomes the browser's TMPDIR, so Chromium's own temporary files and its
 * `org.chromium.Chromium.*` singleton folder live inside the profile and go
 * with it. A server killed with SIGKILL cannot clean up; the next server to
 * start removes every profile folder whose owner is gone and that no running
 * process still uses (src/app/main.ts runs the sweep at start-up).
 *
 * When the profile sits too deep for Chromium's singleton socket, the
 * browser keeps the system temp folder, and a killed browser leaves its
 * `org.chromium.Chromium.XXXXXX/` folder there. sweepStaleSingletonFolders
 * removes such a folder only when it can tell no process uses it: the folder
 * holds nothing but Chromium's Singleton* entries, is this user's, is older
 * than a minute, and its SingletonSocket is bound by no live socket
 * (/proc/net/unix, which lists every bound socket path of this network
 * namespace). Without /proc/net/unix nothing is removed.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { PROFILE_UNOWNED_GRACE_MS } from '../../common/time';

export const PROFILE_PREFIX = 'design-playbook-evidence-profile-';
const OWNER_FILE = 'design-playbook-evidence.owner';

export interface Profile {
  /** The browser's --user-data-dir. */
  dir: string;
  /** The browser's TMPDIR, inside dir. */
  tmpDir: string;
}

/** The start time of a process (clock ticks since boot, /proc), or null when unknown. */
function processStartTime(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function createProfile(tmpRoot: string = os.tmpdir()): Profile {
  const dir = fs.mkdtempSync(path.join(tmpRoot, PROFILE_PREFIX));
  const tmpDir = path.join(dir, 't');
  fs.mkdirSync(tmpDir);
  fs.writeFileSync(path.join(dir, OWNER_FILE), JSON.stringify({ pid: process.pid, started: processStartTime(process.pid) }) + '\n');
  return { dir, tmpDir };
}

/** Chromium's singleton socket under TMPDIR: `<TMPDIR>/org.chromium.Chromium.XXXXXX/SingletonSocket`. */
const SINGLETON_SOCKET_TAIL = '/org.chromium.Chromium.XXXXXX/SingletonSocket'.length;
/** The longest Unix socket path Linux accepts (sun_path is 108 bytes with its terminating zero). */
const MAX_SOCKET_PATH = 107;

/**
 * Environment for the launched browser: its temporary files go inside its
 * profile — unless the profile sits so deep that Chromium's singleton socket
 * path would exceed the Unix limit (the browser would not start); then the
 * system temp folder stays in use.
 */
export function browserEnv(profile: Profile, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  if (Buffer.byteLength(profile.tmpDir) + SINGLETON_SOCKET_TAIL > MAX_SOCKET_PATH) return { ...env };
  return { ...env, TMPDIR: profile.tmpDir, TMP: profile.tmpDir, TEMP: profile.tmpDir };
}

/** Whether the server that made this profile is still running (the same process, not a reused pid). */
function ownerAlive(dir: string): boolean | null {
  let owner: { pid?: unknown; started?: unknown };
  try {
    owner = JSON.parse(fs.readFileSync(path.join(dir, OWNER_FILE), 'utf8'));
  } catch {
    return null;
  }
  if (typeof owner.pid !== 'number' || !isRunning(owner.pid)) return false;
  if (typeof owner.started === 'string') {
    const now = processStartTime(owner.pid);
    if (now !== null && now !== owner.started) return false;
  }
  return true;
}

/** Folders named on some running process's command line (a browser still exiting uses its profile). */
function foldersInUse(dirs: string[]): Set<string> {
  const used = new Set<string>();
  if (!dirs.length || !fs.existsSync('/proc/self/cmdline')) return used;
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let cmdline: string;
    try {
      cmdline = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    for (const dir of dirs) if (cmdline.includes(dir)) used.add(dir);
  }
  return used;
}

/**
 * Removes the profile folders of this program whose owner is gone and which
 * no running process uses. Returns the folders removed.
 */
export async function sweepStaleProfiles(tmpRoot: string = os.tmpdir(), now = Date.now()): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.promises.readdir(tmpRoot);
  } catch {
    return [];
  }
  const candidates: string[] = [];
  for (const name of names) {
    if (!name.startsWith(PROFILE_PREFIX)) continue;
    const dir = path.join(tmpRoot, name);
    let stat: fs.Stats;
    try {
      stat = await fs.promises.lstat(dir);
    } catch {
      continue;
    }
    if (!stat.isDirectory() || (typeof process.getuid === 'function' && stat.uid !== process.getuid())) continue;
    const alive = ownerAlive(dir);
    if (alive === true) continue;
    if (alive === null && now - stat.mtimeMs < PROFILE_UNOWNED_GRACE_MS) continue;
    candidates.push(dir);
  }
  const inUse = foldersInUse(candidates);
  const removed: string[] = [];
  for (const dir of candidates) {
    if (inUse.has(dir)) continue;
    try {
      await fs.promises.rm(dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
      removed.push(dir);
    } catch {
      // another server sweeping at the same time, or not ours to remove after all
    }
  }
  return removed;
}

export const SINGLETON_PREFIX = 'org.chromium.Chromium.';
const SINGLETON_ENTRIES = new Set(['SingletonSocket', 'SingletonCookie', 'SingletonLock']);

/** Paths of the Unix sockets bound right now (this network namespace), or null when unknown. */
function boundSocketPaths(): Set<string> | null {
  let table: string;
  try {
    table = fs.readFileSync('/proc/net/unix', 'utf8');
  } catch {
    return null;
  }
  const lines = table.split('\n');
  if (!/^Num\s+RefCount/.test(lines[0] ?? '')) return null;
  const paths = new Set<string>();
  for (const line of lines.slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length >= 8 && fields[7].startsWith('/')) paths.add(fields.slice(7).join(' '));
  }
  return paths;
}

/**
 * Removes Chromium singleton folders (`org.chromium.Chromium.*`) in `tmpRoot`
 * that no live browser uses (see the module comment for the rule). Returns
 * the folders removed.
 */
export async function sweepStaleSingletonFolders(tmpRoot: string = os.tmpdir(), now = Date.now()): Promise<string[]> {
  let names: string[];
  try {
    names = (await fs.promises.readdir(tmpRoot)).filter((name) => name.startsWith(SINGLETON_PREFIX));
  } catch {
    return [];
  }
  if (!names.length) return [];
  const bound = boundSocketPaths();
  if (!bound) return [];
  let realRoot = tmpRoot;
  try {
    realRoot = await fs.promises.realpath(tmpRoot);
  } catch {
    // compared as given
  }
  const removed: string[] = [];
  for (const name of names) {
    const dir = path.join(tmpRoot, name);
    try {
      const stat = await fs.promises.lstat(dir);
      if (!stat.isDirectory() || (typeof process.getuid === 'function' && stat.uid !== process.getuid())) continue;
      if (now - stat.mtimeMs < PROFILE_UNOWNED_GRACE_MS) continue;
      const entries = await fs.promises.readdir(dir);
      if (entries.some((entry) => !SINGLETON_ENTRIES.has(entry))) continue;
      if (entries.includes('SingletonSocket')) {
        const socket = await fs.promises.lstat(path.join(dir, 'SingletonSocket'));
        if (!socket.isSocket()) continue;
        if (bound.has(path.join(dir, 'SingletonSocket')) || bound.has(path.join(realRoot, name, 'SingletonSocket'))) continue;
      }
      await fs.promises.rm(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch {
      // gone already, or not ours to remove after all
    }
  }
  return removed;
}
