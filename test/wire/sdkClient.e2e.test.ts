/**
 * The server as an MCP SDK client sees it: tools/list declares one tool with
 * input schema (every contract field), output schema and truthful
 * annotations; every call's structuredContent validates against that output
 * schema (the SDK client checks it, and so does Ajv here), failed payloads
 * included.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { pathToFileURL } from 'url';
import Ajv2020 from 'ajv/dist/2020';
import { BIN, FAKE_SERVER, assertBuilt, childEnv } from './serverProcess';

const VIEWPORT = { width: 800, height: 600, devicePixelRatio: 1.5, colorScheme: 'dark' };
const CONTRACT_FIELDS = ['schemaVersion', 'url', 'type', 'state', 'actions', 'artifact_path', 'overwrite', 'viewport', 'freeze', 'run_root', 'design'];

let base: string;
let runRoot: string;

/** The SDK's stdio transport, remembering the version the client settled on (the client reports it to a transport that asks). */
class RecordingTransport extends StdioClientTransport {
  negotiated?: string;
  setProtocolVersion(version: string): void {
    this.negotiated = version;
  }
}

async function connect(script: string): Promise<{ client: Client; transport: RecordingTransport }> {
  const transport = new RecordingTransport({ command: process.execPath, args: [script], cwd: runRoot, env: childEnv(), stderr: 'pipe' });
  const client = new Client({ name: 'sdk-wire-test', version: '0' });
  await client.connect(transport);
  return { client, transport };
}

function args(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    schemaVersion: 1,
    url: 'http://127.0.0.1:9/x.html',
    type: 'screenshot',
    state: 'ready',
    artifact_path: 'evidence/sdk.png',
    viewport: VIEWPORT,
    run_root: runRoot,
    ...overrides,
  };
}

beforeAll(() => {
  assertBuilt();
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-sdk-')));
  runRoot = path.join(base, 'run');
  fs.mkdirSync(path.join(runRoot, 'evidence'), { recursive: true });
  fs.writeFileSync(path.join(runRoot, 'plan.md'), '');
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

describe('the built bin', () => {
  let client: Client;
  let transport: RecordingTransport;
  beforeAll(async () => {
    ({ client, transport } = await connect(BIN));
  });
  afterAll(async () => {
    await client.close();
  });

  test('server name', () => {
    expect(client.getServerVersion()?.name).toBe('design-playbook-evidence');
  });

  test('the SDK client offers its newest protocol version and the server echoes it', () => {
    expect(transport.negotiated).toBe(LATEST_PROTOCOL_VERSION);
  });

  test('tools/list: one tool with input schema, output schema and truthful annotations', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['execute_capture_plan']);
    const [tool] = tools;
    expect(tool.description).toBeTruthy();

    const input = tool.inputSchema as { type: string; properties: Record<string, unknown>; required: string[]; additionalProperties?: unknown };
    expect(input.type).toBe('object');
    expect(Object.keys(input.properties).sort()).toEqual([...CONTRACT_FIELDS].sort());
    expect([...input.required].sort()).toEqual(['artifact_path', 'schemaVersion', 'state', 'type', 'url', 'viewport']);
    expect(input.additionalProperties).toBe(false);
    expect(input.properties.type).toMatchObject({ enum: ['screenshot', 'a11y tree', 'interaction trace'] });
    expect(input.properties.viewport).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: expect.arrayContaining(['width', 'height', 'devicePixelRatio', 'colorScheme']),
    });
    expect(input.properties.design).toMatchObject({ type: 'object' });

    const output = tool.outputSchema as { type: string; properties: Record<string, unknown>; required: string[] };
    expect(output.type).toBe('object');
    expect(Object.keys(output.properties).sort()).toEqual(['artifact', 'error', 'observed_state', 'request', 'result', 'warnings', 'written_path']);
    expect(output.required).not.toContain('request'); // a contract failure carries none
    expect(output.properties.result).toMatchObject({ enum: ['captured', 'failed'] });

    // destructiveHint: an opted-in overwrite replaces an existing file.
    expect(tool.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true });
  });

  test('the input schema accepts a valid call and refuses an unknown field (Ajv)', async () => {
    const { tools } = await client.listTools();
    const validate = new Ajv2020({ strict: false }).compile(tools[0].inputSchema);
    expect(validate(args({ design: { colors: ['#fff'] }, freeze: { networkIdle: true }, actions: [{ do: 'click', selector: '#a' }] }))).toBe(true);
    expect(validate(args({ criterion: 'L6.3' }))).toBe(false);
    expect(validate(args({ viewport: { ...VIEWPORT, zoom: 1 } }))).toBe(false);
  });

  test("a contract failure payload (no request) passes the SDK client's output validation", async () => {
    await client.listTools(); // the client caches output validators from the listing
    const result = await client.callTool({ name: 'execute_capture_plan', arguments: args({ schemaVersion: 99 }) });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ result: 'failed', written_path: '', observed_state: 'unknown' });
  });

  test('a containment failure payload (request echoed) passes too', async () => {
    await client.listTools();
    const result = await client.callTool({ name: 'execute_capture_plan', arguments: args({ artifact_path: 'spec.md' }) });
    expect(result.structuredContent).toMatchObject({
      result: 'failed',
      error: 'artifact_path must stay under the evidence/ subtree',
      request: { schemaVersion: 1, viewport: VIEWPORT, freeze: { enabled: true, waitFonts: true, networkIdle: false } },
    });
  });

  test('unknown fields: isError with the phrase (no structuredContent needed)', async () => {
    await client.listTools();
    const result = await client.callTool({ name: 'execute_capture_plan', arguments: args({ criterion_ref: 'L1' }) });
    expect(result.isError).toBe(true);
    expect((result.content as Array<{ text: string }>)[0].text).toContain('provider accepts Runtime Object fields only');
  });

  test('an ftp:// url: a tool error the client hands back (not a thrown protocol error), as every runtime-field refusal is', async () => {
    const { tools } = await client.listTools();
    for (const overrides of [{ url: 'ftp://127.0.0.1/x' }, { type: 'video' }]) {
      const result = await client.callTool({ name: 'execute_capture_plan', arguments: args(overrides) });
      expect({ isError: result.isError, structured: result.structuredContent }).toEqual({ isError: true, structured: undefined });
    }
    const result = await client.callTool({ name: 'execute_capture_plan', arguments: args({ url: 'ftp://127.0.0.1/x' }) });
    expect((result.content as Array<{ text: string }>)[0].text).toMatch(
      /^url must start with http:\/\/, https:\/\/, file:\/\/ or about: \(got 'ftp:\/\/127\.0\.0\.1\/x'\); serve the page over http/,
    );
    // The advertised schema refuses it as well: a client that checks arguments before sending stops it itself, in its own words.
    expect(new Ajv2020({ strict: false }).compile(tools[0].inputSchema)(args({ url: 'ftp://127.0.0.1/x' }))).toBe(false);
  });
});

