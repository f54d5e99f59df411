/**
 * Whether a page on the virtual clock is at rest: no frame callback
 * requested, no timer due within the horizon, no animation still moving. The
 * settle runs time until the page is at rest or its bound, and when it stops
 * at the bound, `describeActivity` says what kept the page busy. Pure logic
 * over the scheduler and the animation counts, so it can be tested without a
 * browser.
 */
import type { Scheduler } from './scheduler';
import type { AnimationCounts } from './animations';

export interface Activity {
  /** A requestAnimationFrame callback waits for the next frame. */
  frame: boolean;
  /** The timer due first, when it is due within the horizon: the delay it was set with, and whether it repeats. */
  timer: { delay: number; repeats: boolean } | null;
  /** Web or SVG animations that end later than now. */
  finite: number;
  /** Web or SVG animations that never end. */
  endless: number;
}

export function activityOf(scheduler: Scheduler, animations: AnimationCounts, horizonMs: number): Activity {
  const next = scheduler.nextTimer();
  const timer = next && next.due - scheduler.now <= horizonMs ? { delay: next.delay, repeats: next.interval !== null } : null;
  return { frame: scheduler.frameRequested(), timer, finite: animations.finite, endless: animations.endless };
}

export function atRest(activity: Activity): boolean {
  return !activity.frame && !activity.timer && !activity.finite && !activity.endless;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** What keeps the page busy, as a warning names it: `a requestAnimationFrame loop; a setInterval every 10 ms`. */
export function describeActivity(activity: Activity): string[] {
  const parts: string[] = [];
  if (activity.frame) parts.push('a requestAnimationFrame loop');
  if (activity.timer) parts.push(activity.timer.repeats ? `a setInterval every ${activity.timer.delay} ms` : `a setTimeout of ${activity.timer.delay} ms`);
  if (activity.endless) parts.push(plural(activity.endless, 'endless animation', 'endless animations'));
  if (activity.finite) parts.push(plural(activity.finite, 'animation still running', 'animations still running'));
  return parts;
}
