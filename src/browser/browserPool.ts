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
 *   the one test of "the browser died") is run once more on another endpoint.
 *   The lost attempt staged nothing (bytes reach the runtime only from the
 *   attempt that finished), so no file is written twice.
 * - --connect-per-capture: every capture connects, captures and disconnects
 *   (services that hand out a fresh browser per DevTools connection).
 *
 * Only DevTools traffic goes to an endpoint; the artifacts are written here.
 * Attached browsers keep their own tabs: a session only sees the browser
 * contexts it created.
 */
import { BrowserSession, BrowserUnavailableError } from './browserSession';
import { Endpoint, EndpointPool } from './endpointPool';
import { attachTargets, connectPerCapture, maxParallel, type AttachTarget, type BrowserFlags } from './options';
import { log } from '../log';

export const LAUNCHED_ENDPOINT_NAME = 'the launched browser';

interface EndpointSetup {
  target: AttachTarget | null;
  session: BrowserSession;
}

export interface PooledRun<T> {
  value: T;
  /** What the caller should hear about (a capture run again on another browser). */
  warnings: string[];
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
   */
  async run<T>(capture: (session: BrowserSession) => Promise<T>): Promise<PooledRun<T>> {
    const pool = this.ensure();
    const passedOver = new Set<Endpoint<EndpointSetup>>();
    const warnings: string[] = [];
    let lostOn: { name: string; why: string } | null = null;
    for (;;) {
      const lease = await pool.acquire(passedOver);
      const endpoint = lease.endpoint;
      const session = this.perCapture ? this.openOneOff(endpoint.setup.target) : endpoint.setup.session;
      try {
        try {
          await session.acquire();
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
        try {
          return { value: await capture(session), warnings };
        } catch (err) {
          const lost = session.lostSince(generation) && !this.closed;
          if (!lost) throw lostOn ? this.afterLoss(err, lostOn) : err;
          const why = firstLine(err instanceof Error ? err.message : String(err));
          // A launched browser is relaunched by its session; an attached one is given time to come back.
          if (endpoint.setup.target) pool.markDown(endpoint, why);
          if (lostOn || pool.endpoints.length < 2) throw lostOn ? this.afterLoss(err, lostOn) : err;
          lostOn = { name: endpoint.name, why };
          passedOver.add(endpoint);
          log(`${endpoint.name} went away during a capture; capturing it again on another browser`);
          warnings.push(`the browser at ${endpoint.name} went away during the capture; it was captured again on another browser of the pool`);
          continue;
        }
      } finally {
        lease.release();
        if (this.perCapture) await this.closeOneOff(session);
        else session.prepareSpare();
      }
    }
  }

  /** The retry failed too: say so, with what happened to the first attempt. */
  private afterLoss(err: unknown, lostOn: { name: string; why: string }): Error {
    const message = err instanceof Error ? err.message : String(err);
    return new Error(`${message} (a first attempt was lost when the browser at ${lostOn.name} went away: ${lostOn.why})`);
  }

  private openOneOff(target: AttachTarget | null): BrowserSession {
    const session = target ? new BrowserSession(this.flags, this.env, target) : new BrowserSession(this.flags, this.env);
    this.oneOff.add(session);
    return session;
  }

  private async closeOneOff(session: BrowserSession): Promise<void> {
    this.oneOff.delete(session);
    await session.shutdown();
  }

  /** Closes what the pool opened: the launched browser, or only this process's contexts on attached ones. */
  async close(): Promise<void> {
    this.closed = true;
    const sessions = new Set<BrowserSession>(this.oneOff);
    for (const endpoint of this.pool?.endpoints ?? []) sessions.add(endpoint.setup.session);
    if (this.injected) sessions.add(this.injected);
    await Promise.allSettled([...sessions].map((s) => s.shutdown()));
  }
}
