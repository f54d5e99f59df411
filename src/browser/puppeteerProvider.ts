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
import type { CaptureContext, CaptureProvider, ProviderPayload } from '../provider';
import type { CaptureRequestSnapshot } from '../contract';
import type { RuntimeFields } from '../request';
import { captureToolDeclaration, TOOL_NAME } from '../toolDeclaration';
import { CLEANUP_STEP_MS, stepWithin } from '../deadline';
import { captureOverrun, explainStall, explainStepStall, lostDuring, ShutdownError, type LostKind } from '../failures';
import type { BrowserSession } from './browserSession';
import { BrowserPool } from './browserPool';
import { captureTimeoutMs, fixedTime, navigationTimeoutMs, settleMaxMs, type BrowserFlags } from './options';
import { redactUrl } from '../redact';
import { PageClock, fixedTimeWarning } from './pageClock';
import { emulate, LoadWatch, mainThread, navigate } from './pageSetup';
import { applyFreeze } from './freeze';
import { describeAction, runActions } from './actionRunner';
import { readObservedState } from './observedState';
import { CAPTURE_TYPE_MODULES, type CaptureTypeRun } from './captureTypes';

/** What one capture produced: the artifact's bytes and the payload that reports it. */
interface CaptureOutcome {
  bytes: Buffer;
  payload: ProviderPayload;
}

class CaptureAborted extends Error {
  constructor() {
    super('capture aborted');
    this.name = 'CaptureAborted';
  }
}

/** Errors a step gets when its page or browser went away under it (the loss event may follow a moment later). */
const LOST_LIKE = /Target crashed|Target closed|Session closed|detached|Connection closed|Page crashed|browser has disconnected/i;
/** How long a step's "session closed" error waits for the crash or disconnect event that explains it. */
const LOSS_EVENT_GRACE_MS = 300;

/**
 * One capture's page and what it opened, so a budget overrun, a crash or a
 * shutdown can tear it down from outside. `stage` names the step under way
 * as it reads after "during" (`navigation to …`, `actions[0] click '#boom'`).
 */
class CaptureRun {
  stage = 'the wait for a browser';
  private aborted = false;
  private context: BrowserContext | null = null;
  private cdp: CDPSession | null = null;
  private typeRun: CaptureTypeRun | null = null;
  private cleaned: Promise<void> | null = null;
  private load: LoadWatch | null = null;
  private navigating = false;
  private settled = false;
  private readonly unwatch: Array<() => void> = [];
  readonly warnings: string[] = [];
  /** What ended the capture from outside, once it happened. */
  lostKind: LostKind | 'shutdown' | null = null;
  private rejectLost!: (err: Error) => void;
  /** Rejects when the page crashes or closes, the browser goes away, or the server shuts down. */
  readonly lost: Promise<never> = new Promise<never>((_, reject) => (this.rejectLost = reject));

  constructor(
    private readonly session: BrowserSession,
    private readonly fields: RuntimeFields,
    private readonly request: CaptureRequestSnapshot,
    private readonly flags: BrowserFlags,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.lost.catch(() => undefined);
  }

  private check(): void {
    if (this.aborted) throw new CaptureAborted();
  }

  /** Sets the step under way (also for the capture type: the probe after the screenshot). */
  readonly setStage = (stage: string): void => {
    if (!this.aborted) this.stage = stage;
  };

  /** Ends the capture now with what went away; later losses (the close that follows a crash) are ignored. */
  private markLost(kind: LostKind | 'shutdown'): void {
    if (this.lostKind || this.settled) return;
    this.lostKind = kind;
    this.aborted = true;
    const target = this.session.attachTarget();
    this.rejectLost(kind === 'shutdown' ? new ShutdownError() : new Error(lostDuring(kind, this.stage, target ? redactUrl(target.url) : undefined)));
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
      const timer = setTimeout(() => this.markLost(page.browser().connected ? 'page-closed' : this.browserGoneKind()), 50);
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
    for (const stop of this.unwatch.splice(0)) stop();
  }

  /** Why the step under way had not finished when the whole-capture budget ran out. */
  async diagnose(): Promise<string> {
    if (this.navigating && this.load) return explainStall(await this.load.diagnose(this.cdp));
    return explainStepStall(await mainThread(this.cdp));
  }

