/**
 * The three-line launcher (test/providers/fixtures/launcher.js: import,
 * register, serve) run as a real process against the built package, driven
 * by the MCP SDK's own client over stdio. The registered third-party
 * provider is what the server advertises and calls; the runtime's boundary
 * still decides before it is called.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';

const REPO = path.resolve(__dirname, '..', '..');
const LAUNCHER = path.join(REPO, 'test', 'providers', 'fixtures', 'launcher.js');
const PROVIDER = require('./fixtures/remoteFarmProvider.js');

let base: string;
let root: string;
let callLog: string;
let client: Client;
let transport: StdioClientTransport;

function providerCalls(): { keys: string[]; args: Record<string, unknown> }[] {
  if (!fs.existsSync(callLog)) return [];
  return fs
    .readFileSync(callLog, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

const baseArgs = (leaf: string): Record<string, unknown> => ({
  schemaVersion: 1,
  url: 'http://127.0.0.1:9/ui.html',
  type: 'screenshot',
  state: 'error',
  artifact_path: `evidence/${leaf}`,
  viewport: { width: 800, height: 600, devicePixelRatio: 1, colorScheme: 'light' },
});

function textOf(result: unknown): string {
  return ((result as { content?: { text: string }[] }).content ?? []).map((c) => c.text).join('');
}

beforeAll(async () => {
  if (!fs.existsSync(path.join(REPO, 'dist', 'src', 'index.js'))) throw new Error('run npm run build first');
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-launcher-')));
  root = path.join(base, 'run');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'plan.md'), '# plan\n');
  callLog = path.join(base, 'calls.jsonl');
  transport = new StdioClientTransport({
    command: process.execPath,
    args: [LAUNCHER],
    cwd: base,
    env: { ...getDefaultEnvironment(), DESIGN_PLAYBOOK_RUN_ROOT: root, REMOTE_FARM_CALL_LOG: callLog },
    stderr: 'pipe',
  });
  client = new Client({ name: 'launcher-test', version: '1.0.0' });
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  fs.rmSync(base, { recursive: true, force: true });
});

test('the launcher is three lines: import, register, serve', () => {
  const lines = fs.readFileSync(LAUNCHER, 'utf8').trim().split('\n');
  expect(lines).toHaveLength(3);
  expect(lines[0]).toMatch(/require\(.*dist\/src\/index\.js'\)/);
  expect(lines[1]).toMatch(/^registerCaptureProvider\(/);
  expect(lines[2]).toBe('serveStdio();');
});

test('tools/list answers with the third-party provider declaration, and only it', async () => {
  const { tools } = await client.listTools();
  expect(tools).toEqual([PROVIDER.describe()]);
  expect(tools[0].name).toBe('capture_on_remote_farm');
});

test('a call to the provider tool is served through the runtime and lands under evidence/', async () => {
  const result = await client.callTool({ name: 'capture_on_remote_farm', arguments: baseArgs('L6.1-farm.png') });
  expect(result.isError).toBeFalsy();
  const payload = result.structuredContent as Record<string, any>;
  const target = path.join(root, 'evidence', 'L6.1-farm.png');
  expect(payload).toMatchObject({ artifact: 'evidence/L6.1-farm.png', result: 'captured', error: '', observed_state: 'ready', written_path: target });
  expect(JSON.parse(textOf(result))).toEqual(payload);
  expect(fs.readFileSync(target).subarray(8).toString()).toBe('remote-farm:http://127.0.0.1:9/ui.html');
  // The runtime, not the provider, writes the screenshot sidecar.
  const sidecar = JSON.parse(fs.readFileSync(path.join(root, 'evidence', 'L6.1-farm.probe.json'), 'utf8'));
  expect(sidecar.renderTokens.measurement_status).toBe('unmeasured');
  expect(providerCalls().at(-1)?.keys).toEqual(Object.keys(baseArgs('L6.1-farm.png')));
});

test('the bundled tool name is not served once a provider is registered', async () => {
  const before = providerCalls().length;
  const result = await client.callTool({ name: 'execute_capture_plan', arguments: baseArgs('L6.2.png') });
  expect(result.isError).toBe(true);
  expect(textOf(result)).toBe('unknown tool: execute_capture_plan');
  expect(providerCalls().length).toBe(before);
});

test('the boundary refuses before the provider runs: unknown field (tool error) and manifest refusal (failed)', async () => {
  const before = providerCalls().length;
  const unknown = await client.callTool({ name: 'capture_on_remote_farm', arguments: { ...baseArgs('L6.3.png'), criterion: 'L6.3' } });
  expect(unknown.isError).toBe(true);
  expect(textOf(unknown)).toContain('provider accepts Runtime Object fields only');
  const manifest = await client.callTool({ name: 'capture_on_remote_farm', arguments: { ...baseArgs('x'), artifact_path: 'evidence/manifest.jsonl' } });
  expect((manifest.structuredContent as Record<string, unknown>).error).toBe('provider never writes manifest.jsonl');
  expect(providerCalls().length).toBe(before);
  expect(fs.existsSync(path.join(root, 'evidence', 'manifest.jsonl'))).toBe(false);
});

test('a bound call reaches the provider with design in its arguments; the sidecar stays unmeasured', async () => {
  const design = { fontSizes: [14, 16], colors: ['#ffffff'] };
  const result = await client.callTool({ name: 'capture_on_remote_farm', arguments: { ...baseArgs('L6.4.png'), design } });
  const payload = result.structuredContent as Record<string, any>;
  expect(payload.result).toBe('captured');
  expect(payload.request.design).toEqual(design);
  expect(providerCalls().at(-1)?.args.design).toEqual(design);
  const sidecar = JSON.parse(fs.readFileSync(path.join(root, 'evidence', 'L6.4.probe.json'), 'utf8'));
  expect(sidecar.renderTokens.measurement_status).toBe('unmeasured');
  expect(sidecar.design).toEqual(design);
});
