/**
 * What existing callers send, in raw bytes against the built bin (and the
 * fake-provider launcher where a call must capture): the original's minimal
 * initialize, protocol version negotiation, malformed params answered -32602
 * naming the field while the server keeps serving, the contract's integers
 * refusing a float literal with the original's wording, the schema's
 * integer/default/enum facts, `isError: false` on results, and the
 * resource_link items naming the files a capture wrote.
 */
import * as fs from 'fs';
import * as path from 'path';
import { pathToFileURL } from 'url';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { BIN, FAKE_SERVER, INIT_PARAMS, ServerProcess, assertBuilt, contentLengthFrame, makeRunRoot, newlineFrame, type Reply } from './serverProcess';

/** Every version the original's callers and the SDK clients send today. */
const CALLER_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', LATEST_PROTOCOL_VERSION];

let base: string;
let runRoot: string;
const servers: ServerProcess[] = [];

function start(script = BIN): ServerProcess {
  const server = new ServerProcess(script, { cwd: runRoot });
  servers.push(server);
  return server;
}

/** The arguments as Python's json.dumps writes them (the original's callers): floats keep their `.0`. */
function pythonArgsText(overrides: Record<string, string> = {}): string {
  const fields: Record<string, string> = {
    schemaVersion: '1',
    url: '"http://127.0.0.1:9/x.html"',
    type: '"a11y tree"',
    state: '"ready"',
    artifact_path: '"evidence/callers.json"',
    viewport: '{"width": 800, "height": 600, "devicePixelRatio": 1.0, "colorScheme": "light"}',
    run_root: JSON.stringify(runRoot),
    ...overrides,
  };
  return (
    '{' +
    Object.entries(fields)
      .map(([k, v]) => `${JSON.stringify(k)}: ${v}`)
      .join(', ') +
    '}'
  );
}

function toolCallText(id: number, argumentsText: string): string {
  return `{"jsonrpc": "2.0", "id": ${id}, "method": "tools/call", "params": {"name": "execute_capture_plan", "arguments": ${argumentsText}}}\n`;
}

function resultOf(reply: Reply): { content: Array<Record<string, unknown>>; structuredContent?: Record<string, any>; isError?: boolean } {
  expect(reply.message.error).toBeUndefined();
  return reply.message.result as never;
}