  async execute(): Promise<CaptureOutcome> {
    const { fields, request } = this;
    const browser = await this.session.acquire();
    this.check();
    this.watchBrowser(browser);
    this.stage = 'opening a browser context';
    const opened = await this.session.newContextAndPage(browser);
    this.context = opened.context;
    const page = opened.page;
    this.watchPage(page);
    this.check();
    this.stage = "the page's set-up (viewport, colour scheme, clock)";
    // The capture's own session carries the page's emulation, so it takes the screenshot too (pageSetup.ts).
    this.cdp = await page.createCDPSession();
    await emulate(page, this.cdp, request.viewport);
    this.check();
    const fixed = fixedTime(this.flags, this.env);
    if (request.freeze.enabled) {
      await PageClock.install(page, this.cdp, fixed, settleMaxMs(this.env));
      if (fixed) this.warnings.push(fixedTimeWarning(fixed));
    } else if (fixed) {
      this.warnings.push(`fixed clock not applied: freeze.enabled is false, so the page ran on the wall clock (${fixed.source} is set)`);
    }
    this.check();
    this.stage = `the start of the ${fields.type} capture`;
    const module = CAPTURE_TYPE_MODULES[fields.type];
    if (!module) throw new Error(`capture type '${fields.type}' is not available in this build`);
    const cdp = this.cdp;
    const typeRun = (this.typeRun = await module.start({ browser, page, cdp, fields, request, setStage: this.setStage }));
    this.check();

    this.stage = `navigation to ${fields.url}`;
    this.load = new LoadWatch(page);
    this.navigating = true;
    const go = async () => {
      this.warnings.push(...(await navigate(page, fields.url, request.freeze, { budgetMs: navigationTimeoutMs(this.env), watch: this.load!, cdp })));
    };
    try {
      if (typeRun.navigate) await typeRun.navigate(fields.url, go);
      else await go();
    } finally {
      this.navigating = false;
      this.load.stop();
    }
    this.check();
    this.stage = 'the freeze after navigation';
    this.warnings.push(...(await applyFreeze(page, request.freeze)));
    this.check();
    if (fields.actions.length) {
      await runActions(page, fields.actions, {
        session: this.cdp,
        wrap: async (index, action, run) => {
          this.check();
          this.stage = describeAction(index, action);
          if (typeRun.wrapAction) await typeRun.wrapAction(index, action, run);
          else await run();
        },
      });
      this.check();
      this.stage = 'the freeze after the actions';
      this.warnings.push(...(await applyFreeze(page, request.freeze)));
      this.check();
    }
    this.stage = `the ${fields.type} capture`;
    const { bytes, ...measured } = await typeRun.finish();
    this.check();
    this.stage = 'the observed_state read';
    const payload: ProviderPayload = { result: 'captured', ...measured, observed_state: await readObservedState(page) };
    const warnings = [...new Set([...this.warnings, ...(measured.warnings ?? [])])];
    if (warnings.length) payload.warnings = warnings;
    else delete payload.warnings;
    return { bytes, payload };
  }

  abort(): void {
    this.aborted = true;
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
        await stepWithin(this.typeRun?.dispose() ?? Promise.resolve(), CLEANUP_STEP_MS, 'disposing the capture type').catch(() => undefined);
        await stepWithin(this.cdp?.detach() ?? Promise.resolve(), CLEANUP_STEP_MS, 'detaching the CDP session').catch(() => undefined);
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
    await stepWithin(this.typeRun?.dispose() ?? Promise.resolve(), CLEANUP_STEP_MS, 'disposing the capture type').catch(() => undefined);
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
  private closing = false;

  constructor(options: PuppeteerProviderOptions = {}) {
    this.env = options.env ?? process.env;
    this.flags = options.flags ?? (() => ({}));
    this.browsers = new BrowserPool(options.flags, this.env, options.session);
  }

  describe() {
    return captureToolDeclaration();
  }

  async capture(_args: Record<string, unknown>, context: CaptureContext): Promise<ProviderPayload> {
    const { bytes, payload } = await this.captureWithinLimits(context.fields, context.request);
    context.writeArtifact(bytes);
    return payload;
  }

  /** One capture on the least-loaded browser, queued while every browser runs its DESIGN_PLAYBOOK_MAX_PARALLEL. */
  async captureWithinLimits(fields: RuntimeFields, request: CaptureRequestSnapshot): Promise<CaptureOutcome> {
    const { value, warnings } = await this.browsers.run((session) => this.runWithinBudget(session, fields, request));
    if (warnings.length) value.payload.warnings = [...(value.payload.warnings ?? []), ...warnings];
    return value;
  }

  private async runWithinBudget(session: BrowserSession, fields: RuntimeFields, request: CaptureRequestSnapshot): Promise<CaptureOutcome> {
    if (this.closing) throw new ShutdownError();
    const budgetMs = captureTimeoutMs(this.env);
    const run = new CaptureRun(session, fields, request, this.flags(), this.env);
    const generation = session.generation;
    this.running.add(run);
    let workSettled = false;
    const work = run.execute();
    work.then(
      () => (workSettled = true),
      () => (workSettled = true),
    );
    try {
      return await this.raceLoss(run, work, budgetMs);
    } catch (err) {
      if (this.closing) throw new ShutdownError();
      throw this.explain(err, session, generation, run.stage);
    } finally {
      this.running.delete(run);
      await run.cleanup();
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
   * The capture's work against what can end it first: the page or browser
   * going away (at once, naming the step), and the whole-capture budget (the
   * stall diagnosed: a body still arriving, a busy main thread…).
   */
  private raceLoss(run: CaptureRun, work: Promise<CaptureOutcome>, budgetMs: number): Promise<CaptureOutcome> {
    return new Promise<CaptureOutcome>((resolve, reject) => {
      let done = false;
      let overran = false;
      const end = (settle: () => void) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        run.settle();
        settle();
      };
      run.lost.catch((err: Error) => end(() => reject(err)));
      work.then(
        (value) => end(() => resolve(value)),
        (err: unknown) => {
          // After an overrun the pipeline fails on its own abort; the overrun's message is the answer.
          if (overran) return;
          if (err instanceof Error && LOST_LIKE.test(err.message)) {
            // The crash or disconnect that explains a closed session may arrive a moment after it.
            setTimeout(() => end(() => reject(err)), LOSS_EVENT_GRACE_MS);
            return;
          }
          end(() => reject(err));
        },
      );
      const timer = setTimeout(() => {
        overran = true;
        const stage = run.stage;
        run.abort();
        void run
          .diagnose()
          .catch(() => explainStepStall('unknown'))
          .then((cause) => end(() => reject(new Error(captureOverrun(budgetMs, stage, cause)))));
      }, budgetMs);
    });
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
    await this.browsers.close();
  }
}
