import type { CdpEvent, CdpSession } from '../types';
import type { TraceCall } from './traceCalls';
import { monotonicClock, type TraceClock } from './clock';
import { TRACE_NETWORK_SETTLE_MS, TRACE_STEP_TIMEOUT_MS, withDeadline } from '../deadline';
import { TRACE_FORMAT_VERSION, pageIdFor, type ActionPhase, type Box, type Point, type TraceEvent } from './format';
import { NetworkCapture } from './network';
import { PageEvents } from './pageEvents';
import { ResourceStore } from './resourceStore';
import { Screencast } from './screencast';
import { Snapshotter, type CapturedSnapshot, type FrameTreeNode, type WalkOptions } from './snapshotter';
import { SubtreeReferencer } from './subtreeReferences';
import { writeTraceZip } from './writer';
import type { TraceSecret } from './redaction';

export type { TraceCall } from './traceCalls';

export interface TraceContextOptions {
  viewport: { width: number; height: number };
  deviceScaleFactor: number;
  colorScheme: 'light' | 'dark' | 'no-preference';
  browserName: string;
  browserVersion: string;
  userAgent?: string;
}

/** Knobs for tests, and the secrets to mask (the provider's only one). */
export interface TraceRecorderTuning {
  /** Values kept out of the archive, each shown as its mask (redaction.ts). */
  secrets?: readonly TraceSecret[];
  clock?: TraceClock;
  stepTimeoutMs?: number;
  /**
   * The page is a new tab's initial about:blank that nothing has written
   * into (the capture's own fresh page): until its main frame navigates, its
   * snapshot is known without asking the page, which would cost a utility
   * world and the runtime's install in a document about to be replaced.
   */
  pageIsBlank?: boolean;
}

/** Chromium may drop a body before we ask for it unless its buffers are this large. */
const NETWORK_BUFFERS = { maxTotalBufferSize: 64 * 1024 * 1024, maxResourceBufferSize: 16 * 1024 * 1024 };

/**
 * Records one page into a Playwright trace archive from raw CDP: context
 * options, one before/after pair per action with DOM snapshots before, at
 * and after it, the screencast, network log with bodies, console and page
 * errors. Call `start` right after the page exists and before navigating,
 * so the navigation's stylesheets, fonts and images are in the archive.
 */
export class TraceRecorder {
  private readonly events: TraceEvent[] = [];
  private readonly store = new ResourceStore();
  private readonly listeners: [CdpEvent, (params: any) => void][] = [];
  private callCount = 0;
  /** The main frame still shows the fresh page's initial about:blank (tuning.pageIsBlank, until it navigates). */
  private blank = false;
  /** Trace time the last call ended (its `after` event), or recording began. */
  private lastCallEnded = 0;
  private state: 'recording' | 'finished' | 'disposed' = 'recording';
  private secrets: readonly TraceSecret[] = [];

  private network!: NetworkCapture;
  private screencast!: Screencast;
  private snapshotter!: Snapshotter;
  /** Back-references are numbered per frame, as the viewer lists snapshots per frame. */
  private readonly references = new Map<string, SubtreeReferencer>();

  private constructor(
    private readonly session: CdpSession,
    private readonly options: TraceContextOptions,
    private readonly clock: TraceClock,
    private readonly stepTimeoutMs: number,
    private readonly pageId: string,
    private readonly mainFrameCdpId: string,
  ) {}

  /**
   * Subscribes to the session and enables the Page, Network, Runtime and Log
   * domains on it (they stay enabled afterwards), then starts the screencast.
   */
  static async start(session: CdpSession, options: TraceContextOptions, tuning: TraceRecorderTuning = {}): Promise<TraceRecorder> {
    if (typeof session.on !== 'function') throw new Error('TraceRecorder needs a CDP session that emits events (session.on)');
    const [targetInfo, frameTree] = await Promise.all([session.send('Target.getTargetInfo').catch(() => undefined), session.send('Page.getFrameTree')]);
    const targetId: string = targetInfo?.targetInfo?.targetId ?? randomId();
    const mainFrameCdpId: string = frameTree.frameTree.frame.id;
    const recorder = new TraceRecorder(
      session,
      options,
      tuning.clock ?? monotonicClock,
      tuning.stepTimeoutMs ?? TRACE_STEP_TIMEOUT_MS,
      pageIdFor(targetId),
      mainFrameCdpId,
    );
    recorder.blank = tuning.pageIsBlank === true;
    recorder.secrets = tuning.secrets ?? [];
    try {
      await recorder.begin(frameTree.frameTree);
    } catch (error) {
      await recorder.dispose();
      throw error;
    }
    return recorder;
  }

