/**
 * The wire in raw bytes, against the built bin (and the fake-provider
 * launcher where a call must reach a provider): both framings answered in
 * kind, -32700 / -32600 / -32601, protocolVersion echo, ping, tool results,
 * exit 0 at end of input (calls still at work cancelled, as for
 * notifications/cancelled), stdout carrying protocol only.
 */
import * as fs from 'fs';
import * as path from 'path';
import { BIN, FAKE_SERVER, INIT_PARAMS, ServerProcess, assertBuilt, makeRunRoot, contentLengthFrame, newlineFrame, type Reply } from './serverProcess';

const VIEWPORT = { width: 800, height: 600, devicePixelRatio: 1, colorScheme: 'light' };

let base: string;
let runRoot: string;
const servers: ServerProcess[] = [];

function start(script = BIN, options: { cwd?: string; env?: Record<string, string> } = {}): ServerProcess {
  const server = new ServerProcess(script, { cwd: options.cwd ?? runRoot, env: options.env });
  servers.push(server);
  return server;
}

function callArgs(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    schemaVersion: 1,
    url: 'http://127.0.0.1:9/x.html',
    type: 'a11y tree',
    state: 'ready',
    artifact_path: 'evidence/a.json',
    viewport: VIEWPORT,
    run_root: runRoot,
    ...overrides,
  };
}

function toolCall(id: number | string, args: unknown, name = 'execute_capture_plan') {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } };
}

function textOf(reply: Reply): string {
  const content = (reply.message.result as { content: Array<{ type: string; text: string }> }).content;
  expect(content[0].type).toBe('text');
  return content[0].text;
}

