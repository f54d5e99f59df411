import type { CdpSession } from '../types';
import type { TraceClock } from './clock';
import { frameIdFor, type ActionPhase, type Box, type FrameSnapshot, type NodeSnapshot } from './format';
import { source as TRACE_SNAPSHOT_SOURCE } from '../generated/traceSnapshot';
import { releaseObject, resolveSelector, usesPuppeteerSyntax } from '../selectorEngine';

/** What the in-page serializer returns (cdp/injected/trace/serializeFrame.ts). */
interface SerializedFrame {
  html: NodeSnapshot;
  doctype?: string;
  frameUrl: string;
  viewport: { width: number; height: number };
  targetBox: Box | null;
  stylesheets: { url: string; text?: string }[];
  frameOwnerCount: number;
}

export interface CapturedSnapshot {
  /** The main frame's snapshot first, then its child frames', depth first. */
  snapshots: FrameSnapshot[];
  targetBox?: Box;
  /** Linked stylesheets the network log has no body for, with their CSSOM text and frame. */
  unrecordedStylesheets: { url: string; text: string; frameCdpId: string }[];
}

const WORLD_NAME = '__evidence_trace_snapshot__';
const FRAME_INDEX_ATTRIBUTE = '__evidence_frame_index__';
const OBJECT_GROUP = 'evidence-trace-frames';
/** Bounds on nested frames, so an ad-heavy page cannot stall an action. */
const MAX_FRAME_DEPTH = 3;
const MAX_CHILD_FRAMES = 16;

/**
 * Takes DOM snapshots of the main frame and its same-process child frames.
 * The serializer runs in an isolated world per frame so page scripts that
 * patch globals (Array, JSON, querySelector) cannot change what it sees;
 * worlds are recreated after navigations. A child frame is written as its
 * own snapshot (same call and phase, `isMainFrame: false`) and its owner
 * element points at it with `src="/snapshot/<frameId>"`, as the viewer
 * expects. Out-of-process frames (cross-site, under site isolation) live in
 * another target and render blank.
 */
export class Snapshotter {
  private readonly contexts = new Map<string, number>();

  constructor(
    private readonly session: CdpSession,
    private readonly clock: TraceClock,
    private readonly pageId: string,
    private readonly mainFrameCdpId: string,
  ) {}

  /** Forget isolated worlds (of one frame, or all); the next capture recreates them. */
  invalidate(cdpFrameId?: string): void {
    if (cdpFrameId === undefined) this.contexts.clear();
    else this.contexts.delete(cdpFrameId);
  }

  async capture(
    callId: string,
    phase: ActionPhase,
    opts: { targetSelector?: string; knownUrls: string[] },
  ): Promise<CapturedSnapshot> {
    const result: CapturedSnapshot = { snapshots: [], unrecordedStylesheets: [] };
    const budget = { frames: MAX_CHILD_FRAMES };
    const main = await this.captureFrame(this.mainFrameCdpId, true, callId, phase, opts, result, 0, budget);
    result.targetBox = main.targetBox ?? undefined;
    return result;
  }

  private async captureFrame(
    cdpFrameId: string,
    isMainFrame: boolean,
    callId: string,
    phase: ActionPhase,
    opts: { targetSelector?: string; knownUrls: string[] },
    into: CapturedSnapshot,
    depth: number,
    budget: { frames: number },
  ): Promise<SerializedFrame> {
    const started = this.clock.now();
    const serialized = await this.evaluate(cdpFrameId, {
      targetSelector: isMainFrame ? opts.targetSelector : undefined,
      knownUrls: opts.knownUrls,
    });
    const timestamp = this.clock.now();
    const snapshot: FrameSnapshot = {
      callId,
      phase,
      pageId: this.pageId,
      frameId: frameIdFor(cdpFrameId),
      frameUrl: serialized.frameUrl,
      doctype: serialized.doctype,
      html: serialized.html,
      viewport: serialized.viewport,
      timestamp,
      wallTime: Date.now(),
      collectionTime: Math.round((timestamp - started) * 1000) / 1000,
      resourceOverrides: [],
      isMainFrame,
    };
    into.snapshots.push(snapshot);
    for (const sheet of serialized.stylesheets) {
      if (typeof sheet.text === 'string') into.unrecordedStylesheets.push({ url: sheet.url, text: sheet.text, frameCdpId: cdpFrameId });
    }

    const childFrameIds =
      serialized.frameOwnerCount > 0 && depth < MAX_FRAME_DEPTH ? await this.frameOwnerIds(cdpFrameId, serialized.frameOwnerCount) : [];
    const sources = new Map<string, string>();
    for (let index = 0; index < childFrameIds.length; index++) {
      const childId = childFrameIds[index];
      if (!childId || budget.frames <= 0) continue;
      budget.frames--;
      try {
        await this.captureFrame(childId, false, callId, phase, opts, into, depth + 1, budget);
        sources.set(String(index), `/snapshot/${frameIdFor(childId)}`);
      } catch {
        // Out-of-process or detached frame: it renders blank.
      }
    }
    pointFrameOwners(serialized.html, sources);
    return serialized;
  }

