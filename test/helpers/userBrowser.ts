/**
 * A Chromium someone already runs, for the attach tests: started with
 * --remote-debugging-port and its own --user-data-dir (its port read from the
 * DevToolsActivePort file Chromium writes there), in its own process group so
 * stopping it waits for every one of its processes before the profile goes.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as http from 'http';
import { spawn, type ChildProcess } from 'child_process';
import { CHROMIUM_PATH, CHROMIUM_TEST_ARGS, FULL_CHROMIUM_PATH } from './browser';

export interface UserBrowser {
  child: ChildProcess;
  port: number;
  wsEndpoint: string;
  profile: string;
}

async function until<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await Promise.resolve(probe()).catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Starts the full browser when installed (else the headless shell), headless, on port 0 unless one is named. */
export async function startUserBrowser(options: { port?: number; profile?: string } = {}): Promise<UserBrowser> {
  const profile = options.profile ?? fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-user-browser-'));
  const activePort = path.join(profile, 'DevToolsActivePort');
  const executable = FULL_CHROMIUM_PATH ?? CHROMIUM_PATH;
  const child = spawn(
    executable,
    [...CHROMIUM_TEST_ARGS, '--headless', `--remote-debugging-port=${options.port ?? 0}`, `--user-data-dir=${profile}`, 'about:blank'],
    {
      stdio: 'ignore',
      detached: true,
    },
  );
  const port = options.port
    ? options.port
    : await until(
        () => {
          const lines = fs.existsSync(activePort) ? fs.readFileSync(activePort, 'utf8').split('\n') : [];
          return lines.length >= 2 && lines[1].trim() ? Number(lines[0].trim()) : undefined;
        },
        30_000,
        'DevToolsActivePort',
      );
  const version = await until(() => getJson(`http://127.0.0.1:${port}/json/version`), 30_000, `the user browser on port ${port}`);
  // Settled once its about:blank tab is listed, so "the tabs it had" is well defined.
  await until(async () => ((await pageTabs(port)).length ? true : undefined), 30_000, 'its first tab');
  return { child, port, wsEndpoint: version.webSocketDebuggerUrl, profile };
}

export function getJson(url: string): Promise<any> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => {
          try {
            resolve(JSON.parse(body));
          } catch (err) {
            reject(err);
          }
        });
      })
      .on('error', reject);
  });
}

/** The browser's page tabs: id and URL, by id. */
export async function pageTabs(port: number): Promise<Array<{ id: string; url: string }>> {
  const targets: Array<{ id: string; type: string; url: string }> = await getJson(`http://127.0.0.1:${port}/json/list`);
  return targets
    .filter((t) => t.type === 'page')
    .map((t) => ({ id: t.id, url: t.url }))
    .sort((a, b) => a.id.localeCompare(b.id));
}

/** Pids whose process group is `pgid` (read from /proc). */
export function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') members.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return members;
}

/** Kills the browser, waits until none of its processes is left, then removes its profile. */
export async function stopUserBrowser(browser: UserBrowser | undefined, options: { keepProfile?: boolean } = {}): Promise<void> {
  if (!browser) return;
  const pgid = browser.child.pid!;
  if (browser.child.exitCode === null && browser.child.signalCode === null) {
    const exited = new Promise((resolve) => browser.child.once('exit', resolve));
    process.kill(-pgid, 'SIGKILL');
    await exited;
  } else if (groupMembers(pgid).length) {
    process.kill(-pgid, 'SIGKILL');
  }
  await until(() => (groupMembers(pgid).length === 0 ? true : undefined), 10_000, 'every process of the user browser to exit');
  if (!options.keepProfile) fs.rmSync(browser.profile, { recursive: true, force: true, maxRetries: 5 });
}
