/**
 * The plugin started the way a host starts it: `git clone` of the
 * repository's HEAD into a temporary folder — no npm install, no build, no
 * node_modules — then the `.mcp.json` command with ${CLAUDE_PLUGIN_ROOT}
 * substituted, in an environment holding only PATH, HOME and
 * DESIGN_PLAYBOOK_RUN_ROOT, spoken to with the MCP SDK's client. It lists the
 * tool, captures each type from a page on 127.0.0.1 (finding the system
 * browser by itself), and writes nothing into the clone. The Codex entry
 * (cwd ".", relative arguments) starts from the same clone.
 *
 * The clone is of HEAD, so the bundle under test is the committed one.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { execFileSync, spawn, type ChildProcess } from 'child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { servePages, type PageServer } from '../helpers/browser';

const REPO = path.resolve(__dirname, '..', '..');
const SERVER = 'design-playbook-evidence';

/**
 * A stdio transport that spawns the command with exactly the environment
 * given (the SDK's own StdioClientTransport adds SHELL, USER, TERM, ...).
 */
class ExactEnvTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  child?: ChildProcess;
  stderr = '';
  private buffer = new ReadBuffer();

  constructor(private readonly spec: { command: string; args: string[]; env: Record<string, string>; cwd: string }) {}

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.spec.command, this.spec.args, { env: this.spec.env, cwd: this.spec.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
      this.child = child;
      child.on('error', reject);
      child.on('spawn', () => resolve());
      child.on('close', () => this.onclose?.());
      child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
      child.stdout!.on('data', (chunk: Buffer) => {
        this.buffer.append(chunk);
        for (let message = this.buffer.readMessage(); message; message = this.buffer.readMessage()) this.onmessage?.(message);
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => (this.child!.stdin!.write(serializeMessage(message)) ? resolve() : this.child!.stdin!.once('drain', resolve)));
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.stdin!.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }
}

/** Every path under `dir` with its size and mtime: what "nothing was written" is checked against. */
function treeState(dir: string): Map<string, string> {
  const state = new Map<string, string>();
  const walk = (current: string) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      const st = fs.lstatSync(full);
      state.set(path.relative(dir, full), `${entry.isDirectory() ? 'dir' : st.size}@${st.mtimeMs}`);
      if (entry.isDirectory()) walk(full);
    }
  };
  walk(dir);
  return state;
}

function changes(before: Map<string, string>, after: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [p, v] of after) if (before.get(p) !== v) out.push(before.has(p) ? `changed ${p}` : `added ${p}`);
  for (const p of before.keys()) if (!after.has(p)) out.push(`removed ${p}`);
  return out;
}

let work: string;
let clone: string;
let runRoot: string;
let project: string;
let pages: PageServer;
let cloneBefore: Map<string, string>;

beforeAll(async () => {
  work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-plain-clone-')));
  clone = path.join(work, 'plugin-cache', SERVER);
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).trim();
  execFileSync('git', ['clone', '--quiet', '--no-checkout', REPO, clone]);
  execFileSync('git', ['-c', 'advice.detachedHead=false', 'checkout', '--quiet', head], { cwd: clone });
  expect(fs.existsSync(path.join(clone, 'node_modules'))).toBe(false);
  expect(fs.existsSync(path.join(clone, 'dist'))).toBe(false);
  runRoot = path.join(work, 'run');
  fs.mkdirSync(runRoot);
  fs.writeFileSync(path.join(runRoot, 'plan.md'), '# plain-clone run\n');
  // The host's working directory: the user's project, not the plugin.
  project = path.join(work, 'project');
  fs.mkdirSync(project);
  const site = path.join(work, 'site');
  fs.mkdirSync(site);
  fs.writeFileSync(
    path.join(site, 'index.html'),
    '<!doctype html><html><body data-state="ready"><main><h1>Plain clone</h1><button id="go" onclick="document.body.dataset.state=\'done\'">Go</button></main></body></html>',
  );
  pages = await servePages(site);
  cloneBefore = treeState(clone);
}, 120_000);

