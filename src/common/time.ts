/**
 * Every time constant of src/, each named once — a capture's budgets, the
 * polls and graces inside it, the virtual clock's frame and rest horizon, the
 * browser pool's connect, health-check and back-off times, and the process's
 * own shutdown and CLI timings — and the one helper that bounds a wait
 * (cdp/deadline.ts's withDeadline, re-exported so src/ code imports all of
 * its timing from here). A budget is a promise to the caller about how long
 * a step may take before the capture gives up on it with a clear message;
 * each capture's progress object keeps its whole-capture budget.
 *
 * cdp/ keeps its own in cdp/deadline.ts, since cdp/ imports nothing from
 * src/; src/ reuses those and never names them again. In-page code
 * (cdp/injected/) keeps the few waits it makes beside them, as that header
 * says. test/architecture/timeConstants.test.ts holds both trees to it.
 */
export { withDeadline, DeadlineExceeded, type Overrun } from '../../cdp/deadline';

// ------------------------------------------------------------ capture budgets

/**
 * The whole capture (DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS overrides it). Under
 * the 60 s an MCP client waits for a reply by default (the TypeScript SDK's
 * request timeout), so a capture that runs out of budget is answered with its
 * reason before the client gives up on the call.
 */
export const DEFAULT_CAPTURE_TIMEOUT_MS = 50_000;
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
/** How often a closed browser-session tab is looked for until the browser no longer lists it (Target.closeTarget answers first). */
export const TAB_GONE_POLL_MS = 20;
/** How long a browser-session tab may still be listed after Target.closeTarget before the close is sent again (a close the browser passed over). */
export const TAB_CLOSE_RESEND_MS = 500;
/**
 * Letting go of a browser: closing the launched one at shutdown (past it the
 * process is killed), its process exiting before its profile folder is
 * removed, disconnecting from an attached one (ours to leave, not to wait for).
 */
export const BROWSER_SHUTDOWN_MS = 5_000;
/** Puppeteer's protocol timeout is the whole-capture budget plus this, so ours always fires first. */
export const PROTOCOL_TIMEOUT_SLACK_MS = 30_000;

/** What the wait (and sleep) action lets pass when it names no `ms` (part of the action contract). */
export const DEFAULT_WAIT_MS = 200;

// ------------------------------------------------------------ page time

/** One animation frame of virtual time, ms. */
export const FRAME_MS = 16;
/**
 * A timer due within this much page time keeps the page busy. A script
 * animates with timers that fire at least four times a second (slower reads
 * as a sequence of states, not motion), and short one-shot delays (a reveal
 * after 150 ms) land; a poll, a clock ticking each second or a carousel
 * waits for its next turn, so a page polling every second is at rest between
 * polls.
 */
export const REST_HORIZON_MS = 250;
/**
 * How long the page must go unchanged, in its own time, to be at rest: long
 * enough for the polls pages render fetched data through (every 500 ms is
 * common), and cheap, since time runs as fast as the page executes while no
 * request is in flight. A carousel turning every few seconds stays on its
 * first slide.
 */
export const QUIET_WINDOW_MS = 1_000;
/**
 * Page time one fast run may cover before it hands back to the capture. The
 * capture interrupts a run as soon as it sees a request start; this bounds
 * how far a run can go on past one it heard of late.
 */
export const FAST_CHUNK_MS = 500;
/**
 * The page time each input action takes (click, hover, focus, fill, type,
 * press, select_option), passed after it and before the next: real input
 * always takes time, so no two actions read the same Date.now(), and what
 * the page deferred (a timeout, a frame) runs between them, in order, as it
 * would for a person. Leapt at once, not paced: it costs no wall time (a
 * request in flight paces it, as the settle's). Longer than a few frames
 * (Playwright's own pace between actions) and shorter than the usual
 * debounce, so a debounced search still sees one burst of typing.
 */
export const ACTION_STEP_MS = 50;

/** How often `login --headed` reads the page while a person signs in (a closed window can no longer be read, so the last reading is what is saved). */
export const HEADED_POLL_MS = 500;

// ------------------------------------------------------- polls and graces

