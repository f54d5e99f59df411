/**
 * The trace diff on hand-made archives written in the recorder's format
 * (cdp/trace/format.ts, snapshots encoded with back-references by the
 * recorder's own SubtreeReferencer): actions paired by order and selector,
 * per action its error, time, after-snapshot and frame, errors and failed
 * requests gained or lost, and the reader's refusals.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import JSZip from 'jszip';
import { SubtreeReferencer } from '../../cdp/trace/subtreeReferences';
import type { NodeSnapshot, ResourceSnapshot, TraceEvent } from '../../cdp/trace/format';
import { readTraceArchive } from '../../src/compare/traceArchive';
import { diffTraces, type FramePair } from '../../src/compare/traceDiff';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trace-diff-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

interface ActionSpec {
  method: string;
  selector?: string;
  ms: number;
  error?: string;
  /** Body children of the after-snapshot. */
  body: NodeSnapshot[];
  /** Frame painted after it ends (archive entry name). */
  frame: string;
  consoleErrors?: string[];
}

function page(body: NodeSnapshot[]): NodeSnapshot {
  return ['HTML', {}, ['HEAD', {}, ['TITLE', {}, 'Shop']], ['BODY', {}, ...body]];
}

let counter = 0;
async function traceZip(actions: ActionSpec[], failed: { url: string; status: number; failure?: string }[] = []): Promise<string> {
  const events: TraceEvent[] = [
    {
      version: 10,
      type: 'context-options',
      origin: 'library',
      browserName: 'chromium',
      browserVersion: '1',
      platform: 'linux',
      wallTime: 0,
      monotonicTime: 0,
      options: { viewport: { width: 800, height: 600 }, deviceScaleFactor: 1, colorScheme: 'light', isMobile: false },
      sdkLanguage: 'javascript',
      testIdAttributeName: 'data-testid',
    },
  ];
  const references = new SubtreeReferencer();
  const zip = new JSZip();
  let time = 100;
  actions.forEach((a, i) => {
    const callId = `call@${i + 1}`;
    events.push({
      type: 'before',
      callId,
      startTime: time,
      class: 'Frame',
      method: a.method,
      params: a.selector ? { selector: a.selector } : {},
      pageId: 'page@1',
    });
    for (const text of a.consoleErrors ?? []) {
      events.push({
        type: 'console',
        time: time + 1,
        pageId: 'page@1',
        messageType: 'error',
        text,
        args: [],
        location: { url: '', lineNumber: 0, columnNumber: 0 },
      });
    }
    time += a.ms;
    events.push({ type: 'after', callId, endTime: time, ...(a.error ? { error: { message: a.error, name: 'Error' } } : {}) });
    const snapshot = {
      callId,
      phase: 'after' as const,
      pageId: 'page@1',
      frameId: 'frame@main',
      frameUrl: 'http://127.0.0.1/shop.html',
      html: references.encode(page(a.body)),
      viewport: { width: 800, height: 600 },
      timestamp: time,
      wallTime: time,
      collectionTime: 1,
      resourceOverrides: [],
      isMainFrame: true,
    };
    events.push({ type: 'frame-snapshot', snapshot });
    zip.file(a.frame, Buffer.from(a.frame));
    events.push({ type: 'screencast-frame', pageId: 'page@1', file: a.frame, width: 800, height: 600, timestamp: time + 5 });
    time += 50;
  });
  const network: ResourceSnapshot[] = failed.map(
    (f) =>
      ({
        request: { method: 'GET', url: f.url },
        response: { status: f.status, statusText: f.status === 404 ? 'Not Found' : '', ...(f.failure ? { _failureText: f.failure } : {}) },
      }) as unknown as ResourceSnapshot,
  );
  zip.file('trace.trace', events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  zip.file('trace.network', network.map((snapshot) => JSON.stringify({ type: 'resource-snapshot', snapshot })).join('\n'));
  const file = path.join(dir, `t${counter++}.zip`);
  fs.writeFileSync(file, await zip.generateAsync({ type: 'nodebuffer' }));
  return file;
}

const CARD: NodeSnapshot = ['SECTION', { class: 'card' }, ['H2', {}, 'Blue mug'], ['BUTTON', { id: 'buy' }, 'Buy now']];
const BASE: ActionSpec[] = [
  { method: 'goto', ms: 80, body: [CARD], frame: 'resources/aaa.jpeg' },
  { method: 'click', selector: '#buy', ms: 40, body: [CARD, ['P', { id: 'status' }, 'Added to cart']], frame: 'resources/bbb.jpeg' },
  { method: 'waitForSelector', selector: '#status', ms: 5, body: [CARD, ['P', { id: 'status' }, 'Added to cart']], frame: 'resources/bbb.jpeg' },
];

async function diffOf(
  a: ActionSpec[],
  b: ActionSpec[],
  options = {},
  failedA: Parameters<typeof traceZip>[1] = [],
  failedB: Parameters<typeof traceZip>[1] = [],
) {
  return diffTraces(await readTraceArchive(await traceZip(a, failedA)), await readTraceArchive(await traceZip(b, failedB)), options);
}

test('the reader resolves back-references: every after-snapshot is the whole page', async () => {
  const file = await traceZip(BASE);
  const raw = (await (await JSZip.loadAsync(fs.readFileSync(file))).file('trace.trace')!.async('string'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
    .filter((e) => e.type === 'frame-snapshot');
  // As written: the third snapshot is one reference to the second's page.
  expect(raw[2].snapshot.html).toEqual([[1, expect.any(Number)]]);
  const archive = await readTraceArchive(file);
  expect(archive.actions.map((a) => [a.api, a.selector, a.error, a.endTime! - a.startTime])).toEqual([
    ['Frame.goto', '', '', 80],
    ['Frame.click', '#buy', '', 40],
    ['Frame.waitForSelector', '#status', '', 5],
  ]);
  // The third snapshot repeats the second: written as one back-reference, read back whole.
  expect(archive.actions[2].snapshots.after!.html).toEqual(page(BASE[2].body));
  expect(archive.actions[1].snapshots.after!.html).toEqual(page(BASE[1].body));
});

test('the same trace twice reports nothing', async () => {
  const diff = await diffOf(BASE, BASE);
  expect(diff.changed).toBe(false);
  expect(diff.counts).toEqual({ before: 3, after: 3, paired: 3, changed: 0, added: 0, removed: 0 });
  expect(diff.actions.map((a) => a.frame?.identical)).toEqual([true, true, true]);
});

test("an action's new outcome: the snapshot's text, the frame (handed to the pixel hook), console errors, failed requests", async () => {
  const broken: ActionSpec[] = [
    BASE[0],
    {
      ...BASE[1],
      body: [CARD, ['P', { id: 'status', class: 'error' }, 'Could not add to cart']],
      frame: 'resources/ccc.jpeg',
      consoleErrors: ['cart service unavailable'],
    },
    { ...BASE[2], body: [CARD, ['P', { id: 'status', class: 'error' }, 'Could not add to cart']], frame: 'resources/ccc.jpeg' },
  ];
  const compared: FramePair[] = [];
  const diff = await diffOf(
    BASE,
    broken,
    { compareFrames: (pair: FramePair) => (compared.push(pair), 'compared') },
    [],
    [{ url: 'http://127.0.0.1/cart.json', status: 404 }],
  );
  const click = diff.actions[1];
  expect(click).toMatchObject({ kind: 'paired', changed: true, error: { changed: false } });
  expect(click.snapshot).toMatchObject({
    text: { added: ['Could not add to cart'], removed: ['Added to cart'] },
    structure: { added: ['BODY > P#status.error'], removed: ['BODY > P#status'] },
  });
  expect(click.frame).toMatchObject({
    before: { entry: 'resources/bbb.jpeg' },
    after: { entry: 'resources/ccc.jpeg' },
    identical: false,
    comparison: 'compared',
  });
  expect(compared.map((p) => [p.before.bytes.toString(), p.after.bytes.toString()])).toEqual([
    ['resources/bbb.jpeg', 'resources/ccc.jpeg'],
    ['resources/bbb.jpeg', 'resources/ccc.jpeg'],
  ]);
  expect(click.messages).toEqual({ gained: [{ kind: 'console', text: 'cart service unavailable' }], lost: [] });
  expect(diff.messages.gained).toEqual([{ kind: 'console', text: 'cart service unavailable' }]);
  expect(diff.failedRequests).toEqual({ gained: [{ method: 'GET', url: 'http://127.0.0.1/cart.json', status: 404, reason: 'Not Found' }], lost: [] });
  // The same problems the other way round are lost.
  const back = await diffOf(broken, BASE, {}, [{ url: 'http://x/y', status: -1, failure: 'net::ERR_FAILED' }], []);
  expect(back.failedRequests.lost).toEqual([{ method: 'GET', url: 'http://x/y', status: -1, reason: 'net::ERR_FAILED' }]);
  expect(back.messages.lost).toEqual([{ kind: 'console', text: 'cart service unavailable' }]);
});

test('an error and a time beyond the tolerance are changes; a time within it is not', async () => {
  const failing = [BASE[0], { ...BASE[1], error: 'element is not visible' }, BASE[2]];
  expect((await diffOf(BASE, failing)).actions[1]).toMatchObject({ changed: true, error: { before: '', after: 'element is not visible', changed: true } });
  const slower = [BASE[0], { ...BASE[1], ms: 100 }, BASE[2]];
  expect((await diffOf(BASE, slower)).actions[1].durationMs).toEqual({ before: 40, after: 100, beyondTolerance: false });
  const muchSlower = [BASE[0], { ...BASE[1], ms: 400 }, BASE[2]];
  expect((await diffOf(BASE, muchSlower)).actions[1]).toMatchObject({ changed: true, durationMs: { before: 40, after: 400, beyondTolerance: true } });
  expect((await diffOf(BASE, slower, { timingToleranceMs: 10, timingToleranceRatio: 0 })).actions[1].durationMs.beyondTolerance).toBe(true);
});

test('an inserted action is added in its place, and the actions around it stay paired by selector', async () => {
  const hover: ActionSpec = { method: 'hover', selector: '#later', ms: 10, body: [CARD], frame: 'resources/aaa.jpeg' };
  const diff = await diffOf(BASE, [BASE[0], hover, BASE[1], BASE[2]]);
  expect(diff.actions.map((a) => [a.kind, a.index.before, a.index.after, a.api.after ?? a.api.before])).toEqual([
    ['paired', 0, 0, 'Frame.goto'],
    ['added', null, 1, 'Frame.hover'],
    ['paired', 1, 2, 'Frame.click'],
    ['paired', 2, 3, 'Frame.waitForSelector'],
  ]);
  expect(diff.counts).toMatchObject({ added: 1, removed: 0, paired: 3 });
  const removed = await diffOf(BASE, [BASE[0], BASE[2]]);
  expect(removed.actions.map((a) => [a.kind, a.index.before, a.index.after])).toEqual([
    ['paired', 0, 0],
    ['removed', 1, null],
    ['paired', 2, 1],
  ]);
});

test('a file that is not a trace is refused naming the file', async () => {
  const notZip = path.join(dir, 'not.zip');
  fs.writeFileSync(notZip, 'hello');
  await expect(readTraceArchive(notZip)).rejects.toThrow(`${notZip}: not a readable trace ZIP: `);
  const zip = new JSZip();
  zip.file('other.txt', 'x');
  const noTrace = path.join(dir, 'empty.zip');
  fs.writeFileSync(noTrace, await zip.generateAsync({ type: 'nodebuffer' }));
  await expect(readTraceArchive(noTrace)).rejects.toThrow(`${noTrace}: not an interaction trace: the ZIP holds no trace.trace`);
});
