/**
 * Virtual time for a capture (freeze.enabled): the page's clock
 * (cdp/injected/virtualClock.ts) is installed before any page script runs and
 * moves only when the capture moves it, so the same page captured twice is in
 * the same state. This module owns every rule about when time passes:
 *
 * - `settle` (after load, and again after the actions): waits for the load
 *   event (bounded), then runs each frame's time until the page is at rest —
 *   no request in flight, no animation frame requested, no Web or SVG
 *   animation still moving, no timer of motion or a one-off step due within
 *   REST_HORIZON_MS, and the DOM unchanged for QUIET_WINDOW_MS since the
 *   last change or response (cdp/injected/clock/activity.ts) — or until the bound
 *   (DESIGN_PLAYBOOK_SETTLE_MAX_MS of page time), where it stops at exactly
 *   that instant and a warning says what kept the page busy. Time runs as
 *   fast as the page executes while no request is in flight (pageNetwork.ts),
 *   and no faster than the wall clock while one is; media are paused at their
 *   first frame.
 * - `letTimePass(page, ms, signal)`: the one function waiting code uses. On a
 *   page with a virtual clock it moves time forward by exactly `ms`, in
 *   FRAME_MS steps paced to the wall clock (so network and fonts, which stay
 *   real, keep their timing relative to the page's timers, as before);
 *   elsewhere it sleeps. Either way it stops when `signal` fires (the wait's
 *   action or capture ended).
 *
 * The time constants of these rules (FRAME_MS, REST_HORIZON_MS,
 * QUIET_WINDOW_MS, FAST_CHUNK_MS) are in src/common/time.ts with every other of src/.
 * - `afterAction(page, signal)`: after each input action, ACTION_STEP_MS of
 *   page time passes at once (paced to the wall clock only while a request
 *   is in flight), so actions never share an instant.
 * - between those, nothing moves: the capture's bytes are taken with time
 *   standing still.
 */
import type { Frame, Page } from 'puppeteer-core';
import type { CdpSession } from '../../../cdp/types';
import { source as virtualClockSource } from '../../../cdp/generated/virtualClock';
import type { RunOptions, RunReport, VirtualClockConfig } from '../../../cdp/injected/virtualClock';
import { describeActivity } from '../../../cdp/injected/clock/activity';
import { revealDeclaredClosedRoots } from '../../../cdp/declaredShadowRoots';
import { classifyProtocolError } from '../../../cdp/failureKinds';
import {
  ACTION_STEP_MS,
  DEFAULT_SETTLE_MAX_MS,
  FAST_CHUNK_MS,
  FRAME_MS,
  LOAD_WAIT_MS,
  NETWORK_QUIET_MS,
  QUIET_WINDOW_MS,
  REST_HORIZON_MS,
  withDeadline,
} from '../../common/time';
import type { FixedTime } from '../options';
import { PageNetwork } from './pageNetwork';

/** The constant Math.random is seeded with under a fixed clock. */
export const RANDOM_SEED = 0x5eed;

const CONTROL = '__designPlaybookClock';

const clocks = new WeakMap<Page, PageClock>();

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The warning each result carries while a fixed clock is in force. */
export function fixedTimeWarning(fixed: FixedTime): string {
  return `fixed clock: the page's Date started at ${fixed.iso} and Math.random was seeded (${fixed.source})`;
}

/** The frame's document went away (detached, navigated, its page closed): it has no time left to move. */
const isGone = (err: unknown) => classifyProtocolError(err) !== 'other' && classifyProtocolError(err) !== 'timed-out';

export class PageClock {
  private readonly network: PageNetwork;
  /** The frames whose fast runs are under way, so a request that starts can interrupt them. */
  private readonly running = new Set<Frame>();
  private settles = 0;
  /** The documents (loader ids) already searched for closed shadow roots declared in their HTML. */
  private readonly searchedDocuments = new Set<string>();

  private constructor(
    private readonly page: Page,
    private readonly session: CdpSession,
    readonly config: VirtualClockConfig,
    private readonly settleMaxMs: number,
  ) {
    this.network = new PageNetwork(page, () => this.interrupt());
  }

