import { traceHeaderValue } from './redaction';
import type { CdpHandlers, CdpSession } from '../types';
import type { TraceClock } from './clock';
import type { HarHeader, ResourceSnapshot } from './format';
import { TRACE_NETWORK_POLL_MS, withDeadline } from '../deadline';
import { frameIdFor } from './format';
import type { ResourceStore } from './resourceStore';

/** Bodies above this size are listed without content, keeping archives small. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

interface PendingRequest {
  requestId: string;
  url: string;
  method: string;
  headers: Record<string, string>;
  postData?: string;
  frameId: string;
  resourceType: string;
  monotonicTime: number;
  wallTime: number;
  requestTime: number;
  response?: any;
}

/**
 * Records the page's requests from the CDP Network domain as Playwright's
 * `resource-snapshot` HAR entries, and stores every response body in the
 * resource store by sha1. The viewer serves a snapshot's stylesheets,
 * images and fonts from these entries (matched by URL), so capture starts
 * before navigation and bodies are fetched as soon as each load finishes,
 * while Chromium still holds them.
 */
export class NetworkCapture {
  private readonly pending = new Map<string, PendingRequest>();
  private readonly entries: ResourceSnapshot[] = [];
  private readonly bodyFetches: Promise<void>[] = [];
  /** URL -> archive path of the last body seen, for the snapshotter. */
  private readonly bodiesByUrl = new Map<string, string>();

  constructor(
    private readonly session: CdpSession,
    private readonly clock: TraceClock,
    private readonly store: ResourceStore,
    private readonly pageId: string,
  ) {}

  readonly handlers: CdpHandlers = {
    'Network.requestWillBeSent': (p) => this.onRequest(p),
    'Network.responseReceived': (p) => this.onResponse(p),
    'Network.loadingFinished': (p) => this.onFinished(p),
    'Network.loadingFailed': (p) => this.onFailed(p),
  };

  /** URLs whose bodies are in the archive. */
  recordedUrls(): string[] {
    return [...this.bodiesByUrl.keys()];
  }

  /**
   * Adds an entry for a stylesheet the page uses but the network log never
   * saw (loaded before capture began, or from a cache CDP did not report),
   * built from its CSSOM text so the snapshot still renders styled.
   */
  addSynthesizedStylesheet(url: string, text: string, frameCdpId: string): void {
    if (this.bodiesByUrl.has(url)) return;
    const file = this.store.put(Buffer.from(text, 'utf8'), 'text/css');
    this.bodiesByUrl.set(url, file);
    const now = this.clock.now();
    this.entries.push(
      this.harEntry(
        {
          requestId: `synthesized-${this.entries.length}`,
          url,
          method: 'GET',
          headers: {},
          frameId: frameCdpId,
          resourceType: 'Stylesheet',
          // Earlier than any snapshot, so every snapshot may use it.
          monotonicTime: 0,
          wallTime: Date.now(),
          requestTime: 0,
          response: { status: 200, statusText: 'OK', headers: { 'content-type': 'text/css' }, mimeType: 'text/css', protocol: 'http/1.1' },
        },
        { size: Buffer.byteLength(text), file, encodedDataLength: 0, endTime: now },
      ),
    );
  }

  /**
   * Gives requests in flight (an XHR the last action started) up to
   * `maxMs` to finish, so the network log shows what the action caused.
   */
  async settle(maxMs: number): Promise<void> {
    const deadline = this.clock.now() + maxMs;
    while (this.pending.size > 0 && this.clock.now() < deadline) await new Promise((r) => setTimeout(r, TRACE_NETWORK_POLL_MS));
  }

  /**
   * Waits (at most `maxMs`) for in-flight body fetches; returns the finished
   * entries by request time.
   */
  async drain(maxMs: number): Promise<ResourceSnapshot[]> {
    await withDeadline(Promise.all(this.bodyFetches), maxMs, `response bodies timed out after ${maxMs} ms`).catch(() => undefined);
    return [...this.entries].sort((a, b) => a._monotonicTime - b._monotonicTime);
  }

  private onRequest(p: any): void {
    const url: string = p.request?.url ?? '';
    if (!/^https?:/i.test(url)) return;
    const previous = this.pending.get(p.requestId);
    if (previous && p.redirectResponse) {
      previous.response = p.redirectResponse;
      this.entries.push(this.harEntry(previous, { size: 0, encodedDataLength: 0, endTime: this.clock.now(), redirectURL: url }));
    }
    this.pending.set(p.requestId, {
      requestId: p.requestId,
      url,
      method: p.request.method,
      headers: p.request.headers ?? {},
      postData: p.request.postData,
      frameId: p.frameId ?? '',
      resourceType: p.type ?? 'Other',
      monotonicTime: this.clock.now(),
      wallTime: typeof p.wallTime === 'number' ? p.wallTime * 1000 : Date.now(),
      requestTime: typeof p.timestamp === 'number' ? p.timestamp : 0,
    });
  }

  private onResponse(p: any): void {
    const request = this.pending.get(p.requestId);
    if (!request) return;
    request.response = p.response;
    if (p.type) request.resourceType = p.type;
  }

