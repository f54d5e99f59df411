/**
 * The bundled capture provider: Puppeteer + raw CDP. One capture =
 *   own browser context -> emulation -> navigation -> freeze -> actions ->
 *   freeze again -> the capture type's bytes -> observed_state -> context closed.
 * Captures run on the least-loaded browser of the pool (browserPool.ts), up
 * to DESIGN_PLAYBOOK_MAX_PARALLEL on each (the rest queue), each within
 * DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS; a capture that runs
 * out of budget (a page hanging its main thread, a body that never ends) has
 * its context closed from the browser side, and the server keeps serving.
 *
 * Every step races against the capture being lost: the page's renderer
 * crashing (Puppeteer's page 'error', from Inspector.targetCrashed), its
 * target closing, or the browser disconnecting end the capture at once with
 * the failures.ts wording naming the step (`the page's renderer crashed (out
 * of memory?) during actions[0] click '#boom'`), not after the step's budget.
 * Closing the provider (shutdown) ends the captures in flight the same way,
 * with ShutdownError.
 *
 * It implements CaptureProvider itself: the capture type's output already
 * carries the payload fields the boundary reads (render_tokens, page_facts,
 * warnings), so the bytes are staged with context.writeArtifact and the rest
 * is returned as is.
 */
import type { Browser, BrowserContext, CDPSession, Page } from 'puppeteer-core';
import type { CaptureContext, CaptureProvider, ProviderPayload } from '../../contract/captureProvider';
import type { CaptureRequestSnapshot } from '../../contract/captureContract';
import type { RuntimeFields } from '../../contract/toolArguments';
import { captureToolDeclaration, TOOL_NAME } from '../../contract/toolDeclaration';
import { CLEANUP_STEP_MS, LOSS_EVENT_GRACE_MS, PAGE_CLOSE_GRACE_MS, withDeadline } from '../../common/time';
import { CaptureCancelled, captureOverrun, explainStall, explainStepStall, lostDuring, ShutdownError, type LostKind } from '../../common/failures';
import { classifyProtocolError } from '../../../cdp/failureKinds';
import type { BrowserSession } from '../fleet/browserSession';
import { BrowserPool } from '../fleet/browserPool';
import { captureTimeoutMs, fixedTime, navigationTimeoutMs, settleMaxMs, type BrowserFlags } from '../options';
import { redactUrl } from '../../common/redact';
import { PageClock, fixedTimeWarning } from '../page/pageClock';
import { LoadTracker, mainThread, navigate } from '../page/pageSetup';
import { applyFreeze } from '../page/freeze';
import { runActions } from './actionRunner';
import { readObservedState } from '../page/observedState';
import { CAPTURE_TYPE_MODULES, type CaptureTypeRun } from './types';
import { CaptureOverrun, CaptureProgress, type CaptureStep, type StepListener } from './captureProgress';

/** What one capture produced: the artifact's bytes and the payload that reports it. */
interface CaptureOutcome {
  bytes: Buffer;
  payload: ProviderPayload;
}

/** What the caller of one capture watches it with: its own signal (cancel) and a listener told each step. */
export interface CaptureWatch {
  /** When it fires, the capture ends at once: its context closed, nothing returned (CaptureCancelled). */
  signal?: AbortSignal;
  /** Told each step as it starts (navigation, settle, actions[i] of n, capture…), for progress notifications. */
  onStep?: StepListener;
}

/**
 * The steps CaptureRun.execute() enters for these fields, in order (each
 * action, then the settle after them; the type's own after `capture`): what
 * a progress total counts.
 */
export function plannedSteps(fields: RuntimeFields): CaptureStep[] {
  const actions: CaptureStep[] = fields.actions.length ? [...fields.actions.map((): CaptureStep => 'action'), 'settle'] : [];
  const typeSteps = CAPTURE_TYPE_MODULES[fields.type]?.steps ?? [];
  return ['browser', 'context', 'setup', 'start', 'navigation', 'settle', ...actions, 'capture', ...typeSteps, 'observed-state'];
}

/** A step's error that may mean its page or browser went away (the loss event may follow a moment later). */
const mayBeLoss = (err: unknown) => {
  const kind = classifyProtocolError(err);
  return kind === 'target-gone' || kind === 'frame-detached';
};

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * One capture's page and what it opened, so a budget overrun, a crash, a
 * shutdown or a cancellation can tear it down from outside. Its progress
 * (captureProgress.ts) holds the step under way, as it reads after "during"
 * (`navigation to …`, `actions[0] click '#boom'`), and the signal that ends it.
 */