beforeAll(() => {
  assertBuilt();
  ({ base, runRoot } = makeRunRoot('dpe-wire-'));
});
afterEach(() => {
  for (const s of servers.splice(0)) s.kill();
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

describe('framing', () => {
  test('newline and Content-Length requests in one session, each answered in its own framing', async () => {
    const server = start();
    server.write(newlineFrame({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT_PARAMS }));
    server.write(contentLengthFrame({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    server.write(contentLengthFrame({ jsonrpc: '2.0', id: 2, method: 'ping' }));
    server.write(newlineFrame({ jsonrpc: '2.0', id: 3, method: 'tools/list' }));
    server.write(contentLengthFrame({ jsonrpc: '2.0', id: 'four', method: 'tools/list' }));
    server.write(newlineFrame({ jsonrpc: '2.0', id: 5, method: 'ping' }));
    const replies = await server.waitFor((rs) => rs.length >= 5);
    const byId = new Map(replies.map((r) => [r.message.id, r]));
    expect(byId.get(1)?.framing).toBe('newline');
    expect(byId.get(2)).toEqual({ framing: 'content-length', message: { jsonrpc: '2.0', id: 2, result: {} }, text: expect.any(String) });
    expect(byId.get(3)?.framing).toBe('newline');
    expect(byId.get('four')?.framing).toBe('content-length');
    expect(byId.get(5)).toEqual({ framing: 'newline', message: { jsonrpc: '2.0', id: 5, result: {} }, text: expect.any(String) });
    expect(replies).toHaveLength(5); // the notification got no reply
    server.end();
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });

  test('frames split across writes and several frames in one write', async () => {
    const server = start();
    const init = contentLengthFrame({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT_PARAMS });
    server.write(init.slice(0, 7));
    await new Promise((r) => setTimeout(r, 50));
    server.write(init.slice(7, 30));
    await new Promise((r) => setTimeout(r, 50));
    server.write(init.slice(30));
    const ping = newlineFrame({ jsonrpc: '2.0', id: 2, method: 'ping' });
    server.write(ping.slice(0, 10));
    await new Promise((r) => setTimeout(r, 50));
    server.write(ping.slice(10) + newlineFrame({ jsonrpc: '2.0', id: 3, method: 'ping' }) + contentLengthFrame({ jsonrpc: '2.0', id: 4, method: 'ping' }));
    const replies = await server.waitFor((rs) => rs.length >= 4);
    expect(replies.map((r) => [r.message.id, r.framing])).toEqual([
      [1, 'content-length'],
      [2, 'newline'],
      [3, 'newline'],
      [4, 'content-length'],
    ]);
  });

  test('a multi-byte UTF-8 body is measured in bytes', async () => {
    const server = start();
    server.write(contentLengthFrame({ jsonrpc: '2.0', id: 'ü证😀', method: 'ping' }));
    const reply = await server.reply('ü证😀');
    expect(reply).toEqual({ framing: 'content-length', message: { jsonrpc: '2.0', id: 'ü证😀', result: {} }, text: expect.any(String) });
  });
});

test('a frame that starts with a UTF-8 byte order mark is read as its JSON, in both framings', async () => {
  const server = start();
  server.write('\uFEFF' + JSON.stringify({ jsonrpc: '2.0', id: 'bom-line', method: 'ping' }) + '\n');
  expect(await server.reply('bom-line')).toEqual({ framing: 'newline', message: { jsonrpc: '2.0', id: 'bom-line', result: {} }, text: expect.any(String) });
  const body = '\uFEFF' + JSON.stringify({ jsonrpc: '2.0', id: 'bom-frame', method: 'ping' });
  server.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  expect(await server.reply('bom-frame')).toEqual({
    framing: 'content-length',
    message: { jsonrpc: '2.0', id: 'bom-frame', result: {} },
    text: expect.any(String),
  });
});

describe('JSON-RPC errors keep the server serving', () => {
  test('a frame that does not parse -> -32700 with id null, then the next request is answered', async () => {
    const server = start();
    server.write('{"jsonrpc": "2.0", "id": 1, "method": \n');
    server.write(newlineFrame({ jsonrpc: '2.0', id: 2, method: 'ping' }));
    server.write(contentLengthFrame('{not json'));
    server.write(contentLengthFrame({ jsonrpc: '2.0', id: 3, method: 'ping' }));
    const replies = await server.waitFor((rs) => rs.length >= 4);
    const parseErrors = replies.filter((r) => r.message.id === null);
    expect(parseErrors).toHaveLength(2);
    for (const r of parseErrors) expect(r.message).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    expect(parseErrors.map((r) => r.framing).sort()).toEqual(['content-length', 'newline']);
    expect(replies.find((r) => r.message.id === 2)?.message).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    expect(replies.find((r) => r.message.id === 3)?.framing).toBe('content-length');
  });

  test.each(['[1]', '42', '"x"', 'null', 'true', '[]'])('a JSON value that is not an object (%s) -> -32600', async (frame) => {
    const server = start();
    server.write(frame + '\n');
    server.write(newlineFrame({ jsonrpc: '2.0', id: 9, method: 'ping' }));
    const replies = await server.waitFor((rs) => rs.length >= 2);
    expect(replies[0].message).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect(replies[1].message).toEqual({ jsonrpc: '2.0', id: 9, result: {} });
  });

  test('unknown method with an id -> -32601 with that id; an unknown notification gets no reply', async () => {
    const server = start();
    server.write(newlineFrame({ jsonrpc: '2.0', method: 'notifications/nonsense' }));
    server.write(newlineFrame({ jsonrpc: '2.0', id: 'u1', method: 'frobnicate' }));
    server.write(contentLengthFrame({ jsonrpc: '2.0', id: 'u2', method: 'frobnicate' }));
    const replies = await server.waitFor((rs) => rs.length >= 2);
    expect(replies.map((r) => [r.message.id, (r.message.error as { code: number }).code, r.framing])).toEqual([
      ['u1', -32601, 'newline'],
      ['u2', -32601, 'content-length'],
    ]);
    server.write(newlineFrame({ jsonrpc: '2.0', id: 'p', method: 'ping' }));
    expect((await server.reply('p')).message.result).toEqual({});
    expect(server.replies()).toHaveLength(3);
  });
});

describe('initialize and ping', () => {
  // Versions the server does not support are answered with the newest (test/wire/callers.e2e.test.ts).
  test.each(['2025-06-18', '2024-11-05'])('initialize echoes protocolVersion %s and names the server', async (version) => {
    const server = start();
    server.write(newlineFrame({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { ...INIT_PARAMS, protocolVersion: version } }));
    const reply = await server.reply(1);
    expect(reply.message.result).toMatchObject({
      protocolVersion: version,
      serverInfo: { name: 'design-playbook-evidence' },
      capabilities: { tools: expect.any(Object) },
    });
  });

  test('ping answers {} before and after initialize', async () => {
    const server = start();
    server.write(newlineFrame({ jsonrpc: '2.0', id: 0, method: 'ping' }));
    server.write(newlineFrame({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT_PARAMS }));
    server.write(newlineFrame({ jsonrpc: '2.0', id: 2, method: 'ping' }));
    const replies = await server.waitFor((rs) => rs.length >= 3);
    expect(replies.find((r) => r.message.id === 0)?.message.result).toEqual({});
    expect(replies.find((r) => r.message.id === 2)?.message.result).toEqual({});
  });
});

describe('tools over the wire (built bin)', () => {
  test('unknown tool name -> isError with "unknown tool: NAME"', async () => {
    const server = start();
    server.write(newlineFrame(toolCall(1, callArgs(), 'take_screenshot')));
    const reply = await server.reply(1);
    expect((reply.message.result as { isError: boolean }).isError).toBe(true);
    expect(textOf(reply)).toBe('unknown tool: take_screenshot');
  });

  test('unknown fields -> isError naming each, with the phrase', async () => {
    const server = start();
    server.write(contentLengthFrame(toolCall(1, callArgs({ criterion: 'L6.3', criterion_id: 'x' }))));
    const reply = await server.reply(1);
    expect(reply.framing).toBe('content-length');
    expect((reply.message.result as { isError: boolean }).isError).toBe(true);
    expect(textOf(reply)).toContain('provider accepts Runtime Object fields only');
    expect(textOf(reply)).toContain("'criterion'");
    expect(textOf(reply)).toContain("'criterion_id'");
  });

  test('a runtime field error -> isError carrying its message', async () => {
    const server = start();
    server.write(newlineFrame(toolCall(1, callArgs({ actions: [{ do: 'drag' }] }))));
    const reply = await server.reply(1);
    expect((reply.message.result as { isError: boolean }).isError).toBe(true);
    expect(textOf(reply)).toContain("actions[0]: unsupported do='drag'");
  });

  test('every runtime field refusal is an isError result carrying its message', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ url: '' }, 'url must be a non-empty string'],
      [{ url: 'ftp://127.0.0.1/x' }, 'url must start with http://, https://, file:// or about:'],
      [{ type: 'video' }, 'type must be one of'],
      [{ state: '' }, 'state must be a non-empty string'],
      [{ actions: 'click' }, 'actions must be an array of objects'],
      [{ actions: [7] }, 'actions[0] must be an object'],
      [{ actions: [{ do: 'click' }] }, 'actions[0].selector required for click'],
      [{ actions: [{ do: 'press' }] }, 'actions[0].key required for press'],
      [{ artifact_path: '' }, 'artifact_path must be a non-empty string'],
      [{ overwrite: 'yes' }, 'overwrite must be a boolean'],
    ];
    const server = start();
    cases.forEach(([overrides], i) => server.write(newlineFrame(toolCall(i, callArgs(overrides)))));
    const replies = await server.waitFor((rs) => rs.length >= cases.length);
    cases.forEach(([, phrase], i) => {
      const reply = replies.find((r) => r.message.id === i)!;
      // A tool result, not a protocol error: isError, the message as its one text block, no payload (as the original raised them).
      expect(reply.message.error).toBeUndefined();
      const result = reply.message.result as { isError: boolean; content: unknown[]; structuredContent?: unknown };
      expect({ isError: result.isError, blocks: result.content.length, structured: 'structuredContent' in result }).toEqual({
        isError: true,
        blocks: 1,
        structured: false,
      });
      expect(textOf(reply)).toContain(phrase);
    });
    // The url refusal says what to send instead.
    expect(textOf(replies.find((r) => r.message.id === 1)!)).toBe(
      "url must start with http://, https://, file:// or about: (got 'ftp://127.0.0.1/x'); serve the page over http:// or https:// (a local server on 127.0.0.1 will do), or capture a local file as file://",
    );
    expect(fs.readdirSync(path.join(runRoot, 'evidence')).filter((f) => f.startsWith('a.json'))).toEqual([]);
  });

  test('refusals a caller acts on: the rule callers match on, then what to do instead', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        { artifact_path: path.join(runRoot, 'evidence', 'abs.json') },
        `artifact_path must be relative to the configured run root; write it relative to the run root ${runRoot}, e.g. evidence/abs.json`,
      ],
      [
        { run_root: 'runs/one' },
        `run_root must be an absolute path (got 'runs/one'); pass the run folder's full path, e.g. '${path.join(runRoot, 'runs', 'one')}' if it is relative to the server's working directory`,
      ],
      [
        { url: 'http://127.0.0.1:9/x.html', artifact_path: 'evidence/port9.json' },
        'navigation to http://127.0.0.1:9/x.html failed: port 9 is one browsers refuse to load (a port of another protocol, such as 9 discard, 25 SMTP or 6000 X11); serve the page on another port, e.g. 8080 (net::ERR_UNSAFE_PORT)',
      ],
    ];
    const server = start();
    cases.forEach(([overrides], i) => server.write(newlineFrame(toolCall(i, callArgs(overrides)))));
    const replies = await server.waitFor((rs) => rs.length >= cases.length, 60_000);
    cases.forEach(([, error], i) => {
      const result = replies.find((r) => r.message.id === i)!.message.result as { isError: boolean; structuredContent: Record<string, unknown> };
      expect({ isError: result.isError, result: result.structuredContent.result, error: result.structuredContent.error }).toEqual({
        isError: false,
        result: 'failed',
        error,
      });
    });
    expect(fs.readdirSync(path.join(runRoot, 'evidence')).filter((f) => /^(abs|port9)\./.test(f))).toEqual([]);
  });

  test('a payload -> a text block (the JSON, 2-space indent) plus the same structuredContent', async () => {
    const server = start();
    server.write(newlineFrame(toolCall(1, callArgs({ schemaVersion: 99 }))));
    const reply = await server.reply(1);
    const result = reply.message.result as { isError?: boolean; structuredContent: Record<string, unknown> };
    expect(result.isError).toBe(false); // said, as the original says it
    expect(result.structuredContent).toMatchObject({ result: 'failed', written_path: '', observed_state: 'unknown' });
    expect(result.structuredContent.error).toContain('unsupported capture schemaVersion 99');
    expect('request' in result.structuredContent).toBe(false);
    expect(textOf(reply)).toBe(JSON.stringify(result.structuredContent, null, 2));
  });

  test('missing arguments -> the contract failure payload, not a crash', async () => {
    const server = start();
    server.write(newlineFrame({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'execute_capture_plan' } }));
    const reply = await server.reply(1);
    const text = textOf(reply);
    expect(text).toContain('capture contract schemaVersion is required');
  });
});

