/**
 * The virtual clock's queue: timers, idle callbacks and animation frames,
 * taken in a fixed order — earliest due time first, then registration order;
 * at one instant timers come before the frame. Pure logic (no DOM), so the
 * order can be tested without a browser.
 *
 * Each timer belongs to a source: an interval is one source for all its
 * firings, and so is a timeout chain (a timeout that sets the same handler,
 * or the same delay, again from its own callback — the usual way to poll or
 * tick with setTimeout). The rest rule (activity.ts) reads a source's period
 * and whether its firings change the page.
 */

/** Browsers clamp timers nested deeper than this to MIN_NESTED_DELAY_MS (HTML timers). */
const NESTING_LIMIT = 5;
const MIN_NESTED_DELAY_MS = 4;

/** What the rest rule knows of one source of timers. */
export interface TimerSource {
  /** How far apart its firings are, ms (the last delay it was set with). */
  period: number;
  /** An interval, or a timeout that set itself again from its own callback. */
  repeating: boolean;
  /** Its firings in a row, up to the last one, that changed nothing on the page. */
  quietFirings: number;
}

export interface TimerJob {
  id: number;
  due: number;
  seq: number;
  /** The delay it was set with (after clamping), ms: how far apart a chain of such timers fires. */
  delay: number;
  /** Repeat period for setInterval; null for one-shot jobs. */
  interval: number | null;
  nesting: number;
  /** The source it belongs to (key of Scheduler.sources). */
  source: number;
  /** What the page passed (function or code string): a timeout setting the same handler again continues its chain. */
  handler: unknown;
  callback: () => void;
}

export type Due = { kind: 'timer'; job: TimerJob } | { kind: 'frame'; time: number };

export class Scheduler {
  /** Virtual ms since the document's clock started. */
  now: number;
  private readonly jobs = new Map<number, TimerJob>();
  private frameCallbacks = new Map<number, (time: number) => void>();
  private readonly sources = new Map<number, TimerSource & { jobs: number }>();
  private nextId = 1;
  private nextSeq = 1;
  private nextSource = 1;
  /** The timer whose callback is running (null outside timers). */
  private running: TimerJob | null = null;
  /** When the last frame ran: a frame runs at most once per boundary. */
  private lastFrame = 0;

  constructor(
    readonly frameMs: number,
    startAt = 0,
  ) {
    this.now = startAt;
    this.lastFrame = Math.floor(startAt / frameMs) * frameMs;
  }

  /**
   * Moves the clock's origin forward by `ms` (a multiple of the frame length):
   * `now` and every queued due time drop by it, so what is queued keeps its
   * delay and page time reads as if the document had started `ms` later.
   */
  rebase(ms: number): void {
    this.now -= ms;
    this.lastFrame -= ms;
    for (const job of this.jobs.values()) job.due -= ms;
  }

  /** setTimeout / setInterval: returns the id clearTimeout takes. */
  schedule(delay: number, callback: () => void, repeat: boolean, handler: unknown = callback): number {
    const running = this.running;
    const nesting = (running?.nesting ?? 0) + 1;
    let ms = Number(delay);
    if (!Number.isFinite(ms) || ms < 0) ms = 0;
    if (nesting > NESTING_LIMIT && ms < MIN_NESTED_DELAY_MS) ms = MIN_NESTED_DELAY_MS;
    const id = this.nextId++;
    // A timeout set again from a timeout's own callback, with its handler or its delay, continues that chain.
    const chainOf = !repeat && running && running.interval === null && (handler === running.handler || ms === running.delay) ? running : null;
    let source = chainOf ? chainOf.source : 0;
    let info = chainOf ? this.sources.get(source) : undefined;
    if (info) {
      info.period = ms;
      info.repeating = true;
    } else {
      source = this.nextSource++;
      info = { period: ms, repeating: repeat, quietFirings: 0, jobs: 0 };
      this.sources.set(source, info);
    }
    info.jobs++;
    this.jobs.set(id, { id, due: this.now + ms, seq: this.nextSeq++, delay: ms, interval: repeat ? ms : null, nesting, source, handler, callback });
    return id;
  }