  private async begin(frameTree: FrameTreeNode): Promise<void> {
    const emit = (event: TraceEvent) => this.emit(event);
    this.network = new NetworkCapture(this.session, this.clock, this.store, this.pageId);
    this.screencast = new Screencast(this.session, this.clock, this.store, this.pageId, emit);
    this.snapshotter = new Snapshotter(this.session, this.clock, this.pageId, this.mainFrameCdpId);
    this.snapshotter.seedFrames(frameTree);
    const pageEvents = new PageEvents(this.clock, this.pageId, emit);
    for (const handlers of [this.network.handlers, this.screencast.handlers, pageEvents.handlers]) {
      for (const [name, handler] of Object.entries(handlers)) this.listen(name as CdpEvent, handler);
    }
    this.listen('Page.frameNavigated', (p) => {
      this.snapshotter.invalidate(p.frame?.id);
      if (p.frame?.id === this.mainFrameCdpId) this.blank = false;
    });
    this.listen('Page.frameDetached', (p) => this.snapshotter.frameDetached(p.frameId, p.reason));
    this.listen('Page.frameAttached', (p) => this.snapshotter.frameAttached(p.frameId, p.parentFrameId));
    this.listen('Runtime.executionContextsCleared', () => this.snapshotter.invalidate());

    const { viewport, deviceScaleFactor, colorScheme, browserName, browserVersion, userAgent } = this.options;
    this.emit({
      version: TRACE_FORMAT_VERSION,
      type: 'context-options',
      origin: 'library',
      browserName,
      browserVersion,
      platform: process.platform,
      wallTime: Date.now(),
      monotonicTime: this.clock.now(),
      title: `${browserName} ${browserVersion}`.trim(),
      options: { viewport, deviceScaleFactor, colorScheme, isMobile: false, ...(userAgent ? { userAgent } : {}) },
      sdkLanguage: 'javascript',
      testIdAttributeName: 'data-testid',
    });
    this.emit({ type: 'event', time: this.clock.now(), class: 'BrowserContext', method: 'page', params: { pageId: this.pageId } });

    await Promise.all([
      this.session.send('Page.enable'),
      this.session.send('Network.enable', NETWORK_BUFFERS),
      this.session.send('Runtime.enable'),
      this.session.send('Log.enable'),
    ]);
    await this.screencast.start();
    this.lastCallEnded = this.clock.now();
  }

  /** Records a navigation as a `goto` call with before/after snapshots. */
  async navigation(url: string, run: () => Promise<void>): Promise<void> {
    await this.traced({ class: 'Frame', method: 'goto', params: { url }, isInput: false }, run);
  }

  /**
   * Runs one action between its before and after events. Input actions also
   * get an `input` event (the point from `inputPoint`, else the target's
   * centre for a call that points at it: a click, a hover; the target's box) and a snapshot at the moment of the
   * action with the target highlighted. Errors are recorded, then rethrown.
   */
  async action<T>(call: TraceCall, run: () => Promise<T>, inputPoint?: () => Promise<{ x: number; y: number } | undefined>): Promise<T> {
    return this.traced(call, run, inputPoint);
  }

  /** A recorder step bounded by the step timeout (a dialog can block the page indefinitely). */
  private bounded<T>(work: Promise<T>, what: string): Promise<T> {
    return withDeadline(work, this.stepTimeoutMs, `${what} timed out after ${this.stepTimeoutMs} ms (is a dialog open?)`);
  }

  private async traced<T>(call: TraceCall, run: () => Promise<T>, inputPoint?: () => Promise<Point | undefined>): Promise<T> {
    this.assertRecording();
    const callId = `call@${++this.callCount}`;
    this.emit({ type: 'before', callId, startTime: this.clock.now(), class: call.class, method: call.method, params: call.params, pageId: this.pageId });
    if (call.isInput) {
      const pair = await this.beforeAndAction(callId, call.target);
      if (pair) this.write(pair.before);
      let point: Point | undefined;
      if (inputPoint) point = await this.bounded(inputPoint(), 'input point').catch(() => undefined);
      const emitInput = (targetBox: Box | undefined) => {
        if (!point && targetBox && call.pointsAtTarget) point = { x: targetBox.x + targetBox.width / 2, y: targetBox.y + targetBox.height / 2 };
        this.emit({ type: 'input', callId, ...(point ? { point } : {}), ...(targetBox ? { box: targetBox } : {}) });
      };
      const box = pair ? this.write(pair.action, emitInput) : null;
      if (box === null) this.emit({ type: 'input', callId, ...(point ? { point } : {}) });
    } else {
      await this.snapshot(callId, 'before');
    }
    let result: T;
    try {
      result = await run();
    } catch (error) {
      const e = error instanceof Error ? error : new Error(String(error));
      this.lastCallEnded = this.clock.now();
      this.emit({ type: 'after', callId, endTime: this.lastCallEnded, error: { message: e.message, name: e.name, stack: e.stack } });
      await this.snapshot(callId, 'after');
      throw error;
    }
    this.lastCallEnded = this.clock.now();
    this.emit({ type: 'after', callId, endTime: this.lastCallEnded });
    await this.snapshot(callId, 'after');
    return result;
  }

