/**
 * Secrets through the built server and CLI: an MCP SDK client of
 * `design-playbook-evidence --secrets FILE` sees `secret` in the actions'
 * schema (and only that differs from a server without it), captures the
 * login page with both fields filled by name, and no value reaches the
 * result, the evidence or stderr; an unknown name is a tool error naming the
 * known names. `capture` and `run` take --secrets as the server does; a
 * malformed file stops the start with its line number; a file others may
 * read is warned about on stderr.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { spawn } from 'child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, assertBuilt, childEnv } from '../wire/serverProcess';
import { secretForms } from '../../src/common/secrets';
import { zipEntries } from '../../src/boundary/secretGuard';
import type { PageServer } from '../helpers/browser';
import { PASSWORD, USER, serveLoginApp } from './loginApp';

jest.setTimeout(120_000);

let base: string;
let runRoot: string;
let secretsFile: string;
let pages: PageServer;

beforeAll(async () => {
  assertBuilt();
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-secrets-')));
  runRoot = path.join(base, 'run');
  fs.mkdirSync(path.join(runRoot, 'evidence'), { recursive: true });
  fs.writeFileSync(path.join(runRoot, 'plan.md'), '');
  secretsFile = path.join(base, 'app.env');
  fs.writeFileSync(secretsFile, `# test app\nAPP_USER=${USER}\nAPP_PASSWORD="${PASSWORD}"\n`);
  fs.chmodSync(secretsFile, 0o644);
  pages = await serveLoginApp();
});
afterAll(async () => {
  await pages?.close();
  fs.rmSync(base, { recursive: true, force: true });
});

const VIEWPORT = { width: 400, height: 300, devicePixelRatio: 1, colorScheme: 'light' };
const FILL_BOTH = [
  { do: 'fill', selector: '#user', secret: 'APP_USER' },
  { do: 'type', selector: '#password', secret: 'APP_PASSWORD' },
];

/** Where any form of either value shows in `texts` or the evidence (ZIP entries inflated). */
function leaks(...texts: string[]): string[] {
  const places: Array<{ where: string; bytes: Buffer }> = texts.map((text, i) => ({ where: `text ${i}`, bytes: Buffer.from(text) }));
  for (const leaf of fs.readdirSync(path.join(runRoot, 'evidence'))) {
    const bytes = fs.readFileSync(path.join(runRoot, 'evidence', leaf));
    places.push({ where: leaf, bytes });
    if (leaf.endsWith('.zip')) for (const e of zipEntries(bytes)) places.push({ where: `${leaf}:${e.name}`, bytes: e.bytes });
  }
  const found: string[] = [];
  for (const value of [USER, PASSWORD])
    for (const form of secretForms(value)) for (const p of places) if (p.bytes.includes(form.bytes)) found.push(`${form.encoding} in ${p.where}`);
  return found;
}

async function connect(extraArgs: string[]): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, ...extraArgs], cwd: runRoot, env: childEnv(), stderr: 'pipe' });
  let err = '';
  transport.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const client = new Client({ name: 'secrets-e2e', version: '0' });
  await client.connect(transport);
  return { client, stderr: () => err };
}