  cancel(id: unknown): void {
    const key = Number(id);
    const job = this.jobs.get(key);
    if (job) {
      this.jobs.delete(key);
      this.release(job.source);
    }
    this.frameCallbacks.delete(key);
  }

  requestFrame(callback: (time: number) => void): number {
    const id = this.nextId++;
    this.frameCallbacks.set(id, callback);
    return id;
  }

  /** The next frame boundary, at or after `now`, that has not run yet. */
  nextFrameTime(): number {
    return Math.max(Math.ceil(this.now / this.frameMs) * this.frameMs, this.lastFrame + this.frameMs);
  }

  /** What is due next, at or before `until` (before it, when not `inclusive`); null when nothing is. */
  peek(until: number, inclusive = true): Due | null {
    const within = (t: number) => (inclusive ? t <= until : t < until);
    let first: TimerJob | null = null;
    for (const job of this.jobs.values()) {
      if (!within(job.due)) continue;
      if (!first || job.due < first.due || (job.due === first.due && job.seq < first.seq)) first = job;
    }
    const frame = this.frameCallbacks.size ? this.nextFrameTime() : Infinity;
    if (first && first.due <= frame) return { kind: 'timer', job: first };
    if (within(frame)) return { kind: 'frame', time: frame };
    return null;
  }

  /**
   * Takes a due timer off the queue (an interval is put back at its next
   * due time) and returns the function that runs it at the right nesting level.
   */
  take(job: TimerJob): () => void {
    if (job.interval === null) {
      this.jobs.delete(job.id);
    } else {
      const nesting = job.nesting + 1;
      const period = nesting > NESTING_LIMIT && job.interval < MIN_NESTED_DELAY_MS ? MIN_NESTED_DELAY_MS : job.interval;
      job.due = this.now + period;
      job.delay = period;
      job.seq = this.nextSeq++;
      job.nesting = nesting;
    }
    return () => {
      const outer = this.running;
      this.running = job;
      try {
        job.callback();
      } finally {
        this.running = outer;
      }
    };
  }

  /** The source of a job, for the rest rule (undefined once nothing of it is queued and it was released). */
  sourceOf(job: TimerJob): TimerSource | undefined {
    return this.sources.get(job.source);
  }

  /**
   * After a one-shot timer ran (and its effect on the page was counted):
   * its source is forgotten when no timer of it is queued any more.
   */
  ran(job: TimerJob): void {
    if (job.interval === null) this.release(job.source);
  }

  private release(source: number): void {
    const info = this.sources.get(source);
    if (info && --info.jobs <= 0) this.sources.delete(source);
  }

  /** The callbacks for this frame, in registration order; ones they register wait for the next frame. */
  takeFrame(): Array<(time: number) => void> {
    this.lastFrame = this.now;
    const callbacks = [...this.frameCallbacks.values()];
    this.frameCallbacks = new Map();
    return callbacks;
  }

  /** The timer due first among those `counts` accepts (registration order breaks ties); null when none is queued. */
  nextTimer(counts: (job: TimerJob, source: TimerSource) => boolean = () => true): TimerJob | null {
    let first: TimerJob | null = null;
    for (const job of this.jobs.values()) {
      if (first && !(job.due < first.due || (job.due === first.due && job.seq < first.seq))) continue;
      const source = this.sources.get(job.source);
      if (source && counts(job, source)) first = job;
    }
    return first;
  }

  /** Whether a frame callback is waiting for the next frame. */
  frameRequested(): boolean {
    return this.frameCallbacks.size > 0;
  }

  pendingCount(): number {
    return this.jobs.size + this.frameCallbacks.size;
  }
}
