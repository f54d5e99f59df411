/**
 * Several browsers behind one provider: the endpoints a capture may run on,
 * each with its own parallel limit. A capture goes to the least-loaded
 * endpoint that is in service; the rest wait for a free slot in arrival
 * order (a retry may wait at the front), and any wait can be given up (an
 * AbortSignal), so a retried call stays within its time cap.
 *
 * An endpoint that stops answering is taken out of service for a back-off
 * (1 s, doubling to 10 s, each step shortened by up to a quarter at random so
 * clients do not come back in step; longer when the endpoint sent
 * Retry-After). Failures of attempts that began before the last counted one
 * are the same outage and do not double it again. When the back-off ends one
 * capture probes it; the others wait for that answer rather than all trying
 * at once. It answers: back in service, and every waiter may use it.
 *
 * While none of a waiter's endpoints answers, the waiter is in an outage: it
 * waits for an endpoint within its budget (`outage.budgetMs`, the capture's
 * whole-capture budget), counted from when it began waiting or from when the
 * last of its endpoints stopped answering, whichever is later — so a capture
 * fails for this reason only when that whole budget passed with no endpoint
 * answering (NoEndpointAnswered).
 *
 * A farm that says it is full (HTTP 429) while other captures of ours are on
 * it gets a lower ceiling (at most as many as it took); the capture waits for
 * a slot there instead of failing, and the ceiling rises again by one each
 * BUSY_RELAX_MS without another such answer.
 *
 * The pool only chooses and counts; what a session is (launched, attached,
 * connected per capture) is the caller's.
 */
import { EvidenceError } from '../../common/errors';
import { BUSY_RELAX_MS, FIRST_BACKOFF_MS, MAX_BACKOFF_MS } from '../../common/time';

/** A back-off step is shortened by up to this share, at random. */
export const BACKOFF_JITTER = 0.25;

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
  /** When it stopped answering (0 = answering): where a waiter's outage budget starts at the latest. */
  downSince = 0;
  /** When its state last changed (a counted failure, or its return): a failure of an attempt begun before is the same outage. */
  markedAt = 0;
  /** A capture is probing it after its back-off; the others wait for that answer. */
  probing = false;
  /** At most this many at once after it said it is full (0 = its limit). */
  ceiling = 0;
  /** When it last said it is full. */
  busyAt = 0;

  constructor(
    /** What the endpoint is called in messages: its URL with its credentials hidden, or 'the launched browser'. */
    readonly name: string,
    readonly limit: number,
    /** What the caller keeps per endpoint (its browser session). */
    readonly setup: S,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`${name}: the parallel limit must be a positive integer`);
  }

  /** Answering (no failure since it last answered). */
  answering(): boolean {
    return this.failures === 0;
  }
}

export interface Lease<S> {
  endpoint: Endpoint<S>;
  /** This capture is the one probing an endpoint back from its back-off. */
  probe: boolean;
  /** Gives the slot back (idempotent). */
  release(): void;
}

/** A wait that may be an outage: it ends with NoEndpointAnswered once `budgetMs` pass with no endpoint answering. */
export interface OutageWait {
  budgetMs: number;
  /** When this capture began waiting for an endpoint (its first failed connection); default: when it asked. */
  since?: number;
}

export interface AcquireOptions {
  /** Wait ahead of every capture already waiting (a retry: its call has waited once already). */
  front?: boolean;
  /** Stop waiting: the promise rejects with the signal's reason and no slot is taken. */
  signal?: AbortSignal;
  outage?: OutageWait;
}

/** A wait for an endpoint that ran out of its budget with none answering. */
export class NoEndpointAnswered extends EvidenceError<'no-endpoint-answered'> {
  constructor(
    /** The endpoints it could have used, each with its last failure. */
    readonly endpoints: ReadonlyArray<{ name: string; lastError: string }>,
    readonly budgetMs: number,
  ) {
    super('no-endpoint-answered', `no endpoint answered within ${budgetMs} ms`);
    this.name = 'NoEndpointAnswered';
  }
}

interface Waiter<S> {
  exclude: ReadonlySet<Endpoint<S>>;
  askedAt: number;
  outage?: OutageWait;
  grant(lease: Lease<S>): void;
  fail(err: unknown): void;
}

export interface MarkOptions {
  /** When the failed attempt began: a failure of an attempt begun before the last counted one does not count again. */
  attemptedAt?: number;
  /** The endpoint asked to be retried no sooner than this (Retry-After). */
  retryAfterMs?: number;
}