class CaptureRun {
  private context: BrowserContext | null = null;
  private cdp: CDPSession | null = null;
  private typeRun: CaptureTypeRun | null = null;
  private cleaned: Promise<void> | null = null;
  private load: LoadTracker | null = null;
  private navigating = false;
  private settled = false;
  private readonly unwatch: Array<() => void> = [];
  readonly warnings: string[] = [];
  /** What ended the capture from outside, once it happened. */
  lostKind: LostKind | 'shutdown' | null = null;

  constructor(
    private readonly session: BrowserSession,
    private readonly fields: RuntimeFields,
    private readonly request: CaptureRequestSnapshot,
    private readonly flags: BrowserFlags,
    private readonly env: NodeJS.ProcessEnv,
    readonly progress: CaptureProgress,
  ) {}

  /** Ends the capture now with what went away; later losses (the close that follows a crash) are ignored. */
  private markLost(kind: LostKind | 'shutdown'): void {
    if (this.lostKind || this.settled) return;
    this.lostKind = kind;
    const target = this.session.attachTarget();
    this.progress.abort(
      kind === 'shutdown' ? new ShutdownError() : new Error(lostDuring(kind, this.progress.during, target ? redactUrl(target.url) : undefined)),
    );
  }

  private browserGoneKind(): LostKind {
    return this.session.attachTarget() ? 'attached-browser-gone' : 'browser-exited';
  }

  /** The server is shutting down: the capture ends now with ShutdownError. */
  shutdown(): void {
    this.markLost('shutdown');
  }

  private watchBrowser(browser: Browser): void {
    const gone = () => this.markLost(this.browserGoneKind());
    browser.once('disconnected', gone);
    this.unwatch.push(() => browser.off('disconnected', gone));
    if (!browser.connected) gone();
  }

  private watchPage(page: Page): void {
    const crashed = () => this.markLost('renderer-crashed');
    // A page also closes when its browser goes: the disconnect, a moment later, is the better answer.
    const closed = () => {
      const timer = setTimeout(() => this.markLost(page.browser().connected ? 'page-closed' : this.browserGoneKind()), PAGE_CLOSE_GRACE_MS);
      this.unwatch.push(() => clearTimeout(timer));
    };
    page.on('error', crashed);
    page.once('close', closed);
    this.unwatch.push(() => {
      page.off('error', crashed);
      page.off('close', closed);
    });
  }

  /** The capture returned or failed: nothing that happens to its page afterwards is a loss. */
  settle(): void {
    this.settled = true;
    this.progress.finish();
    for (const stop of this.unwatch.splice(0)) stop();
  }

  /** Why the step under way had not finished when the whole-capture budget ran out. */
  async diagnose(): Promise<string> {
    if (this.navigating && this.load) return explainStall(await this.load.diagnose(this.cdp));
    return explainStepStall(await mainThread(this.cdp));
  }

  async execute(): Promise<CaptureOutcome> {
    const { fields, request, progress } = this;
    const browser = await this.session.acquire();
    progress.throwIfAborted();
    this.watchBrowser(browser);
    progress.enter('context', 'opening a browser context');
    // Set up for the viewport already when it was the spare prepared after the last capture (browserSession.ts).
    const opened = await this.session.newContextAndPage(browser, request.viewport);
    this.context = opened.context;
    const page = opened.page;
    // The capture's own session carries the page's emulation, so it takes the screenshot too (pageSetup.ts).
    this.cdp = opened.emulation.cdp;
    this.watchPage(page);
    progress.enter('setup', "the page's set-up (viewport, colour scheme, clock)");
    const fixed = fixedTime(this.flags, this.env);
    // The clock is installed per capture: its start is the capture's own instant.
    if (request.freeze.enabled) await PageClock.install(page, this.cdp, fixed, settleMaxMs(this.env));
    progress.throwIfAborted();
    if (request.freeze.enabled) {
      if (fixed) this.warnings.push(fixedTimeWarning(fixed));
    } else if (fixed) {
      this.warnings.push(`fixed clock not applied: freeze.enabled is false, so the page ran on the wall clock (${fixed.source} is set)`);
    }
    progress.enter('start', `the start of the ${fields.type} capture`);
    const module = CAPTURE_TYPE_MODULES[fields.type];
    if (!module) throw new Error(`capture type '${fields.type}' is not available in this build`);
    const cdp = this.cdp;
    const typeRun = (this.typeRun = await module.start({ browser, page, cdp, fields, request, progress }));

    progress.enter('navigation', `navigation to ${fields.url}`);
    this.load = new LoadTracker(page);
    this.navigating = true;
    const go = async () => {
      this.warnings.push(...(await navigate(page, fields.url, request.freeze, { budgetMs: navigationTimeoutMs(this.env), tracker: this.load!, cdp })));
    };
    try {
      if (typeRun.navigate) await typeRun.navigate(fields.url, go);
      else await go();
    } finally {
      this.navigating = false;
      this.load.stop();
    }
    progress.enter('settle', 'the freeze after navigation');
    this.warnings.push(...(await applyFreeze(page, request.freeze, progress.signal)));
    if (fields.actions.length) {
      await runActions(page, fields.actions, { session: cdp, progress, wrap: typeRun.wrapAction?.bind(typeRun) });
      progress.enter('settle', 'the freeze after the actions');
      this.warnings.push(...(await applyFreeze(page, request.freeze, progress.signal)));
    }
    progress.enter('capture', `the ${fields.type} capture`);
    // Read once the page has given the artifact what it holds, while the type finishes on this side (the probe, the archive).
    let observed: Promise<string> | null = null;
    const { bytes, ...measured } = await typeRun.finish(() => (observed ??= readObservedState(page)));
    progress.enter('observed-state', 'the observed_state read');
    const payload: ProviderPayload = { result: 'captured', ...measured, observed_state: await (observed ?? readObservedState(page)) };
    const warnings = [...new Set([...this.warnings, ...(measured.warnings ?? [])])];
    if (warnings.length) payload.warnings = warnings;
    else delete payload.warnings;
    return { bytes, payload };
  }

