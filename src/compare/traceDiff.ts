/**
 * Compares two interaction traces (read by traceArchive.ts): actions paired
 * by order and selector; per pair, what changed in its result (the error,
 * the time beyond a tolerance), its after-snapshot (the text it shows and
 * its element outline, as structural summaries of the DOM), its film-strip
 * frame (the first screencast frame at or after its end: identical when
 * the archive stored the same bytes, else handed to a caller's pixel
 * comparison through `compareFrames`), and the console errors and page
 * errors gained or lost while it ran; then failed requests gained or lost
 * over the whole trace.
 *
 * Pairing: same API and selector in order first (ariaAlign.ts), then what
 * remains between two pairs by the same API, then by order; anything left is
 * an action only one trace has.
 */
import type { ConsoleEvent, FrameSnapshot, NodeSnapshot, PageEventEvent, ResourceSnapshot, ScreencastFrameEvent } from '../../cdp/trace/format';
import { alignSequences, pairByScore } from './ariaAlign';
import type { TraceArchive, TracedAction } from './traceArchive';

export interface FrameRef {
  /** Archive entry (`resources/<sha1>.jpeg`). */
  entry: string;
  timestamp: number;
  width: number;
  height: number;
}

/** What a caller's pixel comparison gets for one pair of frames. */
export interface FramePair {
  before: FrameRef & { bytes: Buffer };
  after: FrameRef & { bytes: Buffer };
}

export interface SnapshotDiff {
  /** Whether each side has an after-snapshot of the main frame. */
  available: { before: boolean; after: boolean };
  text: { added: string[]; removed: string[] };
  /** Element paths (`BODY > MAIN > FORM#signup > BUTTON.primary`) only one side has; element counts. */
  structure: { added: string[]; removed: string[]; elements: { before: number; after: number } };
  /** Form values, checked and selected states (from the snapshot's recorded live state). */
  values: { added: string[]; removed: string[] };
  changed: boolean;
}

export interface TraceMessage {
  kind: 'console' | 'pageError';
  text: string;
}

export interface TraceActionDiff {
  kind: 'paired' | 'added' | 'removed';
  /** Position in each trace's action list. */
  index: { before: number | null; after: number | null };
  api: { before: string | null; after: string | null };
  selector: { before: string | null; after: string | null };
  error: { before: string | null; after: string | null; changed: boolean };
  durationMs: { before: number | null; after: number | null; beyondTolerance: boolean };
  snapshot: SnapshotDiff | null;
  frame: { before: FrameRef | null; after: FrameRef | null; identical: boolean | null; comparison?: unknown } | null;
  messages: { gained: TraceMessage[]; lost: TraceMessage[] };
  changed: boolean;
}

export interface RequestProblem {
  method: string;
  url: string;
  /** HTTP status, -1 when no response came. */
  status: number;
  reason: string;
}

export interface TraceDiff {
  changed: boolean;
  actions: TraceActionDiff[];
  counts: { before: number; after: number; paired: number; changed: number; added: number; removed: number };
  messages: { gained: TraceMessage[]; lost: TraceMessage[] };
  failedRequests: { gained: RequestProblem[]; lost: RequestProblem[] };
}

export interface TraceDiffOptions {
  /** A duration change counts beyond max(timingToleranceMs, timingToleranceRatio × the before duration). Defaults 100 ms and 0.5. */
  timingToleranceMs?: number;
  timingToleranceRatio?: number;
  /** The pixel engine's hook: called for each pair of film-strip frames whose bytes differ; its result is the frame's `comparison`. */
  compareFrames?: (pair: FramePair) => unknown;
}

const SKIPPED = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'BASE', 'LINK', 'META', 'TITLE']);
const LIST_LIMIT = 50;

interface DomSummary {
  text: string[];
  outline: string[];
  values: string[];
}