  /** CDP frame ids of the frame owner elements the serializer listed, by index. */
  private async frameOwnerIds(cdpFrameId: string, count: number): Promise<(string | undefined)[]> {
    const contextId = this.contexts.get(cdpFrameId);
    if (contextId === undefined) return [];
    const ids: (string | undefined)[] = [];
    try {
      for (let index = 0; index < count; index++) {
        const reply = await this.session.send('Runtime.evaluate', {
          expression: `globalThis.__evidenceTraceFrameOwners[${index}]`,
          contextId,
          objectGroup: OBJECT_GROUP,
        });
        const objectId = reply.result?.objectId;
        const described = objectId ? await this.session.send('DOM.describeNode', { objectId }).catch(() => undefined) : undefined;
        ids.push(described?.node?.frameId);
      }
    } finally {
      await this.session.send('Runtime.releaseObjectGroup', { objectGroup: OBJECT_GROUP }).catch(() => undefined);
    }
    return ids;
  }

  private async evaluate(cdpFrameId: string, arg: { targetSelector?: string; knownUrls: string[] }): Promise<SerializedFrame> {
    const expression = `(${TRACE_SNAPSHOT_SOURCE}).serializeFrameJson(${JSON.stringify(arg)})`;
    for (let attempt = 0; ; attempt++) {
      const contextId = await this.worldContext(cdpFrameId);
      const target = arg.targetSelector ? await this.targetInWorld(arg.targetSelector, contextId) : null;
      try {
        // With the action's element in hand, the serializer is called on it, so any selector form is highlighted.
        const reply = target
          ? await this.session.send('Runtime.callFunctionOn', {
              objectId: target,
              functionDeclaration: `function (options) { return (${TRACE_SNAPSHOT_SOURCE}).serializeFrameJson(options, this); }`,
              arguments: [{ value: arg }],
              returnByValue: true,
            })
          : await this.session.send('Runtime.evaluate', { expression, contextId, returnByValue: true });
        if (reply.exceptionDetails) {
          const text = reply.exceptionDetails.exception?.description ?? reply.exceptionDetails.text;
          throw new Error(`DOM snapshot script failed: ${text}`);
        }
        return JSON.parse(reply.result.value as string) as SerializedFrame;
      } catch (error) {
        // A navigation destroys the world between creation and use; retry once.
        this.contexts.delete(cdpFrameId);
        if (attempt >= 1 || !/context/i.test(String((error as Error).message))) throw error;
      } finally {
        if (target) releaseObject(this.session, target);
      }
    }
  }

  /**
   * The element the action's selector names (Playwright syntax, resolved by
   * the same engine the action runner uses), as an object of the snapshot's
   * world; null when nothing matches yet or the selector is Puppeteer's own
   * syntax (the serializer then tries it as CSS).
   */
  private async targetInWorld(selector: string, contextId: number): Promise<string | null> {
    if (usesPuppeteerSyntax(selector)) return null;
    let found: string | null = null;
    try {
      found = await resolveSelector(this.session, selector);
      if (!found) return null;
      const { node } = await this.session.send('DOM.describeNode', { objectId: found });
      const { object } = await this.session.send('DOM.resolveNode', { backendNodeId: node.backendNodeId, executionContextId: contextId });
      return object?.objectId ?? null;
    } catch {
      return null;
    } finally {
      if (found) releaseObject(this.session, found);
    }
  }

  private async worldContext(cdpFrameId: string): Promise<number> {
    let contextId = this.contexts.get(cdpFrameId);
    if (contextId === undefined) {
      const reply = await this.session.send('Page.createIsolatedWorld', {
        frameId: cdpFrameId,
        worldName: WORLD_NAME,
        grantUniveralAccess: true,
      });
      contextId = reply.executionContextId as number;
      this.contexts.set(cdpFrameId, contextId);
    }
    return contextId;
  }
}

/** Replaces the serializer's frame index marker with the child snapshot URL (or nothing). */
function pointFrameOwners(node: NodeSnapshot, sources: Map<string, string>): void {
  if (typeof node === 'string') return;
  const attrs = node[1] as Record<string, string>;
  const index = attrs[FRAME_INDEX_ATTRIBUTE];
  if (index !== undefined) {
    delete attrs[FRAME_INDEX_ATTRIBUTE];
    const src = sources.get(index);
    if (src) attrs.src = src;
  }
  for (let i = 2; i < node.length; i++) pointFrameOwners(node[i] as NodeSnapshot, sources);
}
