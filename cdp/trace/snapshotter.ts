import { randomUUID } from 'crypto';
import type { CdpSession } from '../types';
import type { TraceClock } from './clock';
import { frameIdFor, type ActionPhase, type FrameSnapshot, type NodeSnapshot, type Box } from './format';
import { resolveSelector } from '../selectorEngine';
import { usesPuppeteerSyntax } from '../selectorSyntax';
import { callRuntime, callRuntimeForHandle, callRuntimeOn, forgetUtilityWorlds, PageScriptError, parseJson, releaseObject } from '../utilityWorld';
import type { SerializedFrame } from '../injected/trace/serializeFrame';

/** What a walk of the page is told: the action's selector, the mark its element gets, the sheets already recorded. */
export interface WalkOptions {
  targetSelector?: string;
  /** The value of the target's `__playwright_target__` (default ''). */
  targetMark?: string;
  knownUrls: string[];
}

export interface CapturedSnapshot {
  /** The main frame's snapshot first, then its child frames', depth first. */
  snapshots: FrameSnapshot[];
  targetBox?: Box;
  /** Linked stylesheets the network log has no body for, with their CSSOM text and frame. */
  unrecordedStylesheets: { url: string; text: string; frameCdpId: string }[];
}

const FRAME_INDEX_ATTRIBUTE = '__evidence_frame_index__';
const OBJECT_GROUP = 'evidence-trace-frames';
/** Bounds on nested frames, so an ad-heavy page cannot stall an action. */
const MAX_FRAME_DEPTH = 3;
const MAX_CHILD_FRAMES = 16;

/** Page.getFrameTree's frame tree, as far as the snapshotter reads it. */
export interface FrameTreeNode {
  frame: { id: string };
  childFrames?: FrameTreeNode[];
}

/**
 * Takes DOM snapshots of the main frame and its same-process child frames.
 * The serializer is the page runtime's, run in each frame's utility world
 * (utilityWorld.ts) so page scripts that patch globals (Array, JSON,
 * querySelector) cannot change what it sees; the recorder forgets those
 * worlds when a frame navigates. A child frame is written as its own
 * snapshot (same call and phase, `isMainFrame: false`) and its owner
 * element points at it with `src="/snapshot/<frameId>"`, as the viewer
 * expects. Out-of-process frames (cross-site, under site isolation) live in
 * another target and render blank.
 */
export class Snapshotter {
  constructor(
    private readonly session: CdpSession,
    private readonly clock: TraceClock,
    private readonly pageId: string,
    private readonly mainFrameCdpId: string,
  ) {}

  /**
   * Child frame ids by owner index, per frame: asked once (a round trip per
   * owner) and kept until a frame is attached or detached, or the frame
   * itself navigates, which are the only ways the mapping changes (moving
   * an iframe element re-attaches its frame).
   */
  private readonly owners = new Map<string, (string | undefined)[]>();

  /**
   * Each frame's child frames, as the session's Page events tell them (they
   * arrive before the answer to any walk that came after them). One owner
   * element and one child frame need no question to the page: every
   * connected iframe holds a frame, so that element holds that frame.
   */
  private readonly children = new Map<string, string[]>();

  /** The frame tree the recording starts with (Page.getFrameTree's). */
  seedFrames(tree: FrameTreeNode): void {
    for (const child of tree.childFrames ?? []) {
      this.frameAttached(child.frame.id, tree.frame.id);
      this.seedFrames(child);
    }
  }

  frameAttached(frameId: string, parentFrameId: string | undefined): void {
    this.owners.clear();
    if (!parentFrameId) return;
    const siblings = this.children.get(parentFrameId) ?? [];
    if (!siblings.includes(frameId)) siblings.push(frameId);
    this.children.set(parentFrameId, siblings);
  }

  /** A frame swapped into another process keeps its id and its place; a removed one leaves its parent's list (its own children were detached before it). */
  frameDetached(frameId: string, reason?: string): void {
    this.invalidate(frameId);
    this.owners.clear();
    if (reason === 'swap') return;
    for (const [parent, siblings] of this.children) {
      const at = siblings.indexOf(frameId);
      if (at >= 0) siblings.splice(at, 1);
      if (!siblings.length) this.children.delete(parent);
    }
    this.children.delete(frameId);
  }

  /** Forget utility worlds (of one frame, or all); the next capture makes them again. */
  invalidate(cdpFrameId?: string): void {
    forgetUtilityWorlds(this.session, cdpFrameId);
    if (cdpFrameId === undefined) this.owners.clear();
    else this.owners.delete(cdpFrameId);
  }

  /** The snapshot of a fresh tab's initial about:blank, as the serializer writes it, without asking the page. */
  blank(callId: string, phase: ActionPhase, viewport: { width: number; height: number }): CapturedSnapshot {
    const timestamp = this.clock.now();
    const snapshot: FrameSnapshot = {
      callId,
      phase,
      pageId: this.pageId,
      frameId: frameIdFor(this.mainFrameCdpId),
      frameUrl: 'about:blank',
      html: ['HTML', {}, ['HEAD', {}, ['BASE', { href: 'about:blank' }]], ['BODY', {}]],
      viewport: { width: viewport.width, height: viewport.height },
      timestamp,
      wallTime: Date.now(),
      collectionTime: 0,
      resourceOverrides: [],
      isMainFrame: true,
    };
    return { snapshots: [snapshot], unrecordedStylesheets: [] };
  }