  /**
   * Idempotent: closes the context first — the browser disposes it even when
   * its renderer hangs, and every call still waiting on that page then fails
   * at once — then releases the capture type and the CDP session (bounded).
   */
  cleanup(): Promise<void> {
    if (!this.cleaned) {
      this.settle();
      this.cleaned = (async () => {
        if (this.context) await this.session.closeContext(this.context);
        await withDeadline(this.typeRun?.dispose() ?? Promise.resolve(), CLEANUP_STEP_MS, { took: 'disposing the capture type' }).catch(() => undefined);
        await withDeadline(this.cdp?.detach() ?? Promise.resolve(), CLEANUP_STEP_MS, { took: 'detaching the CDP session' }).catch(() => undefined);
      })();
    }
    return this.cleaned;
  }

  /**
   * After an overrun the pipeline may still open a context (it was mid-await);
   * once it settles, whatever it opened is closed. Closing twice is harmless:
   * the session skips contexts it already closed.
   */
  async cleanupLate(): Promise<void> {
    await this.cleanup();
    await withDeadline(this.typeRun?.dispose() ?? Promise.resolve(), CLEANUP_STEP_MS, { took: 'disposing the capture type' }).catch(() => undefined);
    if (this.context) await this.session.closeContext(this.context);
  }
}

export interface PuppeteerProviderOptions {
  /** The browser flags, read whenever a browser is started (the CLI sets them). */
  flags?: () => BrowserFlags;
  session?: BrowserSession;
  env?: NodeJS.ProcessEnv;
}

export class PuppeteerCaptureProvider implements CaptureProvider {
  readonly toolName = TOOL_NAME;
  /** The browsers captures run on: one launched, or a pool of attached endpoints. */
  readonly browsers: BrowserPool;
  private readonly env: NodeJS.ProcessEnv;
  private readonly flags: () => BrowserFlags;
  /** The captures under way, so a shutdown can end them at once. */
  private readonly running = new Set<CaptureRun>();
  /** Contexts of answered captures still closing (off the answer's path); a shutdown waits for them. */
  private readonly closingAfterAnswer = new Set<Promise<void>>();
  private closing = false;

  constructor(options: PuppeteerProviderOptions = {}) {
    this.env = options.env ?? process.env;
    this.flags = options.flags ?? (() => ({}));
    this.browsers = new BrowserPool(options.flags, this.env, options.session);
  }

  describe() {
    return captureToolDeclaration();
  }

  /** The seam's capture: the caller's signal cancels it, and each step is told to `context.onStep` with the steps planned. */
  async capture(_args: Record<string, unknown>, context: CaptureContext): Promise<ProviderPayload> {
    const watch: CaptureWatch = { signal: context.signal };
    if (context.onStep) {
      const expectedSteps = plannedSteps(context.fields).length;
      watch.onStep = (r) => context.onStep?.({ step: r.step, message: r.during, index: r.index, count: r.total, expectedSteps });
    }
    const { bytes, payload } = await this.captureWithinLimits(context.fields, context.request, watch);
    context.writeArtifact(bytes);
    return payload;
  }

