/**
 * What a failure means, read once: the one classifier of protocol errors
 * (classifyProtocolError) and of errors met while connecting to a browser
 * endpoint (classifyConnectionError, isTransient). It is the one place that
 * knows the browser's (and Puppeteer's) wording for "that document, object,
 * page or connection is gone", and Node's and the WebSocket's codes for a
 * connection that failed. Callers branch on the kind, never on the text, so a
 * wording Chromium or Node changes is fixed here alone.
 *
 * The protocol error kinds, from the narrowest loss to the widest:
 * - `object-gone`: a remote object or DOM node handle is no longer valid
 *   (collected, or its document replaced);
 * - `context-gone`: the execution context went away with its document
 *   (a navigation, a reload), or never existed in this document;
 * - `frame-detached`: the frame itself left the page (Puppeteer's frame
 *   calls say so; the page's own close may follow);
 * - `target-gone`: the page's renderer crashed, its target or session
 *   closed, or the connection to the browser dropped;
 * - `timed-out`: the protocol call got no answer within the client's
 *   protocol timeout;
 * - `other`: anything else (the page's own exception, a bad parameter).
 */

export type ProtocolErrorKind = 'object-gone' | 'context-gone' | 'frame-detached' | 'target-gone' | 'timed-out' | 'other';

const KINDS: Array<[Exclude<ProtocolErrorKind, 'other'>, RegExp]> = [
  [
    'target-gone',
    /Target crashed|Page crashed|Target closed|Session closed|Connection closed|browser has disconnected|session (?:was )?detached|Target detached/i,
  ],
  [
    'frame-detached',
    /detached Frame|frame (?:was |got )?detached|Navigating frame was detached|not available in detached frame|Frame with the given id was not found|No frame for given id/i,
  ],
  [
    'context-gone',
    /Execution context was destroyed|Cannot find (?:default )?(?:execution )?context|context with specified id|Inspected target navigated|execution context (?:is )?(?:not available|destroyed|detached)|context.*(?:destroyed|detached)|navigated or closed/i,
  ],
  [
    'object-gone',
    /Could not find object|Cannot find object|No node with given id|Node with given id does not belong|object (?:was )?collected|Invalid remote object id/i,
  ],
];

/** The kind of a failed protocol call (or of anything thrown: a non-Error reads as its text). */
export function classifyProtocolError(err: unknown): ProtocolErrorKind {
  const message = String((err as Error | undefined)?.message ?? err);
  for (const [kind, pattern] of KINDS) if (pattern.test(message)) return kind;
  if (isProtocolTimeout(err, message)) return 'timed-out';
  return 'other';
}

/** The client's protocol timeout (Puppeteer's protocolTimeout), by the error's name or its wording; a page's own "timed out" text is not one. */
function isProtocolTimeout(err: unknown, message: string): boolean {
  const name = err instanceof Error ? err.name : '';
  return (
    name === 'TimeoutError' || (name === 'ProtocolError' && /timed out/i.test(message)) || /\bProtocol error\b.*timed out|'protocolTimeout'/i.test(message)
  );
}

/** The document (or the object in it) a call ran in is gone, while the page itself lives on: a retry in a new world can work. */
export function isDocumentGone(err: unknown): boolean {
  const kind = classifyProtocolError(err);
  return kind === 'context-gone' || kind === 'object-gone';
}

// ------------------------------------------------------------ connecting

/**
 * Why connecting to a browser endpoint failed, as the connection saw it
 * (classified here; src/common/failures.ts words it).
 * `during` says which request answered: the WebSocket upgrade, or the
 * `/json/version` look-up of an http(s) address.
 */
export type ConnectCause =
  | { kind: 'http'; status: number; statusText: string; during: 'upgrade' | 'version'; retryAfterMs?: number }
  | { kind: 'not-websocket'; status: number; statusText: string }
  | { kind: 'not-devtools'; detail: string }
  | { kind: 'refused'; address: string; code: string }
  | { kind: 'reset'; code: string }
  | { kind: 'unreachable'; address: string; code: string }
  | { kind: 'timeout'; ms: number }
  | { kind: 'dns'; host: string; code: string }
  | { kind: 'tls'; code: string; detail: string }
  | { kind: 'other'; detail: string };

/** Whether waiting can fix it: a farm restarting, full or briefly unreachable, not a wrong token, path, host or certificate. */
export function isTransient(cause: ConnectCause): boolean {
  switch (cause.kind) {
    case 'http':
      return cause.status === 408 || cause.status === 429 || cause.status >= 500;
    case 'refused':
    case 'reset':
    case 'unreachable':
    case 'timeout':
    case 'other':
      return true;
    case 'dns':
      // A resolver that cannot answer now, not a name that does not exist.
      return cause.code === 'EAI_AGAIN';
    case 'not-websocket':
    case 'not-devtools':
    case 'tls':
      return false;
  }
}

function hostPort(url: URL): string {
  const port = url.port || (url.protocol === 'https:' || url.protocol === 'wss:' ? '443' : '80');
  return `${url.hostname}:${port}`;
}

const TLS_CODE = /^(ERR_SSL_|ERR_TLS_|ERR_OSSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;

/** A Node or `ws` error met while connecting, as a cause; `address` is what was connected to. */
export function classifyConnectionError(err: unknown, address: URL, timeoutMs: number): ConnectCause {
  const e = err as NodeJS.ErrnoException | undefined;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = (e instanceof Error ? e.message : String(err)).split('\n')[0];
  if (code === 'ECONNREFUSED') return { kind: 'refused', address: hostPort(address), code };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME' || code === 'EAI_FAIL') return { kind: 'dns', host: address.hostname, code };
  if (['EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'EHOSTDOWN', 'EADDRNOTAVAIL'].includes(code))
    return { kind: 'unreachable', address: hostPort(address), code };
  if (code === 'ETIMEDOUT' || /handshake has timed out/i.test(message)) return { kind: 'timeout', ms: timeoutMs };
  if (TLS_CODE.test(code) || /\b(SSL|TLS)\b|certificate/i.test(message)) return { kind: 'tls', code: code || 'TLS', detail: code ? '' : message };
  if (code === 'ECONNRESET' || code === 'EPIPE' || /socket hang up|closed before the connection was established/i.test(message)) {
    return { kind: 'reset', code: code || 'ECONNRESET' };
  }
  return { kind: 'other', detail: message || code || 'unknown error' };
}
