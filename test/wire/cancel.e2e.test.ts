/**
 * Cancellation and progress through MCP, against the built server attached
 * to a Chromium this test runs (so the test can list that browser's contexts
 * and pages itself). In raw stdio: `notifications/cancelled` 1 s into an 8 s
 * `wait` action closes the capture's context at once, writes nothing, and no
 * response ever comes for that id, while the next call is answered at once;
 * a client that closes stdin mid-capture gets the same, and the server exits
 * 0. Through the TypeScript SDK client: `callTool` aborted by its signal
 * writes nothing, and `onprogress` hears every step in order, with the total
 * and the commit last.
 */
import * as fs from 'fs';
import * as path from 'path';
import puppeteer, { type Browser } from 'puppeteer-core';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { startBrowser, type TestBrowser } from '../batch/browsers';
import { servePages, type PageServer } from '../helpers/browser';
import { PAGES, captureArgs, makeRunRoot, screenshotProgressMessages, startServer, type Payload, type RunningServer } from '../e2e/harness';
import { BIN, INIT_PARAMS, ServerProcess, newlineFrame, type Reply } from './serverProcess';

jest.setTimeout(120_000);

/** The action a cancellation interrupts: 8 s of page time, paced to the wall clock. */
const LONG_WAIT = [{ do: 'wait', ms: 8_000 }];
/** How long into that wait the call is cancelled. */
const CANCEL_AFTER_MS = 1_000;

let user: TestBrowser;
let watcher: Browser;
let pages: PageServer;
let root: string;

beforeAll(async () => {
  user = await startBrowser('cancel');
  watcher = await puppeteer.connect({ browserWSEndpoint: user.wsEndpoint });
  pages = await servePages(PAGES);
  root = makeRunRoot('cancel');
});

afterAll(async () => {
  await watcher?.disconnect();
  await user?.stop();
  await pages?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** The browser's contexts besides its default one, and its pages showing our test pages, as the browser lists them. */
async function browserState(): Promise<{ contexts: string[]; pages: string[] }> {
  const session = await watcher.target().createCDPSession();
  try {
    const { browserContextIds } = await session.send('Target.getBrowserContexts');
    const { targetInfos } = await session.send('Target.getTargets');
    return { contexts: browserContextIds, pages: targetInfos.filter((t) => t.type === 'page' && t.url.startsWith(pages.origin)).map((t) => t.url) };
  } finally {
    await session.detach();
  }
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string, pollMs = 10): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(pollMs);
  }
}

/** No artifact, sidecar or temporary file of `leaf` under evidence/. */
function leftBehind(leaf: string): string[] {
  const stem = leaf.replace(/\.png$/, '');
  const evidence = path.join(root, 'evidence');
  return fs.existsSync(evidence) ? fs.readdirSync(evidence).filter((f) => f.startsWith(stem) || f.endsWith('.partial')) : [];
}

