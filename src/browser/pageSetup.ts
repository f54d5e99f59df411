/**
 * Per-capture emulation and navigation: viewport size, device pixel ratio and
 * prefers-color-scheme are set on the capture's own page before it loads
 * anything; navigation waits for DOMContentLoaded (network idle when the
 * freeze asks for it) within the navigation budget.
 *
 * What the caller is told when the load goes wrong comes from failures.ts:
 * a net::ERR_… error in words (refused, DNS, redirect loop, TLS…), and a
 * timeout explained by where the load stood (LoadWatch: the document's body
 * still arriving, requests still open, or a main thread that no longer
 * answers a trivial Runtime.evaluate). An HTTP error status is not a failed
 * capture: the page is captured as served, with a warning naming the status.
 */
import type { CDPSession, HTTPRequest, HTTPResponse, Page } from 'puppeteer';
import type { Freeze, Viewport } from '../contract';
import { ACTION_BUDGET_MS, DeadlineExceeded, MAIN_THREAD_PROBE_MS, NAVIGATION_BUDGET_MS, withDeadline } from '../deadline';
import { httpStatusWarning, navigationFailure, navigationTimeout, type LoadDiagnosis } from '../failures';

export async function emulate(page: Page, viewport: Viewport): Promise<void> {
  page.setDefaultTimeout(ACTION_BUDGET_MS);
  page.setDefaultNavigationTimeout(NAVIGATION_BUDGET_MS);
  // Playwright dismisses dialogs nobody handles; an open alert() would otherwise stall the capture.
  page.on('dialog', (dialog) => void dialog.dismiss().catch(() => undefined));
  // A window the page opens is never what is captured, and a same-origin pop-up shares the page's
  // main thread: one that shows alert() would stall the capture. So none opens (as a pop-up blocker
  // would: window.open answers null, target=_blank links and forms stay put); one that still does
  // (a frame this script missed) is closed at once.
  page.on('popup', (popup) => void popup?.close().catch(() => undefined));
  await Promise.all([
    page.evaluateOnNewDocument(blockPopups),
    page.setViewport({ width: viewport.width, height: viewport.height, deviceScaleFactor: viewport.devicePixelRatio }),
    page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: viewport.colorScheme }]),
  ]);
}

/** Runs in every document of the capture's page before its own scripts: no new windows. */
export function blockPopups(): void {
  const opensWindow = (target: string | null | undefined) => {
    const name = (target ?? '').trim().toLowerCase();
    return name !== '' && name !== '_self' && name !== '_top' && name !== '_parent';
  };
  try {
    Object.defineProperty(window, 'open', { configurable: true, writable: true, value: () => null });
  } catch {
    // a page that froze window beforehand keeps its open; the popup listener closes what it opens
  }
  addEventListener(
    'click',
    (event) => {
      const link = (event.target as Element | null)?.closest?.('a[href], area[href]') as HTMLAnchorElement | null;
      if (link && (opensWindow(link.target) || (event as MouseEvent).ctrlKey || (event as MouseEvent).metaKey || (event as MouseEvent).shiftKey)) event.preventDefault();
    },
    true,
  );
  addEventListener(
    'submit',
    (event) => {
      const form = event.target as HTMLFormElement | null;
      const submitter = (event as SubmitEvent).submitter as HTMLButtonElement | null;
      if (opensWindow(submitter?.getAttribute('formtarget') ?? form?.target)) event.preventDefault();
    },
    true,
  );
}

export class NavigationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NavigationError';
  }
}

/**
 * Where the page's load stands: the main document's request (asked, headers
 * in, body complete, failed) and the requests still open. Read when a load or
 * a whole capture runs out of time.
 */
export class LoadWatch {
  private document: LoadDiagnosis['document'] = 'not-requested';
  private readonly open = new Set<HTTPRequest>();
  private readonly handlers: Array<[string, (value: any) => void]>;