describe('captures through the fake-provider launcher', () => {
  test('a capture lands under <run_root>/evidence and the payload says where', async () => {
    const server = start(FAKE_SERVER);
    server.write(newlineFrame(toolCall(1, callArgs({ type: 'screenshot', artifact_path: 'evidence/wire/one.png', state: 'open' }))));
    const reply = await server.reply(1);
    const payload = (reply.message.result as { structuredContent: Record<string, unknown> }).structuredContent;
    expect(payload).toMatchObject({
      result: 'captured',
      error: '',
      observed_state: 'fake-observed',
      written_path: path.join(runRoot, 'evidence', 'wire', 'one.png'),
      artifact: 'evidence/wire/one.png',
      warnings: [],
    });
    expect(fs.readFileSync(path.join(runRoot, 'evidence', 'wire', 'one.png'), 'utf8')).toBe('fake bytes for screenshot\n');
    expect(fs.existsSync(path.join(runRoot, 'evidence', 'wire', 'one.probe.json'))).toBe(true);
  });

  test('overwrite refusal over the wire keeps the old bytes', async () => {
    const target = path.join(runRoot, 'evidence', 'kept.json');
    fs.writeFileSync(target, 'old');
    const server = start(FAKE_SERVER);
    server.write(contentLengthFrame(toolCall(1, callArgs({ artifact_path: 'evidence/kept.json' }))));
    const payload = ((await server.reply(1)).message.result as { structuredContent: Record<string, unknown> }).structuredContent;
    expect(payload).toMatchObject({ result: 'failed', error: `artifact already exists: ${target} (pass overwrite=true to replace)` });
    expect(fs.readFileSync(target, 'utf8')).toBe('old');
  });

  test('a provider that throws -> a failed payload carrying its message; the server keeps serving', async () => {
    const server = start(FAKE_SERVER, { env: { FAKE_PROVIDER_MODE: 'throw' } });
    server.write(newlineFrame(toolCall(1, callArgs({ artifact_path: 'evidence/thrown.json' }))));
    const payload = ((await server.reply(1)).message.result as { structuredContent: Record<string, unknown> }).structuredContent;
    expect(payload).toMatchObject({ result: 'failed', error: 'fake provider threw', observed_state: 'unknown' });
    expect(fs.existsSync(path.join(runRoot, 'evidence', 'thrown.json'))).toBe(false);
    server.write(newlineFrame({ jsonrpc: '2.0', id: 2, method: 'ping' }));
    expect((await server.reply(2)).message.result).toEqual({});
  });

  test('stdout carries only JSON-RPC even when the provider prints with console.log', async () => {
    const server = start(FAKE_SERVER, { env: { FAKE_PROVIDER_NOISE: '1' } });
    server.write(newlineFrame({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT_PARAMS }));
    server.write(newlineFrame(toolCall(2, callArgs({ artifact_path: 'evidence/noisy.json' }))));
    await server.reply(2);
    server.end();
    await server.exited;
    // parseFrames throws on any byte that is not part of a protocol frame.
    const replies = server.replies();
    expect(replies).toHaveLength(2);
    for (const r of replies) expect(r.message.jsonrpc).toBe('2.0');
    expect(server.rawStdout.toString('utf8')).not.toContain('capture started');
    expect(server.stderr).toContain('fake provider: capture started');
  });

  test('the unmarked-cwd warning: one stderr line per process, a warnings entry per call', async () => {
    const cwd = path.join(base, 'unmarked');
    fs.mkdirSync(cwd, { recursive: true });
    const server = start(FAKE_SERVER, { cwd });
    server.write(newlineFrame(toolCall(1, callArgs({ run_root: undefined, artifact_path: 'evidence/w1.json' }))));
    server.write(newlineFrame(toolCall(2, callArgs({ run_root: undefined, artifact_path: 'evidence/w2.json' }))));
    const replies = await server.waitFor((rs) => rs.length >= 2);
    for (const r of replies) {
      const payload = (r.message.result as { structuredContent: { result: string; written_path: string; warnings: string[] } }).structuredContent;
      expect(payload.result).toBe('captured');
      expect(payload.written_path.startsWith(path.join(cwd, 'evidence') + path.sep)).toBe(true);
      expect(payload.warnings.filter((w) => w.startsWith("DESIGN_PLAYBOOK_RUN_ROOT is unset or '.'"))).toHaveLength(1);
    }
    server.end();
    await server.exited;
    expect(server.stderr.split('\n').filter((l) => l.includes("DESIGN_PLAYBOOK_RUN_ROOT is unset or '.'"))).toHaveLength(1);
  });

  test('DESIGN_PLAYBOOK_RUN_ROOT relative to the start cwd, outranked by run_root for one call', async () => {
    const other = path.join(base, 'other-run');
    fs.mkdirSync(other, { recursive: true });
    fs.writeFileSync(path.join(other, 'point-back.md'), '');
    const server = start(FAKE_SERVER, { cwd: base, env: { DESIGN_PLAYBOOK_RUN_ROOT: 'other-run' } });
    server.write(newlineFrame(toolCall(1, callArgs({ artifact_path: 'evidence/arg.json' }))));
    server.write(newlineFrame(toolCall(2, callArgs({ run_root: undefined, artifact_path: 'evidence/env.json' }))));
    const replies = await server.waitFor((rs) => rs.length >= 2);
    const where = (id: number) =>
      (replies.find((r) => r.message.id === id)!.message.result as { structuredContent: { written_path: string } }).structuredContent.written_path;
    expect(where(1)).toBe(path.join(runRoot, 'evidence', 'arg.json'));
    expect(where(2)).toBe(path.join(other, 'evidence', 'env.json'));
  });
});

