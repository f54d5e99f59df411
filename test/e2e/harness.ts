/**
 * End-to-end harness: the BUILT server (dist/src/bin.js) as a child process,
 * spoken to with the MCP SDK's own Client over stdio, plus the small helpers
 * the e2e files share (run folders, PNG header, process list).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { execFile, execFileSync, type ChildProcess } from 'child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CHROMIUM_PATH } from '../helpers/browser';

export const REPO = path.resolve(__dirname, '..', '..');
export const BIN = path.join(REPO, 'dist', 'src', 'bin.js');
export const PAGES = path.join(__dirname, 'pages');
export const PROFILE_PREFIX = 'design-playbook-evidence-profile-';

export type Payload = {
  artifact: string;
  observed_state: string;
  result: 'captured' | 'failed';
  error: string;
  written_path: string;
  request?: Record<string, any>;
  warnings: string[];
};

export function assertBuilt(): void {
  if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` before the e2e tests`);
}

export interface RunningServer {
  client: Client;
  transport: StdioClientTransport;
  child: ChildProcess;
  pid: number;
  stderr(): string;
  capture(args: Record<string, unknown>): Promise<Payload>;
  close(): Promise<void>;
}

/** Spawns the built bin (extra CLI args, extra env) and connects an SDK client. */
/** `unnamedBrowser`: no browser path is passed, so the server picks one as it would for a user. */
export async function startServer(
  options: { args?: string[]; env?: Record<string, string>; cwd?: string; unnamedBrowser?: boolean } = {},
): Promise<RunningServer> {
  assertBuilt();
  const named: Record<string, string> = options.unnamedBrowser ? {} : { DESIGN_PLAYBOOK_CHROME_PATH: CHROMIUM_PATH };
  const env: Record<string, string> = { ...getDefaultEnvironment(), ...named, ...(options.env ?? {}) };
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, ...(options.args ?? [])],
    env,
    cwd: options.cwd,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(transport);
  const child = (transport as unknown as { _process: ChildProcess })._process;
  return {
    client,
    transport,
    child,
    pid: transport.pid!,
    stderr: () => stderr,
    async capture(args) {
      const result = await client.callTool({ name: 'execute_capture_plan', arguments: args }, undefined, { timeout: 120_000 });
      if (result.isError) throw new Error(`tool error: ${JSON.stringify(result.content)}`);
      return result.structuredContent as Payload;
    },
    close: () => client.close(),
  };
}

/** A run folder with a plan.md marker, passed as run_root. */
export function makeRunRoot(label: string): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `dpe-e2e-${label}-`));
  fs.writeFileSync(path.join(root, 'plan.md'), '# e2e run\n');
  return root;
}

export function captureArgs(runRoot: string, url: string, leaf: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    schemaVersion: 1,
    url,
    type: 'screenshot',
    state: 'ready',
    artifact_path: `evidence/${leaf}`,
    viewport: { width: 800, height: 600, devicePixelRatio: 1, colorScheme: 'light' },
    run_root: runRoot,
    ...extra,
  };
}

/**
 * The progress messages a screenshot capture of `url` sends, in order, with
 * `actions` as each one names itself (`wait`, `wait_for_selector 'body'`),
 * the commit of `artifactPath` last.
 */
export function screenshotProgressMessages(url: string, actions: string[], artifactPath: string): string[] {
  const acted = actions.map((action, i) => `actions[${i}] ${action} (${i + 1} of ${actions.length})`);
  return [
    'the wait for a browser',
    'opening a browser context',
    "the page's set-up (viewport, colour scheme, clock)",
    'the start of the screenshot capture',
    `navigation to ${url}`,
    'the freeze after navigation',
    ...(acted.length ? [...acted, 'the freeze after the actions'] : []),
    'the screenshot capture',
    'the render-token probe',
    'the observed_state read',
    `writing ${artifactPath}`,
  ];
}

/** Width and height from a PNG's IHDR chunk. */
export function pngSize(file: string): { width: number; height: number } {
  const bytes = fs.readFileSync(file);
  if (bytes.subarray(0, 8).toString('hex') !== '89504e470d0a1a0a' || bytes.subarray(12, 16).toString('latin1') !== 'IHDR') {
    throw new Error(`${file} is not a PNG`);
  }
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

export interface ProcessRow {
  pid: number;
  ppid: number;
  args: string;
}

export function processList(): ProcessRow[] {
  const out = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => !!m)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3] }));
}

/** The browser process the server launched: its direct child carrying our profile folder. */
export function launchedBrowser(serverPid: number): ProcessRow | undefined {
  return processList().find((p) => p.ppid === serverPid && p.args.includes(PROFILE_PREFIX));
}

export function profileDirOf(row: ProcessRow): string {
  const match = /--user-data-dir=(\S+)/.exec(row.args);
  if (!match) throw new Error(`no --user-data-dir in ${row.args}`);
  return match[1];
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface BinRun {
  /** The exit status; 99 when the process ended by a signal or did not start. */
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The built bin as a child process, without blocking this one (a server the
 * test runs must keep answering): what it printed and how it exited. `env`
 * is the child's whole environment (default: this process's).
 */
export function runBin(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}): Promise<BinRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { encoding: 'utf8', env: options.env ?? process.env, cwd: options.cwd, timeout: options.timeoutMs ?? 0 },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as NodeJS.ErrnoException).code === 'number' ? Number((err as NodeJS.ErrnoException).code) : 99) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

export async function waitFor(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A 127.0.0.1 port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const net = await import('net');
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
