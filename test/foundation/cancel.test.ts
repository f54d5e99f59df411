/**
 * Cancellation and progress at the boundary, with a fake provider (no
 * browser): a call whose signal fired writes nothing — whether the provider
 * stops for it or finishes anyway — and an already-cancelled call never
 * reaches the provider; the steps a provider tells are numbered for the
 * progress listener, with the runtime's commit last. And the stdio
 * transport's side: a cancelled request is not waited for, and end of input
 * closes it with a call still at work (the SDK then cancels that call).
 */
import * as path from 'path';
import { PassThrough } from 'stream';
import { executeCapturePlan, type CaptureProgressNote } from '../../src/boundary';
import { CaptureCancelled } from '../../src/common/failures';
import { DualFramingStdioTransport } from '../../src/mcp/transport';
import type { CaptureStepReport } from '../../src/contract/captureProvider';
import { FakeProvider, writes, type FakeBehaviour } from '../helpers/fakeProvider';
import { makeRunFixture, validArgs, listFiles, partialFiles, type RunFixture } from './fixtures';

let fx: RunFixture;
beforeEach(() => {
  fx = makeRunFixture();
});
afterEach(() => fx.cleanup());

const step = (message: string, extra: Partial<CaptureStepReport> = {}): CaptureStepReport => ({ step: 'navigation', message, ...extra });

/** Tells `reports`, then cancels the call (as the client would, mid-capture), then behaves like `then`. */
function cancelledMidway(cancel: AbortController, then: FakeBehaviour, reports: CaptureStepReport[] = [step('navigation to x')]): FakeBehaviour {
  return async (args, context) => {
    for (const report of reports) context.onStep?.(report);
    cancel.abort('the client cancelled');
    return then(args, context);
  };
}

describe('a cancelled call writes nothing', () => {
  test('a provider that stops for the signal: failed in its words, no file, no temporary file', async () => {
    const cancel = new AbortController();
    const provider = new FakeProvider(
      cancelledMidway(cancel, (_args, context) => {
        expect(context.signal?.aborted).toBe(true);
        throw new CaptureCancelled("actions[0] wait_for_selector '#x'");
      }),
    );
    const result = await executeCapturePlan(validArgs(fx.root), { provider, env: {}, signal: cancel.signal });
    expect(result).toMatchObject({
      result: 'failed',
      error: "the capture was cancelled by its caller during actions[0] wait_for_selector '#x'; nothing was captured",
    });
    expect(listFiles(fx.evidence)).toEqual([]);
    expect(partialFiles(fx.base)).toEqual([]);
  });

  test('a provider that ignores it and stages its bytes: nothing is committed, the last step is named', async () => {
    const cancel = new AbortController();
    const provider = new FakeProvider(cancelledMidway(cancel, writes(), [step('navigation to x'), step("actions[0] click '#go'", { step: 'action' })]));
    const heard: CaptureProgressNote[] = [];
    const result = await executeCapturePlan(validArgs(fx.root), { provider, env: {}, signal: cancel.signal, onProgress: (note) => heard.push(note) });
    expect(result).toMatchObject({ result: 'failed', error: "the capture was cancelled by its caller during actions[0] click '#go'; nothing was captured" });
    expect(listFiles(fx.evidence)).toEqual([]);
    expect(partialFiles(fx.base)).toEqual([]);
    // No commit step: nothing was going to be written.
    expect(heard.map((n) => n.step)).toEqual(['navigation', 'action']);
  });

  test('a provider that throws something else after the cancellation: still the cancellation', async () => {
    const cancel = new AbortController();
    const provider = new FakeProvider(
      cancelledMidway(cancel, () => {
        throw new Error('Target closed');
      }),
    );
    const result = await executeCapturePlan(validArgs(fx.root), { provider, env: {}, signal: cancel.signal });
    expect(result.error).toBe('the capture was cancelled by its caller during navigation to x; nothing was captured');
  });

  test('an already-cancelled call never reaches the provider', async () => {
    const cancel = new AbortController();
    cancel.abort();
    const provider = new FakeProvider();
    const result = await executeCapturePlan(validArgs(fx.root), { provider, env: {}, signal: cancel.signal });
    expect(result).toMatchObject({ result: 'failed', error: 'the capture was cancelled by its caller during the start of the capture; nothing was captured' });
    expect(provider.calls).toHaveLength(0);
    expect(listFiles(fx.evidence)).toEqual([]);
  });

  test('a signal that never fires changes nothing: the capture lands, and the provider got the signal', async () => {
    const cancel = new AbortController();
    const provider = new FakeProvider();
    const result = await executeCapturePlan(validArgs(fx.root), { provider, env: {}, signal: cancel.signal });
    expect(result.result).toBe('captured');
    expect(provider.calls[0].context.signal).toBe(cancel.signal);
    expect(listFiles(fx.evidence).sort()).toEqual(['shot.png', 'shot.probe.json']);
  });
});

