/**
 * Reads a Playwright trace ZIP for the report, through the module that
 * writes it (cdp/trace/format.ts: its entries, its JSON lines, its event
 * types; docs/trace-format.md describes the layout): the action list with
 * durations and errors, the screencast frames around each action, console
 * errors and failed requests. Frames are returned as bytes for the report
 * folder; the ZIP itself is never modified.
 *
 * Which frames: "before" is the last screencast frame painted before the
 * action started; "after" is the last frame painted before the next action
 * started (for the last action, the trace's final frame), so it shows the
 * page once the action's effects had a chance to paint.
 */
import * as fs from 'fs';
import JSZip from 'jszip';
import { imageInfoOf } from './imageInfo';
import {
  fromJsonLines,
  NETWORK_ENTRY,
  RESOURCES_FOLDER,
  TRACE_ENTRY,
  type AfterActionEvent,
  type BeforeActionEvent,
  type NetworkEvent,
  type PageEventEvent,
  type TraceEvent,
} from '../../cdp/trace/format';

export interface TraceFrame {
  /** Path inside the ZIP (resources/<sha1>.jpeg). */
  entry: string;
  timestamp: number;
  width: number;
  height: number;
}

export interface TraceAction {
  callId: string;
  /** Playwright's API name, e.g. `Frame.click`. */
  api: string;
  /** What the viewer would title it: `Click`, `Fill "x"`, `Navigate`... */
  title: string;
  selector: string;
  /** The url, value, key or option the action used, if any. */
  detail: string;
  durationMs: number | null;
  error: string;
  before: TraceFrame | null;
  after: TraceFrame | null;
}

export interface TraceConsoleError {
  kind: 'console' | 'pageError';
  text: string;
}

export interface TraceRequestProblem {
  url: string;
  method: string;
  /** HTTP status, or -1 when no response arrived. */
  status: number;
  reason: string;
}

export interface TraceSummary {
  actions: TraceAction[];
  frameCount: number;
  consoleErrors: TraceConsoleError[];
  /** Requests that got no response (`_failureText`, status -1). */
  failedRequests: TraceRequestProblem[];
  /** Requests answered with HTTP 4xx/5xx. */
  httpErrors: TraceRequestProblem[];
  /** Frame bytes by ZIP entry, for the frames the actions show. */
  frameBytes: Map<string, Buffer>;
  /** Pixel size of each shown frame, by ZIP entry. */
  frameSizes: Map<string, { width: number; height: number }>;
}

const TITLES: Record<string, string> = {
  'Frame.goto': 'Navigate',
  'Frame.click': 'Click',
  'Frame.dblclick': 'Double click',
  'Frame.fill': 'Fill',
  'Frame.type': 'Type',
  'Frame.press': 'Press',
  'Page.keyboardPress': 'Press',
  'Frame.selectOption': 'Select option',
  'Frame.waitForSelector': 'Wait for selector',
  'Frame.waitForTimeout': 'Wait for timeout',
  'Frame.check': 'Check',
  'Frame.uncheck': 'Uncheck',
  'Frame.hover': 'Hover',
  'Frame.focus': 'Focus',
};

function detailOf(params: Record<string, unknown>): string {
  if (typeof params.url === 'string') return params.url;
  if (typeof params.value === 'string') return JSON.stringify(params.value);
  if (typeof params.text === 'string') return JSON.stringify(params.text);
  if (typeof params.key === 'string') return params.key;
  if (Array.isArray(params.options)) {
    return params.options
      .map((o) =>
        o && typeof o === 'object'
          ? Object.values(o as Record<string, unknown>)
              .map(String)
              .join(' ')
          : String(o),
      )
      .join(', ');
  }
  if (typeof params.waitTimeout === 'number' || typeof params.timeout === 'number') return `${params.waitTimeout ?? params.timeout} ms`;
  return '';
}

/**
 * What a trace Playwright itself wrote may carry besides this recorder's
 * fields: a frame named by `sha1`, an error nested one level deeper.
 */
type ReadEvent = TraceEvent & { sha1?: string };
type ReadAfter = AfterActionEvent & { error?: { error?: { message?: string } } };

/** The page error a pageError event carries, in either nesting. */
function pageErrorText(event: PageEventEvent): string {
  const params = event.params as { error?: { name?: string; message?: string; error?: { name?: string; message?: string } } };
  const error = params?.error?.error ?? params?.error ?? {};
  return [error.name, error.message].filter(Boolean).join(': ') || 'uncaught error';
}

/** Last frame painted at or before `time`. Frames are sorted by timestamp. */
function frameAtOrBefore(frames: TraceFrame[], time: number): TraceFrame | null {
  let found: TraceFrame | null = null;
  for (const frame of frames) {
    if (frame.timestamp > time) break;
    found = frame;
  }
  return found;
}