describe('raw stdio', () => {
  type ProgressParams = { progressToken: string; progress: number; total?: number; message: string };
  const progressOf = (replies: Reply[]) => replies.filter((r) => r.message.method === 'notifications/progress').map((r) => r.message.params as ProgressParams);
  const toolCall = (id: number, args: Record<string, unknown>, progressToken?: string) =>
    newlineFrame({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'execute_capture_plan', arguments: args, ...(progressToken ? { _meta: { progressToken } } : {}) },
    });

  let server: ServerProcess;
  afterEach(() => server?.kill());

  /** A server attached to the test's browser, its capture of `leaf` under way and 1 s into its 8 s wait. */
  async function captureInTheWait(leaf: string): Promise<{ waitStarted: number }> {
    server = new ServerProcess(BIN, { cwd: root, env: { DESIGN_PLAYBOOK_CDP_URL: user.url } });
    server.write(newlineFrame({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT_PARAMS }));
    await server.reply(1);
    server.write(newlineFrame({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    server.write(toolCall(2, captureArgs(root, pages.url('/plain.html'), leaf, { actions: LONG_WAIT }), 'call-2'));
    await server.waitFor((rs) => progressOf(rs).some((p) => p.message.startsWith('actions[0] wait')), 60_000);
    const waitStarted = Date.now();
    expect((await browserState()).contexts).toHaveLength(1);
    await sleep(waitStarted + CANCEL_AFTER_MS - Date.now());
    return { waitStarted };
  }

  test('notifications/cancelled 1 s into an 8 s wait: context closed at once, nothing written, no response; the next call is answered at once', async () => {
    const { waitStarted } = await captureInTheWait('raw-cancelled.png');
    const cancelledAt = Date.now();
    server.write(newlineFrame({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2, reason: 'the user stopped it' } }));
    await until(async () => (await browserState()).contexts.length === 0, 5_000, 'the capture context to close');
    // Well before the wait would have ended (7 s on).
    expect(Date.now() - cancelledAt).toBeLessThan(3_000);

    server.write(toolCall(3, captureArgs(root, pages.url('/plain.html'), 'raw-next.png')));
    const next = await server.reply(3, 30_000);
    const payload = (next.message.result as { structuredContent: Payload }).structuredContent;
    expect(payload).toMatchObject({ result: 'captured', observed_state: 'plain', error: '' });
    // Served at once: not after the cancelled call's wait would have ended.
    expect(Date.now()).toBeLessThan(waitStarted + 8_000);

    // Past the moment the cancelled capture would have finished, still no response for it.
    await sleep(waitStarted + 9_000 - Date.now());
    const replies = server.replies();
    expect(replies.filter((r) => r.message.id === 2)).toEqual([]);
    const progress = progressOf(replies);
    expect(progress.every((p) => p.progressToken === 'call-2' && p.total === progress[0].total)).toBe(true);
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_, i) => i + 1));
    expect(progress.some((p) => p.message.startsWith('writing'))).toBe(false);
    expect(leftBehind('raw-cancelled.png')).toEqual([]);
    expect(await browserState()).toEqual({ contexts: [], pages: [] });

    server.end();
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });

  test('the client goes away (stdin closed) 1 s into the wait: the capture is cancelled, nothing written, its context closed, exit 0', async () => {
    await captureInTheWait('raw-gone.png');
    const closedAt = Date.now();
    server.end();
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - closedAt).toBeLessThan(5_000);
    expect(server.replies().filter((r) => r.message.id === 2)).toEqual([]);
    expect(leftBehind('raw-gone.png')).toEqual([]);
    expect(await browserState()).toEqual({ contexts: [], pages: [] });
  });
});

describe('through the TypeScript SDK client', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ env: { DESIGN_PLAYBOOK_CDP_URL: user.url } });
  });
  afterAll(async () => {
    await server?.close();
  });

  test('callTool aborted by its signal 1 s into the wait: it rejects, nothing is written, the context closes; the next call captures', async () => {
    const controller = new AbortController();
    const heard: Progress[] = [];
    const args = captureArgs(root, pages.url('/plain.html'), 'sdk-aborted.png', { actions: LONG_WAIT });
    const call = server.client.callTool({ name: 'execute_capture_plan', arguments: args }, undefined, {
      signal: controller.signal,
      onprogress: (p) => void heard.push(p),
      timeout: 120_000,
    });
    call.catch(() => undefined);
    await until(() => heard.some((p) => p.message?.startsWith('actions[0] wait')), 60_000, 'the wait action to start', 50);
    await sleep(CANCEL_AFTER_MS);
    controller.abort('the user stopped it');
    await expect(call).rejects.toThrow();
    await until(async () => (await browserState()).contexts.length === 0, 5_000, 'the capture context to close');
    expect(leftBehind('sdk-aborted.png')).toEqual([]);

    const next = await server.capture(captureArgs(root, pages.url('/plain.html'), 'sdk-next.png'));
    expect(next).toMatchObject({ result: 'captured', observed_state: 'plain' });
    expect(leftBehind('sdk-aborted.png')).toEqual([]);
    expect(await browserState()).toEqual({ contexts: [], pages: [] });
  });

  test('onprogress hears every step in order, each action of how many, the commit last; progress counts up to the total', async () => {
    const heard: Progress[] = [];
    const url = pages.url('/plain.html');
    const args = captureArgs(root, url, 'sdk-progress.png', {
      actions: [
        { do: 'wait', ms: 20 },
        { do: 'wait_for_selector', selector: 'body' },
      ],
    });
    const result = await server.client.callTool({ name: 'execute_capture_plan', arguments: args }, undefined, {
      onprogress: (p) => void heard.push(p),
      timeout: 120_000,
    });
    expect(result.structuredContent).toMatchObject({ result: 'captured' });
    expect(heard.map((p) => p.message)).toEqual(screenshotProgressMessages(url, ['wait', "wait_for_selector 'body'"], 'evidence/sdk-progress.png'));
    expect(heard.map((p) => p.progress)).toEqual(heard.map((_, i) => i + 1));
    expect(heard.map((p) => p.total)).toEqual(heard.map(() => heard.length));
  });
});
