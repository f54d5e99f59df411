/**
 * One capture attempt from start to cleanup, owned in one place:
 *
 * - its steps, in order, listed once (CAPTURE_STAGES): the loop enters each
 *   stage's step on the attempt's progress and runs it; a progress total
 *   counts the same list (plannedSteps);
 * - its progress (progress.ts): the whole-capture deadline, the signal that
 *   ends it, the step under way, handed to every wait;
 * - what ends it from outside, each turned into the progress's abort reason
 *   at once, naming the step: the browser going away (told one way, by the
 *   session's gone signal, which the pool reads too when it decides to run
 *   a capture again), the page's renderer crashing or its target closing,
 *   shutdown (ShutdownError), the caller cancelling, the budget running out
 *   (diagnosed: a body still arriving, a busy main thread…). A step's
 *   "Target closed"-style error (read by cdp/failureKinds.ts) waits a moment
 *   for the loss that explains it;
 * - its cleanup: the context closed first (the browser disposes it even when
 *   its renderer hangs), then the capture type and the CDP session
 *   released, each bounded; for a launched browser while the answer goes
 *   out, for an attached one before; and whatever a step still running opens
 *   later is closed when it settles.
 *
 * Where an attempt runs, and whether a lost one runs again, is the pool's
 * (src/browser/fleet/browserPool.ts).
 */
import type { Browser, BrowserContext, CDPSession, Page } from 'puppeteer-core';
import type { ProviderPayload } from '../../contract/captureProvider';
import type { CaptureRequestSnapshot } from '../../contract/captureContract';
import type { RuntimeFields } from '../../contract/toolArguments';
import { CLEANUP_STEP_MS, LOSS_EVENT_GRACE_MS, PAGE_CLOSE_GRACE_MS, STORY_PREVIEW_WAIT_MS, withDeadline } from '../../common/time';
import { captureOverrun, explainStall, explainStepStall, lostDuring, ShutdownError, type LostKind } from '../../common/failures';
import { EvidenceError } from '../../common/errors';
import { redactUrl } from '../../common/redact';
import { classifyProtocolError } from '../../../cdp/failureKinds';
import type { BrowserSession, PreparedPage } from '../fleet/browserSession';
import type { StoryPreview } from '../fleet/storyPreviews';
import { captureTimeoutMs, fixedTime, navigationTimeoutMs, settleMaxMs, type BrowserFlags } from '../options';
import { PageClock, fixedTimeWarning } from '../page/pageClock';
import { LoadTracker, mainThread, navigate, pointerAtOrigin } from '../page/pageSetup';
import { applyFreeze } from '../page/freeze';
import { readObservedState } from '../page/observedState';
import { storyIdOf, waitForStory } from '../page/storyRest';
import {
  fingerprintDifference,
  matchFreshClassOrder,
  previewState,
  storySwitchKey,
  StorySwitchStale,
  switchStory,
  type PreviewState,
} from '../page/storySwitch';
import { restoreStorageState, type RestoredState } from '../page/storageState';
import type { StorageState } from '../../contract/storageState';
import { runActions } from './actionRunner';
import type { SecretStore } from '../../common/secrets';
import { checkPageTextForSecrets } from './secretMasking';
import { CAPTURE_TYPE_MODULES, type CaptureTypeOutput, type CaptureTypeRun } from './types';
import { CaptureOverrun, CaptureProgress, FIRST_STEP, type CaptureStep, type StepListener } from './progress';

/** What one capture produced: the artifact's bytes and the payload that reports it. */
export interface CaptureOutcome {
  bytes: Buffer;
  payload: ProviderPayload;
}

/** What the caller of one capture watches it with: its own signal (cancel) and a listener told each step. */
export interface CaptureHooks {
  /** When it fires, the capture ends at once: its context closed, nothing returned (CaptureCancelled). */
  signal?: AbortSignal;
  /** Told each step as it starts (navigation, settle, actions[i] of n, capture…), for progress notifications. */
  onStep?: StepListener;
  /** The secrets actions may name (--secrets): typed by the runner, masked in the evidence (./secretMasking.ts). */
  secrets?: SecretStore;
  /** The state the capture starts from (a session), restored into its fresh context before the first navigation. */
  startState?: StorageState;
}

/** The reason an attempt's progress carries when its page or browser went away. */
export class CaptureLost extends EvidenceError<'lost'> {
  constructor(
    readonly kind: LostKind,
    message: string,
  ) {
    super('lost', message);
  }
}

