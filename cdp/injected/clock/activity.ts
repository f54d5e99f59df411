/**
 * Whether a page on the virtual clock is at rest, and what keeps it busy.
 * Pure logic over the scheduler, the animation counts and when the page last
 * changed, so it can be tested without a browser.
 *
 * At rest means the page has finished what it started:
 * - no animation frame requested and no Web or SVG animation still moving;
 * - no timer due within the horizon that is motion or a one-off step (a
 *   reveal after 150 ms, a counter ticking every 20 ms); a repeating timer
 *   slower than the horizon (a poll, a clock, a carousel) and a fast one
 *   whose last firings changed nothing (a poll) do not count;
 * - the page (its DOM) unchanged for the quiet window: a response that came
 *   back, or a change, restarts it, so a poll that renders what a request
 *   brought gets its turn however fast the response was. Changes made by a
 *   repeating timer slower than the horizon (a ticker, a carousel) do not
 *   restart it, so such a page is taken as a user finds it after load rather
 *   than advanced to the bound.
 * Requests in flight are the capture's to see (src/browser/pageClock.ts);
 * they restart the window too.
 */
import type { Scheduler, TimerJob, TimerSource } from './scheduler';
import type { AnimationCounts } from './animations';

/** A fast repeating timer whose last this-many firings changed nothing is a poll, not motion. */
export const QUIET_FIRINGS_FOR_POLL = 2;

export interface RestRule {
  /** A timer due within this many ms may keep the page busy. */
  horizonMs: number;
  /** How long the page must go unchanged, ms of its time. */
  quietMs: number;
}

export interface Activity {
  /** A requestAnimationFrame callback waits for the next frame. */
  frame: boolean;
  /** The timer that keeps the page busy, when one is due within the horizon: the delay it was set with, and whether it repeats. */
  timer: { delay: number; repeats: boolean } | null;
  /** Web or SVG animations that end later than now. */
  finite: number;
  /** Web or SVG animations that never end. */
  endless: number;
  /** The page changed less than the quiet window ago. */
  changing: boolean;
}

/** A repeating timer slower than the horizon: its firings are a sequence of states (a poll, a clock, a carousel), not motion. */
export function isSlowRepeat(source: TimerSource, horizonMs: number): boolean {
  return source.repeating && source.period >= horizonMs;
}

/** Whether a timer of this source, due within the horizon, keeps the page from rest. */
export function holdsRest(source: TimerSource, horizonMs: number): boolean {
  if (isSlowRepeat(source, horizonMs)) return false;
  return !(source.repeating && source.quietFirings >= QUIET_FIRINGS_FOR_POLL);
}

/** Whether a change made by this source (null: anything but a timer) restarts the quiet window. */
export function restartsQuiet(source: TimerSource | null | undefined, horizonMs: number): boolean {
  return !source || !isSlowRepeat(source, horizonMs);
}

/** The timer that keeps the page busy now: due within the horizon and of a source that holds rest. */
export function busyTimer(scheduler: Scheduler, horizonMs: number): TimerJob | null {
  const next = scheduler.nextTimer((_job, source) => holdsRest(source, horizonMs));
  return next && next.due - scheduler.now <= horizonMs ? next : null;
}

export function activityOf(scheduler: Scheduler, animations: AnimationCounts, rule: RestRule, quietSince: number): Activity {
  const next = busyTimer(scheduler, rule.horizonMs);
  return {
    frame: scheduler.frameRequested(),
    timer: next ? { delay: next.delay, repeats: next.interval !== null } : null,
    finite: animations.finite,
    endless: animations.endless,
    changing: scheduler.now - quietSince < rule.quietMs,
  };
}

export function atRest(activity: Activity): boolean {
  return !activity.frame && !activity.timer && !activity.finite && !activity.endless && !activity.changing;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** What keeps the page busy, as a warning names it: `a requestAnimationFrame loop; a setInterval every 10 ms`. */
export function describeActivity(activity: Activity): string[] {
  const parts: string[] = [];
  if (activity.frame) parts.push('a requestAnimationFrame loop');
  if (activity.timer) parts.push(activity.timer.repeats ? `a setInterval every ${activity.timer.delay} ms` : `a setTimeout of ${activity.timer.delay} ms`);
  if (activity.endless) parts.push(plural(activity.endless, 'endless animation', 'endless animations'));
  if (activity.finite) parts.push(plural(activity.finite, 'animation still running', 'animations still running'));
  // Named only when nothing else is: the rest explain their own changes.
  if (!parts.length && activity.changing) parts.push('its DOM still changing');
  return parts;
}
