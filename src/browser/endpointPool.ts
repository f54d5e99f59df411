/**
 * Several browsers behind one provider: the endpoints a capture may run on,
 * each with its own parallel limit. A capture goes to the least-loaded
 * endpoint that is in service; the rest wait for a free slot in arrival
 * order. An endpoint that stops answering is taken out of service and
 * offered again after a back-off (1 s, doubling to 30 s); while every
 * endpoint is out, a capture still tries the one due soonest rather than
 * failing without trying, so a single endpoint behaves as one browser always
 * did: the next capture reconnects.
 *
 * A retry may wait at the front of the queue, and any wait can be given up
 * (an AbortSignal), so a retried call stays within its time cap.
 *
 * The pool only chooses and counts; what a session is (launched, attached,
 * connected per capture) is the caller's.
 */

export const FIRST_BACKOFF_MS = 1_000;
export const MAX_BACKOFF_MS = 30_000;

export class Endpoint<S> {
  /** Captures running on it now. */
  active = 0;
  /** Captures ever given to it (ties in load go to the one used least). */
  dispatched = 0;
  /** Out of service until then (0 = in service). */
  downUntil = 0;
  /** Consecutive failures: the back-off doubles with each. */
  failures = 0;
  lastError = '';

  constructor(
    /** What the endpoint is called in messages: its URL, or 'the launched browser'. */
    readonly name: string,
    readonly limit: number,
    /** What the caller keeps per endpoint (its browser session). */
    readonly setup: S,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`${name}: the parallel limit must be a positive integer`);
  }

  inService(now: number): boolean {
    return this.downUntil <= now;
  }
}

export interface Lease<S> {
  endpoint: Endpoint<S>;
  /** Gives the slot back (idempotent). */
  release(): void;
}

interface Waiter<S> {
  exclude: ReadonlySet<Endpoint<S>>;
  grant(lease: Lease<S>): void;
}

export interface AcquireOptions {
  /** Wait ahead of every capture already waiting (a retry: its call has waited once already). */
  front?: boolean;
  /** Stop waiting: the promise rejects with the signal's reason and no slot is taken. */
  signal?: AbortSignal;
}

export class EndpointPool<S> {
  private readonly waiting: Waiter<S>[] = [];
  private wakeTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly endpoints: ReadonlyArray<Endpoint<S>>,
    private readonly now: () => number = Date.now,
  ) {
    if (!endpoints.length) throw new RangeError('an endpoint pool needs at least one endpoint');
  }

  /**
   * A slot on the least-loaded endpoint in service, not in `exclude`; waits
   * when every such endpoint is full. When every candidate is out of service,
   * the one due soonest is offered anyway (a capture must try before it fails).
   */
  acquire(exclude: ReadonlySet<Endpoint<S>> = new Set(), options: AcquireOptions = {}): Promise<Lease<S>> {
    if (this.endpoints.every((e) => exclude.has(e))) return Promise.reject(new RangeError('every endpoint is excluded'));
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const lease = this.tryLease(exclude);
    if (lease) return Promise.resolve(lease);
    return new Promise((grant, reject) => {
      const waiter: Waiter<S> = {
        exclude,
        grant: (granted) => {
          signal?.removeEventListener('abort', onAbort);
          grant(granted);
        },
      };
      const onAbort = () => {
        const at = this.waiting.indexOf(waiter);
        if (at < 0) return;
        this.waiting.splice(at, 1);
        this.scheduleWake();
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      if (options.front) this.waiting.unshift(waiter);
      else this.waiting.push(waiter);
      this.scheduleWake();
    });
  }

  /** Takes an endpoint out of service after it failed to answer; it is offered again after the back-off. */
  markDown(endpoint: Endpoint<S>, why: string): number {
    endpoint.failures++;
    endpoint.lastError = why;
    const backoff = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (endpoint.failures - 1));
    endpoint.downUntil = this.now() + backoff;
    this.scheduleWake();
    return backoff;
  }

  /** The endpoint answered: back in service, back-off reset. */
  markUp(endpoint: Endpoint<S>): void {
    const wasDown = endpoint.downUntil !== 0 || endpoint.failures !== 0;
    endpoint.failures = 0;
    endpoint.downUntil = 0;
    endpoint.lastError = '';
    if (wasDown) this.drain();
  }

  /** Every endpoint's slots together (how many captures a batch runner can keep busy). */
  capacity(): number {
    return this.endpoints.reduce((sum, e) => sum + e.limit, 0);
  }

  private candidates(exclude: ReadonlySet<Endpoint<S>>): Endpoint<S>[] {
    const now = this.now();
    const allowed = this.endpoints.filter((e) => !exclude.has(e));
    const inService = allowed.filter((e) => e.inService(now));
    if (inService.length) return inService;
    // Every candidate is out: the one due soonest is tried anyway.
    const soonest = allowed.reduce((a, b) => (b.downUntil < a.downUntil ? b : a));
    return [soonest];
  }

  private tryLease(exclude: ReadonlySet<Endpoint<S>>): Lease<S> | null {
    const free = this.candidates(exclude).filter((e) => e.active < e.limit);
    if (!free.length) return null;
    const chosen = free.reduce((best, e) => {
      const load = e.active / e.limit;
      const bestLoad = best.active / best.limit;
      return load < bestLoad || (load === bestLoad && e.dispatched < best.dispatched) ? e : best;
    });
    chosen.active++;
    chosen.dispatched++;
    let released = false;
    return {
      endpoint: chosen,
      release: () => {
        if (released) return;
        released = true;
        chosen.active--;
        this.drain();
      },
    };
  }

  /** Hands free slots to waiters in arrival order (a waiter that fits nowhere keeps its place). */
  private drain(): void {
    for (let i = 0; i < this.waiting.length; ) {
      const waiter = this.waiting[i];
      const lease = this.tryLease(waiter.exclude);
      if (lease) {
        this.waiting.splice(i, 1);
        waiter.grant(lease);
      } else i++;
    }
    this.scheduleWake();
  }

  /** Waiters may be waiting on an endpoint coming back into service: look again when the next one is due. */
  private scheduleWake(): void {
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeTimer = null;
    if (!this.waiting.length) return;
    const now = this.now();
    const due = this.endpoints.filter((e) => e.downUntil > now).map((e) => e.downUntil);
    if (!due.length) return;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = null;
      this.drain();
    }, Math.max(0, Math.min(...due) - now) + 1);
    this.wakeTimer.unref();
  }
}
