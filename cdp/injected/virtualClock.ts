/**
 * The page's virtual clock, installed in the main world of every frame before
 * any page script runs (src/browser/page/pageClock.ts registers it as a new-document
 * script). Date, performance.now, timers, requestAnimationFrame,
 * requestIdleCallback, document.timeline and Web Animations read or follow a
 * clock that moves only when the capture says so (`advance`), in a fixed
 * order: due time, then the order the callbacks were registered. Everything
 * real-time (network, fonts, message events, promises) still runs on the real
 * event loop, which each callback yields to.
 *
 * Our own in-page code runs in isolated worlds, whose globals are the
 * browser's own: nothing here touches them.
 */
import { installControls, type ClockControls } from './clock/controls';

import type { VirtualClockConfig } from './clock/config';

export type { VirtualClockConfig };
export type { RunOptions, RunReport } from './clock/controls';
export type { Activity } from './clock/activity';

/** Where the controls live on each window, so the capture can drive them. */
export const CONTROL_KEY = '__designPlaybookClock';

export function install(config: VirtualClockConfig): void {
  const holder = window as unknown as Record<string, ClockControls | undefined>;
  if (holder[CONTROL_KEY]) return;
  const controls = installControls(window, config);
  Object.defineProperty(window, CONTROL_KEY, { value: controls, enumerable: false, configurable: false, writable: false });
}