beforeAll(() => {
  assertBuilt();
  ({ base, runRoot } = makeRunRoot('dpe-callers-'));
});
afterEach(() => {
  for (const s of servers.splice(0)) s.kill();
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

describe('a minimal initialize is answered as the original answers it', () => {
  test("the original test suite's own sequence: initialize with {protocolVersion} alone, then tools/list", async () => {
    const server = start();
    server.write(newlineFrame({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18' } }));
    server.write(newlineFrame({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }));
    const replies = await server.waitFor((rs) => rs.length >= 2);
    expect(replies.map((r) => r.message.id)).toEqual([1, 2]);
    expect(replies[0].message.result).toMatchObject({
      protocolVersion: '2025-06-18',
      serverInfo: { name: 'design-playbook-evidence' },
      capabilities: { tools: {} },
    });
    const [tool] = (replies[1].message.result as { tools: Array<{ name: string; inputSchema: any }> }).tools;
    expect(tool.name).toBe('execute_capture_plan');
    expect(tool.inputSchema.properties.schemaVersion.const).toBe(1);
    expect(tool.inputSchema.required).toContain('viewport');
  });

  test.each([
    ['no params at all', { jsonrpc: '2.0', id: 1, method: 'initialize' }],
    ['params {}', { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }],
    ['params null', { jsonrpc: '2.0', id: 1, method: 'initialize', params: null }],
  ])('%s: answered with 2024-11-05 (what the original answered to a client naming no version)', async (_name, request) => {
    const server = start();
    server.write(contentLengthFrame(request));
    const reply = await server.reply(1);
    expect(reply.framing).toBe('content-length');
    expect(reply.message.result).toMatchObject({ protocolVersion: '2024-11-05', serverInfo: { name: 'design-playbook-evidence' } });
  });

  test("the original suite's missing-schemaVersion sequence: initialize {} then a call -> a failed payload asking to recapture", async () => {
    const server = start();
    server.write('{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}\n');
    server.write(toolCallText(2, '{"url": "about:blank", "type": "screenshot", "state": "ok", "actions": [], "artifact_path": "evidence/x.png"}'));
    const reply = await server.reply(2);
    const result = resultOf(reply);
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toMatchObject({ result: 'failed', error: expect.stringContaining('schemaVersion') });
    expect(result.structuredContent!.error.toLowerCase()).toContain('recapture');
  });
});

describe('protocol version negotiation', () => {
  test.each(CALLER_VERSIONS)('a supported version (%s) is echoed', async (version) => {
    const server = start();
    server.write(newlineFrame({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { ...INIT_PARAMS, protocolVersion: version } }));
    expect((await server.reply(1)).message.result).toMatchObject({ protocolVersion: version });
  });

  test.each(['1999-01-01', '2099-01-01', 'latest', ''])('any other version (%p) is answered with the newest supported', async (version) => {
    const server = start();
    server.write(newlineFrame({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version } }));
    expect((await server.reply(1)).message.result).toMatchObject({ protocolVersion: LATEST_PROTOCOL_VERSION });
  });
});

describe('malformed params: -32602 naming the field, and the server keeps serving', () => {
  test.each<[string, Record<string, unknown>, string]>([
    ['initialize capabilities 5', { method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: 5 } }, 'params.capabilities'],
    ['initialize clientInfo a string', { method: 'initialize', params: { protocolVersion: '2025-06-18', clientInfo: 'me' } }, 'params.clientInfo'],
    ['initialize clientInfo.name 5', { method: 'initialize', params: { clientInfo: { name: 5, version: '1' } } }, 'params.clientInfo.name'],
    ['initialize protocolVersion 7', { method: 'initialize', params: { protocolVersion: 7 } }, 'params.protocolVersion'],
    ['tools/call arguments 5', { method: 'tools/call', params: { name: 'execute_capture_plan', arguments: 5 } }, 'params.arguments'],
    ['tools/call arguments a list', { method: 'tools/call', params: { name: 'execute_capture_plan', arguments: [1] } }, 'params.arguments'],
    ['tools/call without a name', { method: 'tools/call', params: { arguments: {} } }, 'params.name'],
    ['tools/list cursor 5', { method: 'tools/list', params: { cursor: 5 } }, 'params.cursor'],
    ['ping _meta 5', { method: 'ping', params: { _meta: 5 } }, 'params._meta'],
  ])('%s', async (_name, request, field) => {
    const server = start();
    server.write(newlineFrame({ jsonrpc: '2.0', id: 'bad', ...request }));
    server.write(newlineFrame({ jsonrpc: '2.0', id: 'after', method: 'ping' }));
    const bad = await server.reply('bad');
    const error = bad.message.error as { code: number; message: string };
    expect(error.code).toBe(-32602);
    expect(error.message).toContain(`Invalid params for ${request.method}: ${field}: `);
    expect(error.message).not.toContain('"code"'); // a sentence, not a dumped validator report
    expect((await server.reply('after')).message.result).toEqual({});
  });

  test('tools/call with arguments null is read as no arguments, as the original read it', async () => {
    const server = start();
    server.write(newlineFrame({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'execute_capture_plan', arguments: null } }));
    expect(resultOf(await server.reply(1)).structuredContent).toMatchObject({
      result: 'failed',
      error: expect.stringContaining('capture contract schemaVersion is required'),
    });
  });
});

describe("the contract's integers and wording, as the original's callers meet them", () => {
  test.each([
    ['schemaVersion 1.0', { schemaVersion: '1.0' }, 'unsupported capture schemaVersion 1.0; recapture with capture contract schemaVersion=1'],
    ['schemaVersion 1e0', { schemaVersion: '1e0' }, 'unsupported capture schemaVersion 1.0; recapture with capture contract schemaVersion=1'],
    ['schemaVersion true', { schemaVersion: 'true' }, 'unsupported capture schemaVersion True; recapture with capture contract schemaVersion=1'],
    [
      'viewport.width 800.0',
      { viewport: '{"width": 800.0, "height": 600, "devicePixelRatio": 1.0, "colorScheme": "light"}' },
      'viewport.width must be a positive integer (got 800.0)',
    ],
    [
      'viewport.height 6e2',
      { viewport: '{"width": 800, "height": 6e2, "devicePixelRatio": 1.0, "colorScheme": "light"}' },
      'viewport.height must be a positive integer (got 600.0)',
    ],
    [
      'colorScheme null',
      { viewport: '{"width": 800, "height": 600, "devicePixelRatio": 1.0, "colorScheme": null}' },
      "viewport.colorScheme must be one of ['dark', 'light', 'no-preference'] (got None)",
    ],
    ['freeze.enabled null', { freeze: '{"enabled": null}' }, 'freeze.enabled must be a boolean (got None)'],
  ])('%s is a failed payload worded as the original words it', async (_name, overrides, error) => {
    const server = start();
    server.write(toolCallText(1, pythonArgsText(overrides)));
    const result = resultOf(await server.reply(1));
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toEqual({
      artifact: 'evidence/callers.json',
      observed_state: 'unknown',
      result: 'failed',
      error,
      written_path: '',
      warnings: [],
    });
    expect(result.content).toHaveLength(1); // no file written, no link
  });

  test('a refused boolean runtime field is a tool error worded with True/False', async () => {
    const server = start();
    server.write(toolCallText(1, pythonArgsText({ overwrite: '"yes"' })));
    server.write(toolCallText(2, pythonArgsText({ url: 'true' })));
    server.write(toolCallText(3, pythonArgsText({ state: 'false' })));
    const texts = await Promise.all(
      [1, 2, 3].map(async (id) => {
        const result = resultOf(await server.reply(id));
        expect(result.isError).toBe(true);
        return result.content[0].text;
      }),
    );
    expect(texts).toEqual([
      "overwrite must be a boolean (got 'yes')",
      'url must be a non-empty string (got True)',
      'state must be a non-empty string (got False)',
    ]);
  });

  test('the schema says what the original says: integer const 1, defaults, colorScheme in its order', async () => {
    const server = start();
    server.write(newlineFrame({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    const { tools } = (await server.reply(1)).message.result as { tools: Array<{ inputSchema: any; outputSchema: any; annotations: any }> };
    const { properties } = tools[0].inputSchema;
    expect(properties.schemaVersion).toMatchObject({ type: 'integer', const: 1 });
    expect(tools[0].outputSchema.properties.request.properties.schemaVersion).toMatchObject({ type: 'integer', const: 1 });
    expect(properties.overwrite).toMatchObject({ type: 'boolean', default: false });
    expect(properties.freeze.properties).toMatchObject({
      enabled: { type: 'boolean', default: true },
      waitFonts: { type: 'boolean', default: true },
      networkIdle: { type: 'boolean', default: false },
    });
    expect(properties.viewport.properties.colorScheme.enum).toEqual(['dark', 'light', 'no-preference']);
    expect(properties.viewport.properties.width).toMatchObject({ type: 'integer', minimum: 1 });
    expect(tools[0].annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
  });
});

describe("the request echo writes devicePixelRatio as a float, as the original's Python writer does", () => {
  test('the wire frame and the text block both carry "devicePixelRatio": 1.0 for a whole-number ratio', async () => {
    const server = start(FAKE_SERVER);
    server.write(toolCallText(1, pythonArgsText({ artifact_path: '"evidence/float-echo.json"' })));
    const reply = await server.reply(1);
    const result = resultOf(reply);
    expect(result.structuredContent!.request.viewport.devicePixelRatio).toBe(1);
    expect(reply.text).toContain('"devicePixelRatio":1.0');
    expect(reply.text).not.toContain('"devicePixelRatio":1,');
    expect(result.content[0].text).toContain('"devicePixelRatio": 1.0');
    // Integers stay integers.
    expect(result.content[0].text).toContain('"width": 800,');
  });
});

describe('results: isError false, and a resource_link per written file (fake-provider launcher)', () => {
  function links(result: ReturnType<typeof resultOf>) {
    expect(result.content[0]).toMatchObject({ type: 'text' });
    expect(JSON.parse(result.content[0].text as string)).toEqual(result.structuredContent);
    return result.content.slice(1);
  }

  test('a screenshot links its PNG and its probe sidecar, by file:// URI of the absolute path', async () => {
    const server = start(FAKE_SERVER);
    server.write(toolCallText(1, pythonArgsText({ type: '"screenshot"', artifact_path: '"evidence/links/L6 one#1.png"' })));
    const result = resultOf(await server.reply(1));
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toMatchObject({ result: 'captured' });
    const png = path.join(runRoot, 'evidence', 'links', 'L6 one#1.png');
    const sidecar = path.join(runRoot, 'evidence', 'links', 'L6 one#1.probe.json');
    expect(links(result)).toEqual([
      { type: 'resource_link', uri: pathToFileURL(png).href, name: 'L6 one#1.png', mimeType: 'image/png', description: expect.any(String) },
      { type: 'resource_link', uri: pathToFileURL(sidecar).href, name: 'L6 one#1.probe.json', mimeType: 'application/json', description: expect.any(String) },
    ]);
    expect(pathToFileURL(png).href).toContain('L6%20one%231.png'); // space and # escaped: the URI reads back as the path
    for (const link of links(result)) expect(fs.statSync(new URL(link.uri as string)).isFile()).toBe(true);
    expect(result.structuredContent!.written_path).toBe(png);
  });

  test.each([
    ['a11y tree', 'evidence/links/tree.json', 'application/json'],
    ['interaction trace', 'evidence/links/run.trace.zip', 'application/zip'],
  ])('%s links its one artifact', async (type, artifact, mimeType) => {
    const server = start(FAKE_SERVER);
    server.write(toolCallText(1, pythonArgsText({ type: JSON.stringify(type), artifact_path: JSON.stringify(artifact) })));
    const result = resultOf(await server.reply(1));
    const abs = path.join(runRoot, artifact);
    expect(links(result)).toEqual([
      { type: 'resource_link', uri: pathToFileURL(abs).href, name: path.basename(abs), mimeType, description: expect.any(String) },
    ]);
    expect(fs.existsSync(abs)).toBe(true);
  });

  test('no link when nothing was written: an overwrite refusal keeps the old file and links nothing', async () => {
    const target = path.join(runRoot, 'evidence', 'links', 'kept.json');
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, 'old');
    const server = start(FAKE_SERVER);
    server.write(toolCallText(1, pythonArgsText({ artifact_path: '"evidence/links/kept.json"' })));
    const result = resultOf(await server.reply(1));
    expect(result).toMatchObject({ isError: false, structuredContent: { result: 'failed', error: expect.stringContaining('artifact already exists') } });
    expect(links(result)).toEqual([]);
    expect(fs.readFileSync(target, 'utf8')).toBe('old');
  });

  test('overwrite=true replaces the file (why destructiveHint is true) and links the new one', async () => {
    const target = path.join(runRoot, 'evidence', 'links', 'replaced.json');
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, 'old');
    const server = start(FAKE_SERVER);
    server.write(toolCallText(1, pythonArgsText({ artifact_path: '"evidence/links/replaced.json"', overwrite: 'true' })));
    const result = resultOf(await server.reply(1));
    expect(result.structuredContent).toMatchObject({ result: 'captured' });
    expect(links(result).map((l) => l.uri)).toEqual([pathToFileURL(target).href]);
    expect(fs.readFileSync(target, 'utf8')).toBe('fake bytes for a11y tree\n');
  });

  test('a provider failure links nothing and leaves no file', async () => {
    const server = new ServerProcess(FAKE_SERVER, { cwd: runRoot, env: { FAKE_PROVIDER_MODE: 'fail' } });
    servers.push(server);
    server.write(toolCallText(1, pythonArgsText({ artifact_path: '"evidence/links/failed.json"' })));
    const result = resultOf(await server.reply(1));
    expect(result).toMatchObject({ isError: false, structuredContent: { result: 'failed', error: 'fake provider failed' } });
    expect(links(result)).toEqual([]);
    expect(fs.existsSync(path.join(runRoot, 'evidence', 'links', 'failed.json'))).toBe(false);
  });
});