export async function readTraceZip(file: string): Promise<TraceSummary> {
  const zip = await JSZip.loadAsync(fs.readFileSync(file));
  const traceEntry = zip.file(TRACE_ENTRY) ?? Object.values(zip.files).find((f) => !f.dir && f.name.endsWith('.trace')) ?? null;
  if (!traceEntry) throw new Error(`the ZIP holds no ${TRACE_ENTRY}: not a Playwright trace`);
  const events = fromJsonLines<ReadEvent>(await traceEntry.async('string'));
  const networkEntry = zip.file(NETWORK_ENTRY) ?? Object.values(zip.files).find((f) => !f.dir && f.name.endsWith('.network')) ?? null;
  const network = networkEntry ? fromJsonLines<NetworkEvent>(await networkEntry.async('string')) : [];

  const frames: TraceFrame[] = [];
  const calls = new Map<string, { before: BeforeActionEvent; after?: ReadAfter }>();
  const order: string[] = [];
  const consoleErrors: TraceConsoleError[] = [];
  for (const event of events) {
    switch (event.type) {
      case 'screencast-frame': {
        const entry = typeof event.file === 'string' ? event.file : typeof event.sha1 === 'string' ? `${RESOURCES_FOLDER}${event.sha1}` : '';
        if (entry && typeof event.timestamp === 'number') frames.push({ entry, timestamp: event.timestamp, width: event.width, height: event.height });
        break;
      }
      case 'before':
        if (typeof event.callId === 'string' && !calls.has(event.callId)) {
          calls.set(event.callId, { before: event });
          order.push(event.callId);
        }
        break;
      case 'after': {
        const call = calls.get(event.callId);
        if (call) call.after = event;
        break;
      }
      case 'console':
        if (event.messageType === 'error') consoleErrors.push({ kind: 'console', text: String(event.text ?? '') });
        break;
      case 'event':
        if (event.method === 'pageError') consoleErrors.push({ kind: 'pageError', text: pageErrorText(event) });
        break;
      default:
        break;
    }
  }
  frames.sort((a, b) => a.timestamp - b.timestamp);

  const actions: TraceAction[] = order.map((callId, index) => {
    const { before, after } = calls.get(callId)!;
    const params: Record<string, unknown> = before.params && typeof before.params === 'object' ? before.params : {};
    const api = `${before.class ?? ''}.${before.method ?? ''}`;
    const next = order[index + 1] ? calls.get(order[index + 1])!.before.startTime : Infinity;
    const start = typeof before.startTime === 'number' ? before.startTime : NaN;
    const end = typeof after?.endTime === 'number' ? after.endTime : NaN;
    const errorMessage: unknown = after?.error?.message ?? after?.error?.error?.message;
    return {
      callId,
      api,
      title: TITLES[api] ?? String(before.method ?? api),
      selector: typeof params.selector === 'string' ? params.selector : '',
      detail: detailOf(params),
      durationMs: Number.isFinite(start) && Number.isFinite(end) ? Math.max(0, end - start) : null,
      error: typeof errorMessage === 'string' ? errorMessage : after ? '' : 'the action never finished (no after event)',
      before: Number.isFinite(start) ? frameAtOrBefore(frames, start) : null,
      after: frameAtOrBefore(frames, typeof next === 'number' ? next : Infinity),
    };
  });

  const failedRequests: TraceRequestProblem[] = [];
  const httpErrors: TraceRequestProblem[] = [];
  for (const line of network) {
    const snapshot: (NetworkEvent['snapshot'] & { _failureText?: string }) | null = line.type === 'resource-snapshot' ? line.snapshot : null;
    if (!snapshot) continue;
    const status = typeof snapshot.response?.status === 'number' ? snapshot.response.status : -1;
    const failure = snapshot.response?._failureText ?? snapshot._failureText;
    const problem = { url: String(snapshot.request?.url ?? ''), method: String(snapshot.request?.method ?? ''), status, reason: '' };
    if (failure || status < 0) failedRequests.push({ ...problem, reason: String(failure ?? 'no response') });
    else if (status >= 400) httpErrors.push({ ...problem, reason: String(snapshot.response?.statusText ?? '') });
  }

  const frameBytes = new Map<string, Buffer>();
  const frameSizes = new Map<string, { width: number; height: number }>();
  for (const action of actions) {
    for (const frame of [action.before, action.after]) {
      if (!frame || frameBytes.has(frame.entry)) continue;
      const entry = zip.file(frame.entry);
      if (!entry) continue;
      const bytes = await entry.async('nodebuffer');
      frameBytes.set(frame.entry, bytes);
      const info = imageInfoOf(bytes);
      frameSizes.set(frame.entry, info ? { width: info.width, height: info.height } : { width: frame.width, height: frame.height });
    }
  }
  // A frame whose entry is missing from the ZIP is not shown (the action keeps its row).
  for (const action of actions) {
    if (action.before && !frameBytes.has(action.before.entry)) action.before = null;
    if (action.after && !frameBytes.has(action.after.entry)) action.after = null;
  }
  return { actions, frameCount: frames.length, consoleErrors, failedRequests, httpErrors, frameBytes, frameSizes };
}