describe('the server with --secrets', () => {
  let client: Client;
  let stderr: () => string;
  let plain: Client;
  beforeAll(async () => {
    ({ client, stderr } = await connect(['--secrets', secretsFile]));
    ({ client: plain } = await connect([]));
  });
  afterAll(async () => {
    await client?.close();
    await plain?.close();
  });

  test('tools/list: `secret` beside value in the actions, and nothing else differs from a server without a secrets file', async () => {
    const [withSecrets] = (await client.listTools()).tools;
    const [without] = (await plain.listTools()).tools;
    const items = (withSecrets.inputSchema.properties as any).actions.items;
    expect(items.properties.secret).toMatchObject({ type: 'string' });
    expect(JSON.stringify(without)).not.toContain('"secret"');
    delete items.properties.secret;
    expect(JSON.stringify(withSecrets)).toBe(JSON.stringify(without));
  });

  test('the file others may read is warned about on stderr, naming the file, not a value', () => {
    expect(stderr()).toContain(`warning: secrets file ${secretsFile} is readable or writable by others (mode 0644)`);
  });

  test('a screenshot and a trace of the sign-in: captured, and no value in the results, the evidence or stderr', async () => {
    const shot = await client.callTool({
      name: 'execute_capture_plan',
      arguments: {
        schemaVersion: 1,
        url: pages.url('/login.html#t0k'),
        type: 'screenshot',
        state: 'login',
        artifact_path: 'evidence/mcp.png',
        viewport: VIEWPORT,
        run_root: runRoot,
        actions: FILL_BOTH,
      },
    });
    expect(shot.structuredContent).toMatchObject({ result: 'captured', error: '' });
    const trace = await client.callTool({
      name: 'execute_capture_plan',
      arguments: {
        schemaVersion: 1,
        url: pages.url('/login.html#t0k'),
        type: 'interaction trace',
        state: 'signed-in',
        artifact_path: 'evidence/mcp.trace.zip',
        viewport: VIEWPORT,
        run_root: runRoot,
        actions: [...FILL_BOTH, { do: 'click', selector: '#go' }, { do: 'wait_for_state', state: 'signed-in' }],
      },
    });
    expect(trace.structuredContent).toMatchObject({ result: 'captured', error: '' });
    expect(leaks(JSON.stringify(shot), JSON.stringify(trace), stderr())).toEqual([]);
  });

  test('an unknown name is a tool error naming the known names, and nothing is written', async () => {
    const answer = await client.callTool({
      name: 'execute_capture_plan',
      arguments: {
        schemaVersion: 1,
        url: pages.url('/login.html'),
        type: 'screenshot',
        state: 'login',
        artifact_path: 'evidence/unknown.png',
        viewport: VIEWPORT,
        run_root: runRoot,
        actions: [{ do: 'fill', selector: '#password', secret: 'APP_PASS' }],
      },
    });
    expect(answer.isError).toBe(true);
    expect((answer.content as Array<{ text: string }>)[0].text).toBe(
      'actions[0].secret: no secret named APP_PASS; the secrets file names APP_USER, APP_PASSWORD',
    );
    expect(fs.existsSync(path.join(runRoot, 'evidence', 'unknown.png'))).toBe(false);
  });
});

/** The bin run to its end, without blocking this process (which serves the pages). */
function cli(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: runRoot, env: childEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdin.end();
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

test('capture --secrets: the a11y tree of the filled form, no value in its output or the evidence', async () => {
  const run = await cli([
    'capture',
    '--secrets',
    secretsFile,
    '--url',
    pages.url('/login.html'),
    '--type',
    'a11y tree',
    '--out',
    'evidence/cli.json',
    '--run-root',
    runRoot,
    ...FILL_BOTH.flatMap((a) => ['--action', JSON.stringify(a)]),
  ]);
  expect(run.status).toBe(0);
  expect(JSON.parse(run.stdout)).toMatchObject({ result: 'captured' });
  expect(fs.readFileSync(path.join(runRoot, 'evidence', 'cli.json'), 'utf8')).toContain('<secret APP_USER>');
  expect(leaks(run.stdout, run.stderr)).toEqual([]);
});

test('run with DESIGN_PLAYBOOK_SECRETS: a plan line naming a secret is captured', async () => {
  const plan = path.join(base, 'plan.jsonl');
  const line = {
    schemaVersion: 1,
    url: pages.url('/login.html'),
    type: 'a11y tree',
    state: 'login',
    artifact_path: 'evidence/run.json',
    viewport: VIEWPORT,
    run_root: runRoot,
    actions: FILL_BOTH,
  };
  fs.writeFileSync(plan, JSON.stringify(line) + '\n');
  const run = await cli(['run', plan], { DESIGN_PLAYBOOK_SECRETS: secretsFile });
  expect(run.status).toBe(0);
  expect(JSON.parse(run.stdout.trim().split('\n')[0])).toMatchObject({ line: 1, result: 'captured' });
  expect(leaks(run.stdout, run.stderr)).toEqual([]);
});

test('a malformed secrets file stops the server with its line number, never its text', async () => {
  const bad = path.join(base, 'bad.env');
  fs.writeFileSync(bad, `APP_USER=${USER}\n\nAPP_PASSWORD "${PASSWORD}"\n`, { mode: 0o600 });
  const run = await cli(['--secrets', bad]);
  expect(run.status).toBe(2);
  expect(run.stderr).toContain(`--secrets: secrets file ${bad}, line 3: not NAME=value (no "=")`);
  expect(run.stdout).toBe('');
  expect(leaks(run.stderr)).toEqual([]);
});
