/**
 * Chromium processes a test starts the way a user or a container would
 * (--remote-debugging-port=0, the port read from DevToolsActivePort), each
 * with its own user agent so the page server can tell which browser loaded a
 * page, and a counting TCP relay that stands in for a browser-farm endpoint.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as net from 'net';
import { spawn, type ChildProcess } from 'child_process';
import { CHROMIUM_PATH, CHROMIUM_TEST_ARGS } from '../helpers/browser';
import { getJson } from '../helpers/userBrowser';
import { waitUntil } from './harness';

export interface TestBrowser {
  name: string;
  child: ChildProcess;
  port: number;
  url: string;
  wsEndpoint: string;
  profile: string;
  /** Page tabs it holds now (ids, sorted). */
  tabs(): Promise<string[]>;
  /** SIGKILL its whole process group and wait for the browser to exit (a stopped one is continued first). */
  kill(): Promise<void>;
  /** SIGSTOP its whole process group: still connected, answering nothing. */
  freeze(): void;
  /** SIGCONT: running again. */
  thaw(): void;
  /** Kill (if running), then remove its profile. */
  stop(): Promise<void>;
}

/** A headless Chromium whose user agent ends in `ua-<name>`. */
export async function startBrowser(name: string): Promise<TestBrowser> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), `dpe-pool-browser-${name}-`));
  const activePort = path.join(profile, 'DevToolsActivePort');
  // Its own process group, so killing it takes its renderers along at once.
  const child = spawn(
    CHROMIUM_PATH,
    [...CHROMIUM_TEST_ARGS, '--headless', '--remote-debugging-port=0', `--user-data-dir=${profile}`, `--user-agent=dpe-test ua-${name}`, 'about:blank'],
    { stdio: 'ignore', detached: true },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitUntil(() => fs.existsSync(activePort) && fs.readFileSync(activePort, 'utf8').split('\n').length >= 2, 30_000, `${name}'s DevToolsActivePort`);
  const port = Number(fs.readFileSync(activePort, 'utf8').split('\n')[0].trim());
  const url = `http://127.0.0.1:${port}`;
  let version: any;
  const deadline = Date.now() + 30_000;
  while (!version) {
    version = await getJson(`${url}/json/version`).catch(() => undefined);
    if (!version && Date.now() > deadline) throw new Error(`${name} did not answer on ${url}`);
    if (!version) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const tabs = async () =>
    ((await getJson(`${url}/json/list`)) as Array<{ id: string; type: string }>)
      .filter((t) => t.type === 'page')
      .map((t) => t.id)
      .sort();
  // Settled once its about:blank tab is listed, so "the tabs it had" is well defined.
  let listed: string[] = [];
  while (!listed.length) {
    listed = await tabs().catch(() => []);
    if (!listed.length) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const signal = (sig: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid!, sig);
    } catch {
      child.kill(sig);
    }
  };
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      // A stopped group is continued first, so every process of it takes the kill and exits now.
      signal('SIGCONT');
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }
    await exited;
  };
  return {
    name,
    child,
    port,
    url,
    wsEndpoint: version.webSocketDebuggerUrl,
    profile,
    tabs,
    kill,
    freeze: () => signal('SIGSTOP'),
    thaw: () => signal('SIGCONT'),
    async stop() {
      await kill();
      fs.rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    },
  };
}

/** A TCP relay in front of a browser's DevTools port that counts the connections made through it. */
export interface CountingRelay {
  port: number;
  /** ws://127.0.0.1:<relay port>/devtools/browser/<id>: the browser's endpoint, through the relay. */
  wsEndpoint: string;
  opened: number;
  open: number;
  /** Drops every connection open now (the browser behind stays up; new connections are relayed). */
  cut(): void;
  close(): Promise<void>;
}

export async function countingRelay(browser: TestBrowser): Promise<CountingRelay> {
  const sockets = new Set<net.Socket>();
  const relay: CountingRelay = {
    port: 0,
    wsEndpoint: '',
    opened: 0,
    open: 0,
    cut: () => {
      for (const s of sockets) s.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server = net.createServer((client) => {
    relay.opened++;
    relay.open++;
    const upstream = net.connect(browser.port, '127.0.0.1');
    sockets.add(client);
    sockets.add(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    let counted = true;
    const end = () => {
      if (counted) {
        counted = false;
        relay.open--;
      }
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  relay.port = (server.address() as net.AddressInfo).port;
  relay.wsEndpoint = browser.wsEndpoint.replace(`127.0.0.1:${browser.port}`, `127.0.0.1:${relay.port}`);
  return relay;
}
