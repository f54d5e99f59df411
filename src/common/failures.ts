/**
 * The failure kinds a caller can be told about, one wording each: navigation
 * (refused, DNS, redirect loop, TLS, a body still arriving, a busy main
 * thread…), a page or browser that went away mid-capture, a write the file
 * system refused, shutdown, a caller cancelling, and a browser endpoint that
 * could not be connected to (its HTTP answer or network error in words, with
 * a hint for the address given: a farm URL or a Chrome debugging address; and
 * a capture that waited its whole budget for an endpoint). Every module that
 * fails a capture for one of these reasons takes its sentence from here, so
 * the same fault always reads
 * the same way and no internal path (a /proc/self/fd/N name, a temporary
 * file) ever reaches the caller.
 *
 * Action wording (`actions[N] <do> '<selector>': <why>`, and what the page
 * runtime's codes — `not-visible`, `intercepted` — read as) is the action
 * runner's; what a crash says inside it is this module's.
 */
import { EvidenceError } from './errors';
import type { ConnectCause } from '../../cdp/failureKinds';

// ---------------------------------------------------------------- shutdown

export const SHUTDOWN_MESSAGE = 'the server is shutting down';

/** A capture ended because the server received SIGTERM/SIGINT or lost its client. */
export class ShutdownError extends EvidenceError<'shutdown'> {
  constructor() {
    super('shutdown', SHUTDOWN_MESSAGE);
    this.name = 'ShutdownError';
  }
}

/** A capture its caller cancelled (its request's signal fired) before it finished; `during` names the step. */
export class CaptureCancelled extends EvidenceError<'cancelled'> {
  constructor(during: string) {
    super('cancelled', `the capture was cancelled by its caller during ${during}; nothing was captured`);
    this.name = 'CaptureCancelled';
  }
}

// ------------------------------------------------------------------ writes

/** Every write failure starts with this, whatever the file system said. */
export const WRITE_FAILURE_PREFIX = 'could not write the artifact:';

/**
 * Why a write failed, naming the caller's artifact path (never the
 * descriptor path the writer used) and what to do about it.
 */
export function writeFailure(err: unknown, artifactPath: string): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOSPC':
      return `${WRITE_FAILURE_PREFIX} ${artifactPath}: no space left on the device that holds the evidence folder (ENOSPC); free some space, then capture again`;
    case 'EDQUOT':
      return `${WRITE_FAILURE_PREFIX} ${artifactPath}: the disk quota of this user is used up (EDQUOT); free some space, then capture again`;
    case 'EROFS':
      return `${WRITE_FAILURE_PREFIX} ${artifactPath}: the evidence folder is on a read-only file system (EROFS); point the run root at a writable folder`;
    case 'EACCES':
    case 'EPERM':
      return `${WRITE_FAILURE_PREFIX} ${artifactPath}: permission denied (${code}); let this process write to the evidence folder`;
    case 'EMFILE':
    case 'ENFILE':
      return `${WRITE_FAILURE_PREFIX} ${artifactPath}: too many open files (${code}); retry when fewer captures run at once`;
    case 'EIO':
      return `${WRITE_FAILURE_PREFIX} ${artifactPath}: the device reported an input/output error (EIO)`;
    default: {
      const detail = code ?? scrubPaths(err instanceof Error ? err.message : String(err));
      return `${WRITE_FAILURE_PREFIX} ${artifactPath}: ${detail}`;
    }
  }
}

