/**
 * The stdio transport writes a call's answer at least NOTICE_BEFORE_ANSWER_MS
 * after the last progress notification reached the pipe: the MCP SDK client
 * handles an answer at once and a notification a microtask later, so a
 * notification read in the same chunk as the answer is dropped.
 */
import { PassThrough, Writable } from 'stream';
import { DualFramingStdioTransport } from '../../src/mcp/transport';
import { NOTICE_BEFORE_ANSWER_MS } from '../../src/common/time';

/** An output that records when each message was written (ms, performance.now). */
function recordingOutput(): { output: Writable; writes: Array<{ at: number; text: string }> } {
  const writes: Array<{ at: number; text: string }> = [];
  const output = new Writable({
    write(chunk, _encoding, done) {
      writes.push({ at: performance.now(), text: String(chunk) });
      done();
    },
  });
  return { output, writes };
}

async function startedTransport(output: Writable): Promise<DualFramingStdioTransport> {
  const input = new PassThrough();
  const transport = new DualFramingStdioTransport(input, output);
  await transport.start();
  // A request, so the transport knows the id it answers and its framing.
  input.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) + '\n');
  await new Promise((resolve) => setImmediate(resolve));
  return transport;
}

test('an answer right after a progress notification is written at least NOTICE_BEFORE_ANSWER_MS after it', async () => {
  const { output, writes } = recordingOutput();
  const transport = await startedTransport(output);
  await transport.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1, message: 'writing evidence/x.png' } });
  await transport.send({ jsonrpc: '2.0', id: 1, result: {} });
  expect(writes.map((w) => JSON.parse(w.text).method ?? 'answer')).toEqual(['notifications/progress', 'answer']);
  expect(writes[1].at - writes[0].at).toBeGreaterThanOrEqual(NOTICE_BEFORE_ANSWER_MS - 1);
  await transport.close();
});

test('an answer with no notification before it, or one long written, goes out at once', async () => {
  const { output, writes } = recordingOutput();
  const transport = await startedTransport(output);
  let started = performance.now();
  await transport.send({ jsonrpc: '2.0', id: 1, result: {} });
  expect(writes).toHaveLength(1);
  expect(writes[0].at - started).toBeLessThan(NOTICE_BEFORE_ANSWER_MS);
  await transport.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 2, progress: 1 } });
  await new Promise((resolve) => setTimeout(resolve, NOTICE_BEFORE_ANSWER_MS * 3));
  started = performance.now();
  await transport.send({ jsonrpc: '2.0', id: 2, result: {} });
  expect(writes).toHaveLength(3);
  expect(writes[2].at - started).toBeLessThan(NOTICE_BEFORE_ANSWER_MS);
  await transport.close();
});