export class EndpointPool<S> {
  private readonly waiting: Waiter<S>[] = [];
  private wakeTimer: NodeJS.Timeout | null = null;
  private closedWith: unknown = null;

  constructor(
    readonly endpoints: ReadonlyArray<Endpoint<S>>,
    private readonly now: () => number = Date.now,
    /** [0, 1): the jitter's draw (tests pass a fixed one). */
    private readonly random: () => number = Math.random,
  ) {
    if (!endpoints.length) throw new RangeError('an endpoint pool needs at least one endpoint');
  }

  /**
   * A slot on the least-loaded endpoint in service, not in `exclude`; waits
   * when every such endpoint is full or out of service (one waiter probes an
   * endpoint whose back-off ended).
   */
  acquire(exclude: ReadonlySet<Endpoint<S>> = new Set(), options: AcquireOptions = {}): Promise<Lease<S>> {
    if (this.endpoints.every((e) => exclude.has(e))) return Promise.reject(new RangeError('every endpoint is excluded'));
    if (this.closedWith) return Promise.reject(this.closedWith);
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const lease = this.tryLease(exclude);
    if (lease) return Promise.resolve(lease);
    return new Promise((grant, reject) => {
      const waiter: Waiter<S> = {
        exclude,
        askedAt: this.now(),
        outage: options.outage,
        grant: (granted) => {
          signal?.removeEventListener('abort', onAbort);
          grant(granted);
        },
        fail: (err) => {
          signal?.removeEventListener('abort', onAbort);
          reject(err);
        },
      };
      const onAbort = () => {
        const at = this.waiting.indexOf(waiter);
        if (at < 0) return;
        this.waiting.splice(at, 1);
        this.scheduleWake();
        reject(signal!.reason);
      };
      const expired = this.outageExpired(waiter);
      if (expired) return reject(expired);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (options.front) this.waiting.unshift(waiter);
      else this.waiting.push(waiter);
      this.scheduleWake();
    });
  }