/** The snapshot as three sequences: text runs, element paths (tag#id.class), and form state. */
function summarize(snapshot: FrameSnapshot | undefined): DomSummary | null {
  if (!snapshot) return null;
  const out: DomSummary = { text: [], outline: [], values: [] };
  const stack: { node: NodeSnapshot; path: string }[] = [{ node: snapshot.html, path: '' }];
  while (stack.length) {
    const { node, path } = stack.pop()!;
    if (typeof node === 'string') {
      const text = node.replace(/\s+/g, ' ').trim();
      if (text) out.text.push(text);
      continue;
    }
    if (!Array.isArray(node) || Array.isArray(node[0])) continue;
    const [name, attrs] = node as [string, Record<string, string>];
    const tag = String(name).toUpperCase();
    if (SKIPPED.has(tag)) continue;
    let segment = tag;
    if (attrs?.id) segment += `#${attrs.id}`;
    if (attrs?.class) segment += attrs.class.trim() ? '.' + attrs.class.trim().split(/\s+/).slice(0, 3).join('.') : '';
    const here = path ? `${path} > ${segment}` : segment;
    if (tag !== 'HTML') out.outline.push(here);
    if (attrs) {
      if (attrs.__playwright_value_ !== undefined) out.values.push(`${here} value=${JSON.stringify(attrs.__playwright_value_)}`);
      if (attrs.__playwright_checked_ !== undefined) out.values.push(`${here} checked=${attrs.__playwright_checked_}`);
      if (attrs.__playwright_selected_ !== undefined) out.values.push(`${here} selected=${attrs.__playwright_selected_}`);
    }
    for (let i = node.length - 1; i >= 2; i--) stack.push({ node: node[i] as NodeSnapshot, path: tag === 'HTML' ? '' : here });
  }
  return out;
}

/** Items of two sequences that the other lacks, in order (at most LIST_LIMIT each). */
function sequenceChange(a: string[], b: string[]): { added: string[]; removed: string[] } {
  const pairs = alignSequences(a, b);
  const inA = new Set(pairs.map(([i]) => i));
  const inB = new Set(pairs.map(([, j]) => j));
  return { added: b.filter((_x, j) => !inB.has(j)).slice(0, LIST_LIMIT), removed: a.filter((_x, i) => !inA.has(i)).slice(0, LIST_LIMIT) };
}

function diffSnapshots(a: FrameSnapshot | undefined, b: FrameSnapshot | undefined): SnapshotDiff {
  const x = summarize(a);
  const y = summarize(b);
  const empty: DomSummary = { text: [], outline: [], values: [] };
  const text = sequenceChange((x ?? empty).text, (y ?? empty).text);
  const outline = sequenceChange((x ?? empty).outline, (y ?? empty).outline);
  const values = sequenceChange((x ?? empty).values, (y ?? empty).values);
  const available = { before: !!x, after: !!y };
  return {
    available,
    text,
    structure: { ...outline, elements: { before: x?.outline.length ?? 0, after: y?.outline.length ?? 0 } },
    values,
    changed:
      available.before !== available.after ||
      text.added.length + text.removed.length + outline.added.length + outline.removed.length + values.added.length + values.removed.length > 0,
  };
}

/**
 * An action's film-strip frame: the first screencast frame painted at or
 * after the action's end (else the trace's last), the frame nearest its end
 * that can show its effect. The last frame before the next action would vary
 * from run to run: whether the repaint lands before the next action starts
 * depends on timing, so an unchanged page could compare two pictures.
 */
function frameAfter(frames: ScreencastFrameEvent[], actions: TracedAction[], i: number): FrameRef | null {
  const end = actions[i].endTime;
  if (end === null || !frames.length) return null;
  const found = frames.find((frame) => frame.timestamp >= end) ?? frames[frames.length - 1];
  return { entry: found.file, timestamp: found.timestamp, width: found.width, height: found.height };
}

