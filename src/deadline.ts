/**
 * Every time budget of a capture, and the one helper that enforces them
 * (cdp/deadline.ts's withDeadline, re-exported so src/ code imports all of
 * its timing from here). A budget is a promise to the caller about how long
 * a step may take before the capture gives up on it with a clear message.
 *
 * The trace recorder's own step limit lives in cdp/trace/recorder.ts
 * (cdp/ imports nothing from src/); the bundled provider keeps its default.
 */
export { withDeadline, withinOr, DeadlineExceeded } from '../cdp/deadline';
import { withDeadline } from '../cdp/deadline';

/** The whole capture (DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS overrides it). */
export const DEFAULT_CAPTURE_TIMEOUT_MS = 60_000;
/** One action; a wait/sleep action may not ask for more. */
export const ACTION_BUDGET_MS = 10_000;
/** The page load (DOMContentLoaded, or network idle when the freeze asks for it). */
export const NAVIGATION_BUDGET_MS = 30_000;
/** Grace for the waits inside an action to report their own, more precise timeout first. */
export const ACTION_GUARD_GRACE_MS = 500;
/** Longest wait for the document a navigation started by an action (as Playwright's auto-wait). */
export const ACTION_NAVIGATION_SETTLE_MS = 5_000;
/** Web fonts (document.fonts.ready) after the freeze; longer only warns. */
export const FONTS_BUDGET_MS = 10_000;
/** Playwright's networkidle: no request in flight for this long. */
export const NETWORK_IDLE_MS = 500;
/** A document replaced by an action's navigation, before the freeze is applied again. */
export const DOCUMENT_SETTLE_MS = 10_000;
/** The load event before the virtual clock settles the page anyway (waited for in real time). */
export const LOAD_WAIT_MS = 5_000;
/** Page time the settle may run before the capture takes the page as it stands (DESIGN_PLAYBOOK_SETTLE_MAX_MS overrides it). */
export const DEFAULT_SETTLE_MAX_MS = 5_000;
/**
 * Wall time after which a request still open is taken for a long-lived
 * connection (a long-poll, a stream): it stops holding the settle's clock to
 * the wall clock and stops keeping the page from rest.
 */
export const LONG_REQUEST_MS = 3_000;
/** After the last request in flight ends, the settle keeps to the wall clock this long more, so the page's response handlers run. */
export const NETWORK_QUIET_MS = 50;
/** Reading observed_state; longer reads as `unknown`. */
export const OBSERVED_STATE_MS = 5_000;
/** The render-token probe's one DOMSnapshot pass; longer makes the face `failed`. */
export const PROBE_TIMEOUT_MS = 30_000;
/** Each cleanup step after a capture, so a stuck page cannot hold the reply. */
export const CLEANUP_STEP_MS = 5_000;
/** Closing a capture's browser context; past it a launched browser is killed. */
export const CONTEXT_CLOSE_MS = 10_000;
/** Closing the launched browser at shutdown; past it the process is killed. */
export const BROWSER_CLOSE_MS = 5_000;
/** Waiting for a launched browser's process to exit before its profile folder is removed. */
export const BROWSER_EXIT_MS = 5_000;
/** Puppeteer's protocol timeout is the whole-capture budget plus this, so ours always fires first. */
export const PROTOCOL_TIMEOUT_SLACK_MS = 30_000;

/** A step (closing a context, a cleanup) bounded by `ms`; the error says what took too long. */
export function stepWithin<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  return withDeadline(work, ms, `${what} took longer than ${ms} ms`);
}