/** One stage of a capture: the step it runs in (entered by the loop, when named), every step it enters, and its work. */
interface Stage {
  step?: CaptureStep;
  during?(a: CaptureAttempt): string;
  /** The steps this stage enters, in order (the loop's, then its own: an action each, the probe…); none: skipped. */
  steps(fields: RuntimeFields): CaptureStep[];
  run(a: CaptureAttempt): Promise<void>;
}

/** The capture, in order, listed once. The first stage's step is the one every progress starts in (FIRST_STEP). */
const CAPTURE_STAGES: readonly Stage[] = [
  { step: FIRST_STEP.step, steps: () => [FIRST_STEP.step], run: (a) => a.acquireBrowser() },
  {
    step: 'context',
    during: (a) => (a.startState ? 'opening a browser context and restoring its session' : 'opening a browser context'),
    steps: () => ['context'],
    run: (a) => a.openContext(),
  },
  { step: 'setup', during: () => "the page's set-up (viewport, colour scheme, clock)", steps: () => ['setup'], run: (a) => a.setUpPage() },
  { step: 'start', during: (a) => `the start of the ${a.fields.type} capture`, steps: () => ['start'], run: (a) => a.startType() },
  {
    step: 'navigation',
    during: (a) => (a.switching() ? `the switch to story ${storyIdOf(a.fields.url)} in a kept preview` : `navigation to ${a.fields.url}`),
    steps: () => ['navigation'],
    run: (a) => a.navigate(),
  },
  {
    step: 'settle',
    during: (a) =>
      storyIdOf(a.fields.url) === null ? 'the freeze after navigation' : "the story's render (Storybook's say-so) and the freeze after navigation",
    steps: () => ['settle'],
    run: (a) => a.settleAfterNavigation(),
  },
  {
    // Each action enters its own step (runActions), then the freeze after them.
    steps: (fields) => (fields.actions.length ? [...fields.actions.map((): CaptureStep => 'action'), 'settle'] : []),
    run: (a) => a.runActionsAndFreeze(),
  },
  {
    step: 'capture',
    during: (a) => `the ${a.fields.type} capture`,
    steps: (fields) => ['capture', ...(CAPTURE_TYPE_MODULES[fields.type]?.steps ?? [])],
    run: (a) => a.finishType(),
  },
  { step: 'observed-state', during: () => 'the observed_state read', steps: () => ['observed-state'], run: (a) => a.readObservedState() },
];

/** The steps an attempt enters for these fields, in order: what a progress total counts. */
export function plannedSteps(fields: RuntimeFields): CaptureStep[] {
  return CAPTURE_STAGES.flatMap((stage) => stage.steps(fields));
}

