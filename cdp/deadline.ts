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
 * Settles as `work` does, or rejects when `ms` pass first: with a
 * DeadlineExceeded carrying `expired` when it is a message, else with the
 * error `expired()` returns (which may also act, e.g. abort the work).
 */
export async function withDeadline<T>(work: Promise<T>, ms: number, expired: string | (() => Error)): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const overrun = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(typeof expired === 'string' ? new DeadlineExceeded(expired) : expired()), ms);
  });
  try {
    return await Promise.race([work, overrun]);
  } finally {
    clearTimeout(timer);
    // The abandoned work may still settle later; nobody is waiting for it.
    work.catch(() => undefined);
  }
}

/**
 * Settles as `work` does, or with `fallback` once `ms` pass: for a wait whose
 * overrun is not an error (fonts still loading, a load event that never
 * comes), so the caller goes on with what it has.
 */
export async function withinOr<T>(work: Promise<T>, ms: number, fallback: T): Promise<T> {
  const overrun = new DeadlineExceeded('fallback');
  try {
    return await withDeadline(work, ms, () => overrun);
  } catch (err) {
    if (err === overrun) return fallback;
    throw err;
  }
}