function messageOf(event: ConsoleEvent | PageEventEvent): TraceMessage {
  if (event.type === 'console') return { kind: 'console', text: event.text };
  const error = ((event.params?.error as { error?: { name?: string; message?: string } })?.error ?? event.params?.error ?? {}) as {
    name?: string;
    message?: string;
  };
  return { kind: 'pageError', text: [error.name, error.message].filter(Boolean).join(': ') || 'uncaught error' };
}

/** Console errors and page errors, each with the time it came. */
function errorsOf(archive: TraceArchive): { time: number; message: TraceMessage }[] {
  const out = [
    ...archive.console.filter((c) => c.messageType === 'error').map((c) => ({ time: c.time, message: messageOf(c) })),
    ...archive.pageErrors.map((e) => ({ time: e.time, message: messageOf(e) })),
  ];
  return out.sort((a, b) => a.time - b.time);
}

/** Errors that came while action `i` ran (from its start to the next action's start). */
function errorsDuring(errors: { time: number; message: TraceMessage }[], actions: TracedAction[], i: number): TraceMessage[] {
  const start = i === 0 ? -Infinity : actions[i].startTime;
  const end = i + 1 < actions.length ? actions[i + 1].startTime : Infinity;
  return errors.filter((e) => e.time >= start && e.time < end).map((e) => e.message);
}

function messageKey(m: TraceMessage): string {
  return `${m.kind}\u0000${m.text}`;
}

/** Items of a not in b (by key, counting repeats). */
function minus<T>(a: T[], b: T[], key: (x: T) => string): T[] {
  const left = new Map<string, number>();
  for (const x of b) left.set(key(x), (left.get(key(x)) ?? 0) + 1);
  return a.filter((x) => {
    const n = left.get(key(x)) ?? 0;
    if (n > 0) left.set(key(x), n - 1);
    return n === 0;
  });
}

function problemsOf(network: ResourceSnapshot[]): RequestProblem[] {
  const out: RequestProblem[] = [];
  for (const entry of network) {
    const status = typeof entry.response?.status === 'number' ? entry.response.status : -1;
    const failure = entry.response?._failureText;
    if (failure || status < 0) out.push({ method: entry.request.method, url: entry.request.url, status, reason: failure || 'no response' });
    else if (status >= 400) out.push({ method: entry.request.method, url: entry.request.url, status, reason: entry.response.statusText || `HTTP ${status}` });
  }
  return out;
}

function durationOf(action: TracedAction | null): number | null {
  return action && action.endTime !== null ? Math.max(0, action.endTime - action.startTime) : null;
}

/** Pairs the two action lists: same API and selector in order, then the same API between pairs, then order. */
function pairActions(a: TracedAction[], b: TracedAction[]): [number, number][] {
  return pairByScore(
    a,
    b,
    (x, y) => (x.api === y.api ? (x.selector === y.selector ? 3 : 2) : 1),
    (x) => `${x.api}\u0000${x.selector}`,
  );
}

