/**
 * What a failed protocol call means, read once from its message: the one
 * place that knows the browser's (and Puppeteer's) wording for "that
 * document, object, page or connection is gone". Callers branch on the kind,
 * never on the text, so a wording Chromium changes is fixed here alone.
 *
 * The kinds, from the narrowest loss to the widest:
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
