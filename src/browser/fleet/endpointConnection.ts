/**
 * The DevTools connection to an attached browser, opened by hand so that a
 * failure can say what happened. Puppeteer's own WebSocket transport rejects
 * with a bare error event (printed `[object Object]`) and never shows the
 * HTTP answer a farm gives on the upgrade (401, 429 with Retry-After, 503);
 * this module opens the WebSocket itself (the `ws` package, with the options
 * Puppeteer uses), hands Puppeteer the open transport, and turns every
 * failure into a ConnectCause (failures.ts words it).
 *
 * An http(s):// address is resolved through its `/json/version` first, with
 * the address's query and userinfo kept on that request and carried over to
 * the WebSocket address it names (a farm's `/json/version` wants the token
 * too, and names its endpoint without it).
 *
 * What a Node or `ws` error means, and which causes are worth waiting for,
 * is cdp/failureKinds.ts's (the one classifier of protocol and connection
 * errors).
 */
import * as fs from 'fs';
import * as http from 'http';
import * as https from 'https';
import WebSocket from 'ws';
import type { ConnectionTransport } from 'puppeteer-core';
import type { AddressForm } from '../../common/failures';
import { classifyConnectionError, type ConnectCause } from '../../../cdp/failureKinds';
import type { AttachTarget } from '../options';
import { redactKnownSecrets } from '../../common/redact';
import { EvidenceError } from '../../common/errors';
import { CLOSE_HANDSHAKE_MS } from '../../common/time';
import { connectCauseText } from '../../common/failures';

/** The largest DevTools message accepted (Puppeteer's own limit: a full-page screenshot is large). */
const MAX_PAYLOAD_BYTES = 256 * 1024 * 1024;
/** The most of a refusal's body kept for the message (a farm often says why). */
const BODY_EXCERPT_CHARS = 200;

export class ConnectFailure extends EvidenceError<'connect-failed'> {
  constructor(readonly cause: ConnectCause) {
    super('connect-failed', cause.kind);
    this.name = 'ConnectFailure';
  }
}

/** The address form the hint follows (see failures.ts AddressForm). */
export function addressForm(target: AttachTarget, perCapture: boolean): AddressForm {
  if (perCapture) return 'farm';
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    return 'farm';
  }
  if (url.search || url.username || url.password) return 'farm';
  if (target.kind === 'ws-endpoint') return /^\/devtools\/browser\/[^/]+$/.test(url.pathname) ? 'chrome' : 'farm';
  return url.pathname === '/' || url.pathname === '' ? 'chrome' : 'farm';
}

/** Retry-After as milliseconds from now (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: number = Date.now()): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function headerText(value: string | string[] | undefined): string {
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/** The start of a refusal's body, on one line, with the address's secrets hidden. */
function excerpt(body: string, address: string): string {
  const line = body.replace(/\s+/g, ' ').trim().slice(0, BODY_EXCERPT_CHARS);
  return redactKnownSecrets(line, address);
}

/** A transport Puppeteer drives; `closed` settles once the socket is gone. */
export interface OpenTransport extends ConnectionTransport {
  closed: Promise<void>;
}

/**
 * Opens the DevTools WebSocket at `wsUrl` within `timeoutMs`. Rejects with a
 * ConnectFailure whose cause says what the other side did.
 */