/** Drops any file path from a system message (Node appends the path it was given, e.g. `open '/proc/self/fd/21/.x.partial'`). */
function scrubPaths(message: string): string {
  return message
    .replace(/,?\s*\w+\s+'[^']*'/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

// -------------------------------------------------------------- navigation

/** What Chromium's net error names mean for the caller. */
const NET_ERRORS: Array<[RegExp, (host: string) => string]> = [
  [/ERR_CONNECTION_REFUSED/, (host) => `the connection was refused: nothing accepts connections at ${host}; start the page's server or fix the port`],
  [/ERR_NAME_NOT_RESOLVED|ERR_NAME_RESOLUTION_FAILED/, (host) => `the host name ${host} could not be resolved (DNS); check the URL`],
  [/ERR_TOO_MANY_REDIRECTS/, () => 'the page redirects in a loop (too many redirects); capture the final address instead'],
  [/ERR_CERT_|ERR_SSL_|ERR_BAD_SSL|ERR_TLS/, (host) => `the TLS connection to ${host} failed (certificate or handshake refused)`],
  [
    /ERR_CONNECTION_RESET|ERR_CONNECTION_CLOSED|ERR_EMPTY_RESPONSE|ERR_CONNECTION_ABORTED/,
    (host) => `the server at ${host} closed the connection without a complete answer`,
  ],
  [/ERR_CONNECTION_TIMED_OUT|ERR_TIMED_OUT/, (host) => `the connection to ${host} timed out`],
  [/ERR_ADDRESS_UNREACHABLE|ERR_INTERNET_DISCONNECTED|ERR_NETWORK_CHANGED/, (host) => `${host} cannot be reached from this machine`],
  [/ERR_FILE_NOT_FOUND/, () => 'the file does not exist'],
  [/ERR_INVALID_RESPONSE|ERR_INVALID_HTTP_RESPONSE|ERR_RESPONSE_HEADERS/, (host) => `the server at ${host} sent a response the browser could not read`],
  [/ERR_ABORTED/, () => 'the browser did not display the response (a download, or an empty 204 answer)'],
  [/ERR_BLOCKED/, () => 'the browser blocked the request'],
  [
    /ERR_UNSAFE_PORT/,
    (host) =>
      `${portOf(host)} is one browsers refuse to load (a port of another protocol, such as 9 discard, 25 SMTP or 6000 X11); ` +
      'serve the page on another port, e.g. 8080',
  ],
];

/** `port N` of `host` (host:port, as URL.host gives it); `the port` when it names none. */
function portOf(host: string): string {
  const port = /:(\d+)$/.exec(host)?.[1];
  return port ? `port ${port}` : 'the port';
}

function hostOf(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.host || parsed.protocol;
  } catch {
    return url;
  }
}

/** A navigation the browser refused or could not complete (a net::ERR_… error). */
export function navigationFailure(url: string, browserMessage: string): string {
  const code = /net::(ERR_[A-Z0-9_]+)/.exec(browserMessage)?.[1];
  const rule = NET_ERRORS.find(([pattern]) => pattern.test(browserMessage));
  if (rule) return `navigation to ${url} failed: ${rule[1](hostOf(url))}${code ? ` (net::${code})` : ''}`;
  return `navigation to ${url} failed: ${browserMessage.replace(/\s+/g, ' ').trim()}`;
}

/**
 * Where a page load stood when time ran out. `document` is the main
 * document's request; `mainThread` whether the page answered a trivial
 * evaluation within a second.
 */
export interface LoadDiagnosis {
  document: 'not-requested' | 'awaiting-response' | 'body-arriving' | 'loaded' | 'failed';
  /** Bytes of the document body received so far (body-arriving). */
  bodyBytes?: number;
  /** Subresource requests still open (loaded). */
  pendingRequests?: number;
  mainThread: 'answers' | 'busy' | 'unknown';
}

const MAIN_THREAD_BUSY = "the page's main thread was busy (a script running without pause did not answer within 1 s)";
const NO_ANSWER = 'the page did not answer';

/** Why a page was not ready in time, from what the load looked like then. */
export function explainStall(d: LoadDiagnosis): string {
  if (d.document === 'awaiting-response') return 'the server had not answered the document request yet';
  // A renderer whose main thread never yields cannot even read the rest of its body: busy comes first.
  if (d.mainThread === 'busy') return MAIN_THREAD_BUSY;
  if (d.document === 'body-arriving') {
    const got = d.bodyBytes !== undefined ? ` (${d.bodyBytes} bytes so far)` : '';
    return `the document's body was still arriving from the server${got}; the page's main thread was not the cause`;
  }
  if (d.pendingRequests)
    return `the page was still waiting for ${d.pendingRequests} request${d.pendingRequests === 1 ? '' : 's'} (a script or style sheet it must load first)`;
  if (d.mainThread === 'answers') return 'the page answered but had not finished loading';
  return NO_ANSWER;
}

/**
 * Why a step other than the page load did not finish: whether the page still
 * answered a trivial evaluation tells a busy main thread from a wait that
 * simply never ended.
 */
export function explainStepStall(mainThread: LoadDiagnosis['mainThread']): string {
  if (mainThread === 'busy') return MAIN_THREAD_BUSY;
  if (mainThread === 'answers') return 'the page still answered; the step was waiting for something that did not happen';
  return NO_ANSWER;
}

export function navigationTimeout(url: string, milestone: string, budgetMs: number, d: LoadDiagnosis): string {
  return `navigation to ${url} did not reach ${milestone} within ${budgetMs} ms: ${explainStall(d)}`;
}

