/**
 * The requests a capture's page has in flight (every frame), as the settle
 * (pageClock.ts) needs them: while one is open the page's virtual time may
 * not run ahead of the wall clock — so a page's own fetch timeout cannot fire
 * before its response arrives — and the page is not at rest.
 *
 * Long-lived connections do not count, so they cannot pin a capture to the
 * settle's bound in wall time: an EventSource (or any text/event-stream
 * response) from the moment it is known; any other request once it has been
 * open LONG_REQUEST_MS (a long-poll, a response that streams on). WebSockets
 * are not requests here at all (their frames never hold the clock).
 */
import type { HTTPRequest, HTTPResponse, Page } from 'puppeteer-core';
import { LONG_REQUEST_MS } from '../../common/time';

/** How many open requests a warning names. */
const NAMED_IN_WARNING = 3;
const URL_IN_WARNING = 100;

export class PageNetwork {
  /** Open requests that may hold the clock, with when they started (wall ms). */
  private readonly open = new Map<HTTPRequest, number>();

  /** `onStart` hears of each request that holds the clock, as it starts. */
  constructor(page: Page, onStart: () => void) {
    page.on('request', (request: HTTPRequest) => {
      if (request.resourceType() === 'eventsource') return;
      this.open.set(request, Date.now());
      onStart();
    });
    const done = (request: HTTPRequest) => void this.open.delete(request);
    page.on('requestfinished', done);
    page.on('requestfailed', done);
    page.on('response', (response: HTTPResponse) => {
      if (/^text\/event-stream\b/i.test(response.headers()['content-type'] ?? '')) done(response.request());
    });
  }

  /** The requests that hold the clock now: open, and younger than LONG_REQUEST_MS. */
  holding(now = Date.now()): HTTPRequest[] {
    const held: HTTPRequest[] = [];
    for (const [request, started] of this.open) {
      if (now - started >= LONG_REQUEST_MS) this.open.delete(request);
      else held.push(request);
    }
    return held;
  }

  /** `2 requests in flight (http://…/a, http://…/b)`, or null when none holds the clock. */
  describe(): string | null {
    const held = this.holding();
    if (!held.length) return null;
    const named = held.slice(0, NAMED_IN_WARNING).map((r) => (r.url().length > URL_IN_WARNING ? `${r.url().slice(0, URL_IN_WARNING)}…` : r.url()));
    const more = held.length > NAMED_IN_WARNING ? `, and ${held.length - NAMED_IN_WARNING} more` : '';
    return `${held.length} ${held.length === 1 ? 'request' : 'requests'} in flight (${named.join(', ')}${more})`;
  }
}