  constructor(private readonly page: Page) {
    const isDocument = (request: HTTPRequest) => this.isDocument(request);
    this.handlers = [
      [
        'request',
        (request: HTTPRequest) => {
          this.open.add(request);
          if (isDocument(request)) this.document = 'awaiting-response';
        },
      ],
      [
        'response',
        (response: HTTPResponse) => {
          if (isDocument(response.request())) this.document = 'body-arriving';
        },
      ],
      [
        'requestfinished',
        (request: HTTPRequest) => {
          this.open.delete(request);
          // A redirect hop finishes too; the document is loaded when its final request is.
          if (isDocument(request) && request.response() && !isRedirect(request.response()!)) this.document = 'loaded';
        },
      ],
      [
        'requestfailed',
        (request: HTTPRequest) => {
          this.open.delete(request);
          if (isDocument(request)) this.document = 'failed';
        },
      ],
    ];
    for (const [event, handler] of this.handlers) page.on(event as never, handler);
  }

  /** The main frame's document request (a redirect hop included). */
  private isDocument(request: HTTPRequest): boolean {
    return request.isNavigationRequest() && request.frame() === this.page.mainFrame();
  }

  /** The load as it stands, with whether the page's main thread still answers (via `cdp`). */
  async diagnose(cdp: CDPSession | null): Promise<LoadDiagnosis> {
    const document = this.document;
    const pendingRequests = [...this.open].filter((r) => !this.isDocument(r)).length;
    return { document, pendingRequests, mainThread: await mainThread(cdp) };
  }

  stop(): void {
    for (const [event, handler] of this.handlers) this.page.off(event as never, handler);
    this.open.clear();
  }
}

function isRedirect(response: HTTPResponse): boolean {
  const status = response.status();
  return status >= 300 && status < 400 && !!response.headers().location;
}

/** Whether the page's main thread answers a trivial evaluation within MAIN_THREAD_PROBE_MS. */
export async function mainThread(cdp: CDPSession | null): Promise<LoadDiagnosis['mainThread']> {
  if (!cdp) return 'unknown';
  try {
    await withDeadline(cdp.send('Runtime.evaluate', { expression: '1', returnByValue: true }), MAIN_THREAD_PROBE_MS, 'main thread probe');
    return 'answers';
  } catch (err) {
    return err instanceof DeadlineExceeded ? 'busy' : 'unknown';
  }
}

export interface NavigateOptions {
  /** The navigation budget (DESIGN_PLAYBOOK_NAVIGATION_TIMEOUT_MS; default NAVIGATION_BUDGET_MS). */
  budgetMs?: number;
  /** Where the load stands, for a timeout's explanation (started before navigating). */
  watch?: LoadWatch;
  /** A raw session on the page: asks whether the main thread still answers. */
  cdp?: CDPSession | null;
}

/** Loads `url`; returns warnings (an HTTP error status), throws a NavigationError in the words of failures.ts. */
export async function navigate(page: Page, url: string, freeze: Freeze, options: NavigateOptions = {}): Promise<string[]> {
  const budgetMs = options.budgetMs ?? NAVIGATION_BUDGET_MS;
  const waitUntil = freeze.networkIdle ? 'networkidle0' : 'domcontentloaded';
  const milestone = freeze.networkIdle ? 'network idle' : 'DOMContentLoaded';
  let response: HTTPResponse | null;
  try {
    response = await page.goto(url, { waitUntil, timeout: budgetMs });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof Error && err.name === 'TimeoutError') {
      const diagnosis = options.watch ? await options.watch.diagnose(options.cdp ?? null) : { document: 'loaded' as const, mainThread: await mainThread(options.cdp ?? null) };
      throw new NavigationError(navigationTimeout(url, milestone, budgetMs, diagnosis));
    }
    throw new NavigationError(navigationFailure(url, message));
  }
  const status = response?.status() ?? 0;
  return status >= 400 ? [httpStatusWarning(url, status, response!.statusText())] : [];
}
