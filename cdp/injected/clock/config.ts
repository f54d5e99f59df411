/** What the virtual clock is installed with (its own module: the entry and the controls both read it). */
export interface VirtualClockConfig {
  /** Epoch ms that Date reads at virtual time 0. */
  startTime: number;
  /** Math.random is replaced by a generator with this seed; null keeps the browser's. */
  randomSeed: number | null;
  /** Length of one animation frame, ms. */
  frameMs: number;
  /** When the page is at rest (clock/activity.ts): the timer horizon and the quiet window, ms of page time. */
  rest: { horizonMs: number; quietMs: number };
}