  /**
   * One capture on the least-loaded browser, queued while every browser runs
   * its DESIGN_PLAYBOOK_MAX_PARALLEL. `watch.signal` cancels it, queued or
   * running; `watch.onStep` is told each step.
   */
  async captureWithinLimits(fields: RuntimeFields, request: CaptureRequestSnapshot, watch: CaptureWatch = {}): Promise<CaptureOutcome> {
    let attempts = 0;
    const pooled = this.browsers.run(async (session) => {
      attempts++;
      try {
        return await this.runWithinBudget(session, fields, request, watch);
      } finally {
        attempts--;
      }
    });
    const { value, warnings } = await (watch.signal ? untilCancelledWhileQueued(pooled, watch.signal, () => attempts > 0) : pooled);
    if (warnings.length) value.payload.warnings = [...(value.payload.warnings ?? []), ...warnings];
    return value;
  }

  private async runWithinBudget(session: BrowserSession, fields: RuntimeFields, request: CaptureRequestSnapshot, watch: CaptureWatch): Promise<CaptureOutcome> {
    if (this.closing) throw new ShutdownError();
    const progress = new CaptureProgress(captureTimeoutMs(this.env), { parent: watch.signal, onStep: watch.onStep });
    const run = new CaptureRun(session, fields, request, this.flags(), this.env, progress);
    const generation = session.generation;
    this.running.add(run);
    let workSettled = false;
    // A call cancelled while it waited for a slot starts nothing.
    const work = (async () => {
      progress.throwIfAborted();
      return run.execute();
    })();
    work.then(
      () => (workSettled = true),
      () => (workSettled = true),
    );
    let answered = false;
    try {
      const outcome = await this.untilEnded(run, work);
      answered = true;
      return outcome;
    } catch (err) {
      if (this.closing) throw new ShutdownError();
      throw this.explain(err, session, generation, progress.during);
    } finally {
      this.running.delete(run);
      if (answered && !session.attachTarget()) {
        // The artifact is in hand: a launched browser's context closes while the answer goes out (it is never reused,
        // so isolation holds). An attached browser's is closed first: its connection may end right after the capture.
        const closing = run
          .cleanup()
          .catch(() => undefined)
          .finally(() => this.closingAfterAnswer.delete(closing));
        this.closingAfterAnswer.add(closing);
      } else {
        await run.cleanup();
      }
      if (!workSettled) {
        // The pipeline may still be between awaits; whatever it opens next is closed too.
        work.then(
          () => run.cleanupLate(),
          () => run.cleanupLate(),
        );
      }
    }
  }

  /**
   * The capture's work against what can end it first (its progress signal):
   * the page or browser going away, shutdown and cancellation (at once,
   * naming the step), and the whole-capture budget (the stall diagnosed: a
   * body still arriving, a busy main thread…).
   */
  private async untilEnded(run: CaptureRun, work: Promise<CaptureOutcome>): Promise<CaptureOutcome> {
    const { progress } = run;
    const ended = progress.whenAborted();
    ended.catch(() => undefined);
    try {
      return await Promise.race([work, ended]);
    } catch (err) {
      // The crash or disconnect that explains a closed session may arrive a moment after it.
      if (!progress.aborted && mayBeLoss(err)) await Promise.race([ended, sleep(LOSS_EVENT_GRACE_MS)]).catch(() => undefined);
      const cause: unknown = progress.aborted ? progress.signal.reason : err;
      if (cause instanceof CaptureOverrun) {
        const why = await run.diagnose().catch(() => explainStepStall('unknown'));
        throw new Error(captureOverrun(cause.budgetMs, cause.during, why));
      }
      throw cause;
    } finally {
      run.settle();
    }
  }

  /** Turns "Target closed"-style errors into what happened: the browser went away. */
  private explain(err: unknown, session: BrowserSession, generation: number, stage: string): Error {
    const error = err instanceof Error ? err : new Error(String(err));
    if (!session.lostSince(generation)) return error;
    const target = session.attachTarget();
    return new Error(lostDuring(target ? 'attached-browser-gone' : 'browser-exited', stage, target ? redactUrl(target.url) : undefined));
  }

  /** Ends the captures under way (answered with ShutdownError), then closes the browsers. */
  async close(): Promise<void> {
    this.closing = true;
    for (const run of this.running) run.shutdown();
    await Promise.all(this.closingAfterAnswer);
    await this.browsers.close();
  }
}

/**
 * The pool's run, or CaptureCancelled as soon as `signal` fires while no
 * attempt is running (waiting for a slot, or for the retry's); a running
 * attempt ends through its own progress, naming its step. An attempt that
 * starts after the cancellation ends at once.
 */
function untilCancelledWhileQueued<T>(pooled: Promise<T>, signal: AbortSignal, running: () => boolean): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const cancel = () => {
      if (!running()) reject(new CaptureCancelled('the wait for a browser'));
    };
    if (signal.aborted) cancel();
    else signal.addEventListener('abort', cancel, { once: true });
    pooled.then(resolve, reject).finally(() => signal.removeEventListener('abort', cancel));
  });
}