/** Compares two read traces. */
export async function diffTraces(before: TraceArchive, after: TraceArchive, options: TraceDiffOptions = {}): Promise<TraceDiff> {
  const toleranceMs = options.timingToleranceMs ?? 100;
  const toleranceRatio = options.timingToleranceRatio ?? 0.5;
  const errorsA = errorsOf(before);
  const errorsB = errorsOf(after);
  const pairs = pairActions(before.actions, after.actions);
  const pairedA = new Map(pairs.map(([i, j]) => [i, j]));
  const pairedB = new Set(pairs.map(([, j]) => j));

  // In the after trace's order, an action only the before trace has placed after the last pair before it.
  const rows: { i: number | null; j: number | null }[] = [];
  let lastJ = -1;
  const pending: number[] = [];
  const flushAfterUpTo = (j: number) => {
    for (let k = lastJ + 1; k < j; k++) if (!pairedB.has(k)) rows.push({ i: null, j: k });
  };
  for (let i = 0; i < before.actions.length; i++) {
    const j = pairedA.get(i);
    if (j === undefined) {
      pending.push(i);
      continue;
    }
    flushAfterUpTo(j);
    for (const p of pending.splice(0)) rows.push({ i: p, j: null });
    rows.push({ i, j });
    lastJ = j;
  }
  flushAfterUpTo(after.actions.length);
  for (const p of pending) rows.push({ i: p, j: null });

  const actions: TraceActionDiff[] = [];
  for (const { i, j } of rows) {
    const x = i === null ? null : before.actions[i];
    const y = j === null ? null : after.actions[j];
    const kind: TraceActionDiff['kind'] = x && y ? 'paired' : x ? 'removed' : 'added';
    const da = durationOf(x);
    const db = durationOf(y);
    const beyond = da !== null && db !== null && Math.abs(db - da) > Math.max(toleranceMs, toleranceRatio * da);
    const messagesA = i === null ? [] : errorsDuring(errorsA, before.actions, i);
    const messagesB = j === null ? [] : errorsDuring(errorsB, after.actions, j);
    const diff: TraceActionDiff = {
      kind,
      index: { before: i, after: j },
      api: { before: x?.api ?? null, after: y?.api ?? null },
      selector: { before: x?.selector ?? null, after: y?.selector ?? null },
      error: { before: x?.error ?? null, after: y?.error ?? null, changed: kind === 'paired' && x!.error !== y!.error },
      durationMs: { before: da, after: db, beyondTolerance: beyond },
      snapshot: null,
      frame: null,
      messages: { gained: minus(messagesB, messagesA, messageKey), lost: minus(messagesA, messagesB, messageKey) },
      changed: kind !== 'paired',
    };
    if (x && y) {
      diff.snapshot = diffSnapshots(
        x.snapshots.after ?? x.snapshots.action ?? x.snapshots.before,
        y.snapshots.after ?? y.snapshots.action ?? y.snapshots.before,
      );
      const fa = frameAfter(before.frames, before.actions, i!);
      const fb = frameAfter(after.frames, after.actions, j!);
      // Entries are named by the SHA-1 of their bytes: the same name is the same picture.
      const identical = fa && fb ? fa.entry.split('/').pop() === fb.entry.split('/').pop() : null;
      diff.frame = { before: fa, after: fb, identical };
      if (fa && fb && !identical && options.compareFrames) {
        const [ba, bb] = await Promise.all([before.readEntry(fa.entry), after.readEntry(fb.entry)]);
        if (ba && bb) diff.frame.comparison = await options.compareFrames({ before: { ...fa, bytes: ba }, after: { ...fb, bytes: bb } });
      }
      diff.changed =
        x.api !== y.api ||
        x.selector !== y.selector ||
        diff.error.changed ||
        beyond ||
        diff.snapshot.changed ||
        identical === false ||
        (fa === null) !== (fb === null) ||
        diff.messages.gained.length > 0 ||
        diff.messages.lost.length > 0;
    }
    actions.push(diff);
  }

  const allA = errorsA.map((e) => e.message);
  const allB = errorsB.map((e) => e.message);
  const problemsA = problemsOf(before.network);
  const problemsB = problemsOf(after.network);
  const problemKey = (p: RequestProblem) => `${p.method} ${p.url} ${p.status} ${p.reason}`;
  const result: TraceDiff = {
    changed: false,
    actions,
    counts: {
      before: before.actions.length,
      after: after.actions.length,
      paired: pairs.length,
      changed: actions.filter((a) => a.kind === 'paired' && a.changed).length,
      added: actions.filter((a) => a.kind === 'added').length,
      removed: actions.filter((a) => a.kind === 'removed').length,
    },
    messages: { gained: minus(allB, allA, messageKey), lost: minus(allA, allB, messageKey) },
    failedRequests: { gained: minus(problemsB, problemsA, problemKey), lost: minus(problemsA, problemsB, problemKey) },
  };
  result.changed =
    actions.some((a) => a.changed) ||
    result.messages.gained.length + result.messages.lost.length + result.failedRequests.gained.length + result.failedRequests.lost.length > 0;
  return result;
}