  /**
   * Takes an endpoint out of service after it failed to answer; it is
   * offered again after the back-off (returned, in ms from now). A failure
   * of an attempt begun before the last counted one is the same outage: it
   * does not double the back-off (a Retry-After still extends it).
   */
  markDown(endpoint: Endpoint<S>, why: string, options: MarkOptions = {}): number {
    const now = this.now();
    const { attemptedAt, retryAfterMs } = options;
    endpoint.lastError = why;
    const sameOutage = attemptedAt !== undefined && attemptedAt < endpoint.markedAt && endpoint.failures > 0;
    if (!sameOutage) {
      endpoint.failures++;
      if (!endpoint.downSince) endpoint.downSince = Math.min(now, attemptedAt ?? now);
      endpoint.markedAt = now;
      const step = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (endpoint.failures - 1));
      const jittered = Math.round(step * (1 - BACKOFF_JITTER * this.random()));
      endpoint.downUntil = now + Math.max(jittered, retryAfterMs ?? 0);
      endpoint.probing = false;
    } else if (retryAfterMs !== undefined) {
      endpoint.downUntil = Math.max(endpoint.downUntil, now + retryAfterMs);
    }
    this.drain();
    return Math.max(0, endpoint.downUntil - now);
  }

  /** The endpoint answered: back in service, back-off reset, every waiter may use it. */
  markUp(endpoint: Endpoint<S>): void {
    const wasDown = endpoint.failures !== 0 || endpoint.downUntil !== 0;
    endpoint.failures = 0;
    endpoint.downUntil = 0;
    endpoint.downSince = 0;
    endpoint.probing = false;
    endpoint.lastError = '';
    if (!wasDown) return;
    endpoint.markedAt = this.now();
    this.drain();
  }

  /**
   * The endpoint said it is full while `endpoint.active - 1` other captures
   * of ours are on it (the caller still holds the refused capture's slot):
   * at most that many go to it at once for now. Returns the ceiling.
   */
  markBusy(endpoint: Endpoint<S>, why: string): number {
    const others = Math.max(1, endpoint.active - 1);
    endpoint.ceiling = Math.min(endpoint.ceiling || endpoint.limit, others);
    endpoint.busyAt = this.now();
    endpoint.lastError = why;
    return endpoint.ceiling;
  }

  /** Every endpoint's slots together (how many captures a batch runner can keep busy). */
  capacity(): number {
    return this.endpoints.reduce((sum, e) => sum + e.limit, 0);
  }

  /** Every wait ends now with `reason`, and so does every later acquire (the pool is closing). */
  close(reason: unknown): void {
    this.closedWith = reason;
    for (const waiter of this.waiting.splice(0)) waiter.fail(reason);
    this.scheduleWake();
  }

  private allowed(exclude: ReadonlySet<Endpoint<S>>): Endpoint<S>[] {
    return this.endpoints.filter((e) => !exclude.has(e));
  }

  /** Whether `e` takes one more capture now: in service and under its ceiling, or due for its one probe. */
  private takes(e: Endpoint<S>, now: number): boolean {
    if (e.failures > 0) return e.downUntil <= now && !e.probing && e.active < e.limit;
    return e.active < (e.ceiling || e.limit);
  }

  private tryLease(exclude: ReadonlySet<Endpoint<S>>): Lease<S> | null {
    const now = this.now();
    const free = this.allowed(exclude).filter((e) => this.takes(e, now));
    if (!free.length) return null;
    const load = (e: Endpoint<S>) => e.active / (e.ceiling || e.limit);
    // One answering is preferred to one only due for a probe.
    const answering = free.filter((e) => e.answering());
    const pool = answering.length ? answering : free;
    const chosen = pool.reduce((best, e) => (load(e) < load(best) || (load(e) === load(best) && e.dispatched < best.dispatched) ? e : best));
    chosen.active++;
    chosen.dispatched++;
    const probe = chosen.failures > 0;
    if (probe) chosen.probing = true;
    let released = false;
    return {
      endpoint: chosen,
      probe,
      release: () => {
        if (released) return;
        released = true;
        chosen.active--;
        if (probe) chosen.probing = false;
        this.relax(chosen);
        this.drain();
      },
    };
  }

  /** A lowered ceiling rises by one each BUSY_RELAX_MS without another "full" answer. */
  private relax(e: Endpoint<S>): void {
    if (!e.ceiling) return;
    const now = this.now();
    if (now - e.busyAt < BUSY_RELAX_MS) return;
    e.busyAt = now;
    e.ceiling = e.ceiling + 1 >= e.limit ? 0 : e.ceiling + 1;
  }

  /** When this waiter's outage budget ends (null: one of its endpoints answers, or it is not an outage wait). */
  private outageDeadline(waiter: Waiter<S>): number | null {
    if (!waiter.outage) return null;
    const allowed = this.allowed(waiter.exclude);
    if (allowed.some((e) => e.answering())) return null;
    const since = Math.max(waiter.outage.since ?? waiter.askedAt, ...allowed.map((e) => e.downSince));
    return since + waiter.outage.budgetMs;
  }

  private outageExpired(waiter: Waiter<S>): NoEndpointAnswered | null {
    const deadline = this.outageDeadline(waiter);
    if (deadline === null || this.now() < deadline) return null;
    const endpoints = this.allowed(waiter.exclude).map((e) => ({ name: e.name, lastError: e.lastError }));
    return new NoEndpointAnswered(endpoints, waiter.outage!.budgetMs);
  }

  /** Hands free slots to waiters in arrival order (a waiter that fits nowhere keeps its place); ends the waits whose outage budget ran out. */
  private drain(): void {
    for (let i = 0; i < this.waiting.length;) {
      const waiter = this.waiting[i];
      const lease = this.tryLease(waiter.exclude);
      if (lease) {
        this.waiting.splice(i, 1);
        waiter.grant(lease);
        continue;
      }
      const expired = this.outageExpired(waiter);
      if (expired) {
        this.waiting.splice(i, 1);
        waiter.fail(expired);
        continue;
      }
      i++;
    }
    this.scheduleWake();
  }

  /** Look again when the next endpoint is due back, or the next waiter's outage budget ends. */
  private scheduleWake(): void {
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeTimer = null;
    if (!this.waiting.length) return;
    const now = this.now();
    const due = this.endpoints.filter((e) => e.downUntil > now).map((e) => e.downUntil);
    for (const waiter of this.waiting) {
      const deadline = this.outageDeadline(waiter);
      if (deadline !== null) due.push(deadline);
    }
    if (!due.length) return;
    this.wakeTimer = setTimeout(
      () => {
        this.wakeTimer = null;
        this.drain();
      },
      Math.max(0, Math.min(...due) - now) + 1,
    );
    // Not unref'd: a plan whose every capture waits for an endpoint has nothing else keeping the process alive.
  }
}