  /**
   * An input action's 'before' and 'action' snapshots from one walk of the
   * page: nothing runs in the page between the two, so the second walk would
   * read the same DOM. The walk marks the target with a nonce; the 'action'
   * copy keeps the mark as Playwright writes it, the 'before' copy drops it.
   * The rest of the two trees is shared (nothing mutates a snapshot once it
   * is taken).
   */
  async captureBeforeAndAction(callId: string, opts: WalkOptions): Promise<{ before: CapturedSnapshot; action: CapturedSnapshot }> {
    const targetMark = `evidence-target-${randomUUID()}`;
    const walked = await this.capture(callId, 'action', { ...opts, targetMark });
    return {
      // The sheets are recorded once, with the first of the two.
      before: {
        snapshots: walked.snapshots.map((snapshot) => ({ ...snapshot, phase: 'before', html: withTargetMark(snapshot.html, targetMark, null) })),
        unrecordedStylesheets: walked.unrecordedStylesheets,
      },
      action: {
        snapshots: walked.snapshots.map((snapshot) => ({ ...snapshot, html: withTargetMark(snapshot.html, targetMark, '') })),
        targetBox: walked.targetBox,
        unrecordedStylesheets: [],
      },
    };
  }

  async capture(callId: string, phase: ActionPhase, opts: WalkOptions): Promise<CapturedSnapshot> {
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
    opts: WalkOptions,
    into: CapturedSnapshot,
    depth: number,
    budget: { frames: number },
  ): Promise<SerializedFrame> {
    const started = this.clock.now();
    const serialized = await this.evaluate(cdpFrameId, {
      targetSelector: isMainFrame ? opts.targetSelector : undefined,
      targetMark: opts.targetMark,
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

    const childFrameIds = serialized.frameOwnerCount > 0 && depth < MAX_FRAME_DEPTH ? await this.frameOwnerIds(cdpFrameId, serialized.frameOwnerCount) : [];
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
    const known = this.owners.get(cdpFrameId);
    if (known && known.length === count && known.every((id) => id !== undefined)) return known;
    const children = this.children.get(cdpFrameId) ?? [];
    const ids = count === 1 && children.length === 1 ? [children[0]] : await this.askFrameOwnerIds(cdpFrameId, count);
    this.owners.set(cdpFrameId, ids);
    return ids;
  }

  private async askFrameOwnerIds(cdpFrameId: string, count: number): Promise<(string | undefined)[]> {
    const ids: (string | undefined)[] = [];
    try {
      for (let index = 0; index < count; index++) {
        const owner = await callRuntimeForHandle(this.session, 'frameOwner', [index], { frameId: cdpFrameId, objectGroup: OBJECT_GROUP });
        const described = owner ? await this.session.send('DOM.describeNode', { objectId: owner.objectId }).catch(() => undefined) : undefined;
        ids.push(described?.node?.frameId);
      }
    } catch {
      // The frame went away meanwhile: its children render blank.
    } finally {
      await this.session.send('Runtime.releaseObjectGroup', { objectGroup: OBJECT_GROUP }).catch(() => undefined);
    }
    return ids;
  }

  private async evaluate(cdpFrameId: string, options: WalkOptions): Promise<SerializedFrame> {
    // With the action's element in hand, the serializer is called on it, so any selector form is highlighted.
    const target = options.targetSelector ? await this.target(options.targetSelector) : null;
    try {
      const json = target
        ? await callRuntimeOn(this.session, target, 'serializeTraceFrame', [options])
        : await callRuntime(this.session, 'serializeTraceFrame', [null, options], { frameId: cdpFrameId });
      return parseJson(json);
    } catch (error) {
      if (error instanceof PageScriptError) throw new Error(`DOM snapshot script failed: ${error.description}`);
      throw error;
    } finally {
      if (target) releaseObject(this.session, target);
    }
  }

  /**
   * The element the action's selector names (Playwright syntax, resolved by
   * the same engine the action runner uses, in the main frame's utility
   * world, where the serializer then runs on it); null when nothing matches
   * yet or the selector is Puppeteer's own syntax (the serializer then tries
   * it as CSS).
   */
  private async target(selector: string): Promise<string | null> {
    if (usesPuppeteerSyntax(selector)) return null;
    try {
      return await resolveSelector(this.session, selector);
    } catch {
      return null;
    }
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

/**
 * `node` with the element whose `__playwright_target__` is `mark` given the
 * value `value` (null: the attribute removed); only the path down to it is
 * copied, every other subtree is the same object.
 */
function withTargetMark(node: NodeSnapshot, mark: string, value: string | null): NodeSnapshot {
  if (typeof node === 'string') return node;
  const attrs = node[1] as Record<string, string>;
  if (attrs.__playwright_target__ === mark) {
    const marked = { ...attrs };
    if (value === null) delete marked.__playwright_target__;
    else marked.__playwright_target__ = value;
    return [node[0], marked, ...node.slice(2)] as NodeSnapshot;
  }
  for (let i = 2; i < node.length; i++) {
    const child = node[i] as NodeSnapshot;
    const replaced = withTargetMark(child, mark, value);
    if (replaced !== child) {
      const copy = node.slice() as unknown as NodeSnapshot[];
      copy[i] = replaced;
      return copy as unknown as NodeSnapshot;
    }
  }
  return node;
}
