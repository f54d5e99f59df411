/**
 * Reads an interaction trace ZIP as the recorder writes it (cdp/trace/: the
 * events of format.ts in trace.trace, resource snapshots in trace.network,
 * blobs under resources/), typed by that same format module, for the trace
 * comparison: the actions with their times, errors and after-snapshots
 * (back-references resolved into whole DOM trees), the screencast frames,
 * console messages, page errors and the network log. Resource bytes are read
 * on demand.
 */
import * as fs from 'fs';
import JSZip from 'jszip';
import type {
  AfterActionEvent,
  BeforeActionEvent,
  ConsoleEvent,
  ContextOptionsEvent,
  FrameSnapshot,
  NodeSnapshot,
  PageEventEvent,
  ResourceSnapshot,
  ScreencastFrameEvent,
  TraceEvent,
} from '../../cdp/trace/format';

export interface TracedAction {
  callId: string;
  /** `Frame.click`. */
  api: string;
  selector: string;
  params: Record<string, unknown>;
  startTime: number;
  /** null when the action has no `after` event. */
  endTime: number | null;
  /** The error message, '' when it succeeded, null when it never finished. */
  error: string | null;
  /** The main frame's snapshots by phase, back-references resolved. */
  snapshots: Partial<Record<'before' | 'action' | 'after', FrameSnapshot>>;
}

export interface TraceArchive {
  file: string;
  contextOptions: ContextOptionsEvent | null;
  actions: TracedAction[];
  /** Sorted by timestamp. */
  frames: ScreencastFrameEvent[];
  console: ConsoleEvent[];
  pageErrors: PageEventEvent[];
  network: ResourceSnapshot[];
  /** Bytes of an archive entry (`resources/<sha1>.jpeg`), null when absent. */
  readEntry(name: string): Promise<Buffer | null>;
}

function jsonLines(text: string): unknown[] {
  const out: unknown[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // A torn last line (a recorder killed mid-write) is skipped, as the viewer skips it.
    }
  }
  return out;
}

type Element = [string, Record<string, string>, ...NodeSnapshot[]];

/**
 * Resolves `[[snapshotsAgo, nodeIndex]]` back-references (cdp/trace/subtreeReferences.ts):
 * per frame, the literal nodes of each snapshot are numbered in post-order
 * (children before their element, text included, references not counted).
 */
class SnapshotDecoder {
  private readonly literalsByFrame = new Map<string, NodeSnapshot[][]>();

  decode(snapshot: FrameSnapshot): FrameSnapshot {
    let history = this.literalsByFrame.get(snapshot.frameId);
    if (!history) this.literalsByFrame.set(snapshot.frameId, (history = []));
    const index = history.length;
    const literals: NodeSnapshot[] = [];
    history.push(literals);
    const visit = (node: NodeSnapshot): NodeSnapshot => {
      if (typeof node === 'string') {
        literals.push(node);
        return node;
      }
      if (Array.isArray(node) && Array.isArray(node[0])) {
        const [ago, at] = node[0] as unknown as [number, number];
        return history![index - ago]?.[at] ?? '';
      }
      const element = node as Element;
      const out: Element = [element[0], element[1] ?? {}];
      for (let i = 2; i < element.length; i++) out.push(visit(element[i] as NodeSnapshot));
      literals.push(out);
      return out;
    };
    return { ...snapshot, html: visit(snapshot.html) };
  }
}

/** Reads a trace ZIP, or throws an error naming the file and what is wrong. */
export async function readTraceArchive(file: string): Promise<TraceArchive> {
  let zip: JSZip;
  try {
    zip = await JSZip.loadAsync(fs.readFileSync(file));
  } catch (err) {
    throw new Error(`${file}: not a readable trace ZIP: ${(err as Error).message}`);
  }
  const traceEntry = zip.file('trace.trace');
  if (!traceEntry) throw new Error(`${file}: not an interaction trace: the ZIP holds no trace.trace`);
  const events = jsonLines(await traceEntry.async('string')) as TraceEvent[];
  const networkEntry = zip.file('trace.network');
  const network = networkEntry
    ? (jsonLines(await networkEntry.async('string')) as { type?: string; snapshot?: ResourceSnapshot }[])
        .filter((l) => l.type === 'resource-snapshot' && l.snapshot)
        .map((l) => l.snapshot!)
    : [];

  const decoder = new SnapshotDecoder();
  const archive: TraceArchive = {
    file,
    contextOptions: null,
    actions: [],
    frames: [],
    console: [],
    pageErrors: [],
    network,
    async readEntry(name: string) {
      const entry = zip.file(name);
      return entry ? entry.async('nodebuffer') : null;
    },
  };
  const calls = new Map<string, TracedAction>();
  for (const event of events) {
    if (!event || typeof event !== 'object') continue;
    switch (event.type) {
      case 'context-options':
        archive.contextOptions = event;
        break;
      case 'before': {
        const before = event as BeforeActionEvent;
        if (calls.has(before.callId)) break;
        const params = before.params && typeof before.params === 'object' ? before.params : {};
        const action: TracedAction = {
          callId: before.callId,
          api: `${before.class}.${before.method}`,
          selector: typeof params.selector === 'string' ? params.selector : '',
          params,
          startTime: before.startTime,
          endTime: null,
          error: null,
          snapshots: {},
        };
        calls.set(before.callId, action);
        archive.actions.push(action);
        break;
      }
      case 'after': {
        const after = event as AfterActionEvent;
        const action = calls.get(after.callId);
        if (!action) break;
        action.endTime = after.endTime;
        action.error = after.error?.message ?? '';
        break;
      }
      case 'frame-snapshot': {
        // Every snapshot is decoded in order, subframes included: later ones may refer to it.
        const snapshot = decoder.decode(event.snapshot);
        const action = calls.get(snapshot.callId);
        if (action && snapshot.isMainFrame) action.snapshots[snapshot.phase] = snapshot;
        break;
      }
      case 'screencast-frame':
        archive.frames.push(event);
        break;
      case 'console':
        archive.console.push(event);
        break;
      case 'event':
        if (event.method === 'pageError') archive.pageErrors.push(event);
        break;
      default:
        break;
    }
  }
  archive.frames.sort((a, b) => a.timestamp - b.timestamp);
  return archive;
}
