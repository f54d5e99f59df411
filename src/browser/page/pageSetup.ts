/**
 * Per-capture emulation and navigation: the page is set up to paint as
 * Playwright's headless Chromium paints it (RENDER SETTINGS below) before it
 * loads anything; navigation waits for DOMContentLoaded (network idle when the
 * freeze asks for it) within the navigation budget.
 *
 * What the caller is told when the load goes wrong comes from failures.ts:
 * a net::ERR_… error in words (refused, DNS, redirect loop, TLS…), and a
 * timeout explained by where the load stood (LoadTracker: the document's body
 * still arriving, requests still open, or a main thread that no longer
 * answers a trivial Runtime.evaluate). An HTTP error status is not a failed
 * capture: the page is captured as served, with a warning naming the status.
 */
import { CDPSessionEvent, type Browser, type CDPSession, type HTTPRequest, type HTTPResponse, type Page, type Protocol } from 'puppeteer-core';
import type { Freeze, Viewport } from '../../contract/captureContract';
import { ACTION_BUDGET_MS, DeadlineExceeded, MAIN_THREAD_PROBE_MS, NAVIGATION_BUDGET_MS, withDeadline } from '../../common/time';
import { httpStatusWarning, navigationFailure, navigationTimeout, type LoadDiagnosis } from '../../common/failures';
import { DEFAULT_FONT_FAMILIES, fontPlatform, type FontPlatform } from './defaultFonts';
import { EvidenceError } from '../../common/errors';

/**
 * RENDER SETTINGS — what Playwright sets on every page of a headless browser
 * (compared call by call in docs/browser.md), sent on the capture's own
 * session `cdp`, which also takes the screenshot (an emulation lives in the
 * session that set it: a capture through another one draws without it).
 *   - device metrics: the viewport and ratio, with the screen the same size
 *     and landscape (`screen.width`, `device-width` queries), not mobile;
 *     no Emulation.setTouchEmulationEnabled: turning touch emulation off
 *     resets hover and pointer to what the embedder reported, undoing the
 *     launch flag that makes `(hover: hover)` and `(pointer: fine)` match;
 *   - media: the colour scheme, with reduced motion, contrast and forced
 *     colours pinned to their defaults (an attached browser on a machine
 *     asking for reduced motion or high contrast paints the same);
 *   - the generic font families Chrome's preferences give on the browser's OS
 *     (defaultFonts.ts): without them the headless shell's `monospace` is
 *     another face with other line heights;
 *   - focus emulation: the page paints as the focused window (focus rings,
 *     `:focus-within`, autofocus) although headless or in the background;
 *   - scrollbars hidden (as the launch flag --hide-scrollbars does, so an
 *     attached browser paints none either);
 *   - the window resized to the viewport (fitWindow), unless the page is a
 *     tab in a window shared with others (the browser session).
 * In child frames rendered by another process (cross-site frames) the media
 * and the font families are set again (frameSettings), as Playwright does in
 * each frame's session; metrics, focus and scrollbars belong to the page.
 */
function pageSettings(viewport: Viewport): Array<[string, object]> {
  return [deviceMetrics(viewport), ['Emulation.setFocusEmulationEnabled', { enabled: true }], ['Emulation.setScrollbarsHidden', { hidden: true }]];
}

/** The viewport's size and ratio, the screen the same size and landscape (the setting a new size replaces). */
function deviceMetrics(viewport: Viewport): [string, object] {
  const { width, height, devicePixelRatio: deviceScaleFactor } = viewport;
  return [
    'Emulation.setDeviceMetricsOverride',
    { mobile: false, width, height, deviceScaleFactor, screenWidth: width, screenHeight: height, screenOrientation: { angle: 0, type: 'landscapePrimary' } },
  ];
}

/** Sends `settings` on `session`, all at once. */
function sendAll(session: CDPSession, settings: Array<[string, object]>): Promise<unknown[]> {
  return Promise.all(settings.map(([method, params]) => session.send(method as never, params as never)));
}

