/**
 * Where the bundled provider's captures run: one launched browser, or a pool
 * of attached ones (every --browser-url / --ws-endpoint, or the
 * comma-separated DESIGN_PLAYBOOK_CDP_URL), each with its own parallel limit.
 *
 * - Each capture goes to the least-loaded endpoint in service (EndpointPool).
 * - An endpoint that does not answer when a capture connects (refused, reset,
 *   no answer, HTTP 503/5xx/408, a farm restarting) is taken out of service
 *   for a back-off and the capture moves on to the next one. When none
 *   answers, the capture **waits** for one (the pool's back-off with jitter,
 *   Retry-After honoured) within its own whole-capture budget, instead of
 *   failing at once; it fails for this reason only when that budget passed
 *   with no endpoint answering, and says so with the last cause. A runner
 *   keeps its other lines queued meanwhile (it has only as many in flight as
 *   the pool has slots).
 * - A farm that answers 429 (full) while other captures of ours are on it
 *   gets fewer at once (EndpointPool.markBusy): the capture waits for a slot
 *   there rather than failing.
 * - A refusal that waiting cannot fix (401/403 — the token —, 404, TLS, an
 *   unknown host, not a DevTools endpoint) fails the capture at once when no
 *   other endpoint is left to try.
 * - A capture whose browser went away mid-capture (BrowserSession.goneSignal,
 *   the one test of "the browser died"), or that ran out of its budget on a
 *   browser that then does not answer a short Browser.getVersion (connected
 *   but stopped or wedged: that endpoint is taken out of service too), is run
 *   once more on another endpoint — or, with --connect-per-capture, over a
 *   new connection, which may be to the same farm URL. The retry has one more
 *   budget, queueing and waiting for an endpoint included. The lost attempt
 *   staged nothing (bytes reach the runtime only from the attempt that
 *   finished), so no file is written twice. A failure the page caused (its
 *   browser still answers) is not retried.
 * - --connect-per-capture: every capture connects, captures and disconnects
 *   (services that hand out a fresh browser per DevTools connection); the
 *   connection is closed before its slot is given to the next capture, so a
 *   farm counting sessions has let it go.
 *
 * Every endpoint is named with its credentials hidden (redact.ts), and every
 * error and warning leaving the pool is redacted once more.
 *
 * Only DevTools traffic goes to an endpoint; the artifacts are written here.
 * Attached browsers keep their own tabs: a session only sees the browser
 * contexts it created.
 */
import { attachError, BrowserSession, BrowserUnavailableError } from './browserSession';
import { Endpoint, EndpointPool, NoEndpointAnswered, type Lease } from './endpointPool';
import { attachTargets, browserSessionMode, captureTimeoutMs, connectPerCapture, maxParallel, type AttachTarget, type BrowserFlags } from '../options';
import { BROWSER_SHUTDOWN_MS, CONNECT_MS, ENDPOINT_PROBE_MS, MIN_ATTEMPT_MS, withDeadline } from '../../common/time';
import { noEndpointAnswered, ShutdownError } from '../../common/failures';
import { redactSecrets, redactUrl } from '../../common/redact';
import { classifyProtocolError } from '../../../cdp/failureKinds';
import { log } from '../../common/log';
import { EvidenceError } from '../../common/errors';

export const LAUNCHED_ENDPOINT_NAME = 'the launched browser';

/** Puppeteer's "<method> timed out" (its protocolTimeout). */
function isProtocolTimeout(err: unknown): boolean {
  return err instanceof Error && classifyProtocolError(err) === 'timed-out';
}

interface EndpointSetup {
  target: AttachTarget | null;
  session: BrowserSession;
}

type PoolEndpoint = Endpoint<EndpointSetup>;

export interface PooledRun<T> {
  value: T;
  /** What the caller should hear about (a capture run again on another browser). */
  warnings: string[];
}

/** A retry that did not finish within its one extra budget (its message names both attempts). */
class RetryTimedOut extends EvidenceError<'retry-timed-out'> {
  constructor(message: string) {
    super('retry-timed-out', message);
    this.name = 'RetryTimedOut';
  }
}