/** A step's error that may mean its page or browser went away (the loss may be told a moment later). */
const mayBeLoss = (err: unknown) => {
  const kind = classifyProtocolError(err);
  return kind === 'target-gone' || kind === 'frame-detached';
};

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class CaptureAttempt {
  readonly progress: CaptureProgress;
  private browser: Browser | null = null;
  private gone: AbortSignal | null = null;
  private context: BrowserContext | null = null;
  /** In the browser session: the capture's tab in the attached browser's own context (closed instead of the context). */
  private tabId: string | undefined;
  private page: Page | null = null;
  private prepared: PreparedPage | null = null;
  private cdp: CDPSession | null = null;
  /** The variant whose kept story previews this capture may switch in and leave its page to (storySwitch.ts); null: none. */
  private switchKey: string | null;
  /** The kept story preview this capture switched its story into. */
  private preview: StoryPreview<PreparedPage> | null = null;
  /** What the story left outside its root, read once it rendered: the page may be kept as a story preview with it. */
  private previewState: PreviewState | null = null;
  private stopPageListening: (() => void) | null = null;
  /** It holds a place among the session's story previews (taken one, or may leave its page as one): given back at cleanup. */
  private holdsPreview = false;
  /** A switch was abandoned: the story loads fresh (and its page may become the kept preview). */
  private freshOnly = false;
  /** It loads its variant's preview that other captures of the variant wait for (told at cleanup). */
  private loadsPreview = false;
  private typeRun: CaptureTypeRun | null = null;
  private load: LoadTracker | null = null;
  private navigating = false;
  /** The pointer's move after navigation (pageSetup.ts pointerAtOrigin), until the first freeze waits for it. */
  private pointerMoved: Promise<void> | null = null;
  private ended = false;
  private cleaned: Promise<void> | null = null;
  private observed: Promise<string> | null = null;
  private finished: CaptureTypeOutput | null = null;
  private outcome: CaptureOutcome | null = null;
  private readonly warnings: string[] = [];
  private readonly stopListening: Array<() => void> = [];
  /** The cleanup that runs while the answer goes out (launched browsers), for shutdown to wait for. */
  closingAfterAnswer: Promise<void> | null = null;
  private readonly secrets: SecretStore | undefined;
  readonly startState: StorageState | undefined;
  /** The restored session's script, removed once the navigation is done (storageState.ts). */
  private restored: RestoredState | null = null;

  constructor(
    private readonly session: BrowserSession,
    readonly fields: RuntimeFields,
    private readonly request: CaptureRequestSnapshot,
    private readonly flags: BrowserFlags,
    private readonly env: NodeJS.ProcessEnv,
    hooks: CaptureHooks = {},
  ) {
    this.progress = new CaptureProgress(captureTimeoutMs(env), { parent: hooks.signal, onStep: hooks.onStep });
    this.secrets = hooks.secrets;
    this.startState = hooks.startState;
    this.switchKey = flags.storySwitching
      ? storySwitchKey({ fields, request, fixed: fixedTime(flags, env), ownState: !!(hooks.secrets || hooks.startState) })
      : null;
  }

  /** Whether this capture renders its story in a kept preview. */
  switching(): boolean {
    return this.preview !== null;
  }

  /**
   * The attempt, from its first stage to its cleanup: its outcome, or the
   * reason it ended (the progress's abort reason, an overrun diagnosed, a
   * browser that went away named as such, or the step's own error).
   */
  async run(): Promise<CaptureOutcome> {
    // A call cancelled while it waited for a slot starts nothing.
    const work = (async () => {
      this.progress.throwIfAborted();
      await this.runStages();
      return this.outcome!;
    })();
    let settled = false;
    work.then(
      () => (settled = true),
      () => (settled = true),
    );
    let answered = false;
    try {
      const outcome = await this.untilEnded(work);
      answered = true;
      return outcome;
    } finally {
      await this.release(answered);
      // The pipeline may still be between awaits; whatever it opens next is closed too.
      if (!settled) work.then(this.cleanupLate, this.cleanupLate);
    }
  }

  private async runStages(): Promise<void> {
    try {
      await this.runStagesFrom(0);
    } catch (err) {
      if (!(err instanceof StorySwitchStale) || this.progress.aborted) throw err;
      this.session.noteStaleSwitch(storyIdOf(this.fields.url) ?? this.fields.url, err.message);
      // The kept preview did not show what a fresh load would: closed, and the story loaded on a page of its own.
      await this.dropPreview();
      await this.runStagesFrom(1);
    }
  }

  private async runStagesFrom(first: number): Promise<void> {
    for (const stage of CAPTURE_STAGES.slice(first)) {
      if (!stage.steps(this.fields).length) continue;
      if (stage.step && stage !== CAPTURE_STAGES[0]) this.progress.enter(stage.step, stage.during!(this));
      await stage.run(this);
    }
  }

  /** Closes the kept preview a switch was abandoned in; the capture goes on without one. */
  private async dropPreview(): Promise<void> {
    const preview = this.preview!;
    this.stopPageListening?.();
    this.stopPageListening = null;
    this.preview = null;
    this.freshOnly = true;
    this.holdsPreview = false;
    this.context = null;
    this.page = null;
    this.prepared = null;
    this.cdp = null;
    this.typeRun = null;
    this.pointerMoved = null;
    this.session.storyPreviews.release(preview.key, { kept: null, closed: preview, loaded: false });
  }

  // ------------------------------------------------------------ the stages

  async acquireBrowser(): Promise<void> {
    this.browser = await this.session.acquire();
    this.gone = this.session.goneSignal();
    this.listenForLoss();
  }

  async openContext(): Promise<void> {
    // Launched browsers only: an attached browser's idle page (or tab) would be the user's to see.
    if (this.session.attachTarget()) this.switchKey = null;
    if (this.switchKey) {
      const previews = this.session.storyPreviews;
      let waited = false;
      while (!this.freshOnly) {
        this.preview = previews.take(this.browser!, this.switchKey);
        if (this.preview) {
          this.holdsPreview = true;
          try {
            // A preview serves every size of its variant: set to this capture's (the story mounts after, at that size).
            await this.preview.prepared.emulation.retarget(this.request.viewport);
            return this.usePrepared(this.preview.prepared);
          } catch {
            // Its page went away while idle: closed, and the next one (or a load) tried.
            previews.release(this.switchKey, { kept: null, closed: this.preview, loaded: false });
            this.preview = null;
            this.holdsPreview = false;
            continue;
          }
        }
        // Another capture is loading this variant's preview, or the variant has as many as it may: waited for
        // rather than another loaded; past STORY_PREVIEW_WAIT_MS it loads its own (a stuck story holds no one up).
        const wait: Promise<void> | null = waited ? null : (previews.loading(this.switchKey) ?? (previews.full(this.switchKey) ? previews.freed() : null));
        if (!wait) break;
        const settled: Promise<boolean> = withDeadline(
          wait.then(() => true),
          STORY_PREVIEW_WAIT_MS,
          { orElse: false },
        );
        waited = !(await Promise.race([settled, this.progress.whenAborted()]));
      }
      this.holdsPreview = true;
      this.loadsPreview = previews.hold(this.switchKey);
    }
    // Set up for the viewport already when it was the spare prepared after the last capture (browserSession.ts).
    const opened = await this.session.newContextAndPage(this.browser!, this.request.viewport);
    // Ended while it opened (cancelled, shut down): closed now, not after the steps left run out (a tab would show meanwhile).
    if (this.cleaned) await this.session.closePrepared(opened);
    this.usePrepared(opened);
    // Before the set-up: the clock and the capture type see a blank page, as without a session.
    if (this.startState) this.restored = await restoreStorageState(this.cdp!, this.startState);
  }

  private usePrepared(opened: PreparedPage): void {
    this.prepared = opened;
    this.context = opened.context;
    this.tabId = opened.tabId;
    this.page = opened.page;
    // The capture's own session carries the page's emulation, so it takes the screenshot too (pageSetup.ts).
    this.cdp = opened.emulation.cdp;
    this.listenForPageLoss(opened.page);
  }

  async setUpPage(): Promise<void> {
    const fixed = fixedTime(this.flags, this.env);
    const { freeze } = this.request;
    // The clock is installed per capture: its start is the capture's own instant (a kept preview's restarts at the switch).
    if (freeze.enabled && !this.preview) await PageClock.install(this.page!, this.cdp!, fixed, settleMaxMs(this.env));
    if (freeze.enabled) {
      if (fixed) this.warnings.push(fixedTimeWarning(fixed));
    } else if (fixed) {
      this.warnings.push(`fixed clock not applied: freeze.enabled is false, so the page ran on the wall clock (${fixed.source} is set)`);
    }
  }

  async startType(): Promise<void> {
    const module = CAPTURE_TYPE_MODULES[this.fields.type];
    if (!module) throw new Error(`capture type '${this.fields.type}' is not available in this build`);
    const { browser, page, cdp, fields, request, progress, secrets } = this;
    this.typeRun = await module.start({ browser: browser!, page: page!, cdp: cdp!, fields, request, progress, ...(secrets ? { secrets } : {}) });
  }

  async navigate(): Promise<void> {
    const page = this.page!;
    if (this.preview) {
      const fixed = fixedTime(this.flags, this.env);
      await switchStory(page, this.fields.url, fixed ? fixed.epochMs : Date.now());
      this.movePointer();
      return;
    }
    const load = (this.load = new LoadTracker(page));
    this.navigating = true;
    const go = async () => {
      const budgetMs = navigationTimeoutMs(this.env);
      this.warnings.push(...(await navigate(page, this.fields.url, this.request.freeze, { budgetMs, tracker: load, cdp: this.cdp! })));
      this.movePointer();
    };
    try {
      if (this.typeRun!.navigate) await this.typeRun!.navigate(this.fields.url, go);
      else await go();
    } finally {
      this.navigating = false;
      load.stop();
    }
    // The page's later documents (after a sign-out, say) see what the page kept, not the session again.
    await this.restored?.settle();
  }

  /**
   * Sent now, waited for by the freeze: the renderer acks a mouse move with
   * its next frame, which the freeze's own round trips would otherwise wait
   * behind. A capture that ends before its freeze (its budget spent on a
   * page whose main thread never yields) leaves the move unanswered until
   * its page closes: that failure is the capture's, never an unhandled one.
   */
  private movePointer(): void {
    const moved = pointerAtOrigin(this.cdp!).then(() => undefined);
    moved.catch(() => undefined);
    this.pointerMoved = moved;
  }

  /** A story's page rests once Storybook says the story is done (storyRest.ts); then the page's usual rest. */
  async settleAfterNavigation(): Promise<void> {
    await waitForStory(this.page!, this.fields.url, this.progress.signal, { switched: this.switching() });
    if (this.switchKey) {
      const state = await previewState(this.page!);
      if (this.preview) {
        if (state?.fingerprint !== this.preview.state.fingerprint)
          throw new StorySwitchStale(fingerprintDifference(this.preview.state.fingerprint, state?.fingerprint));
        await matchFreshClassOrder(this.page!, this.preview.state.bodyClass);
      }
      this.previewState = this.preview ? this.preview.state : state;
    }
    await this.freeze();
  }

  async freeze(): Promise<void> {
    const pointer = this.pointerMoved;
    this.pointerMoved = null;
    this.warnings.push(...(await applyFreeze(this.page!, this.request.freeze, this.progress.signal, pointer)));
  }

  async runActionsAndFreeze(): Promise<void> {
    const typeRun = this.typeRun!;
    const secrets = this.secrets;
    await runActions(this.page!, this.fields.actions, {
      session: this.cdp!,
      progress: this.progress,
      wrap: typeRun.wrapAction?.bind(typeRun),
      ...(secrets ? { secretValue: (name: string) => secrets.value(name) } : {}),
    });
    this.progress.enter('settle', 'the freeze after the actions');
    await this.freeze();
  }

  async finishType(): Promise<void> {
    const page = this.page!;
    // A page that shows a secret outside its field fails closed before anything is taken.
    if (this.secrets) await checkPageTextForSecrets(this.cdp!, this.secrets);
    // Read once the page has given the artifact what it holds, while the type finishes on this side (the probe, the archive).
    this.finished = await this.typeRun!.finish(() => this.observe(page));
  }

  /** The page's observed_state, read once; a capture that ends before it is awaited leaves no unhandled failure. */
  private observe(page: Page): Promise<string> {
    if (!this.observed) {
      this.observed = readObservedState(page);
      this.observed.catch(() => undefined);
    }
    return this.observed;
  }

  async readObservedState(): Promise<void> {
    const { bytes, ...measured } = this.finished!;
    const payload: ProviderPayload = { result: 'captured', ...measured, observed_state: await this.observe(this.page!) };
    const warnings = [...new Set([...this.warnings, ...(measured.warnings ?? [])])];
    if (warnings.length) payload.warnings = warnings;
    else delete payload.warnings;
    this.outcome = { bytes, payload };
  }

  // ------------------------------------------------- what ends it from outside

  /** Ends the attempt now with what went away; later losses (the close that follows a crash) are ignored. */
  private markLost(kind: LostKind | 'shutdown'): void {
    if (this.ended) return;
    if (kind === 'shutdown') return this.progress.abort(new ShutdownError());
    const target = this.session.attachTarget();
    this.progress.abort(new CaptureLost(kind, lostDuring(kind, this.progress.during, target ? redactUrl(target.url) : undefined)));
  }

  private browserGoneKind(): LostKind {
    return this.session.attachTarget() ? 'attached-browser-gone' : 'browser-exited';
  }

  /** The server is shutting down: the attempt ends now with ShutdownError. */
  shutdown(): void {
    this.markLost('shutdown');
  }

  /** The browser going away, told by the session's gone signal: the one way a loss of the browser is known. */
  private listenForLoss(): void {
    const gone = this.gone!;
    const lost = () => this.markLost(this.browserGoneKind());
    if (gone.aborted) return lost();
    gone.addEventListener('abort', lost, { once: true });
    this.stopListening.push(() => gone.removeEventListener('abort', lost));
  }

  /** The page's own losses: its renderer crashing, its target closing (unless its browser went: that is the better answer). */
  private listenForPageLoss(page: Page): void {
    let timer: NodeJS.Timeout | undefined;
    const crashed = () => this.markLost('renderer-crashed');
    // A page also closes when its browser goes: the gone signal, a moment later, is the better answer.
    const closed = () => {
      timer = setTimeout(() => this.markLost(this.gone?.aborted ? this.browserGoneKind() : 'page-closed'), PAGE_CLOSE_GRACE_MS);
    };
    page.on('error', crashed);
    // on, not once: Puppeteer's off does not remove a once-listener, and a kept story preview outlives the capture.
    page.on('close', closed);
    const stop = () => {
      clearTimeout(timer);
      page.off('error', crashed);
      page.off('close', closed);
    };
    this.stopPageListening = stop;
    this.stopListening.push(stop);
  }

  /** The attempt returned or failed: nothing that happens to its page afterwards ends it. */
  private end(): void {
    this.ended = true;
    this.progress.finish();
    for (const stop of this.stopListening.splice(0)) stop();
  }

  /**
   * The work against what can end it first (its progress signal): at once,
   * naming the step, for a loss, shutdown or cancellation; for the
   * whole-capture budget, with the stall diagnosed.
   */
  private async untilEnded(work: Promise<CaptureOutcome>): Promise<CaptureOutcome> {
    const { progress } = this;
    const ended = progress.whenAborted();
    ended.catch(() => undefined);
    try {
      return await Promise.race([work, ended]);
    } catch (err) {
      // The crash or disconnect that explains a closed session may be told a moment after it.
      if (!progress.aborted && mayBeLoss(err)) await Promise.race([ended, sleep(LOSS_EVENT_GRACE_MS)]).catch(() => undefined);
      if (!progress.aborted && this.gone?.aborted) this.markLost(this.browserGoneKind());
      const cause: unknown = progress.aborted ? progress.signal.reason : err;
      if (cause instanceof CaptureOverrun) {
        const why = await this.diagnose().catch(() => explainStepStall('unknown'));
        throw new Error(captureOverrun(cause.budgetMs, cause.during, why));
      }
      throw cause;
    } finally {
      this.end();
    }
  }

  /** Why the step under way had not finished when the whole-capture budget ran out. */
  private async diagnose(): Promise<string> {
    if (this.navigating && this.load) return explainStall(await this.load.diagnose(this.cdp));
    return explainStepStall(await mainThread(this.cdp));
  }

  // ---------------------------------------------------------------- cleanup

  /**
   * Releases what the attempt opened: for a launched browser while the
   * answer goes out (its context is never reused, so isolation holds), else
   * before the answer (an attached browser's connection may end right after
   * the capture).
   */
  private async release(answered: boolean): Promise<void> {
    if (answered && !this.session.attachTarget()) this.closingAfterAnswer = this.cleanup().catch(() => undefined);
    else await this.cleanup();
  }

  /**
   * Idempotent: closes the context first — the browser disposes it even when
   * its renderer hangs, and every call still waiting on that page then fails
   * at once — then releases the capture type and the CDP session (bounded).
   */
  cleanup(): Promise<void> {
    if (!this.cleaned) {
      this.end();
      if (this.holdsPreview) {
        this.holdsPreview = false;
        // Said at once (the pool prepares its spare right after): the page stays loaded for the next story of its variant.
        const keep = this.outcome !== null && this.previewState !== null && this.prepared !== null && !this.page!.isClosed();
        const stories = (this.preview?.stories ?? 0) + 1;
        const kept = keep ? { key: this.switchKey!, browser: this.browser!, prepared: this.prepared!, state: this.previewState!, stories } : null;
        this.session.storyPreviews.release(this.switchKey!, { kept, closed: keep ? null : this.preview, loaded: this.loadsPreview });
        this.loadsPreview = false;
        if (keep) {
          this.context = null;
          this.cdp = null;
          this.cleaned = this.disposeType();
          return this.cleaned;
        }
      }
      this.cleaned = (async () => {
        if (this.context) await this.session.closePrepared({ context: this.context, tabId: this.tabId });
        await this.disposeType();
        await withDeadline(this.cdp?.detach() ?? Promise.resolve(), CLEANUP_STEP_MS, { took: 'detaching the CDP session' }).catch(() => undefined);
      })();
    }
    return this.cleaned;
  }

  /** Releases the capture type, bounded; never fails the cleanup. */
  private disposeType(): Promise<void> {
    return withDeadline(this.typeRun?.dispose() ?? Promise.resolve(), CLEANUP_STEP_MS, { took: 'disposing the capture type' }).catch(() => undefined);
  }

  /** After the work settles late: what it opened meanwhile is closed (closing twice is harmless). */
  private readonly cleanupLate = async (): Promise<void> => {
    await this.cleanup();
    await this.disposeType();
    if (this.context) await this.session.closePrepared({ context: this.context, tabId: this.tabId });
  };
}