  /** Registers the clock for every new document of the page (main world of each frame). */
  static async install(page: Page, session: CdpSession, fixed: FixedTime | null, settleMaxMs = DEFAULT_SETTLE_MAX_MS): Promise<PageClock> {
    const config: VirtualClockConfig = {
      startTime: fixed ? fixed.epochMs : Date.now(),
      randomSeed: fixed ? RANDOM_SEED : null,
      frameMs: FRAME_MS,
      rest: { horizonMs: REST_HORIZON_MS, quietMs: QUIET_WINDOW_MS },
    };
    // Listening before the first request: the settle must know every request in flight.
    const clock = new PageClock(page, session, config, settleMaxMs);
    // New-document scripts only run for a session that has the Page domain enabled.
    // Sent back to back (a session answers in order): the domain is on before the script is added.
    // Not run in the blank document the page holds now: nothing there needs time, and compiling
    // the clock into it cost ~20 ms of every capture (bench/speed.js --profile, 'setup').
    await Promise.all([
      session.send('Page.enable'),
      session.send('Page.addScriptToEvaluateOnNewDocument', {
        source: `(${virtualClockSource}).install(${JSON.stringify(config)});`,
        runImmediately: false,
      }),
    ]);
    clocks.set(page, clock);
    return clock;
  }

  static of(page: Page): PageClock | undefined {
    return clocks.get(page);
  }

  /** Another story was switched to in the page (storySwitch.ts): its first settle is the one after load again. */
  storySwitched(): void {
    this.settles = 0;
  }

  /**
   * Hands each frame's clock the closed shadow roots its HTML declared, which
   * no page script can show it (cdp/declaredShadowRoots.ts: once a document,
   * and only where the HTML declares one).
   */
  async revealDeclaredShadowRoots(): Promise<void> {
    await revealDeclaredClosedRoots(this.session, this.searchedDocuments);
  }

  /** Moves every frame's clock forward by `ms` (frames in tree order, one after another). */
  async advance(ms: number): Promise<void> {
    for (const frame of this.page.frames()) await advanceFrame(frame, ms, frame === this.page.mainFrame());
  }

  /**
   * Time passes for `ms` of the page's time, in frame steps paced to the
   * wall clock (until `signal` fires) while `paced()` holds; once it does
   * not, the rest is leapt at once.
   */
  async pass(ms: number, signal?: AbortSignal, paced: () => boolean = () => true): Promise<void> {
    const started = Date.now();
    let passed = 0;
    while (passed < ms) {
      if (signal?.aborted) throw signal.reason;
      if (!paced()) return this.advance(ms - passed);
      const step = Math.min(FRAME_MS, ms - passed);
      await this.advance(step);
      passed += step;
      const ahead = started + passed - Date.now();
      if (ahead > 0) await sleep(ahead);
    }
  }

  /**
   * The time an input action takes (ACTION_STEP_MS): leapt at once, what
   * falls due running in order; while a request of the page is in flight,
   * paced to the wall clock as the settle is, so the response's handlers
   * keep their timing relative to the page's timers, and leapt again once
   * none is (a fetch on loopback costs a few milliseconds, not the step).
   */
  async actionStep(signal?: AbortSignal): Promise<void> {
    await this.pass(ACTION_STEP_MS, signal, () => this.requestsInFlight());
  }

  /** Whether a request of the page is in flight (time then follows the wall clock). */
  requestsInFlight(): boolean {
    return this.network.holding().length > 0;
  }

  /**
   * After load and after the actions: each frame's time runs until the page
   * is at rest or the bound. Returns the warnings (a frame stopped at the bound).
   */
  async settle(loaded: Promise<void> = this.loaded()): Promise<string[]> {
    const when = this.settles++ === 0 ? 'after load' : 'after the actions';
    await loaded;
    // Every frame runs to its own rest within its own bound, side by side: a frame's run ends on a
    // rendered frame, and same-process frames render together, so one such frame serves them all.
    // Warnings in tree order.
    const warnings = await Promise.all(this.page.frames().map((frame) => this.settleFrame(frame, when)));
    return warnings.filter((warning): warning is string => warning !== null);
  }

  /**
   * The page's load event (bounded by LOAD_WAIT_MS), which the settle waits
   * for first. Real: waited for with a listener, never with the page's
   * (virtual) timers. Asked for on its own so the freeze can send it
   * alongside its style sheet (one round trip less).
   */
  loaded(): Promise<void> {
    return withDeadline(
      this.page
        .evaluate(() =>
          document.readyState === 'complete' ? undefined : new Promise<void>((resolve) => addEventListener('load', () => resolve(), { once: true })),
        )
        .then(() => undefined)
        .catch(() => undefined),
      LOAD_WAIT_MS,
      { orElse: undefined },
    );
  }

