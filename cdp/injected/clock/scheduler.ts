/**
 * The virtual clock's queue: timers, idle callbacks and animation frames,
 * taken in a fixed order — earliest due time first, then registration order;
 * at one instant timers come before the frame. Pure logic (no DOM), so the
 * order can be tested without a browser.
 */

/** Browsers clamp timers nested deeper than this to MIN_NESTED_DELAY_MS (HTML timers). */
const NESTING_LIMIT = 5;
const MIN_NESTED_DELAY_MS = 4;

export interface TimerJob {
  id: number;
  due: number;
  seq: number;
  /** The delay it was set with (after clamping), ms: how far apart a chain of such timers fires. */
  delay: number;
  /** Repeat period for setInterval; null for one-shot jobs. */
  interval: number | null;
  nesting: number;
  callback: () => void;
}

export type Due = { kind: 'timer'; job: TimerJob } | { kind: 'frame'; time: number };

export class Scheduler {
  /** Virtual ms since the document's clock started. */
  now: number;
  private readonly jobs = new Map<number, TimerJob>();
  private frameCallbacks = new Map<number, (time: number) => void>();
  private nextId = 1;
  private nextSeq = 1;
  /** Nesting level of the timer whose callback is running (0 outside timers). */
  private runningNesting = 0;
  /** When the last frame ran: a frame runs at most once per boundary. */
  private lastFrame = 0;

  constructor(
    readonly frameMs: number,
    startAt = 0,
  ) {
    this.now = startAt;
    this.lastFrame = Math.floor(startAt / frameMs) * frameMs;
  }

  /** setTimeout / setInterval: returns the id clearTimeout takes. */
  schedule(delay: number, callback: () => void, repeat: boolean): number {
    const nesting = this.runningNesting + 1;
    let ms = Number(delay);
    if (!Number.isFinite(ms) || ms < 0) ms = 0;
    if (nesting > NESTING_LIMIT && ms < MIN_NESTED_DELAY_MS) ms = MIN_NESTED_DELAY_MS;
    const id = this.nextId++;
    this.jobs.set(id, { id, due: this.now + ms, seq: this.nextSeq++, delay: ms, interval: repeat ? ms : null, nesting, callback });
    return id;
  }

  cancel(id: unknown): void {
    const key = Number(id);
    this.jobs.delete(key);
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

  /** What is due next, at or before `until`; null when nothing is. */
  peek(until: number): Due | null {
    let first: TimerJob | null = null;
    for (const job of this.jobs.values()) {
      if (job.due > until) continue;
      if (!first || job.due < first.due || (job.due === first.due && job.seq < first.seq)) first = job;
    }
    const frame = this.frameCallbacks.size ? this.nextFrameTime() : Infinity;
    if (first && first.due <= frame) return { kind: 'timer', job: first };
    if (frame <= until) return { kind: 'frame', time: frame };
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
      const outer = this.runningNesting;
      this.runningNesting = job.nesting;
      try {
        job.callback();
      } finally {
        this.runningNesting = outer;
      }
    };
  }

  /** The callbacks for this frame, in registration order; ones they register wait for the next frame. */
  takeFrame(): Array<(time: number) => void> {
    this.lastFrame = this.now;
    const callbacks = [...this.frameCallbacks.values()];
    this.frameCallbacks = new Map();
    return callbacks;
  }

  /** The timer due first (registration order breaks ties); null when none is queued. */
  nextTimer(): TimerJob | null {
    let first: TimerJob | null = null;
    for (const job of this.jobs.values()) {
      if (!first || job.due < first.due || (job.due === first.due && job.seq < first.seq)) first = job;
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