  /**
   * Captures and emits one snapshot. A page mid-navigation can refuse; that
   * is logged on the call rather than failing the action (the viewer then
   * shows the neighbouring snapshot). Returns null when no snapshot was taken.
   */
  private async snapshot(
    callId: string,
    phase: ActionPhase,
    targetSelector?: string,
    beforeEmit?: (targetBox: Box | undefined) => void,
  ): Promise<Box | undefined | null> {
    const captured = this.blank
      ? this.snapshotter.blank(callId, phase, this.options.viewport)
      : await this.take(callId, [phase], () => this.snapshotter.capture(callId, phase, this.walkOptions(targetSelector)));
    return captured ? this.write(captured, beforeEmit) : null;
  }

  /** An input action's 'before' and 'action' snapshots, from one walk of the page (Snapshotter.captureBeforeAndAction); null when it failed. */
  private async beforeAndAction(callId: string, targetSelector?: string): Promise<{ before: CapturedSnapshot; action: CapturedSnapshot } | null> {
    if (this.blank) {
      const { viewport } = this.options;
      return { before: this.snapshotter.blank(callId, 'before', viewport), action: this.snapshotter.blank(callId, 'action', viewport) };
    }
    return this.take(callId, ['before', 'action'], () => this.snapshotter.captureBeforeAndAction(callId, this.walkOptions(targetSelector)));
  }

  private walkOptions(targetSelector?: string): WalkOptions {
    return { targetSelector, knownUrls: this.network.recordedUrls() };
  }

  /** A walk of the page, bounded; a failure is logged on the call for each phase it was for, and gives null. */
  private async take<T>(callId: string, phases: ActionPhase[], walk: () => Promise<T>): Promise<T | null> {
    try {
      return await this.bounded(walk(), `${phases.join(' and ')} snapshot`);
    } catch (error) {
      for (const phase of phases) this.emit({ type: 'log', callId, time: this.clock.now(), message: `${phase} snapshot failed: ${(error as Error).message}` });
      return null;
    }
  }

  /** Emits a taken snapshot's frames (after `beforeEmit`); null once recording has ended. */
  private write(captured: CapturedSnapshot, beforeEmit?: (targetBox: Box | undefined) => void): Box | undefined | null {
    for (const sheet of captured.unrecordedStylesheets) this.network.addSynthesizedStylesheet(sheet.url, sheet.text, sheet.frameCdpId);
    // Back-references count written snapshots: encode only what is written.
    if (this.state !== 'recording') return null;
    beforeEmit?.(captured.targetBox);
    for (const snapshot of captured.snapshots) {
      let references = this.references.get(snapshot.frameId);
      if (!references) this.references.set(snapshot.frameId, (references = new SubtreeReferencer()));
      this.emit({ type: 'frame-snapshot', snapshot: { ...snapshot, html: references.encode(snapshot.html) } });
    }
    return captured.targetBox;
  }

  /**
   * Ends the film strip on a frame after the last call (the screencast's
   * own when the page painted since, else Screencast.endStrip), stops recording
   * and returns the ZIP bytes. `recorded` is told once the page's last frame
   * is in: what follows (draining the network, the archive) is this side's work.
   */
  async finish(recorded?: () => void): Promise<Buffer> {
    this.assertRecording();
    try {
      // Independent waits: let in-flight requests finish while the final frame is taken.
      const painted = this.screencast.hasFrameSince(this.lastCallEnded);
      await Promise.all([
        this.network.settle(TRACE_NETWORK_SETTLE_MS),
        painted ? undefined : this.bounded(this.screencast.endStrip(this.options.viewport), 'final frame').catch(() => undefined),
      ]);
      await this.bounded(this.screencast.stop(), 'stop screencast').catch(() => undefined);
      this.state = 'finished';
      this.unlisten();
      recorded?.();
      const network = await this.network.drain(this.stepTimeoutMs);
      return await writeTraceZip(this.events, network, this.store, this.secrets);
    } finally {
      this.state = 'finished';
      this.unlisten();
    }
  }

  /** Stops the screencast and detaches listeners without producing bytes. */
  async dispose(): Promise<void> {
    if (this.state === 'disposed') return;
    this.state = 'disposed';
    this.unlisten();
    if (this.screencast) await this.bounded(this.screencast.stop(), 'stop screencast').catch(() => undefined);
  }

  private emit(event: TraceEvent): void {
    if (this.state === 'recording') this.events.push(event);
  }

  private listen(name: CdpEvent, handler: (params: any) => void): void {
    this.session.on!(name, handler);
    this.listeners.push([name, handler]);
  }

  private unlisten(): void {
    for (const [name, handler] of this.listeners.splice(0)) this.session.off?.(name, handler);
  }

  private assertRecording(): void {
    if (this.state !== 'recording') throw new Error(`TraceRecorder is ${this.state}`);
  }
}

function randomId(): string {
  return Math.random().toString(16).slice(2) + Date.now().toString(16);
}