  private async settleFrame(frame: Frame, when: string): Promise<string | null> {
    let until: number | null = null;
    /** While paced: the wall and virtual instants pacing counts from. */
    let anchor: { wall: number; virtual: number } | null = null;
    let quietUntil = 0;
    for (;;) {
      const held = this.network.holding().length > 0;
      if (held) quietUntil = 0;
      else if (anchor && !quietUntil) quietUntil = Date.now() + NETWORK_QUIET_MS;
      const paced = held || Date.now() < quietUntil;
      const options: RunOptions = { until, budgetMs: this.settleMaxMs, held, mode: paced ? 'step' : 'fast', chunkMs: FAST_CHUNK_MS };
      const wallBefore = Date.now();
      let report: RunReport | null;
      if (paced) {
        report = await runIn(frame, options, frame === this.page.mainFrame());
        if (!report) return null;
        // No faster than the wall clock, counted from the first paced step.
        anchor ??= { wall: wallBefore, virtual: report.now - report.moved };
        const ahead = anchor.wall + (report.now - anchor.virtual) - Date.now();
        if (ahead > 0) await sleep(ahead);
      } else {
        anchor = null;
        quietUntil = 0;
        this.running.add(frame);
        try {
          report = await runIn(frame, options, frame === this.page.mainFrame());
        } finally {
          this.running.delete(frame);
        }
        if (!report) return null;
      }
      until = report.until;
      const requests = this.network.describe();
      if (report.now >= report.until && (report.state !== 'rest' || requests)) return this.boundWarning(frame, when, report, requests);
      if (report.state === 'rest' && !paced && !requests) return null;
    }
  }

  private boundWarning(frame: Frame, when: string, report: RunReport, requests: string | null): string {
    const what = frame === this.page.mainFrame() ? 'the page' : `the frame ${frame.url()}`;
    // A request in flight keeps the quiet window open: it is named itself, not as a changing DOM.
    const activity = requests ? { ...report.activity, changing: false } : report.activity;
    const busy = [...describeActivity(activity), ...(requests ? [requests] : [])];
    return (
      `settle ${when}: ${what} was still busy after ${this.settleMaxMs} ms of its time` +
      (busy.length ? ` (${busy.join('; ')})` : '') +
      `; captured as it stood at that instant — DESIGN_PLAYBOOK_SETTLE_MAX_MS on the server raises the bound`
    );
  }

  /** A request started: a fast run under way hands back, so time keeps to the wall clock from here. */
  private interrupt(): void {
    for (const frame of this.running) frame.evaluate(`globalThis.${CONTROL} && globalThis.${CONTROL}.interrupt()`).catch(() => undefined);
  }
}

/** One call of the frame's in-page settle; null when the frame has no clock or its document went away. */
async function runIn(frame: Frame, options: RunOptions, isMain: boolean): Promise<RunReport | null> {
  try {
    return ((await frame.evaluate(`globalThis.${CONTROL} ? globalThis.${CONTROL}.run(${JSON.stringify(options)}) : null`)) as RunReport | null) ?? null;
  } catch (err) {
    if (isMain && !isGone(err)) throw err;
    return null;
  }
}

async function advanceFrame(frame: Frame, ms: number, isMain: boolean): Promise<void> {
  try {
    await frame.evaluate(`globalThis.${CONTROL} && globalThis.${CONTROL}.advance(${ms})`);
  } catch (err) {
    // A subframe that detached, or a document replaced mid-step (a timer navigated), has no time to move.
    if (isMain && !isGone(err)) throw err;
  }
}

/**
 * The one way waiting code lets time pass: `ms` of the page's virtual time
 * when it has a clock, else `ms` of real time; a wait `signal` ends early
 * rejects with its reason.
 */
export async function letTimePass(page: Page, ms: number, signal?: AbortSignal, options: { leapWhileIdle?: boolean } = {}): Promise<void> {
  const clock = clocks.get(page);
  // leapWhileIdle: paced to the wall clock only while a request of the page is in flight, as an action's step is.
  if (clock) await clock.pass(ms, signal, options.leapWhileIdle ? () => clock.requestsInFlight() : undefined);
  else await sleepUnless(ms, signal);
}

/** After an input action: the page's time moves on by the action's step (ACTION_STEP_MS) when it has a clock; on the wall clock, time passes by itself. */
export async function afterAction(page: Page, signal?: AbortSignal): Promise<void> {
  await clocks.get(page)?.actionStep(signal);
}

/** `ms` of real time, or less when `signal` fires first (rejecting with its reason). */
function sleepUnless(ms: number, signal?: AbortSignal): Promise<void> {
  if (!signal) return sleep(ms);
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    signal.addEventListener('abort', stop, { once: true });
  });
}