/** Where one capture stands in finding an endpoint. */
interface CaptureWait {
  /** Not to be tried again this round: failed just now, or where the first attempt lost its browser. */
  passedOver: Set<PoolEndpoint>;
  /** Refused it with a cause waiting cannot fix (a bad token): not tried again by this capture. */
  refused: Set<PoolEndpoint>;
  /** When its current wait for an endpoint began (the start of its first failed connection). */
  since?: number;
  lastFailure: BrowserUnavailableError | null;
}

interface LostAttempt {
  endpoint: PoolEndpoint;
  why: string;
  happened: 'went away' | 'stopped answering';
}

interface RetryCap {
  cap: AbortController;
  timer: NodeJS.Timeout;
  deadline: number;
}

function firstLine(message: string): string {
  return message.split('\n')[0];
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10}`;
}

/** Hides credentials in whatever leaves the pool (an error the capture itself raised may name the endpoint). */
function redacted<E>(err: E): E {
  if (err instanceof Error) {
    const clean = redactSecrets(err.message);
    if (clean !== err.message) err.message = clean;
  }
  return err;
}

export class BrowserPool {
  private pool: EndpointPool<EndpointSetup> | null = null;
  private perCapture = false;
  private closed = false;
  /** Sessions opened for one capture each (connect-per-capture), closed with the pool. */
  private readonly oneOff = new Set<BrowserSession>();
  /** The lowest ceiling logged for a farm that said it is full (a log line per new low only). */
  private readonly lowestCeiling = new WeakMap<PoolEndpoint, number>();

  constructor(
    private readonly flags: () => BrowserFlags = () => ({}),
    private readonly env: NodeJS.ProcessEnv = process.env,
    /** A session to use as the only endpoint (tests inject one). */
    private readonly injected?: BrowserSession,
  ) {}

  /** The endpoints, made from the flags on first use (the CLI sets them before any capture). */
  endpoints(): ReadonlyArray<PoolEndpoint> {
    return this.ensure().endpoints;
  }

  private ensure(): EndpointPool<EndpointSetup> {
    if (this.pool) return this.pool;
    const flags = this.flags();
    const targets = this.injected ? [] : attachTargets(flags, this.env);
    const limit = maxParallel(this.env, flags);
    // An injected session is the one endpoint there is: nothing to connect anew.
    this.perCapture = !this.injected && connectPerCapture(flags, this.env);
    if (!this.injected) {
      try {
        browserSessionMode(flags, this.env);
      } catch (err) {
        throw new BrowserUnavailableError((err as Error).message);
      }
    }
    if (this.perCapture && !targets.length) {
      throw new BrowserUnavailableError(
        '--connect-per-capture needs a browser endpoint to connect to: pass --ws-endpoint or --browser-url (or set DESIGN_PLAYBOOK_CDP_URL)',
      );
    }
    const endpoints =
      targets.length > 1
        ? targets.map((target) => new Endpoint(redactUrl(target.url), limit, { target, session: new BrowserSession(this.flags, this.env, target) }))
        : [
            new Endpoint(targets[0] ? redactUrl(targets[0].url) : LAUNCHED_ENDPOINT_NAME, limit, {
              target: targets[0] ?? null,
              session: this.injected ?? new BrowserSession(this.flags, this.env),
            }),
          ];
    this.pool = new EndpointPool(endpoints);
    if (endpoints.length > 1)
      log(`browser pool: ${endpoints.map((e) => e.name).join(', ')} (${limit} at once each${this.perCapture ? ', a new connection per capture' : ''})`);
    return this.pool;
  }

  /**
   * Runs `capture` on a session of the least-loaded endpoint. Rejects with
   * the capture's own error, a refusal no endpoint can get past (a bad
   * token), or — when no endpoint answered for a whole budget — that, with
   * the last cause.
   *
   * A capture is run a second time (once) when its first attempt lost its
   * browser: the browser went away, or it ran out of its budget and the
   * browser then did not answer a short Browser.getVersion (a process that
   * stays connected but is stopped or wedged). A failure the page caused —
   * the browser still answers — is the capture's result and is not retried.
   * The retry waits ahead of new captures and gets one more whole-capture
   * budget, counted from the moment it is decided (waiting for a slot or an
   * endpoint included), so a call takes at most its wait for an endpoint +
   * its first attempt + the probe + one budget.
   */
  async run<T>(capture: (session: BrowserSession) => Promise<T>): Promise<PooledRun<T>> {
    try {
      const done = await this.runOnPool(capture);
      return { value: done.value, warnings: done.warnings.map(redactSecrets) };
    } catch (err) {
      throw redacted(err);
    }
  }

  private async runOnPool<T>(capture: (session: BrowserSession) => Promise<T>): Promise<PooledRun<T>> {
    const pool = this.ensure();
    const budgetMs = captureTimeoutMs(this.env);
    const wait: CaptureWait = { passedOver: new Set(), refused: new Set(), lastFailure: null };
    const warnings: string[] = [];
    let lostOn: LostAttempt | null = null;
    let retry: RetryCap | null = null;
    try {
      for (;;) {
        const lease = await this.acquireSlot(pool, wait, retry, lostOn, budgetMs);
        const endpoint = lease.endpoint;
        const session = this.perCapture ? this.openOneOff(endpoint.setup.target) : endpoint.setup.session;
        /** The retry's cap gave up on the attempt while it still runs: its slot is freed when it ends. */
        let gaveUp = false;
        let attempt: Promise<T> | null = null;
        try {
          const attemptedAt = Date.now();
          // The outage clock runs only while no endpoint answers: a healthy one was handed out.
          if (!lease.probe && endpoint.answering()) wait.since = undefined;
          try {
            await this.connect(session, endpoint, this.attemptMs(wait, retry, budgetMs));
          } catch (err) {
            if (!(err instanceof BrowserUnavailableError) || this.closed) throw err;
            this.connectFailed(pool, lease, err, attemptedAt, wait, budgetMs);
            if (pool.endpoints.every((e) => wait.refused.has(e))) throw lostOn ? this.afterLoss(err, lostOn) : err;
            continue;
          }
          this.answered(pool, endpoint);
          wait.since = undefined;
          const gone = session.goneSignal();
          // The retry's cap ran out while it connected: the capture is not started at all.
          if (retry?.cap.signal.aborted) throw this.afterLoss(retry.cap.signal.reason, lostOn!);
          const started = Date.now();
          attempt = capture(session);
          try {
            const value = retry ? await this.withinCap(attempt, retry.cap.signal, () => (gaveUp = true)) : await attempt;
            if (lostOn) warnings.push(this.retriedWarning(lostOn, endpoint));
            return { value, warnings };
          } catch (err) {
            if (this.closed || gaveUp) throw lostOn ? this.afterLoss(err, lostOn) : err;
            const why = await this.lostBrowser(session, gone, started, err);
            if (!why) throw lostOn ? this.afterLoss(err, lostOn) : err;
            const stopped = !gone.aborted;
            // A launched browser is relaunched by its session; an attached one is given time to come back.
            // With a connection per capture the next connection is another browser: nothing to take out.
            if (endpoint.setup.target && !this.perCapture) {
              // The captures it lost together are one failure: the back-off doubles once.
              const backoff = pool.markDown(endpoint, why, { attemptedAt: started });
              if (stopped) log(`${endpoint.name} stopped answering (${why}); out of service for ${seconds(backoff)} s`);
            }
            if (lostOn || !this.canRetry(pool)) throw lostOn ? this.afterLoss(err, lostOn) : err;
            lostOn = { endpoint, why, happened: stopped ? 'stopped answering' : 'went away' };
            wait.passedOver.add(endpoint);
            // One farm URL: a new connection is a new browser, so the retry may go to the same URL.
            if (this.perCapture && pool.endpoints.every((e) => wait.passedOver.has(e) || wait.refused.has(e))) wait.passedOver.clear();
            const sameUrl = this.perCapture && pool.endpoints.length === 1;
            log(
              `${endpoint.name} ${lostOn.happened} during a capture; capturing it again ${sameUrl ? `over a new connection to ${endpoint.name}` : 'on another browser'}`,
            );
            retry = this.startRetryCap(endpoint.name, why, budgetMs);
            continue;
          }
        } finally {
          const done = async () => {
            // A farm's session ends when its connection closes: closed first, then the slot goes to the next capture.
            if (this.perCapture) await this.closeOneOff(session);
            else session.prepareSpare();
            lease.release();
          };
          const running = gaveUp ? (attempt as Promise<T> | null) : null;
          if (running) running.then(done, done).catch(() => undefined);
          else await done();
        }
      }
    } finally {
      if (retry) clearTimeout(retry.timer);
    }
  }

  /** The warning a retried capture carries, saying where it was captured in the end. */
  private retriedWarning(lost: LostAttempt, finishedOn: PoolEndpoint): string {
    const where =
      finishedOn !== lost.endpoint
        ? 'on another browser of the pool'
        : this.perCapture
          ? `over a new connection to ${finishedOn.name}`
          : 'on the same browser once it answered again';
    return `the browser at ${lost.endpoint.name} ${lost.happened} during the capture; it was captured again ${where}`;
  }

  /**
   * A connection failed: the endpoint is taken out of service (a farm full
   * with our own captures gets a lower ceiling instead, and one that refused
   * for good is left to the other endpoints), and this capture notes where
   * it stands.
   */
  private connectFailed(
    pool: EndpointPool<EndpointSetup>,
    lease: Lease<EndpointSetup>,
    err: BrowserUnavailableError,
    attemptedAt: number,
    wait: CaptureWait,
    budgetMs: number,
  ): void {
    const endpoint = lease.endpoint;
    wait.lastFailure = err;
    const several = pool.endpoints.length > 1;
    if (!err.transient) {
      wait.refused.add(endpoint);
      const changed = endpoint.lastError !== err.message;
      endpoint.lastError = err.message;
      if (several && changed) log(`${endpoint.name} refused the connection (${firstLine(err.summary)}); the capture goes to the other browsers`);
      return;
    }
    const cause = err.connect?.cause;
    const busy = cause?.kind === 'http' && cause.status === 429;
    if (busy && this.perCapture && endpoint.active > 1) {
      const ceiling = pool.markBusy(endpoint, err.message);
      // Said once per new low: the ceiling rising by one and falling back is the pool finding the farm's size, not news.
      const lowest = this.lowestCeiling.get(endpoint);
      if (lowest === undefined || ceiling < lowest) {
        this.lowestCeiling.set(endpoint, ceiling);
        log(
          `${endpoint.name} is full (${firstLine(err.summary)}); sending it at most ${ceiling} capture${ceiling === 1 ? '' : 's'} at once for now, the others wait for a slot`,
        );
      }
      return;
    }
    wait.since ??= attemptedAt;
    const counted = endpoint.failures;
    const retryAfterMs = cause?.kind === 'http' ? cause.retryAfterMs : undefined;
    const backoff = pool.markDown(endpoint, err.message, { attemptedAt, retryAfterMs });
    if (endpoint.failures !== counted) {
      const waits = several ? '' : `; captures wait for it, each up to its ${budgetMs} ms budget (DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS)`;
      log(`${endpoint.name} does not answer (${firstLine(err.summary)}); out of service for ${seconds(backoff)} s${waits}`);
    }
    wait.passedOver.add(endpoint);
    if (pool.endpoints.every((e) => wait.passedOver.has(e) || wait.refused.has(e))) wait.passedOver.clear();
  }

  /** The endpoint answered: back in service; said so when it had been out. */
  private answered(pool: EndpointPool<EndpointSetup>, endpoint: PoolEndpoint): void {
    const wasOut = !endpoint.answering();
    const outFor = endpoint.downSince ? Date.now() - endpoint.downSince : 0;
    pool.markUp(endpoint);
    if (wasOut && endpoint.setup.target) log(`${endpoint.name} answers again (after ${seconds(outFor)} s without an answer)`);
  }

  /** How long this connection attempt may take: the connect limit, within what is left of the wait and of a retry's cap. */
  private attemptMs(wait: CaptureWait, retry: RetryCap | null, budgetMs: number): number {
    // A farm may hold a new connection until it has a browser free: it gets the whole budget.
    let ms = this.perCapture ? budgetMs : Math.min(CONNECT_MS, budgetMs);
    if (wait.since !== undefined) ms = Math.min(ms, wait.since + budgetMs - Date.now());
    if (retry) ms = Math.min(ms, retry.deadline - Date.now());
    return Math.max(MIN_ATTEMPT_MS, Math.round(ms));
  }

  /** The attempt, or the cap's error once the signal fires first (`onExpired` is told; the attempt runs on). */
  private withinCap<T>(attempt: Promise<T>, signal: AbortSignal, onExpired: () => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const expired = () => {
        onExpired();
        reject(signal.reason);
      };
      if (signal.aborted) return expired();
      signal.addEventListener('abort', expired, { once: true });
      attempt.then(
        (value) => {
          signal.removeEventListener('abort', expired);
          resolve(value);
        },
        (err) => {
          signal.removeEventListener('abort', expired);
          reject(err);
        },
      );
    });
  }

  /**
   * A slot for the next attempt: on an endpoint in service, or probing one
   * whose back-off ended; a retry waits ahead of new captures, and no longer
   * than its cap. While no endpoint answers the wait is bounded by the
   * capture's budget (NoEndpointAnswered, worded with the last causes).
   */
  private async acquireSlot(
    pool: EndpointPool<EndpointSetup>,
    wait: CaptureWait,
    retry: RetryCap | null,
    lostOn: LostAttempt | null,
    budgetMs: number,
  ): Promise<Lease<EndpointSetup>> {
    // Every endpoint still open to it is out while one it passed over answers again: that one is a candidate again.
    const open = pool.endpoints.filter((e) => !wait.refused.has(e));
    if (open.filter((e) => !wait.passedOver.has(e)).every((e) => !e.answering()) && open.some((e) => wait.passedOver.has(e) && e.answering()))
      wait.passedOver.clear();
    const exclude = new Set([...wait.passedOver, ...wait.refused]);
    try {
      return await pool.acquire(exclude, { front: !!retry, signal: retry?.cap.signal, outage: { budgetMs, since: wait.since } });
    } catch (err) {
      let failure = err;
      if (err instanceof NoEndpointAnswered) {
        const last = pool.endpoints.filter((e) => e.lastError && (!e.answering() || wait.refused.has(e))).map((e) => e.lastError);
        failure = new BrowserUnavailableError(noEndpointAnswered(budgetMs, last.length ? last : wait.lastFailure ? [wait.lastFailure.message] : []));
      } else if (err instanceof RetryTimedOut) {
        // It may have waited behind another capture's probe without trying itself: the endpoint's last answer then.
        const last = wait.lastFailure?.message ?? pool.endpoints.find((e) => !e.answering() && e.lastError)?.lastError;
        if (last) failure = new RetryTimedOut(`${err.message}; the last connection attempt: ${last}`);
      }
      throw lostOn ? this.afterLoss(failure, lostOn) : failure;
    }
  }

  /** The retry's cap: one more whole-capture budget from now, waiting for a slot or an endpoint included. */
  private startRetryCap(firstOn: string, why: string, budgetMs: number): RetryCap {
    const cap = new AbortController();
    const timer = setTimeout(
      () =>
        cap.abort(
          new RetryTimedOut(
            `the capture was run again after its first attempt on ${firstOn} lost its browser (${why}), and the retry did not finish within ` +
              `one more whole-capture budget (${budgetMs} ms, DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS), waiting for a free browser included; nothing was captured`,
          ),
        ),
      budgetMs,
    );
    timer.unref();
    return { cap, timer, deadline: Date.now() + budgetMs };
  }

  /** Whether a lost capture may run again: another endpoint to go to, or a new browser behind the same farm URL. */
  private canRetry(pool: EndpointPool<EndpointSetup>): boolean {
    return pool.endpoints.length >= 2 || this.perCapture;
  }

  /**
   * Why the attempt's browser is lost, or null when it is not (the failure is
   * the capture's own). Lost: it went away (its `gone` signal fired), or the
   * attempt ran out of its budget / hit a protocol timeout and the browser
   * then did not answer Browser.getVersion within ENDPOINT_PROBE_MS.
   */
  private async lostBrowser(session: BrowserSession, gone: AbortSignal, started: number, err: unknown): Promise<string | null> {
    const message = firstLine(err instanceof Error ? err.message : String(err));
    if (gone.aborted) return message;
    // Only an attached browser is probed: a launched one is this process's child, killed and relaunched by its session.
    if (!session.attachTarget()) return null;
    const ranOut = Date.now() - started >= captureTimeoutMs(this.env) || isProtocolTimeout(err);
    if (!ranOut) return null;
    if (await this.answers(session)) return null;
    if (gone.aborted) return message;
    return `no answer to Browser.getVersion within ${ENDPOINT_PROBE_MS} ms after: ${message}`;
  }

  /**
   * The session's browser, within `connectMs` (a stopped process accepts the
   * TCP connection and never answers). An endpoint back from being taken out
   * while its connection stayed open (stopped, not gone) must first answer
   * Browser.getVersion: an open connection alone proves nothing.
   */
  private async connect(session: BrowserSession, endpoint: PoolEndpoint, connectMs: number): Promise<void> {
    const target = endpoint.setup.target;
    if (!target) {
      await session.acquire();
      return;
    }
    const wasConnected = session.isConnected();
    await withDeadline(session.acquire(connectMs), connectMs, () => attachError(target, { kind: 'timeout', ms: connectMs }, this.perCapture));
    if (wasConnected && endpoint.failures > 0 && !(await this.answers(session))) {
      const message = `the browser at ${endpoint.name} is connected but does not answer Browser.getVersion within ${ENDPOINT_PROBE_MS} ms (${firstLine(endpoint.lastError)})`;
      throw new BrowserUnavailableError(message, { cause: { kind: 'timeout', ms: ENDPOINT_PROBE_MS }, transient: true, summary: message });
    }
  }

  /** One short round trip to the browser itself (not a page): does it still answer? */
  private async answers(session: BrowserSession): Promise<boolean> {
    if (!session.isConnected()) return false;
    try {
      const browser = await session.acquire();
      await withDeadline(browser.version(), ENDPOINT_PROBE_MS, 'Browser.getVersion');
      return true;
    } catch {
      return false;
    }
  }

  /** The retry failed too: say so, with what happened to the first attempt. */
  private afterLoss(err: unknown, lostOn: LostAttempt): Error {
    // The cap's own message already names both attempts.
    if (err instanceof RetryTimedOut) return err;
    const message = err instanceof Error ? err.message : String(err);
    return new Error(`${message} (a first attempt was lost when the browser at ${lostOn.endpoint.name} went away: ${lostOn.why})`);
  }

  private openOneOff(target: AttachTarget | null): BrowserSession {
    const session = target ? new BrowserSession(this.flags, this.env, target) : new BrowserSession(this.flags, this.env);
    this.oneOff.add(session);
    return session;
  }

  /** Disconnects a one-off session; the capture does not wait on a connection that will not let go (close() still does, bounded). */
  private async closeOneOff(session: BrowserSession): Promise<void> {
    const closing = session.shutdown().finally(() => this.oneOff.delete(session));
    await withDeadline(closing, BROWSER_SHUTDOWN_MS, 'disconnecting').catch(() => undefined);
  }

  /**
   * Closes what the pool opened: the launched browser, or only this process's
   * contexts on attached ones. Captures still waiting for a slot or an
   * endpoint end now (ShutdownError). An attached browser that does not
   * answer (a connection still pending, a context close never confirmed) is
   * let go after BROWSER_SHUTDOWN_MS: it is not ours to wait for.
   */
  async close(): Promise<void> {
    this.closed = true;
    this.pool?.close(new ShutdownError());
    const sessions = new Set<BrowserSession>(this.oneOff);
    for (const endpoint of this.pool?.endpoints ?? []) sessions.add(endpoint.setup.session);
    if (this.injected) sessions.add(this.injected);
    await Promise.allSettled(
      [...sessions].map((s) => (s.attachTarget() ? withDeadline(s.shutdown(), BROWSER_SHUTDOWN_MS, 'disconnecting from an attached browser') : s.shutdown())),
    );
  }
}