/**
 * The page's window is made the viewport's size, as Playwright does, so
 * `outerWidth` / `outerHeight` read as they do there (a headless window is
 * otherwise 800 × 600). A target without a window of its own is left as is.
 */
async function fitWindow(cdp: CDPSession, viewport: Viewport): Promise<void> {
  try {
    const { windowId } = await cdp.send('Browser.getWindowForTarget');
    await cdp.send('Browser.setWindowBounds', { windowId, bounds: { width: viewport.width, height: viewport.height } });
  } catch {
    // no window (some embedders) or one the window manager will not resize: the emulated viewport still holds
  }
}

/** The settings each out-of-process frame gets too. */
export function frameSettings(viewport: Viewport, platform: FontPlatform): Array<[string, object]> {
  return [emulatedMedia(viewport), ['Page.setFontFamilies', DEFAULT_FONT_FAMILIES[platform]]];
}

/** The colour scheme, with reduced motion, contrast and forced colours pinned (the setting a new scheme replaces). */
function emulatedMedia(viewport: Viewport): [string, object] {
  return [
    'Emulation.setEmulatedMedia',
    {
      media: '',
      features: [
        { name: 'prefers-color-scheme', value: viewport.colorScheme },
        { name: 'prefers-reduced-motion', value: 'no-preference' },
        { name: 'forced-colors', value: 'none' },
        { name: 'prefers-contrast', value: 'no-preference' },
      ],
    },
  ];
}

const platforms = new WeakMap<Browser, Promise<FontPlatform>>();

/** The OS the browser runs on: this host's for a launched browser; an attached one's from its user agent (asked once). */
function browserPlatform(browser: Browser): Promise<FontPlatform> {
  if (browser.process()) return Promise.resolve(process.platform === 'darwin' ? 'mac' : process.platform === 'win32' ? 'win' : 'linux');
  let known = platforms.get(browser);
  if (!known) {
    known = browser.userAgent().then(fontPlatform, () => 'linux' as const);
    platforms.set(browser, known);
  }
  return known;
}

/** Gives each cross-site child frame's session the frame settings (for the viewport as it is then), and the frames it embeds in turn. */
function followChildFrames(session: CDPSession, viewport: () => Viewport, platform: Promise<FontPlatform>): Promise<unknown> {
  session.on(CDPSessionEvent.SessionAttached, (child: CDPSession) => {
    void (async () => {
      await Promise.all([sendAll(child, frameSettings(viewport(), await platform)), followChildFrames(child, viewport, platform)]);
    })().catch(() => undefined); // a frame that went away before its settings arrived needs none
  });
  return session.send('Target.setAutoAttach', {
    autoAttach: true,
    waitForDebuggerOnStart: false,
    flatten: true,
    filter: [{ type: 'iframe' }],
  } as Protocol.Target.SetAutoAttachRequest);
}

/**
 * A page's render settings as they were sent, on the session `cdp` that sent
 * them. A page set up ahead of its capture (browserSession.ts, the spare) is
 * set to the capture's own viewport with `retarget`, which sends only the
 * settings that differ: each one replaces the one before, so the page paints
 * as a page set up for that viewport alone.
 */
export class PageEmulation {
  private constructor(
    readonly cdp: CDPSession,
    private current: Viewport,
    /** The window is the page's own to resize (not a tab among the user's: the browser session). */
    private readonly ownWindow: boolean,
  ) {}

  get viewport(): Viewport {
    return this.current;
  }