/** The whole-capture budget ran out during `stage`. */
export function captureOverrun(budgetMs: number, stage: string, cause: string): string {
  return (
    `capture did not finish within the ${budgetMs} ms whole-capture budget (DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS) during ${stage}: ${cause}. ` +
    'Its browser context was closed; nothing was captured'
  );
}

/**
 * A page served with an HTTP error status is still captured (the status is
 * what the page is, not a failed capture); this warning says so.
 */
export function httpStatusWarning(url: string, status: number, statusText: string): string {
  const text = statusText.trim() ? ` ${statusText.trim()}` : '';
  return `the page at ${url} answered HTTP ${status}${text}; it was captured as served (an error page, not the page the plan may expect)`;
}

// ------------------------------------------- the page or browser went away

export type LostKind = 'renderer-crashed' | 'page-closed' | 'browser-exited' | 'attached-browser-gone';

/** The capture's page or browser is gone; `during` names the step (`actions[0] click '#boom'`). */
export function lostDuring(kind: LostKind, during: string, attachedUrl?: string): string {
  switch (kind) {
    case 'renderer-crashed':
      return `the page's renderer crashed (out of memory?) during ${during}; nothing was captured`;
    case 'page-closed':
      return `the page was closed (its target detached) during ${during}; nothing was captured`;
    case 'browser-exited':
      return `the browser exited during ${during} — crashed or killed; nothing was captured, and the next capture launches a new one`;
    case 'attached-browser-gone':
      return `the attached browser at ${attachedUrl} went away during ${during}; nothing was captured, and the next capture reconnects`;
  }
}

// --------------------------------------------------------------- page size

/**
 * A page above the one-capture size whose device pixel ratio gives no strip
 * height in whole device rows, so it cannot be tiled without seams.
 */
export function pageNeedsTiling(width: number, height: number, devicePixelRatio: number, singleShotPixels: number): string {
  return (
    `the page is too large to capture at devicePixelRatio ${devicePixelRatio}: ${width} × ${height} device pixels is over the ` +
    `${singleShotPixels.toLocaleString('en-US')} pixels captured in one piece, and at this ratio no strip height is a whole number of device rows; ` +
    'use a ratio such as 1, 1.25, 1.5 or 2, or capture a shorter page'
  );
}

/** A page taller than a PNG the capture can assemble (see screenshot tiling). */
export function pageTooLarge(width: number, height: number, limitPixels: number): string {
  return (
    `the page is too large to capture as one PNG: ${width} × ${height} device pixels is over the ${limitPixels.toLocaleString('en-US')} pixel limit; ` +
    'capture a shorter page (or lower devicePixelRatio), or capture the a11y tree instead'
  );
}

// ------------------------------------------------------ browser endpoints

/** Why connecting to a browser endpoint failed (cdp/failureKinds.ts classifies; the wording is here). */
export type { ConnectCause };

/**
 * What the address looks like: a Chrome's own debugging address (an
 * `http://host:port` with no path or query, or a `ws://…/devtools/browser/<id>`
 * endpoint) or a farm's (anything else, or any address with
 * --connect-per-capture). The hint follows it.
 */
export type AddressForm = 'chrome' | 'farm';

const STATUS_MEANING: Record<number, string> = {
  400: 'the farm refused the request as malformed (an unknown or bad query parameter?)',
  401: 'the credentials were refused',
  403: 'the credentials may not use this endpoint',
  404: 'nothing serves a DevTools WebSocket at this path',
  408: 'the farm gave up on the connection while it waited in its queue',
  429: "the farm's sessions and queue are full",
  500: 'the farm failed to start a browser session',
  502: 'a proxy in front of the farm got no good answer from it',
  503: 'the farm is not taking sessions now (starting, restarting or overloaded)',
  504: 'a proxy in front of the farm got no answer from it in time',
};

function statusLine(status: number, statusText: string): string {
  const text = statusText.trim();
  return `HTTP ${status}${text ? ` ${text}` : ''}`;
}