describe('the fake-provider launcher (real captures)', () => {
  let client: Client;
  let validateOutput: (value: unknown) => boolean;
  beforeAll(async () => {
    ({ client } = await connect(FAKE_SERVER));
    const { tools } = await client.listTools();
    validateOutput = new Ajv2020({ strict: false }).compile(tools[0].outputSchema!);
  });
  afterAll(async () => {
    await client.close();
  });

  test('a captured payload validates against the output schema', async () => {
    const result = await client.callTool({ name: 'execute_capture_plan', arguments: args({ artifact_path: 'evidence/sdk-captured.png' }) });
    expect(result.structuredContent).toMatchObject({ result: 'captured', written_path: path.join(runRoot, 'evidence', 'sdk-captured.png') });
    expect(validateOutput(result.structuredContent)).toBe(true);
    expect(result.isError).toBe(false);
  });

  test('the SDK client reads a resource_link per written file beside the JSON text', async () => {
    const result = await client.callTool({ name: 'execute_capture_plan', arguments: args({ artifact_path: 'evidence/sdk-linked.png' }) });
    const content = result.content as Array<{ type: string; uri?: string; name?: string; mimeType?: string }>;
    expect(content.map((c) => c.type)).toEqual(['text', 'resource_link', 'resource_link']);
    const files = ['sdk-linked.png', 'sdk-linked.probe.json'].map((leaf) => path.join(runRoot, 'evidence', leaf));
    expect(content.slice(1)).toEqual([
      expect.objectContaining({ uri: pathToFileURL(files[0]).href, name: 'sdk-linked.png', mimeType: 'image/png' }),
      expect.objectContaining({ uri: pathToFileURL(files[1]).href, name: 'sdk-linked.probe.json', mimeType: 'application/json' }),
    ]);
    for (const file of files) expect(fs.statSync(file).isFile()).toBe(true);
    const failed = await client.callTool({ name: 'execute_capture_plan', arguments: args({ artifact_path: 'evidence/sdk-linked.png' }) });
    expect((failed.content as Array<{ type: string }>).map((c) => c.type)).toEqual(['text']); // refused: nothing written, nothing linked
  });

  test('a bound capture echoes design in request and still validates', async () => {
    const design = { fontSizes: [14, '16px'], colors: ['#0b6bcb', 'rgb(1 2 3)'], radii: [4] };
    const result = await client.callTool({ name: 'execute_capture_plan', arguments: args({ artifact_path: 'evidence/sdk-bound.png', design }) });
    expect(result.structuredContent).toMatchObject({ result: 'captured', request: { design } });
    expect(validateOutput(result.structuredContent)).toBe(true);
  });

  test('overwrite refusal and manifest refusal payloads validate', async () => {
    const refused = await client.callTool({ name: 'execute_capture_plan', arguments: args({ artifact_path: 'evidence/sdk-captured.png' }) });
    expect(refused.structuredContent).toMatchObject({ result: 'failed', error: expect.stringContaining('artifact already exists: ') });
    expect(validateOutput(refused.structuredContent)).toBe(true);
    const manifest = await client.callTool({ name: 'execute_capture_plan', arguments: args({ type: 'a11y tree', artifact_path: 'evidence/Manifest.JSONL' }) });
    expect(manifest.structuredContent).toMatchObject({ result: 'failed', error: 'provider never writes manifest.jsonl' });
    expect(validateOutput(manifest.structuredContent)).toBe(true);
    expect(fs.existsSync(path.join(runRoot, 'evidence', 'Manifest.JSONL'))).toBe(false);
  });

  test('a contract failure payload validates (Ajv, independent of the SDK)', async () => {
    const result = await client.callTool({ name: 'execute_capture_plan', arguments: args({ viewport: { ...VIEWPORT, height: 0 } }) });
    expect(result.structuredContent).toMatchObject({ result: 'failed', error: expect.stringContaining('viewport.height must be a positive integer') });
    expect(validateOutput(result.structuredContent)).toBe(true);
  });
});
