/**
 * Virtual time for a capture (freeze.enabled): the page's clock
 * (cdp/injected/virtualClock.ts) is installed before any page script runs and
 * moves only when the capture moves it, so the same page captured twice is in
 * the same state. This module owns every rule about when time passes:
 *
 * - `settle` (after load, and again after the actions): waits for the load
 *   event (bounded), runs what is due now and SETTLE_FRAMES frames, as fast as
 *   the page runs them, and pauses media at their first frame;
 * - `letTimePass(page, ms)`: the one function waiting code uses. On a page with
 *   a virtual clock it moves time forward by exactly `ms`, in FRAME_MS steps
 *   paced to the wall clock (so network and fonts, which stay real, keep their
 *   timing relative to the page's timers, as before); elsewhere it sleeps.
 * - between those, nothing moves: the capture's bytes are taken with time
 *   standing still.
 */
import type { Frame, Page } from 'puppeteer-core';
import type { CdpSession } from '../../cdp/types';
import { source as virtualClockSource } from '../../cdp/generated/virtualClock';
import type { VirtualClockConfig } from '../../cdp/injected/virtualClock';
import type { FixedTime } from './options';
import { LOAD_WAIT_MS, withinOr } from '../deadline';

/** One animation frame of virtual time, ms. */
export const FRAME_MS = 16;
/** Frames run when the page settles (after load, after the actions): about 100 ms of the page's time. */
export const SETTLE_FRAMES = 6;
/** The constant Math.random is seeded with under a fixed clock. */
export const RANDOM_SEED = 0x5eed;

const CONTROL = '__designPlaybookClock';

const clocks = new WeakMap<Page, PageClock>();

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The warning each result carries while a fixed clock is in force. */
export function fixedTimeWarning(fixed: FixedTime): string {
  return `fixed clock: the page's Date started at ${fixed.iso} and Math.random was seeded (${fixed.source})`;
}

export class PageClock {
  private constructor(
    private readonly page: Page,
    readonly config: VirtualClockConfig,
  ) {}

  /** Registers the clock for every new document of the page (main world of each frame). */
  static async install(page: Page, session: CdpSession, fixed: FixedTime | null): Promise<PageClock> {
    const config: VirtualClockConfig = {
      startTime: fixed ? fixed.epochMs : Date.now(),
      randomSeed: fixed ? RANDOM_SEED : null,
      frameMs: FRAME_MS,
    };
    // New-document scripts only run for a session that has the Page domain enabled.
    await session.send('Page.enable');
    await session.send('Page.addScriptToEvaluateOnNewDocument', {
      source: `(${virtualClockSource}).install(${JSON.stringify(config)});`,
      runImmediately: true,
    });
    const clock = new PageClock(page, config);
    clocks.set(page, clock);
    return clock;
  }

  static of(page: Page): PageClock | undefined {
    return clocks.get(page);
  }

  /** Moves every frame's clock forward by `ms` (frames in tree order, one after another). */
  async advance(ms: number): Promise<void> {
    for (const frame of this.page.frames()) await advanceFrame(frame, ms, frame === this.page.mainFrame());
  }

  /** Time passes for `ms` of the page's time, in frame steps paced to the wall clock. */
  async pass(ms: number): Promise<void> {
    const started = Date.now();
    let passed = 0;
    while (passed < ms) {
      const step = Math.min(FRAME_MS, ms - passed);
      await this.advance(step);
      passed += step;
      const ahead = started + passed - Date.now();
      if (ahead > 0) await sleep(ahead);
    }
  }

  /** After load and after the actions: the same short, fast run of time on every capture. */
  async settle(): Promise<void> {
    // The load event is real: waited for with a listener, never with the page's (virtual) timers.
    await withinOr(
      this.page
        .evaluate(() => (document.readyState === 'complete' ? undefined : new Promise<void>((resolve) => addEventListener('load', () => resolve(), { once: true }))))
        .catch(() => undefined),
      LOAD_WAIT_MS,
      undefined,
    );
    // One call per frame: the page runs the frames in order itself (the same order as frame-by-frame steps).
    for (const frame of this.page.frames()) {
      await frame.evaluate(`globalThis.${CONTROL} && globalThis.${CONTROL}.settle(${SETTLE_FRAMES * FRAME_MS})`).catch((err: Error) => {
        if (frame === this.page.mainFrame() && !/context|detached|navigat|Target closed/i.test(err.message)) throw err;
      });
    }
  }
}

async function advanceFrame(frame: Frame, ms: number, isMain: boolean): Promise<void> {
  try {
    await frame.evaluate(`globalThis.${CONTROL} && globalThis.${CONTROL}.advance(${ms})`);
  } catch (err) {
    // A subframe that detached, or a document replaced mid-step (a timer navigated), has no time to move.
    if (isMain && !/context|detached|navigat|Target closed/i.test((err as Error).message)) throw err;
  }
}

/**
 * The one way waiting code lets time pass: `ms` of the page's virtual time
 * when it has a clock, else `ms` of real time.
 */
export async function letTimePass(page: Page, ms: number): Promise<void> {
  const clock = clocks.get(page);
  if (clock) await clock.pass(ms);
  else await sleep(ms);
}