/** How often an action looks at its target again (in page time, letTimePass). */
export const ACTION_POLL_MS = 50;
/** How often the freeze looks whether a document an action replaced has been parsed (real time: page timers may stand still). */
export const DOCUMENT_POLL_MS = 100;
/** How long the page gets to answer `1` before its main thread counts as busy (failures.ts says "within 1 s"). */
export const MAIN_THREAD_PROBE_MS = 1_000;
/** How long a step's "session closed" error waits for the crash or disconnect event that explains it. */
export const LOSS_EVENT_GRACE_MS = 300;
/** A page that closes waits this long for its browser's disconnect, the better answer when the browser went. */
export const PAGE_CLOSE_GRACE_MS = 50;
/**
 * A call's answer is written at least this long after its last progress
 * notification reached the pipe (the commit's flush usually covers it): the
 * MCP SDK's client handles an answer at once but a notification a microtask
 * later, so one read in the same chunk as the answer is dropped (its
 * handler is gone by then).
 */
export const NOTICE_BEFORE_ANSWER_MS = 5;

// ------------------------------------------------------- browser endpoints

/** Longest wait for an attached endpoint to connect (at most the capture budget; with a connection per capture, the budget). */
export const CONNECT_MS = 10_000;
/** The shortest connection attempt made while waiting for an endpoint (an attempt cut shorter says nothing). */
export const MIN_ATTEMPT_MS = 1_000;
/** How long a browser has to answer Browser.getVersion after a capture on it ran out of time. */
export const ENDPOINT_PROBE_MS = 2_000;
/** How long the DevTools WebSocket's close handshake may take before the socket is dropped. */
export const CLOSE_HANDSHAKE_MS = 2_000;
/** The first back-off of an endpoint that did not answer; each failure in a row doubles it, up to MAX_BACKOFF_MS. */
export const FIRST_BACKOFF_MS = 1_000;
export const MAX_BACKOFF_MS = 10_000;
/** After a farm said it is full, how long without another such answer before one more capture at once is sent to it. */
export const BUSY_RELAX_MS = 5_000;

// ------------------------------------------------------- process and CLI

/** Longest wait, at shutdown, for the answers to calls in flight once the providers are closed. */
export const SHUTDOWN_REPLY_MS = 10_000;
/** A profile folder without an owner file may be one being created right now: the sweep leaves it alone this long. */
export const PROFILE_UNOWNED_GRACE_MS = 60_000;
/** `run`: once abandoned, captures get this long to fail after their browser is closed before the summary is printed anyway. */
export const ABANDON_GRACE_MS = 15_000;
/** `run`: how often it looks whether the captures in flight were abandoned. */
export const ABANDON_POLL_MS = 100;
/** `run`: after the summary and the browsers' close, the longest the process stays for anything still open. */
export const LINGER_AFTER_SUMMARY_MS = 2_000;
/** `run`'s progress on stderr: a plain line this often in a log, a live line this often on a terminal. */
export const PLAIN_PROGRESS_INTERVAL_MS = 5_000;
export const LIVE_PROGRESS_INTERVAL_MS = 200;
/** `stories`: how long a running Storybook gets to answer for its story index. */
export const STORY_INDEX_FETCH_MS = 10_000;
/**
 * A Storybook story's render, play function included: the page time the
 * capture waits for Storybook to say it finished (or failed) before it fails
 * the capture, naming the phase the story was in.
 */
export const STORY_RENDER_MS = 10_000;
/**
 * `stories --run`: the longest a capture waits for its variant's busy story
 * preview (or for the one being loaded) before it loads a page of its own:
 * a story stuck in its render does not hold the others up for its budget.
 */
export const STORY_PREVIEW_WAIT_MS = 5_000;
/** How often the capture asks Storybook whether the story finished (in page time, letTimePass). */
export const STORY_POLL_MS = 25;
/**
 * The same, while a play function runs: its waits are page time the clock
 * leaps, so larger steps cost no wall time but fewer round trips, and the
 * page's rest that follows runs whatever the step passed over anyway.
 */
export const STORY_PLAY_POLL_MS = 100;
/** `doctor`: how long the browser binary gets to print its version. */
export const BROWSER_VERSION_QUERY_MS = 15_000;
