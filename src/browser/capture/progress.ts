/**
 * One capture attempt's progress, the one object handed through the whole
 * pipeline (set-up, navigation, freeze, actions, the capture type,
 * observed_state) and every wait in it: its whole-capture deadline, the one
 * AbortSignal that ends it, and the step under way. An action works on a
 * share of it (CaptureProgress.share): the same signal and step, a deadline
 * of its own. The page layer's waits take its signal (they need only when to
 * stop).
 *
 * The signal fires once, with the reason that ended the capture first: the
 * budget running out (CaptureOverrun), the page or browser going away, the
 * server shutting down, or the caller's own signal (`parent`: a client that
 * cancelled its request). Every wait in the pipeline can watch it, so
 * nothing keeps working for a capture that is already answered.
 *
 * `enter(step, during)` names the step under way, as it reads after "during"
 * in a failure (`navigation to …`, `actions[0] click '#boom'`), tells the
 * step listener (a progress notification, in time), and throws the abort
 * reason when the capture has already ended: a step never starts for an
 * ended capture. Once ended, the step stays the one the capture ended in.
 */
import { CaptureCancelled } from '../../common/failures';
import { EvidenceError } from '../../common/errors';

/** The steps of a capture (the order they run in is captureAttempt.ts's CAPTURE_STAGES). */
export type CaptureStep = 'browser' | 'context' | 'setup' | 'start' | 'navigation' | 'settle' | 'action' | 'capture' | 'probe' | 'observed-state';

export interface StepReport {
  step: CaptureStep;
  /** The step as a failure names it after "during". */
  during: string;
  /** For `action`: which one (0-based) of how many. */
  index?: number;
  total?: number;
}

export type StepListener = (report: StepReport) => void;

/** The reason the signal carries when the whole-capture budget ran out. */
export class CaptureOverrun extends EvidenceError<'overrun'> {
  constructor(
    readonly budgetMs: number,
    /** The step under way when the budget ran out. */
    readonly during: string,
  ) {
    super('overrun', `the ${budgetMs} ms whole-capture budget ran out during ${during}`);
    this.name = 'CaptureOverrun';
  }
}

/** Where every capture starts: waiting for a browser (its first stage). */
export const FIRST_STEP: StepReport = { step: 'browser', during: 'the wait for a browser' };

export interface CaptureProgressOptions {
  /** The caller's signal: when it fires, the capture is cancelled. */
  parent?: AbortSignal;
  /** Told each step as it starts. A listener that throws is ignored. */
  onStep?: StepListener;
}

export class CaptureProgress {
  private readonly controller = new AbortController();
  /** Fires once, when the capture ends from outside its own work (its `reason` says why). */
  readonly signal: AbortSignal = this.controller.signal;
  /** Epoch ms at which the whole-capture budget runs out. */
  readonly deadline: number;
  private current: StepReport = FIRST_STEP;
  private readonly timer: NodeJS.Timeout | undefined;
  private unparent: () => void = () => undefined;

  /**
   * A capture's progress over `budgetMs` (CaptureOverrun when it runs out),
   * cancelled by the caller's `parent` signal; or, with `shareOf`, an
   * action's share of one (null: of none): ended when that ends, with its
   * reason, and by its holder's abort() (no timer of its own).
   */
  constructor(
    readonly budgetMs: number,
    private readonly options: CaptureProgressOptions = {},
    shareOf?: CaptureProgress | null,
  ) {
    this.deadline = Date.now() + budgetMs;
    if (shareOf !== undefined) {
      if (shareOf) {
        this.current = shareOf.current;
        this.follow(shareOf.signal, () => shareOf.signal.reason);
      }
      return;
    }
    this.timer = setTimeout(() => this.abort(new CaptureOverrun(budgetMs, this.current.during)), budgetMs);
    if (options.parent) this.follow(options.parent, () => new CaptureCancelled(this.current.during));
    if (!this.aborted) this.tell();
  }

  /** Ends this progress when `signal` fires, with `reason()`. */
  private follow(signal: AbortSignal, reason: () => Error): void {
    const end = () => this.abort(reason());
    if (signal.aborted) end();
    else {
      signal.addEventListener('abort', end, { once: true });
      this.unparent = () => signal.removeEventListener('abort', end);
    }
  }

  /** A share of `progress` (none: a progress of its own) for one step with a budget of its own (an action): its signal and step, its own deadline. */
  static share(progress: CaptureProgress | undefined, budgetMs: number): CaptureProgress {
    return new CaptureProgress(budgetMs, {}, progress ?? null);
  }

  /** The step under way. */
  get step(): StepReport {
    return this.current;
  }

  /** The step under way as a failure names it after "during". */
  get during(): string {
    return this.current.during;
  }

  get aborted(): boolean {
    return this.signal.aborted;
  }

  /** Starts a step; throws the abort reason when the capture has already ended. */
  enter(step: CaptureStep, during: string, position?: { index: number; total: number }): void {
    this.throwIfAborted();
    this.current = { step, during, ...position };
    this.tell();
  }

  throwIfAborted(): void {
    if (this.signal.aborted) throw this.signal.reason;
  }

  /** Ends the capture with `reason` (the first reason wins); the step stays the one under way. */
  abort(reason: Error): void {
    if (this.signal.aborted) return;
    this.finish();
    this.controller.abort(reason);
  }

  /** Milliseconds left of the whole-capture budget (at least 0). */
  remainingMs(): number {
    return Math.max(0, this.deadline - Date.now());
  }

  /** Rejects with the abort reason once the signal fires (never resolves). */
  whenAborted(): Promise<never> {
    return new Promise<never>((_, reject) => {
      if (this.signal.aborted) reject(this.signal.reason);
      else this.signal.addEventListener('abort', () => reject(this.signal.reason), { once: true });
    });
  }

  /** The capture returned or failed: its budget timer and the caller's signal no longer apply. */
  finish(): void {
    clearTimeout(this.timer);
    this.unparent();
  }

  private tell(): void {
    try {
      this.options.onStep?.(this.current);
    } catch {
      // A listener is told; it does not steer the capture.
    }
  }
}