  /** Sets `page` up (dialog and pop-up handlers, the new-document script, RENDER SETTINGS) for `viewport`. */
  static async apply(page: Page, cdp: CDPSession, viewport: Viewport, ownWindow = true): Promise<PageEmulation> {
    page.setDefaultTimeout(ACTION_BUDGET_MS);
    page.setDefaultNavigationTimeout(NAVIGATION_BUDGET_MS);
    // Playwright dismisses dialogs nobody handles; an open alert() would otherwise stall the capture.
    page.on('dialog', (dialog) => void dialog.dismiss().catch(() => undefined));
    // A window the page opens is never what is captured, and a same-origin pop-up shares the page's
    // main thread: one that shows alert() would stall the capture. So none opens (as a pop-up blocker
    // would: window.open answers null, target=_blank links and forms stay put); one that still does
    // (a frame this script missed) is closed at once.
    page.on('popup', (popup) => void popup?.close().catch(() => undefined));
    // An attached browser's OS is asked once (its user agent); only the font families wait for it.
    const platform = browserPlatform(page.browser());
    const emulation = new PageEmulation(cdp, viewport, ownWindow);
    await Promise.all([
      page.evaluateOnNewDocument(blockPopups),
      sendAll(cdp, pageSettings(viewport)),
      platform.then((os) => sendAll(cdp, frameSettings(viewport, os))),
      followChildFrames(cdp, () => emulation.current, platform),
      ownWindow ? fitWindow(cdp, viewport) : undefined,
    ]);
    return emulation;
  }

  /**
   * Sets the page to `viewport`, sending only what differs (nothing for an
   * equal one). For a page that has loaded nothing yet: no child frame holds
   * the settings it had.
   */
  async retarget(viewport: Viewport): Promise<void> {
    const was = this.current;
    this.current = viewport;
    const sends: Array<Promise<unknown>> = [];
    if (was.width !== viewport.width || was.height !== viewport.height || was.devicePixelRatio !== viewport.devicePixelRatio)
      sends.push(sendAll(this.cdp, [deviceMetrics(viewport)]), this.ownWindow ? fitWindow(this.cdp, viewport) : Promise.resolve());
    if (was.colorScheme !== viewport.colorScheme) sends.push(sendAll(this.cdp, [emulatedMedia(viewport)]));
    await Promise.all(sends);
  }
}

/**
 * Sets `page` up for `viewport` on its capture session `cdp`
 * (PageEmulation.apply). `ownWindow: false` for a tab that shares its window
 * with tabs of others (the browser session): the window is left as it is,
 * the emulated viewport alone sets the page's size.
 */
export function emulate(page: Page, cdp: CDPSession, viewport: Viewport, options: { ownWindow?: boolean } = {}): Promise<PageEmulation> {
  return PageEmulation.apply(page, cdp, viewport, options.ownWindow ?? true);
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
      if (link && (opensWindow(link.target) || (event as MouseEvent).ctrlKey || (event as MouseEvent).metaKey || (event as MouseEvent).shiftKey))
        event.preventDefault();
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

export class NavigationError extends EvidenceError<'navigation-failed'> {
  constructor(message: string) {
    super('navigation-failed', message);
    this.name = 'NavigationError';
  }
}

/**
 * Where the page's load stands: the main document's request (asked, headers
 * in, body complete, failed) and the requests still open. Read when a load or
 * a whole capture runs out of time.
 */
export class LoadTracker {
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

/**
 * The pointer as a page driven by Playwright finds it: a page loaded there
 * usually receives a trusted `mousemove` at (0, 0) shortly after it loads
 * (Chromium's own, after the window is sized for the viewport: seen in 10 of
 * 15 loads of three pages on the headless shell). A page that draws from the
 * pointer (a text shadow following the mouse) and `:hover` at the top-left
 * corner paint from it, so ours gets the same move, every time, once the
 * document is parsed.
 */
export function pointerAtOrigin(cdp: CDPSession): Promise<unknown> {
  return cdp.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: 0, y: 0 });
}

export interface NavigateOptions {
  /** The navigation budget (DESIGN_PLAYBOOK_NAVIGATION_TIMEOUT_MS; default NAVIGATION_BUDGET_MS). */
  budgetMs?: number;
  /** Where the load stands, for a timeout's explanation (started before navigating). */
  tracker?: LoadTracker;
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
      const diagnosis = options.tracker
        ? await options.tracker.diagnose(options.cdp ?? null)
        : { document: 'loaded' as const, mainThread: await mainThread(options.cdp ?? null) };
      throw new NavigationError(navigationTimeout(url, milestone, budgetMs, diagnosis));
    }
    throw new NavigationError(navigationFailure(url, message));
  }
  const status = response?.status() ?? 0;
  return status >= 400 ? [httpStatusWarning(url, status, response!.statusText())] : [];
}