  private onFinished(p: any): void {
    const request = this.pending.get(p.requestId);
    if (!request || !request.response) return;
    this.pending.delete(p.requestId);
    const endTime = this.clock.now();
    const encodedDataLength: number = p.encodedDataLength ?? 0;
    const status: number = request.response.status;
    const hasBody = status !== 204 && status !== 304 && !(status >= 300 && status < 400) && request.method !== 'HEAD';
    if (!hasBody) {
      this.entries.push(this.harEntry(request, { size: 0, encodedDataLength, endTime, finishTimestamp: p.timestamp }));
      return;
    }
    this.bodyFetches.push(
      this.session
        .send('Network.getResponseBody', { requestId: p.requestId })
        .then((reply: { body: string; base64Encoded: boolean }) => {
          const bytes = Buffer.from(reply.body, reply.base64Encoded ? 'base64' : 'utf8');
          let file: string | undefined;
          if (bytes.length <= MAX_BODY_BYTES) {
            file = this.store.put(bytes, request.response.mimeType || 'x-unknown');
            this.bodiesByUrl.set(request.url, file);
          }
          this.entries.push(this.harEntry(request, { size: bytes.length, file, encodedDataLength, endTime, finishTimestamp: p.timestamp }));
        })
        .catch(() => {
          // Evicted or a body-less resource: list the request without content.
          this.entries.push(this.harEntry(request, { size: 0, encodedDataLength, endTime, finishTimestamp: p.timestamp }));
        }),
    );
  }

  private onFailed(p: any): void {
    const request = this.pending.get(p.requestId);
    if (!request) return;
    this.pending.delete(p.requestId);
    request.response = request.response ?? { status: -1, statusText: '', headers: {}, mimeType: 'x-unknown', protocol: '' };
    this.entries.push(this.harEntry(request, { size: 0, encodedDataLength: 0, endTime: this.clock.now(), failureText: p.errorText }));
  }

  private harEntry(
    request: PendingRequest,
    done: { size: number; file?: string; encodedDataLength: number; endTime: number; finishTimestamp?: number; redirectURL?: string; failureText?: string },
  ): ResourceSnapshot {
    const response = request.response ?? {};
    const timing = response.timing;
    const span = (from: number | undefined, to: number | undefined) =>
      typeof from === 'number' && typeof to === 'number' && from >= 0 && to >= 0 ? round(to - from) : -1;
    const totalMs =
      typeof done.finishTimestamp === 'number' && request.requestTime
        ? round((done.finishTimestamp - request.requestTime) * 1000)
        : round(done.endTime - request.monotonicTime);
    const send = timing ? Math.max(0, span(timing.sendStart, timing.sendEnd)) : 0;
    const wait = timing ? Math.max(0, span(timing.sendEnd, timing.receiveHeadersEnd)) : 0;
    const receive = timing ? Math.max(0, round(totalMs - timing.receiveHeadersEnd)) : totalMs;
    const mimeType: string = response.mimeType || 'x-unknown';
    const requestHeaders = toHarHeaders(request.headers);
    const responseHeaders = toHarHeaders(response.headers ?? {});
    const entry: ResourceSnapshot = {
      pageref: this.pageId,
      startedDateTime: new Date(request.wallTime).toISOString(),
      time: totalMs,
      request: {
        method: request.method,
        url: request.url,
        httpVersion: httpVersion(response.protocol),
        cookies: [],
        headers: requestHeaders,
        queryString: queryString(request.url),
        headersSize: -1,
        bodySize: request.postData ? Buffer.byteLength(request.postData) : 0,
      },
      response: {
        status: response.status ?? -1,
        statusText: response.statusText ?? '',
        httpVersion: httpVersion(response.protocol),
        cookies: [],
        headers: responseHeaders,
        content: { size: done.size, mimeType, ...(done.file ? { _file: done.file } : {}) },
        headersSize: -1,
        bodySize: done.encodedDataLength,
        redirectURL: done.redirectURL ?? '',
        _transferSize: done.encodedDataLength,
        ...(done.failureText ? { _failureText: done.failureText } : {}),
      },
      cache: {},
      timings: {
        dns: timing ? span(timing.dnsStart, timing.dnsEnd) : -1,
        connect: timing ? span(timing.connectStart, timing.connectEnd) : -1,
        ssl: timing ? span(timing.sslStart, timing.sslEnd) : -1,
        send,
        wait,
        receive,
      },
      _frameref: frameIdFor(request.frameId),
      _monotonicTime: request.monotonicTime,
      _resourceType: request.resourceType.toLowerCase(),
    };
    if (request.postData) {
      const contentType = requestHeaders.find((h) => h.name.toLowerCase() === 'content-type')?.value ?? 'application/octet-stream';
      entry.request.postData = { mimeType: contentType, text: request.postData };
    }
    if (response.remoteIPAddress) entry.serverIPAddress = String(response.remoteIPAddress).replace(/^\[|\]$/g, '');
    if (typeof response.remotePort === 'number') entry._serverPort = response.remotePort;
    return entry;
  }
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

function toHarHeaders(headers: Record<string, string>): HarHeader[] {
  const out: HarHeader[] = [];
  for (const [name, value] of Object.entries(headers)) {
    // CDP joins repeated headers with newlines; HAR lists them one by one.
    for (const part of String(value).split('\n')) out.push({ name, value: traceHeaderValue(name, part) });
  }
  return out;
}

function queryString(url: string): HarHeader[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

function httpVersion(protocol: string | undefined): string {
  if (!protocol) return 'HTTP/1.1';
  if (protocol === 'h2') return 'HTTP/2.0';
  if (protocol === 'h3') return 'HTTP/3.0';
  return protocol.toUpperCase();
}
