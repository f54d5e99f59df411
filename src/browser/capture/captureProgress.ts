/**
 * One capture attempt's progress, handed through the whole pipeline (set-up,
 * navigation, freeze, actions, the capture type, observed_state): its
 * whole-capture deadline, the one AbortSignal that ends it, and the step
 * under way.
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

/** The steps of a capture, in the order they run (`action` once per action, `settle` after load and after the actions). */
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
  private current: StepReport = { step: 'browser', during: 'the wait for a browser' };
  private readonly timer: NodeJS.Timeout;
  private unparent: () => void = () => undefined;

  constructor(
    readonly budgetMs: number,
    private readonly options: CaptureProgressOptions = {},
  ) {
    this.deadline = Date.now() + budgetMs;
    this.timer = setTimeout(() => this.abort(new CaptureOverrun(budgetMs, this.current.during)), budgetMs);
    const parent = options.parent;
    const cancel = () => this.abort(new CaptureCancelled(this.current.during));
    if (parent?.aborted) cancel();
    else if (parent) {
      parent.addEventListener('abort', cancel, { once: true });
      this.unparent = () => parent.removeEventListener('abort', cancel);
    }
    if (!this.aborted) this.tell();
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

/**
 * A signal that fires when either does: an action's own budget or the
 * capture ending (AbortSignal.any is not in every Node 20). `dispose` stops
 * listening to the outer one.
 */
export function linkedSignal(own: AbortController, outer: AbortSignal | undefined): () => void {
  if (!outer) return () => undefined;
  const forward = () => own.abort(outer.reason);
  if (outer.aborted) forward();
  else outer.addEventListener('abort', forward, { once: true });
  return () => outer.removeEventListener('abort', forward);
}