afterAll(async () => {
  await pages?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

function entryOf(manifest: string): { command: string; args: string[]; cwd?: string; env_vars?: string[] } {
  return JSON.parse(fs.readFileSync(path.join(clone, manifest), 'utf8')).mcpServers[SERVER];
}

/** Only PATH and HOME from this process, plus what the entry forwards by name. */
function hostEnv(entry: { env_vars?: string[] }): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? os.homedir() };
  const host: Record<string, string> = { DESIGN_PLAYBOOK_RUN_ROOT: runRoot };
  for (const name of entry.env_vars ?? []) if (name in host) env[name] = host[name];
  return env;
}

async function connect(spec: ConstructorParameters<typeof ExactEnvTransport>[0]): Promise<{ client: Client; transport: ExactEnvTransport }> {
  const transport = new ExactEnvTransport(spec);
  const client = new Client({ name: 'plain-clone', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

const viewport = { width: 640, height: 480, devicePixelRatio: 1, colorScheme: 'light' };

test('the .mcp.json command serves the tool and captures every type, writing nothing into the clone', async () => {
  const entry = entryOf('.mcp.json');
  expect(entry.cwd).toBeUndefined();
  const spec = {
    command: entry.command,
    args: entry.args.map((a) => a.split('${CLAUDE_PLUGIN_ROOT}').join(clone)),
    env: hostEnv(entry),
    cwd: project,
  };
  expect(Object.keys(spec.env).sort()).toEqual(['DESIGN_PLAYBOOK_RUN_ROOT', 'HOME', 'PATH']);
  const { client, transport } = await connect(spec);
  try {
    // The bundle carries the package version (src/common/version.ts reads it from package.json beside dist/).
    const { version } = JSON.parse(fs.readFileSync(path.join(clone, 'package.json'), 'utf8'));
    expect(client.getServerVersion()).toEqual({ name: SERVER, version });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['execute_capture_plan']);

    const cases = [
      { type: 'screenshot', artifact_path: 'evidence/plain.png', actions: [] },
      { type: 'a11y tree', artifact_path: 'evidence/plain.json', actions: [] },
      { type: 'interaction trace', artifact_path: 'evidence/plain.trace.zip', actions: [{ do: 'click', selector: '#go' }] },
    ];
    for (const c of cases) {
      const result = await client.callTool(
        { name: 'execute_capture_plan', arguments: { schemaVersion: 1, url: pages.url('/index.html'), state: 'ready', viewport, ...c } },
        undefined,
        { timeout: 120_000 },
      );
      const payload = result.structuredContent as Record<string, any>;
      expect([c.type, result.isError ?? false, payload.result, payload.error]).toEqual([c.type, false, 'captured', '']);
      expect(payload.written_path).toBe(path.join(runRoot, c.artifact_path));
    }
    const png = fs.readFileSync(path.join(runRoot, 'evidence', 'plain.png'));
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(JSON.parse(fs.readFileSync(path.join(runRoot, 'evidence', 'plain.json'), 'utf8'))).toEqual({
      format: 'aria_snapshot',
      tree: expect.stringContaining('heading "Plain clone" [level=1]'),
    });
    expect(
      fs
        .readFileSync(path.join(runRoot, 'evidence', 'plain.trace.zip'))
        .subarray(0, 2)
        .toString('latin1'),
    ).toBe('PK');
  } finally {
    await transport.close();
  }
  expect(transport.stderr).not.toMatch(/Cannot find module|MODULE_NOT_FOUND/);
  expect(changes(cloneBefore, treeState(clone))).toEqual([]);
  expect(fs.readdirSync(project)).toEqual([]);
}, 240_000);

test('the Codex entry starts from the plugin folder with its relative arguments, writing nothing there', async () => {
  const entry = entryOf('.codex-plugin/mcp.json');
  const { client, transport } = await connect({ command: entry.command, args: entry.args, env: hostEnv(entry), cwd: path.resolve(clone, entry.cwd ?? '.') });
  try {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['execute_capture_plan']);
    const result = await client.callTool(
      {
        name: 'execute_capture_plan',
        arguments: { schemaVersion: 1, url: pages.url('/index.html'), type: 'screenshot', state: 'ready', artifact_path: 'evidence/codex.png', viewport },
      },
      undefined,
      { timeout: 120_000 },
    );
    expect((result.structuredContent as Record<string, any>).written_path).toBe(path.join(runRoot, 'evidence', 'codex.png'));
  } finally {
    await transport.close();
  }
  expect(changes(cloneBefore, treeState(clone))).toEqual([]);
}, 240_000);
