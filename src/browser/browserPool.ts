/**
 * Where the bundled provider's captures run: one launched browser, or a pool
 * of attached ones (every --browser-url / --ws-endpoint, or the
 * comma-separated DESIGN_PLAYBOOK_CDP_URL), each with its own parallel limit.
 *
 * - Each capture goes to the least-loaded endpoint in service (EndpointPool).
 * - An endpoint that does not answer when a capture connects is taken out of
 *   service (offered again after a back-off) and the capture moves on to the
 *   next one; it fails only when no endpoint answers.
 * - A capture whose browser went away mid-capture (BrowserSession.lostSince,
 *   the one test of "the browser died"), or that ran out of its budget on a
 *   browser that then does not answer a short Browser.getVersion (connected
 *   but stopped or wedged: that endpoint is taken out of service too), is run
 *   once more on another endpoint — or, with --connect-per-capture, over a
 *   new connection, which may be to the same farm URL. The retry has one more
 *   budget, queueing included. The lost attempt staged nothing (bytes reach
 *   the runtime only from the attempt that finished), so no file is written
 *   twice. A failure the page caused (its browser still answers) is not
 *   retried.
 * - --connect-per-capture: every capture connects, captures and disconnects
 *   (services that hand out a fresh browser per DevTools connection).
 *
 * Only DevTools traffic goes to an endpoint; the artifacts are written here.
 * Attached browsers keep their own tabs: a session only sees the browser
 * contexts it created.
 */
import { BrowserSession, BrowserUnavailableError } from './browserSession';
import { Endpoint, EndpointPool, type Lease } from './endpointPool';
import { attachTargets, captureTimeoutMs, connectPerCapture, maxParallel, type AttachTarget, type BrowserFlags } from './options';
import { withDeadline } from '../deadline';
import { classifyProtocolError } from '../../cdp/protocolErrors';
import { log } from '../log';

export const LAUNCHED_ENDPOINT_NAME = 'the launched browser';

/** How long a browser has to answer Browser.getVersion after a capture on it ran out of time. */
export const ENDPOINT_PROBE_MS = 2_000;
/** Longest wait for disconnecting from an attached browser (ours to leave, not to wait for). */
export const ATTACHED_SHUTDOWN_MS = 5_000;
/** Longest wait for an attached endpoint to connect (at most the capture budget; with a connection per capture, the budget). */
export const CONNECT_MS = 10_000;

/** Puppeteer's "<method> timed out" (its protocolTimeout). */
function isProtocolTimeout(err: unknown): boolean {
  return err instanceof Error && classifyProtocolError(err) === 'timed-out';
}

interface EndpointSetup {
  target: AttachTarget | null;
  session: BrowserSession;
}

export interface PooledRun<T> {
  value: T;
  /** What the caller should hear about (a capture run again on another browser). */
  warnings: string[];
}

/** A retry that did not finish within its one extra budget (its message names both attempts). */
class RetryTimedOut extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RetryTimedOut';
  }
}

function firstLine(message: string): string {
  return message.split('\n')[0];
}

export class BrowserPool {
  private pool: EndpointPool<EndpointSetup> | null = null;
  private perCapture = false;
  private closed = false;
  /** Sessions opened for one capture each (connect-per-capture), closed with the pool. */
  private readonly oneOff = new Set<BrowserSession>();

  constructor(
    private readonly flags: () => BrowserFlags = () => ({}),
    private readonly env: NodeJS.ProcessEnv = process.env,
    /** A session to use as the only endpoint (tests inject one). */
    private readonly injected?: BrowserSession,
  ) {}

  /** The endpoints, made from the flags on first use (the CLI sets them before any capture). */
  endpoints(): ReadonlyArray<Endpoint<EndpointSetup>> {
    return this.ensure().endpoints;
  }

  private ensure(): EndpointPool<EndpointSetup> {
    if (this.pool) return this.pool;
    const flags = this.flags();
    const targets = this.injected ? [] : attachTargets(flags, this.env);
    const limit = maxParallel(this.env, flags);
    // An injected session is the one endpoint there is: nothing to connect anew.
    this.perCapture = !this.injected && connectPerCapture(flags, this.env);
    if (this.perCapture && !targets.length) {
      throw new BrowserUnavailableError(
        '--connect-per-capture needs a browser endpoint to connect to: pass --ws-endpoint or --browser-url (or set DESIGN_PLAYBOOK_CDP_URL)',
      );
    }
    const endpoints =
      targets.length > 1
        ? targets.map((target) => new Endpoint(target.url, limit, { target, session: new BrowserSession(this.flags, this.env, target) }))
        : [
            new Endpoint(targets[0]?.url ?? LAUNCHED_ENDPOINT_NAME, limit, {
              target: targets[0] ?? null,
              session: this.injected ?? new BrowserSession(this.flags, this.env),
            }),
          ];
    this.pool = new EndpointPool(endpoints);
    if (endpoints.length > 1) log(`browser pool: ${endpoints.map((e) => e.name).join(', ')} (${limit} at once each${this.perCapture ? ', a new connection per capture' : ''})`);
    return this.pool;
  }