export function openTransport(wsUrl: string, timeoutMs: number, userAgent: string): Promise<OpenTransport> {
  let address: URL;
  try {
    address = new URL(wsUrl);
  } catch {
    return Promise.reject(new ConnectFailure({ kind: 'not-devtools', detail: `the WebSocket address is not a URL` }));
  }
  return new Promise<OpenTransport>((resolve, reject) => {
    let settled = false;
    const fail = (cause: ConnectCause) => {
      if (settled) return;
      settled = true;
      reject(new ConnectFailure(cause));
    };
    const ws = new WebSocket(wsUrl, [], {
      followRedirects: true,
      perMessageDeflate: false,
      allowSynchronousEvents: false,
      maxPayload: MAX_PAYLOAD_BYTES,
      handshakeTimeout: Math.max(1, timeoutMs),
      headers: { 'User-Agent': userAgent },
    });
    ws.on('unexpected-response', (req, res) => {
      const status = res.statusCode ?? 0;
      const statusText = res.statusMessage ?? '';
      const retryAfterMs = parseRetryAfter(res.headers['retry-after']);
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (body.length < BODY_EXCERPT_CHARS * 4) body += chunk;
      });
      const done = () => {
        const detail = excerpt(body, wsUrl);
        const text = detail && !statusText.toLowerCase().includes(detail.toLowerCase()) ? `${statusText}${statusText ? ' ' : ''}("${detail}")` : statusText;
        if (status >= 200 && status < 400) fail({ kind: 'not-websocket', status, statusText: text });
        else fail({ kind: 'http', status, statusText: text, during: 'upgrade', ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
        req.destroy();
      };
      res.on('end', done);
      res.on('error', done);
      // A body that never ends still gives its status.
      setTimeout(done, 500).unref();
    });
    ws.on('error', (err) => fail(classifyConnectionError(err, address, timeoutMs)));
    ws.once('close', () => fail({ kind: 'reset', code: 'ECONNRESET' }));
    ws.once('open', () => {
      if (settled) {
        ws.terminate();
        return;
      }
      settled = true;
      resolve(wrap(ws));
    });
  });
}

function wrap(ws: WebSocket): OpenTransport {
  let closedResolve!: () => void;
  const closed = new Promise<void>((resolve) => (closedResolve = resolve));
  const transport: OpenTransport = {
    closed,
    send(message: string) {
      if (ws.readyState === WebSocket.OPEN) ws.send(message);
    },
    close() {
      if (ws.readyState === WebSocket.CLOSED) return;
      ws.close();
      // A side that never finishes the close handshake does not hold the socket (ws would wait 30 s).
      setTimeout(() => ws.terminate(), CLOSE_HANDSHAKE_MS).unref();
    },
  };
  ws.on('message', (data: WebSocket.RawData, isBinary: boolean) => {
    // DevTools speaks text frames only; a screenshot's is megabytes, so it is decoded once, not copied.
    if (isBinary) return;
    const text = Array.isArray(data)
      ? Buffer.concat(data).toString('utf8')
      : Buffer.isBuffer(data)
        ? data.toString('utf8')
        : Buffer.from(data).toString('utf8');
    transport.onmessage?.(text);
  });
  ws.once('close', () => {
    closedResolve();
    transport.onclose?.();
  });
  // After the handshake an error is followed by 'close', which is what Puppeteer is told.
  ws.on('error', () => undefined);
  return transport;
}

/**
 * The WebSocket address of an http(s) browser URL, from its `/json/version`:
 * the request keeps the address's query and userinfo, and so does the
 * WebSocket address it names (a parameter the answer already has is kept as
 * answered).
 */
export function resolveBrowserUrl(browserUrl: string, timeoutMs: number, userAgent: string): Promise<string> {
  let given: URL;
  try {
    given = new URL(browserUrl);
  } catch {
    return Promise.reject(new ConnectFailure({ kind: 'not-devtools', detail: 'the browser URL is not a URL' }));
  }
  const versionUrl = new URL('/json/version', given);
  versionUrl.search = given.search;
  versionUrl.username = given.username;
  versionUrl.password = given.password;
  const client = versionUrl.protocol === 'https:' ? https : http;
  return new Promise<string>((resolve, reject) => {
    let settled = false;
    const fail = (cause: ConnectCause) => {
      if (settled) return;
      settled = true;
      reject(new ConnectFailure(cause));
    };
    const req = client.get(versionUrl, { timeout: Math.max(1, timeoutMs), headers: { 'User-Agent': userAgent, Accept: 'application/json' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
        if (body.length > 1_000_000) req.destroy(new Error('its /json/version answer is too large'));
      });
      res.on('error', (err) => fail(classifyConnectionError(err, versionUrl, timeoutMs)));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        if (status !== 200) {
          const detail = excerpt(body, browserUrl);
          const text = headerText(res.statusMessage) + (detail ? ` ("${detail}")` : '');
          const retryAfterMs = parseRetryAfter(res.headers['retry-after']);
          return fail({ kind: 'http', status, statusText: text.trim(), during: 'version', ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
        }
        let named: unknown;
        try {
          named = (JSON.parse(body) as { webSocketDebuggerUrl?: unknown }).webSocketDebuggerUrl;
        } catch {
          return fail({ kind: 'not-devtools', detail: 'its /json/version did not answer JSON: not a Chrome DevTools address' });
        }
        if (typeof named !== 'string' || !named) return fail({ kind: 'not-devtools', detail: 'its /json/version names no webSocketDebuggerUrl' });
        let ws: URL;
        try {
          ws = new URL(named);
        } catch {
          return fail({ kind: 'not-devtools', detail: 'its /json/version names a webSocketDebuggerUrl that is not a URL' });
        }
        for (const [name, value] of given.searchParams) if (!ws.searchParams.has(name)) ws.searchParams.append(name, value);
        if (!ws.username && given.username) {
          ws.username = given.username;
          ws.password = given.password;
        }
        settled = true;
        resolve(ws.toString());
      });
    });
    req.on('timeout', () => {
      fail({ kind: 'timeout', ms: timeoutMs });
      req.destroy();
    });
    req.on('error', (err) => fail(classifyConnectionError(err, versionUrl, timeoutMs)));
  });
}