/** What happened, in words (no advice). */
export function connectCauseText(cause: ConnectCause): string {
  switch (cause.kind) {
    case 'http': {
      const where = cause.during === 'version' ? 'its /json/version answered' : 'it answered';
      const meaning = STATUS_MEANING[cause.status] ?? (cause.status >= 500 ? 'the farm failed' : 'not a WebSocket upgrade');
      const retry = cause.retryAfterMs !== undefined ? ` (it asks to retry after ${Math.round(cause.retryAfterMs / 100) / 10} s)` : '';
      return `${where} ${statusLine(cause.status, cause.statusText)}: ${meaning}${retry}`;
    }
    case 'not-websocket':
      return `it answered ${statusLine(cause.status, cause.statusText)} instead of switching to a WebSocket: this address is not a DevTools WebSocket endpoint`;
    case 'not-devtools':
      return cause.detail;
    case 'refused':
      return `the connection was refused (${cause.code}): nothing listens at ${cause.address}`;
    case 'reset':
      return `the connection was closed before the DevTools handshake finished (${cause.code})`;
    case 'unreachable':
      return `${cause.address} cannot be reached from this machine (${cause.code})`;
    case 'timeout':
      return `no answer within ${cause.ms} ms`;
    case 'dns':
      return `the host name ${cause.host} could not be resolved (${cause.code})`;
    case 'tls':
      return `the TLS handshake failed (${cause.code}${cause.detail ? `: ${cause.detail}` : ''})`;
    case 'other':
      return cause.detail;
  }
}

const START_CHROME = 'start Chrome with --remote-debugging-port=<port> and pass that address, or drop the attach setting to launch a browser';

/** What to do about it, for the address given. */
export function connectHint(cause: ConnectCause, form: AddressForm): string {
  const farm = form === 'farm';
  switch (cause.kind) {
    case 'http':
      switch (cause.status) {
        case 401:
        case 403:
          return farm
            ? "check the token in the address (its token= parameter) against the farm's own (browserless: its TOKEN setting)"
            : 'check the credentials in the address';
        case 404:
          return farm
            ? "check the endpoint's path (browserless: ws://host:port/chromium?token=…, or / )"
            : 'a ws://…/devtools/browser/<id> address changes each time Chrome starts: pass its http://host:port address instead, which finds the current one';
        case 429:
          return "lower --parallel (DESIGN_PLAYBOOK_MAX_PARALLEL) or raise the farm's concurrency and queue (browserless: CONCURRENT, QUEUED)";
        case 408:
          return "lower --parallel, or raise the farm's queue wait (browserless: TIMEOUT)";
        case 400:
          return 'check the query parameters of the address';
        default:
          return cause.status >= 500
            ? "captures wait for it within their budget; if it lasts, check the farm's logs and health"
            : 'check that the address is a DevTools WebSocket endpoint';
      }
    case 'not-websocket':
    case 'not-devtools':
      return farm
        ? "pass the farm's WebSocket endpoint (browserless: ws://host:port/chromium?token=…) with --ws-endpoint"
        : 'pass a Chrome debugging address: http://host:port with --browser-url, or its ws://… endpoint with --ws-endpoint';
    case 'refused':
    case 'unreachable':
      return farm ? 'start the farm, or check its address and port; captures wait for it within their budget' : START_CHROME;
    case 'reset':
      return farm
        ? 'the farm (or a proxy in front of it) dropped the connection: it may be restarting'
        : 'the browser dropped the connection: it may be restarting';
    case 'timeout':
      return farm
        ? 'the farm may be holding the connection in its queue, or a firewall drops it'
        : 'a browser that is stopped or busy accepts the connection and never answers';
    case 'dns':
      return 'check the host name in the address';
    case 'tls':
      return farm
        ? "use ws:// or http:// for a farm without TLS, or fix the farm's certificate"
        : 'use http:// or ws:// for a Chrome debugging port (it has no TLS)';
    case 'other':
      return farm ? 'check the farm is running at that address' : START_CHROME;
  }
}

/** One failed connection: `summary` names the endpoint and the cause; `message` adds what to do. */
export function attachFailure(name: string, source: string, cause: ConnectCause, form: AddressForm): { summary: string; message: string } {
  const summary = `could not attach to the browser at ${name} (${source}): ${connectCauseText(cause)}`;
  return { summary, message: `${summary}; ${connectHint(cause, form)}` };
}

/**
 * No endpoint of the pool took the capture while its budget lasted: it
 * waited the whole time. `lastAnswers` are each endpoint's last failure.
 */
export function noEndpointAnswered(budgetMs: number, lastAnswers: string[]): string {
  const last = lastAnswers.length ? ` ${lastAnswers.length === 1 ? 'The last attempt' : 'The last attempts'}: ${lastAnswers.join(' | ')}` : '';
  return (
    `no browser endpoint took the capture within its ${budgetMs} ms whole-capture budget (DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS): ` +
    `it waited for one that whole time; nothing was captured.${last}`
  );
}
