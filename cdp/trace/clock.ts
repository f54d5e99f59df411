import { performance } from 'perf_hooks';

/**
 * One clock for every timestamp in a trace. The viewer compares action
 * times, snapshot times, frame times and request times with each other (a
 * resource is only served to a snapshot taken after it was requested), so
 * they must all come from the same monotonic source, in milliseconds.
 */
export interface TraceClock {
  now(): number;
}

export const monotonicClock: TraceClock = {
  now: () => Math.round(performance.now() * 1000) / 1000,
};
