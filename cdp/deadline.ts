/**
 * The one timeout helper, and every time constant of cdp/ outside the page.
 * Every bounded wait — a CDP step of the trace recorder, a cleanup step, an
 * action, the probe's snapshot — goes through withDeadline, so what giving
 * up means is written once: the timer is cleared as soon as the work
 * settles, and work that settles after the deadline is ignored (never an
 * unhandled rejection).
 *
 * A page blocked by a JavaScript dialog (alert, confirm) never answers
 * Runtime.evaluate or Page.captureScreenshot; without a deadline such a step
 * would hang its caller.
 *
 * src/ keeps its own constants in src/common/time.ts (cdp/ imports nothing from
 * src/) and reuses these, never naming them again. In-page code (cdp/injected/, which imports only cdp/injected/) keeps
 * the few waits it makes in the module that makes them:
 * cdp/injected/clock/scheduler.ts (the browser's nested-timer clamp),
 * cdp/injected/clock/controls.ts (media seek, idle callback and real-frame
 * waits), cdp/injected/selectors/actionability.ts (the wait for a real
 * animation frame).
 */

/** Longest a trace snapshot, the final frame or a body fetch may take before it is skipped (cdp/trace/recorder.ts). */
export const TRACE_STEP_TIMEOUT_MS = 5_000;
/** How long the trace's finish() lets requests the last action started complete. */
export const TRACE_NETWORK_SETTLE_MS = 500;
/** How often the trace's network settle looks whether those requests are done. */
export const TRACE_NETWORK_POLL_MS = 20;

/** A step that did not settle within its deadline. */
export class DeadlineExceeded extends Error {}

/**
 * What happens when a bounded wait runs out: it rejects with a
 * DeadlineExceeded carrying the message (`'reading data-state'`), or saying
 * `<took> took longer than <ms> ms` (`{ took: 'closing the browser' }`), or
 * with the error a function returns (which may also act, e.g. abort the
 * work); or, for a wait whose overrun is not an error (fonts still loading, a
 * load event that never comes), it resolves with `orElse` and the caller goes
 * on with what it has.
 */
export type Overrun<T> = string | { took: string } | (() => Error) | { orElse: T };

/**
 * The one bounding helper: settles as `work` does, or as `overrun` says once
 * `ms` pass first.
 */
export async function withDeadline<T>(work: Promise<T>, ms: number, overrun: Overrun<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<{ orElse: T }>((resolve, reject) => {
    timer = setTimeout(() => {
      if (typeof overrun === 'string') reject(new DeadlineExceeded(overrun));
      else if (typeof overrun === 'function') reject(overrun());
      else if ('took' in overrun) reject(new DeadlineExceeded(`${overrun.took} took longer than ${ms} ms`));
      else resolve(overrun);
    }, ms);
  });
  try {
    const first = await Promise.race([work.then((value) => ({ value })), expired]);
    return 'value' in first ? first.value : first.orElse;
  } finally {
    clearTimeout(timer);
    // The abandoned work may still settle later; nobody is waiting for it.
    work.catch(() => undefined);
  }
}
