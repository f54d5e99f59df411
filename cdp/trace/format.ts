/**
 * The subset of Playwright's trace format (trace.trace / trace.network JSON
 * lines, version 10 as written by playwright-core 1.65) that this recorder
 * emits. Field names and meanings are the viewer's contract; see
 * docs/trace-format.md for how each entry is produced from CDP.
 */

/** The `version` of the context-options line. Viewers refuse newer versions. */
export const TRACE_FORMAT_VERSION = 10;

/** The archive's entries: the events, the network log (one resource-snapshot per line), and the blobs' folder. */
export const TRACE_ENTRY = 'trace.trace';
export const NETWORK_ENTRY = 'trace.network';
export const RESOURCES_FOLDER = 'resources/';

/** One JSON value per line, as both entries are written. */
export function toJsonLines(items: readonly unknown[]): string {
  return items.map((item) => JSON.stringify(item)).join('\n') + (items.length ? '\n' : '');
}

/**
 * The objects of JSON-lines text, read back (the run report reads a trace
 * this way). A torn line is skipped, as the viewer skips it.
 */
export function fromJsonLines<T>(text: string): T[] {
  const out: T[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const value = JSON.parse(line);
      if (value && typeof value === 'object') out.push(value as T);
    } catch {
      // skipped
    }
  }
  return out;
}

export type ActionPhase = 'before' | 'action' | 'after';

export interface Point {
  x: number;
  y: number;
}
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface ContextOptionsEvent {
  version: number;
  type: 'context-options';
  origin: 'library';
  browserName: string;
  /** Not read by the viewer; kept so the archive records which build ran. */
  browserVersion: string;
  platform: string;
  wallTime: number;
  monotonicTime: number;
  title?: string;
  options: {
    viewport: { width: number; height: number };
    deviceScaleFactor: number;
    colorScheme: string;
    isMobile: boolean;
    userAgent?: string;
  };
  sdkLanguage: 'javascript';
  testIdAttributeName: string;
}

export interface BeforeActionEvent {
  type: 'before';
  callId: string;
  startTime: number;
  class: string;
  method: string;
  params: Record<string, unknown>;
  pageId: string;
}

export interface InputActionEvent {
  type: 'input';
  callId: string;
  point?: Point;
  box?: Box;
}

export interface AfterActionEvent {
  type: 'after';
  callId: string;
  endTime: number;
  error?: { message: string; name: string; stack?: string };
}

/** A line in the viewer's Log tab for one call (used for snapshot failures). */
export interface LogEvent {
  type: 'log';
  callId: string;
  time: number;
  message: string;
}

export interface ScreencastFrameEvent {
  type: 'screencast-frame';
  pageId: string;
  /** Archive path of the JPEG. */
  file: string;
  width: number;
  height: number;
  timestamp: number;
  frameSwapWallTime?: number;
}

export interface ConsoleEvent {
  type: 'console';
  time: number;
  pageId: string;
  messageType: string;
  text: string;
  args: { preview: string; value?: unknown }[];
  location: { url: string; lineNumber: number; columnNumber: number };
}

export interface PageEventEvent {
  type: 'event';
  time: number;
  class: 'BrowserContext';
  method: 'page' | 'pageError';
  params: Record<string, unknown>;
  pageId?: string;
}

/**
 * DOM node encoding the viewer renders: a text node is a string, an element
 * is `[nodeName, attributes, ...children]`.
 */
export type NodeSnapshot = string | [string, Record<string, string>, ...NodeSnapshot[]];

export interface FrameSnapshot {
  callId: string;
  phase: ActionPhase;
  pageId: string;
  frameId: string;
  frameUrl: string;
  doctype?: string;
  html: NodeSnapshot;
  viewport: { width: number; height: number };
  timestamp: number;
  wallTime: number;
  collectionTime: number;
  resourceOverrides: { url: string; file: string }[];
  isMainFrame: boolean;
}

export interface FrameSnapshotEvent {
  type: 'frame-snapshot';
  snapshot: FrameSnapshot;
}

export interface HarHeader {
  name: string;
  value: string;
}

/** One HAR 1.2 entry with Playwright's underscore extensions. */
export interface ResourceSnapshot {
  pageref: string;
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: never[];
    headers: HarHeader[];
    queryString: HarHeader[];
    headersSize: number;
    bodySize: number;
    postData?: { mimeType: string; text: string };
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: never[];
    headers: HarHeader[];
    content: { size: number; mimeType: string; _file?: string };
    headersSize: number;
    bodySize: number;
    redirectURL: string;
    _transferSize: number;
    _failureText?: string;
  };
  cache: Record<string, never>;
  timings: { dns: number; connect: number; ssl: number; send: number; wait: number; receive: number };
  _frameref: string;
  _monotonicTime: number;
  _resourceType: string;
  serverIPAddress?: string;
  _serverPort?: number;
}

export interface ResourceSnapshotEvent {
  type: 'resource-snapshot';
  snapshot: ResourceSnapshot;
}

/** A line of trace.network. */
export type NetworkEvent = ResourceSnapshotEvent;

export type TraceEvent =
  | ContextOptionsEvent
  | BeforeActionEvent
  | InputActionEvent
  | AfterActionEvent
  | LogEvent
  | ScreencastFrameEvent
  | ConsoleEvent
  | PageEventEvent
  | FrameSnapshotEvent;

/** Ids the viewer uses in URLs (`snapshot/<callId>`): keep them URL-safe. */
export function pageIdFor(targetId: string): string {
  return `page@${targetId}`;
}
export function frameIdFor(cdpFrameId: string): string {
  return `frame@${cdpFrameId}`;
}