  /**
   * Runs `capture` on a session of the least-loaded endpoint. Rejects with
   * the capture's own error, or the connection error when no endpoint answers.
   *
   * A capture is run a second time (once) when its first attempt lost its
   * browser: the browser went away, or it ran out of its budget and the
   * browser then did not answer a short Browser.getVersion (a process that
   * stays connected but is stopped or wedged). A failure the page caused —
   * the browser still answers — is the capture's result and is not retried.
   * The retry waits ahead of new captures and gets one more whole-capture
   * budget, counted from the moment it is decided (waiting for a slot
   * included), so a call takes at most its first attempt + the probe + one
   * budget.
   */
  async run<T>(capture: (session: BrowserSession) => Promise<T>): Promise<PooledRun<T>> {
    const pool = this.ensure();
    const passedOver = new Set<Endpoint<EndpointSetup>>();
    const warnings: string[] = [];
    let lostOn: { name: string; why: string } | null = null;
    let retry: { cap: AbortController; timer: NodeJS.Timeout } | null = null;
    try {
      for (;;) {
        const lease = await this.acquireSlot(pool, passedOver, retry, lostOn);
        const endpoint = lease.endpoint;
        const session = this.perCapture ? this.openOneOff(endpoint.setup.target) : endpoint.setup.session;
        /** The retry's cap gave up on the attempt while it still runs: its slot is freed when it ends. */
        let gaveUp = false;
        let attempt: Promise<T> | null = null;
        try {
          try {
            await this.connect(session, endpoint);
          } catch (err) {
            if (!(err instanceof BrowserUnavailableError) || this.closed) throw err;
            const backoff = pool.markDown(endpoint, err.message);
            passedOver.add(endpoint);
            if (pool.endpoints.length > 1) log(`${endpoint.name} does not answer (${firstLine(err.message)}); out of service for ${backoff / 1000} s`);
            if (passedOver.size === pool.endpoints.length) throw lostOn ? this.afterLoss(err, lostOn) : err;
            continue;
          }
          pool.markUp(endpoint);
          const generation = session.generation;
          // The retry's cap ran out while it connected: the capture is not started at all.
          if (retry?.cap.signal.aborted) throw this.afterLoss(retry.cap.signal.reason, lostOn!);
          const started = Date.now();
          attempt = capture(session);
          try {
            return { value: retry ? await this.withinCap(attempt, retry.cap.signal, () => (gaveUp = true)) : await attempt, warnings };
          } catch (err) {
            if (this.closed || gaveUp) throw lostOn ? this.afterLoss(err, lostOn) : err;
            const why = await this.lostBrowser(session, generation, started, err);
            if (!why) throw lostOn ? this.afterLoss(err, lostOn) : err;
            const stopped = !session.lostSince(generation);
            // A launched browser is relaunched by its session; an attached one is given time to come back.
            // With a connection per capture the next connection is another browser: nothing to take out.
            if (endpoint.setup.target && !this.perCapture) {
              const backoff = pool.markDown(endpoint, why);
              if (stopped) log(`${endpoint.name} stopped answering (${why}); out of service for ${backoff / 1000} s`);
            }
            if (lostOn || !this.canRetry(pool)) throw lostOn ? this.afterLoss(err, lostOn) : err;
            lostOn = { name: endpoint.name, why };
            passedOver.add(endpoint);
            // One farm URL: a new connection is a new browser, so the retry may go to the same URL.
            if (this.perCapture && passedOver.size === pool.endpoints.length) passedOver.clear();
            const sameUrl = this.perCapture && pool.endpoints.length === 1;
            const elsewhere = sameUrl ? `over a new connection to ${endpoint.name}` : 'on another browser of the pool';
            const happened = stopped ? 'stopped answering' : 'went away';
            log(`${endpoint.name} ${happened} during a capture; capturing it again ${sameUrl ? elsewhere : 'on another browser'}`);
            warnings.push(`the browser at ${endpoint.name} ${happened} during the capture; it was captured again ${elsewhere}`);
            retry = this.startRetryCap(endpoint.name, why);
            continue;
          }
        } finally {
          const done = async () => {
            lease.release();
            if (this.perCapture) await this.closeOneOff(session);
            else session.prepareSpare();
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

  /** A slot for the next attempt; a retry waits ahead of new captures, and no longer than its cap. */
  private acquireSlot(
    pool: EndpointPool<EndpointSetup>,
    passedOver: ReadonlySet<Endpoint<EndpointSetup>>,
    retry: { cap: AbortController } | null,
    lostOn: { name: string; why: string } | null,
  ): Promise<Lease<EndpointSetup>> {
    if (!retry) return pool.acquire(passedOver);
    return pool.acquire(passedOver, { front: true, signal: retry.cap.signal }).catch((err) => {
      throw lostOn ? this.afterLoss(err, lostOn) : err;
    });
  }

  /** The retry's cap: one more whole-capture budget from now, waiting for a slot included. */
  private startRetryCap(firstOn: string, why: string): { cap: AbortController; timer: NodeJS.Timeout } {
    const budgetMs = captureTimeoutMs(this.env);
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
    return { cap, timer };
  }

  /** Whether a lost capture may run again: another endpoint to go to, or a new browser behind the same farm URL. */
  private canRetry(pool: EndpointPool<EndpointSetup>): boolean {
    return pool.endpoints.length >= 2 || this.perCapture;
  }

  /**
   * Why the attempt's browser is lost, or null when it is not (the failure is
   * the capture's own). Lost: it went away (BrowserSession.lostSince), or the
   * attempt ran out of its budget / hit a protocol timeout and the browser
   * then did not answer Browser.getVersion within ENDPOINT_PROBE_MS.
   */
  private async lostBrowser(session: BrowserSession, generation: number, started: number, err: unknown): Promise<string | null> {
    const message = firstLine(err instanceof Error ? err.message : String(err));
    if (session.lostSince(generation)) return message;
    // Only an attached browser is probed: a launched one is this process's child, killed and relaunched by its session.
    if (!session.attachTarget()) return null;
    const ranOut = Date.now() - started >= captureTimeoutMs(this.env) || isProtocolTimeout(err);
    if (!ranOut) return null;
    if (await this.answers(session)) return null;
    if (session.lostSince(generation)) return message;
    return `no answer to Browser.getVersion within ${ENDPOINT_PROBE_MS} ms after: ${message}`;
  }

  /**
   * The session's browser, within CONNECT_MS (a stopped process accepts the
   * TCP connection and never answers). An endpoint back from being taken out
   * while its connection stayed open (stopped, not gone) must first answer
   * Browser.getVersion: an open connection alone proves nothing.
   */
  private async connect(session: BrowserSession, endpoint: Endpoint<EndpointSetup>): Promise<void> {
    const target = endpoint.setup.target;
    if (!target) {
      await session.acquire();
      return;
    }
    const wasConnected = session.isConnected();
    // A farm may hold a new connection until it has a browser free: it gets the whole budget.
    const connectMs = this.perCapture ? captureTimeoutMs(this.env) : Math.min(CONNECT_MS, captureTimeoutMs(this.env));
    await withDeadline(
      session.acquire(),
      connectMs,
      () => new BrowserUnavailableError(`could not attach to the browser at ${target.url}: no answer within ${connectMs} ms`),
    );
    if (wasConnected && endpoint.failures > 0 && !(await this.answers(session))) {
      throw new BrowserUnavailableError(`the browser at ${target.url} is connected but does not answer Browser.getVersion within ${ENDPOINT_PROBE_MS} ms (${endpoint.lastError})`);
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
  private afterLoss(err: unknown, lostOn: { name: string; why: string }): Error {
    // The cap's own message already names both attempts.
    if (err instanceof RetryTimedOut) return err;
    const message = err instanceof Error ? err.message : String(err);
    return new Error(`${message} (a first attempt was lost when the browser at ${lostOn.name} went away: ${lostOn.why})`);
  }

  private openOneOff(target: AttachTarget | null): BrowserSession {
    const session = target ? new BrowserSession(this.flags, this.env, target) : new BrowserSession(this.flags, this.env);
    this.oneOff.add(session);
    return session;
  }

  /** Disconnects a one-off session; the capture does not wait on a connection that will not let go (close() still does, bounded). */
  private async closeOneOff(session: BrowserSession): Promise<void> {
    const closing = session.shutdown().finally(() => this.oneOff.delete(session));
    await withDeadline(closing, ATTACHED_SHUTDOWN_MS, 'disconnecting').catch(() => undefined);
  }

  /**
   * Closes what the pool opened: the launched browser, or only this process's
   * contexts on attached ones. An attached browser that does not answer (a
   * connection still pending, a context close never confirmed) is let go
   * after ATTACHED_SHUTDOWN_MS: it is not ours to wait for.
   */
  async close(): Promise<void> {
    this.closed = true;
    const sessions = new Set<BrowserSession>(this.oneOff);
    for (const endpoint of this.pool?.endpoints ?? []) sessions.add(endpoint.setup.session);
    if (this.injected) sessions.add(this.injected);
    await Promise.allSettled(
      [...sessions].map((s) => (s.attachTarget() ? withDeadline(s.shutdown(), ATTACHED_SHUTDOWN_MS, 'disconnecting from an attached browser') : s.shutdown())),
    );
  }
}