describe('progress', () => {
  test('each step told is numbered from 1, actions say which of how many, the commit comes last; total = expected steps + the commit', async () => {
    const reports = [
      step('navigation to x', { expectedSteps: 3 }),
      step('actions[0] wait', { step: 'action', index: 0, count: 2, expectedSteps: 3 }),
      step("actions[1] click '#go'", { step: 'action', index: 1, count: 2, expectedSteps: 3 }),
    ];
    const provider = new FakeProvider(async (args, context) => {
      for (const report of reports) context.onStep?.(report);
      return writes()(args, context);
    });
    const heard: CaptureProgressNote[] = [];
    const result = await executeCapturePlan(validArgs(fx.root, { artifact_path: 'evidence/sub/p.png' }), {
      provider,
      env: {},
      onProgress: (note) => heard.push(note),
    });
    expect(result.result).toBe('captured');
    expect(heard).toEqual([
      { step: 'navigation', message: 'navigation to x', progress: 1, total: 4 },
      { step: 'action', message: 'actions[0] wait (1 of 2)', progress: 2, total: 4 },
      { step: 'action', message: "actions[1] click '#go' (2 of 2)", progress: 3, total: 4 },
      { step: 'commit', message: 'writing evidence/sub/p.png', progress: 4, total: 4 },
    ]);
    expect(path.join(fx.evidence, 'sub', 'p.png')).toBe(result.written_path);
  });

  test('no total when the provider does not say, or once the steps outnumber it; a throwing listener and late or malformed reports are ignored', async () => {
    let late: ((report: CaptureStepReport) => void) | undefined;
    const provider = new FakeProvider(async (args, context) => {
      context.onStep?.(step('a', { expectedSteps: 1 }));
      context.onStep?.(step('b (a retried attempt)', { expectedSteps: 1 }));
      context.onStep?.(step('c'));
      context.onStep?.({ step: 'x' } as unknown as CaptureStepReport);
      late = context.onStep?.bind(context);
      return writes()(args, context);
    });
    const heard: CaptureProgressNote[] = [];
    const result = await executeCapturePlan(validArgs(fx.root), {
      provider,
      env: {},
      onProgress: (note) => {
        heard.push(note);
        throw new Error('listener bug');
      },
    });
    expect(result.result).toBe('captured');
    late?.(step('after the capture returned'));
    expect(heard.map(({ message, progress, total }) => [message, progress, total])).toEqual([
      ['a', 1, 2],
      ['b (a retried attempt)', 2, 2],
      ['c', 3, undefined],
      ['writing evidence/shot.png', 4, undefined],
    ]);
  });

  test('a failed capture sends no commit step', async () => {
    const provider = new FakeProvider((_args, context) => {
      context.onStep?.(step('navigation to x'));
      return { result: 'failed', error: 'no' };
    });
    const heard: CaptureProgressNote[] = [];
    await executeCapturePlan(validArgs(fx.root), { provider, env: {}, onProgress: (note) => heard.push(note) });
    expect(heard.map((n) => n.step)).toEqual(['navigation']);
  });
});

describe('the stdio transport', () => {
  function open() {
    const input = new PassThrough();
    const output = new PassThrough();
    let written = '';
    output.on('data', (chunk: Buffer) => (written += chunk.toString('utf8')));
    const transport = new DualFramingStdioTransport(input, output);
    const received: Array<Record<string, unknown>> = [];
    transport.onmessage = (message) => received.push(message as Record<string, unknown>);
    let closed = false;
    transport.onclose = () => (closed = true);
    const send = (message: unknown) => input.write(JSON.stringify(message) + '\n');
    const tick = () => new Promise((resolve) => setImmediate(resolve));
    return { input, transport, received, send, tick, written: () => written, closed: () => closed };
  }

  test('a cancelled request is not waited for: the shutdown wait ends without its reply', async () => {
    const t = open();
    await t.transport.start();
    t.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'x' } });
    await t.tick();
    let idle = false;
    void t.transport.whenIdle().then(() => (idle = true));
    await t.tick();
    expect(idle).toBe(false);
    t.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'gone' } });
    await t.tick();
    expect(idle).toBe(true);
    // The SDK still hears the cancellation (it aborts the handler).
    expect(t.received.map((m) => m.method)).toEqual(['tools/call', 'notifications/cancelled']);
  });

  test('end of input: a reply on its way still goes out, then it closes with a call still at work', async () => {
    const t = open();
    // As the SDK answers a ping: a few promise turns after the frame arrived.
    t.transport.onmessage = (message) => {
      const { id, method } = message as { id: number; method: string };
      if (method === 'ping') void Promise.resolve().then(() => t.transport.send({ jsonrpc: '2.0', id, result: {} }));
    };
    await t.transport.start();
    t.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    t.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'x' } });
    t.input.end();
    for (let i = 0; i < 5 && !t.closed(); i++) await t.tick();
    expect(t.closed()).toBe(true);
    expect(t.written()).toBe('{"jsonrpc":"2.0","id":1,"result":{}}\n');
  });
});