describe('end of input', () => {
  test('exit code 0 when stdin ends', async () => {
    const server = start();
    server.write(newlineFrame({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    await server.reply(1);
    server.end();
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });

  test('exit code 0 with no input at all', async () => {
    const server = start();
    server.end();
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.rawStdout.length).toBe(0);
  });

  test('end of input is the client going away: a call in flight is cancelled (no reply, nothing written, even by a provider that ignores the signal), a ping is still answered, exit 0', async () => {
    const server = start(FAKE_SERVER, { env: { FAKE_PROVIDER_DELAY_MS: '1500' } });
    server.write(
      newlineFrame(toolCall(7, callArgs({ artifact_path: 'evidence/in-flight.json' }))) + contentLengthFrame({ jsonrpc: '2.0', id: 8, method: 'ping' }),
    );
    server.end();
    const exit = await server.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    const replies = server.replies();
    expect(replies.find((r) => r.message.id === 7)).toBeUndefined();
    expect(replies.find((r) => r.message.id === 8)?.framing).toBe('content-length');
    // Past the moment the provider would have staged its bytes.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(fs.existsSync(path.join(runRoot, 'evidence', 'in-flight.json'))).toBe(false);
  });

  test('a call cancelled with notifications/cancelled gets no reply and writes nothing, though the provider finishes; the server keeps serving', async () => {
    const server = start(FAKE_SERVER, { env: { FAKE_PROVIDER_DELAY_MS: '1000' } });
    server.write(newlineFrame(toolCall(9, callArgs({ artifact_path: 'evidence/cancelled.json' }))));
    await new Promise((r) => setTimeout(r, 300));
    server.write(newlineFrame({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9 } }));
    server.write(newlineFrame(toolCall(10, callArgs({ artifact_path: 'evidence/after-cancel.json' }))));
    const after = await server.reply(10);
    expect((after.message.result as { structuredContent: { result: string } }).structuredContent.result).toBe('captured');
    expect(server.replies().find((r) => r.message.id === 9)).toBeUndefined();
    expect(fs.existsSync(path.join(runRoot, 'evidence', 'cancelled.json'))).toBe(false);
    // Nothing waits for the cancelled call's reply: end of input exits at once.
    server.end();
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });

  test('SIGTERM: exit code 0', async () => {
    const server = start();
    server.write(newlineFrame({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    await server.reply(1);
    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });

  test('a last frame without a trailing newline still counts', async () => {
    const server = start();
    server.write(JSON.stringify({ jsonrpc: '2.0', id: 'last', method: 'ping' }));
    server.end();
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.replies().map((r) => r.message)).toEqual([{ jsonrpc: '2.0', id: 'last', result: {} }]);
  });
});