/** What to do when --auto-connect finds no Chrome to attach to. */
const AUTO_CONNECT_ADVICE =
  'start Chrome with --remote-debugging-port=9222 (and this --user-data-dir), or enable remote debugging at chrome://inspect/#remote-debugging in the running Chrome, then capture again; or point --auto-connect at the user data folder Chrome runs on';

/** The DevToolsActivePort file could not be read or does not hold a port and a path. */
export class ActivePortUnreadable extends EvidenceError<'active-port-unreadable'> {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super('active-port-unreadable', reason);
    this.name = 'ActivePortUnreadable';
  }
}

/**
 * The browser WebSocket address a running Chrome wrote into its
 * DevToolsActivePort file (first line its port, second its
 * /devtools/browser/<id> path), on 127.0.0.1, as chrome-devtools-mcp's
 * --autoConnect reads it. Throws ActivePortUnreadable.
 */
export function readDevToolsActivePort(file: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ActivePortUnreadable(
      file,
      code === 'ENOENT' ? 'it does not exist (no Chrome with remote debugging runs on that folder)' : `it cannot be read (${code ?? String(err)})`,
    );
  }
  const [portLine, pathLine] = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
  const port = Number(portLine);
  if (!portLine || !/^\d+$/.test(portLine) || port < 1 || port > 65535) throw new ActivePortUnreadable(file, 'its first line is not a port number');
  if (!pathLine || !pathLine.startsWith('/devtools/browser/')) throw new ActivePortUnreadable(file, 'its second line is not a /devtools/browser/… path');
  return `ws://127.0.0.1:${port}${pathLine}`;
}

/** Why --auto-connect could not attach, naming the file and what to do; never transient (a user's Chrome is not a farm restarting). */
export function autoConnectFailure(file: string, err: unknown): { message: string; summary: string; cause: ConnectCause } {
  let summary: string;
  let cause: ConnectCause;
  if (err instanceof ActivePortUnreadable) {
    cause = { kind: 'not-devtools', detail: err.reason };
    summary = `could not auto-connect: Chrome's ${file}: ${err.reason}`;
  } else {
    cause = err instanceof ConnectFailure ? err.cause : { kind: 'other', detail: err instanceof Error ? err.message : String(err) };
    let address = '';
    try {
      address = ` (${readDevToolsActivePort(file).replace(/\/devtools\/.*$/, '')})`;
    } catch {
      // read above; gone meanwhile
    }
    const stale = cause.kind === 'refused' || cause.kind === 'reset' || cause.kind === 'unreachable' || cause.kind === 'timeout';
    summary = stale
      ? `could not auto-connect: ${file} names a port${address} where no Chrome answers (${connectCauseText(cause)}): the file is stale, left by a Chrome that has exited`
      : `could not auto-connect through ${file}${address}: ${connectCauseText(cause)}`;
  }
  return { message: `${summary}; ${AUTO_CONNECT_ADVICE}`, summary, cause };
}
