/**
 * The one place a browser is launched or attached.
 *
 * Launched: lazily on the first capture, kept warm and reused; a crashed or
 * killed browser is noticed ('disconnected') and the next capture launches a
 * new one. It runs over a pipe, so it dies with this process even on SIGKILL,
 * and its temporary profile folder is removed when it goes.
 *
 * Attached (--browser-url, --ws-endpoint, DESIGN_PLAYBOOK_CDP_URL): Puppeteer
 * only attaches to targets inside the browser contexts this process created,
 * so the user's own tabs are never touched; on exit it disconnects and never
 * closes the user's browser. --auto-connect reads the address from the
 * DevToolsActivePort file of a Chrome user data folder at each connect.
 *
 * The browser session (--browser-session, and always with --auto-connect):
 * each capture gets a new background tab of the attached browser's default
 * context, so it has that browser's cookies and logins. Puppeteer attaches
 * only to that tab (claimed while it is being opened, by the tab target
 * that appears then) and to what it contains (frames, workers); the render
 * settings, clock and freeze go to its own session, so no other tab is
 * touched. The tab, and any popup it opened, is closed after the capture
 * and on shutdown. No spare is prepared: it would be a visible tab. A browser that went away is reconnected to on
 * the next capture. The connection itself is opened by endpointConnection.ts
 * (so a refusal says why); a failure is a BrowserUnavailableError carrying
 * its cause and whether waiting can fix it, worded by failures.ts with the
 * address's credentials hidden (redact.ts).
 */
import * as fs from 'fs';
import puppeteer, { type Browser, type BrowserContext, type Page, type Target } from 'puppeteer-core';
import { attachTarget, browserSessionAsked, captureTimeoutMs, connectPerCapture, maxParallel, type AttachTarget, type BrowserFlags } from '../options';
import type { CDPSession } from 'puppeteer-core';
import { readDevToolsActivePort, autoConnectFailure } from './endpointConnection';
import {
  BROWSER_SHUTDOWN_MS,
  CLOSE_HANDSHAKE_MS,
  CONTEXT_CLOSE_MS,
  TAB_GONE_POLL_MS,
  TAB_CLOSE_RESEND_MS,
  DeadlineExceeded,
  PROTOCOL_TIMEOUT_SLACK_MS,
  withDeadline,
} from '../../common/time';
import { findBrowser, findFullBrowser, type FoundBrowser } from './findBrowser';
import { log } from '../../common/log';
import { attachFailure, ShutdownError, type ConnectCause } from '../../common/failures';
import { redactKnownSecrets, redactUrl } from '../../common/redact';
import { addressForm, ConnectFailure, openTransport, resolveBrowserUrl, type OpenTransport } from './endpointConnection';
import { browserEnv, createProfile, sweepStaleProfiles } from './profiles';
import { envValue } from '../../common/settings';
import type { Viewport } from '../../contract/captureContract';
import { emulate, type PageEmulation } from '../page/pageSetup';
import { StoryPreviewStore } from './storyPreviews';
import { EvidenceError } from '../../common/errors';
import { classifyConnectionError, isTransient } from '../../../cdp/failureKinds';

export { PROFILE_PREFIX } from './profiles';

/**
 * With stories switched in kept previews: every repaint rasters whole tiles, as a first paint does, so a
 * story rendered into a page that showed another has a fresh load's pixels (its rounded corners' edge
 * pixels differ otherwise; docs/stories.md).
 */
function storyPreviewArgs(flags: BrowserFlags): string[] {
  return flags.storySwitching ? ['--disable-partial-raster'] : [];
}

/** Flags for a headless Chromium that must not reach the network on its own. */
export function launchArgs(env: NodeJS.ProcessEnv = process.env): string[] {
  const args = [
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-quic',
    '--disable-dev-shm-usage',
    // As Playwright launches headless Chromium: a desktop's mouse, so `(hover: hover)` and
    // `(pointer: fine)` match (no protocol call sets these; docs/browser.md, "Render settings").
    '--blink-settings=primaryHoverType=2,availableHoverTypes=2,primaryPointerType=4,availablePointerTypes=4',
    // As Playwright launches Chromium: a screenshot is copied from a surface of its own. The same pixels
    // (bench/pixel-fidelity.js), and a shot that fits the viewport is taken sooner (the form page's 51 -> 36 ms).
    '--enable-features=CDPScreenshotNewSurface',
  ];
  // Chromium refuses to start its sandbox as root (containers, CI).
  if (typeof process.getuid === 'function' && process.getuid() === 0) args.push('--no-sandbox');
  const extra = envValue(env, 'chromeArgs');
  if (extra && extra.trim()) args.push(...extra.trim().split(/\s+/));
  return args;
}

/** What a failed connection to an attached browser was (absent for a launch that failed, or shutdown). */
export interface ConnectFailureDetail {
  cause: ConnectCause;
  /** Waiting can fix it (a farm restarting, full, refusing): the pool waits for the endpoint within the capture's budget. */
  transient: boolean;
  /** The message without its advice (for log lines). */
  summary: string;
}

export class BrowserUnavailableError extends EvidenceError<'browser-unavailable'> {
  constructor(
    message: string,
    readonly connect?: ConnectFailureDetail,
  ) {
    super('browser-unavailable', message);
    this.name = 'BrowserUnavailableError';
  }

  /** The message without its advice. */
  get summary(): string {
    return this.connect?.summary ?? this.message;
  }

  /** Worth waiting for: only a connection failure that waiting can fix. */
  get transient(): boolean {
    return this.connect?.transient ?? false;
  }
}

/** The failure to attach to `target`, worded for its address form, its credentials hidden. */
export function attachError(target: AttachTarget, cause: ConnectCause, perCapture: boolean): BrowserUnavailableError {
  const text = attachFailure(redactUrl(target.url), target.source, cause, addressForm(target, perCapture));
  const summary = redactKnownSecrets(text.summary, target.url);
  return new BrowserUnavailableError(redactKnownSecrets(text.message, target.url), { cause, transient: isTransient(cause), summary });
}

/** How this process introduces itself to a browser endpoint (a farm's logs show it). */
const USER_AGENT = 'design-playbook-evidence';

/** A capture's fresh context and blank page, set up for its viewport on the page's capture session (emulation.cdp). */
export interface PreparedPage {
  /** The capture's own context; in the browser session, the attached browser's default context (shared: never closed). */
  context: BrowserContext;
  page: Page;
  emulation: PageEmulation;
  /** In the browser session: the tab's target id (closed after the capture, with the popups it opened). */
  tabId?: string;
}

/** Puppeteer's id of a target (internal, stable across its versions). */
function targetIdOf(target: Target): string {
  return (target as unknown as { _targetId: string })._targetId;
}

/** The page that opened `target` (a popup), if any, as Chrome names it. */
function openerOf(target: Target): string | undefined {
  return (target as unknown as { _getTargetInfo(): { openerId?: string } })._getTargetInfo().openerId;
}

/** The target whose session `target` was auto-attached through (a tab's page, a page's frame or worker); null at the top. */
function parentTargetOf(target: Target): Target | null {
  const session = (target as unknown as { _session(): CDPSession | undefined })._session();
  const parent = (session as unknown as { parentSession(): CDPSession | undefined } | undefined)?.parentSession();
  if (!parent || parent === session) return null;
  try {
    return (parent as unknown as { target(): Target }).target();
  } catch {
    return null;
  }
}

export interface SessionDescription {
  mode: 'launch' | 'attach';
  /** Attached: captures run in new tabs of the browser's default context (--browser-session, --auto-connect). */
  browserSession?: boolean;
  /** --auto-connect: the DevToolsActivePort file read at each connect. */
  activePortFile?: string;
  /** Launched: the executable; attached: the URL given. */
  where: string;
  source: string;
  /** Launched: whether it is a headless shell (findBrowser.ts prefers one). */
  headlessShell?: boolean;
}

/**
 * `work`'s result, or null once `browser` is gone (or when `work` fails).
 * Puppeteer's wait for a new page's target does not end with the browser:
 * a page being opened when the browser died would be waited for until
 * Puppeteer's own 30 s timeout.
 */
function whileConnected<T>(browser: Browser, work: Promise<T>): Promise<T | null> {
  if (!browser.connected) return Promise.resolve(null);
  return new Promise((resolve) => {
    const gone = () => resolve(null);
    browser.once('disconnected', gone);
    work.then(resolve, () => resolve(null)).finally(() => browser.off('disconnected', gone));
  });
}

export class BrowserSession {
  private browser: Browser | null = null;
  private pending: Promise<Browser> | null = null;
  private profileDir: string | null = null;
  private readonly ownedContexts = new Set<string>();
  private shuttingDown = false;
  /** Fires when the browser this session holds now goes away: the one way a loss of the browser is told. */
  private connectionGone: AbortController | null = null;
  private exitHookInstalled = false;
  private spare: { browser: Browser; ready: Promise<PreparedPage> } | null = null;
  /** Story previews kept loaded for `stories --run` (storyPreviews.ts); launched browsers only. */
  readonly storyPreviews = new StoryPreviewStore<PreparedPage>({
    currentBrowser: () => this.browser,
    mayKeep: () => !this.shuttingDown && !this.attachTarget(),
    parallel: () => maxParallel(this.env, this.flags()),
    close: (context) => void this.closeContext(context),
  });
  /** Whether a switch abandoned for a fresh load was logged (once per session: a Storybook that brings CSS per story file has many). */
  private staleSwitchLogged = false;
  /** The viewport of the latest capture: the spare is set up for it. */
  private lastViewport: Viewport | null = null;
  /** The attached browser's own WebSocket (to wait for it to close on shutdown). */
  private transport: OpenTransport | null = null;
  /** Browser session: the targets of our tabs and of what they contain (Puppeteer attaches to these only). */
  private readonly ownedTargets = new Set<string>();
  /** Browser session: our tabs still open (their tab target ids), each with the popups it opened (closed with it). */
  private readonly openTabs = new Map<string, Set<string>>();
  /** Browser session: the tab each of our pages is in (a tab's page target may be replaced as it navigates). */
  private readonly tabOfPage = new Map<string, string>();
  /** Browser session: tab closes under way. */
  private readonly closingTabs = new Set<Promise<void>>();
  /** Browser session: a tab is being opened; the next new top-level tab target is claimed as ours. */
  private openingTab: { claimed: string | null } | null = null;
  /** Browser session: one tab opened at a time, so the claim above cannot take a neighbour's. */
  private tabQueue: Promise<unknown> = Promise.resolve();

  /** `flags` are read at each start, so the CLI can set them after the session is made. */
  constructor(
    private readonly flags: () => BrowserFlags = () => ({}),
    private readonly env: NodeJS.ProcessEnv = process.env,
    /** One endpoint of a pool: this session attaches there, whatever the flags say. */
    private readonly fixedTarget?: AttachTarget,
    /** A visible browser window (`login --headed`, for a person to sign in): the full browser, never the headless shell. */
    private readonly headed = false,
  ) {}

  attachTarget(): AttachTarget | null {
    return this.fixedTarget ?? attachTarget(this.flags(), this.env);
  }

  /** Captures run in new tabs of the attached browser's default context (--browser-session; always with --auto-connect). */
  browserSession(): boolean {
    const target = this.attachTarget();
    return !!target && (target.kind === 'auto-connect' || browserSessionAsked(this.flags(), this.env));
  }

  /**
   * The signal that fires when the browser this session holds now goes away
   * (crashed, killed, an attached one gone): the one way its loss is told, to
   * the capture running on it (which ends at once) and to the pool (which may
   * run it again elsewhere). Already fired when the session holds none.
   */
  goneSignal(): AbortSignal {
    return this.browser?.connected && this.connectionGone ? this.connectionGone.signal : AbortSignal.abort();
  }

  /** What this session would use, without starting anything (throws when no browser is found). */
  describe(): SessionDescription {
    const target = this.attachTarget();
    if (target)
      return {
        mode: 'attach',
        where: target.kind === 'auto-connect' ? target.file : redactUrl(target.url),
        source: target.source,
        browserSession: this.browserSession(),
        ...(target.kind === 'auto-connect' ? { activePortFile: target.file } : {}),
      };
    const found = this.find();
    return { mode: 'launch', where: found.executablePath, source: found.source, headlessShell: found.headlessShell };
  }

  find(): FoundBrowser {
    if (this.headed) return findFullBrowser({ executablePath: this.flags().executablePath, env: this.env });
    return findBrowser({ executablePath: this.flags().executablePath, env: this.env });
  }

  /** The launched browser's process id (undefined when attached or not started). */
  pid(): number | undefined {
    return this.browser?.process()?.pid;
  }

  isConnected(): boolean {
    return !!this.browser?.connected;
  }

  /**
   * The warm browser, launching or attaching on first use or after it went
   * away. `connectMs` bounds opening an attached browser's connection (the
   * first caller's value holds for a connection already being opened).
   */
  async acquire(connectMs: number = captureTimeoutMs(this.env)): Promise<Browser> {
    if (this.shuttingDown) throw new ShutdownError();
    if (this.browser?.connected) return this.browser;
    if (!this.pending) {
      this.pending = this.start(connectMs).finally(() => {
        this.pending = null;
      });
    }
    return this.pending;
  }

  private async start(connectMs: number): Promise<Browser> {
    const target = this.attachTarget();
    const browser = target ? await this.attach(target, connectMs) : await this.launch();
    this.browser = browser;
    const gone = new AbortController();
    this.connectionGone = gone;
    browser.once('disconnected', () => {
      if (this.browser === browser) this.browser = null;
      gone.abort();
      if (!this.shuttingDown)
        log(
          target
            ? `attached browser ${redactUrl(target.url)} disconnected; the next capture reconnects`
            : 'browser exited; the next capture launches a new one',
        );
      void this.removeProfile(browser);
    });
    return browser;
  }

  private swept: Promise<void> | null = null;

  /**
   * Once per process: removes profile folders a killed server left in the
   * temp folder. Launch mode only (an attached browser's profile is not ours).
   */
  sweepStaleProfiles(): Promise<void> {
    if (this.attachTarget()) return Promise.resolve();
    if (!this.swept) {
      this.swept = sweepStaleProfiles()
        .then((removed) => {
          if (removed.length) log(`removed ${removed.length} stale browser profile folder${removed.length === 1 ? '' : 's'} left by a server that was killed`);
        })
        .catch(() => undefined);
    }
    return this.swept;
  }

  /**
   * Only targets inside contexts this process created, or in the browser
   * session our own tabs and what they contain: the user's tabs stay
   * untouched. A tab is claimed while one is being opened: Chrome announces
   * its tab target before Target.createTarget answers (so its id is not known
   * yet), and its page is attached only through that tab. A new tab opened
   * by a page (it has an opener) is never claimed; one the user opens in
   * that same instant could be, and is let go again (openSessionTab).
   */
  private readonly targetFilter = (target: Target): boolean => {
    if (target.type() === 'browser') return true;
    const id = target.browserContext()?.id;
    if (id !== undefined && this.ownedContexts.has(id)) return true;
    const parent = parentTargetOf(target);
    if (parent && this.ownedTargets.has(targetIdOf(parent))) {
      this.ownedTargets.add(targetIdOf(target));
      if (this.openTabs.has(targetIdOf(parent)) || this.openingTab?.claimed === targetIdOf(parent)) this.tabOfPage.set(targetIdOf(target), targetIdOf(parent));
      return true;
    }
    const opening = this.openingTab;
    if (!parent && opening && !opening.claimed && (target.type() as string) === 'tab' && id === undefined && !openerOf(target)) {
      opening.claimed = targetIdOf(target);
      this.ownedTargets.add(opening.claimed);
      return true;
    }
    return false;
  };

  private protocolTimeout(): number {
    return captureTimeoutMs(this.env) + PROTOCOL_TIMEOUT_SLACK_MS;
  }

  private async launch(): Promise<Browser> {
    const found = this.find();
    await this.sweepStaleProfiles();
    const profile = createProfile();
    const profileDir = profile.dir;
    this.installExitHook();
    try {
      const browser = await puppeteer.launch({
        executablePath: found.executablePath,
        // A headless shell is headless by nature; Puppeteer's 'shell' mode gives it its own flag set.
        headless: this.headed ? false : found.headlessShell ? 'shell' : true,
        pipe: true,
        userDataDir: profileDir,
        // Headed, no window of Chrome's own (a New Tab beside the sign-in window): the person sees one window, ours.
        args: this.headed ? [...launchArgs(this.env), '--no-startup-window'] : [...launchArgs(this.env), ...storyPreviewArgs(this.flags())],
        // Chromium's temporary files and singleton folder go inside the profile, and with it.
        env: browserEnv(profile),
        defaultViewport: null,
        targetFilter: this.targetFilter,
        waitForInitialPage: false,
        // Puppeteer opens an about:blank tab in the default context unless the command line names a
        // page; no capture uses that context, so its renderer would only cost start-up CPU and memory.
        ignoreDefaultArgs: ['about:blank'],
        // The server's shutdown hooks close the browser; Puppeteer's own exit hook stays as a backstop.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
        protocolTimeout: this.protocolTimeout(),
        dumpio: false,
      });
      this.profileDir = profileDir;
      (browser as unknown as { __profileDir?: string }).__profileDir = profileDir;
      log(`launched ${found.executablePath} (${found.source}${found.headlessShell ? ', headless shell' : ''}), pid ${browser.process()?.pid}`);
      return browser;
    } catch (err) {
      fs.rmSync(profileDir, { recursive: true, force: true });
      const message = err instanceof Error ? err.message : String(err);
      throw new BrowserUnavailableError(`could not launch ${found.executablePath} (${found.source}): ${firstLines(message)}`);
    }
  }

  /**
   * Opens the DevTools connection (an http address resolved through its
   * /json/version, its query kept), then hands it to Puppeteer. Every
   * failure is worded with its cause (attachError).
   */
  private async attach(target: AttachTarget, connectMs: number): Promise<Browser> {
    const started = Date.now();
    const left = () => Math.max(1, connectMs - (Date.now() - started));
    let transport: OpenTransport | null = null;
    try {
      const wsUrl =
        target.kind === 'browser-url'
          ? await resolveBrowserUrl(target.url, left(), USER_AGENT)
          : target.kind === 'auto-connect'
            ? readDevToolsActivePort(target.file)
            : target.url;
      transport = await openTransport(wsUrl, left(), USER_AGENT);
      if (this.shuttingDown) throw new ShutdownError();
      const browser = await puppeteer.connect({
        transport,
        defaultViewport: null,
        targetFilter: this.targetFilter,
        protocolTimeout: this.protocolTimeout(),
      });
      this.transport = transport;
      browser.on('targetdiscovered', this.onTargetDiscovered);
      log(
        `attached to ${target.kind === 'auto-connect' ? `the Chrome of ${target.userDataDir}` : redactUrl(target.url)} (${target.source})${this.browserSession() ? '; captures run in new tabs of its own session' : ''}`,
      );
      return browser;
    } catch (err) {
      transport?.close();
      if (err instanceof BrowserUnavailableError || err instanceof ShutdownError) throw err;
      if (target.kind === 'auto-connect') {
        const text = autoConnectFailure(target.file, err);
        throw new BrowserUnavailableError(text.message, { cause: text.cause, transient: false, summary: text.summary });
      }
      let cause: ConnectCause;
      try {
        cause = err instanceof ConnectFailure ? err.cause : classifyConnectionError(err, new URL(target.url), connectMs);
      } catch {
        cause = { kind: 'other', detail: err instanceof Error ? err.message : String(err) };
      }
      if (cause.kind === 'other') cause = { kind: 'other', detail: redactKnownSecrets(firstLines(cause.detail), target.url) };
      throw attachError(target, cause, connectPerCapture(this.flags(), this.env));
    }
  }

  /** A fresh browser context (no cookies, storage or cache shared with any other capture). */
  async newContext(browser: Browser): Promise<BrowserContext> {
    // Downloads denied: a capture writes exactly one artifact, through the runtime.
    const context = await browser.createBrowserContext({ downloadBehavior: { policy: 'deny' } });
    if (context.id) this.ownedContexts.add(context.id);
    return context;
  }

  /**
   * A fresh context with a blank page in it, set up for `viewport` on the
   * page's own CDP session (pageSetup.ts: the capture sends its protocol
   * calls and takes its bytes there). With a launched browser one such page
   * is prepared ahead, after each capture, for that capture's viewport: the
   * next capture skips the page's start-up and its set-up, and a different
   * viewport is sent to it as the settings that differ. The spare has never
   * loaded anything and goes to exactly one capture, so isolation holds. An
   * attached browser gets none: an idle spare would be an extra tab in the
   * user's browser.
   */
  async newContextAndPage(browser: Browser, viewport: Viewport): Promise<PreparedPage> {
    if (this.browserSession()) return this.openSessionTab(browser, viewport);
    this.lastViewport = viewport;
    const spare = this.spare;
    this.spare = null;
    if (spare) {
      // A spare of a browser that went away is not waited for: its page's set-up may never answer.
      const ready = spare.browser === browser ? await whileConnected(browser, spare.ready) : null;
      if (ready && browser.connected && !ready.page.isClosed()) {
        try {
          await ready.emulation.retarget(viewport);
          return ready;
        } catch {
          // its page went away meanwhile: a fresh one below
        }
      }
      // Not handed over: its context is closed once it exists (a gone browser's when its opening ends).
      void spare.ready.then(
        (left) => this.closeContext(left.context),
        () => undefined,
      );
    }
    return this.openPreparedPage(browser, viewport);
  }

  /** A new context with one page set up for `viewport`; the context is closed again when that fails. */
  private async openPreparedPage(browser: Browser, viewport: Viewport): Promise<PreparedPage> {
    const context = await this.newContext(browser);
    try {
      const page = await context.newPage();
      const emulation = await emulate(page, await page.createCDPSession(), viewport);
      return { context, page, emulation };
    } catch (err) {
      await this.closeContext(context);
      throw err;
    }
  }

  /**
   * Browser session: a new background tab of the default context (not
   * activated, no other tab touched), set up for `viewport` on its own CDP
   * session. Popups it opens are recorded to be closed with it.
   */
  private openSessionTab(browser: Browser, viewport: Viewport): Promise<PreparedPage> {
    const opened = this.tabQueue.then(async () => {
      if (this.shuttingDown) throw new ShutdownError();
      const opening: { claimed: string | null } = { claimed: null };
      this.openingTab = opening;
      let page: Page;
      try {
        page = await browser.defaultBrowserContext().newPage({ background: true });
      } catch (err) {
        // The tab may exist though its page never came (Puppeteer gave up on it): it does not stay behind.
        if (opening.claimed && (await this.stillBlank(browser, opening.claimed))) {
          this.openTabs.set(opening.claimed, new Set());
          await this.closeTab(browser, opening.claimed);
        }
        throw err;
      } finally {
        if (this.openingTab === opening) this.openingTab = null;
      }
      // A claimed tab that is not this page's (one the user opened at that instant) is let go.
      const tab = parentTargetOf(page.target());
      if (opening.claimed && (!tab || targetIdOf(tab) !== opening.claimed)) this.ownedTargets.delete(opening.claimed);
      // Closed by its tab target: the page target a tab shows can be replaced as it navigates, the tab stays.
      const tabId = tab ? targetIdOf(tab) : targetIdOf(page.target());
      this.ownedTargets.add(tabId);
      this.tabOfPage.set(targetIdOf(page.target()), tabId);
      this.openTabs.set(tabId, new Set());
      try {
        // Opened while the server began to stop: shutdown has passed the tabs it closes.
        if (this.shuttingDown) throw new ShutdownError();
        // Its window holds the user's tabs too: only the emulated viewport sizes the page.
        const emulation = await emulate(page, await page.createCDPSession(), viewport, { ownWindow: false });
        return { context: browser.defaultBrowserContext(), page, emulation, tabId };
      } catch (err) {
        await this.closeTab(browser, tabId);
        throw err;
      }
    });
    this.tabQueue = opened.catch(() => undefined);
    return opened;
  }

  /** Whether a tab still shows the about:blank it was opened with (a tab the user opened meanwhile shows its new-tab page). */
  private async stillBlank(browser: Browser, tabId: string): Promise<boolean> {
    try {
      const cdp = await browser.target().createCDPSession();
      try {
        const { targetInfos } = await cdp.send('Target.getTargets', { filter: [{ type: 'tab' }] });
        return targetInfos.some((info) => info.targetId === tabId && info.url === 'about:blank');
      } finally {
        await cdp.detach().catch(() => undefined);
      }
    } catch {
      return false;
    }
  }

  /** Notes a popup one of our tabs opened, so it is closed with that tab. */
  private readonly onTargetDiscovered = (event: unknown): void => {
    const info = event as { targetId: string; openerId?: string };
    const tab = info.openerId && this.tabOfPage.get(info.openerId);
    if (tab && this.openTabs.has(tab)) this.openTabs.get(tab)!.add(info.targetId);
  };

  /** Closes a browser-session tab and the popups it opened (from the browser's side: a hung renderer does not hold it). */
  private closeTab(browser: Browser, tabId: string, timeoutMs = CONTEXT_CLOSE_MS): Promise<void> {
    const popups = this.openTabs.get(tabId);
    if (!popups) return Promise.resolve(); // already closed
    this.openTabs.delete(tabId);
    if (!browser.connected) return Promise.resolve();
    // Its page targets too (a tab's page target may have been replaced as it navigated): whichever answers closes the tab.
    const pages = [...this.tabOfPage].filter(([, tab]) => tab === tabId).map(([page]) => page);
    for (const page of pages) this.tabOfPage.delete(page);
    // And whatever this connection attached inside the tab that was not noted (a page target that replaced another).
    for (const target of browser.targets()) {
      const parent = parentTargetOf(target);
      if (parent && targetIdOf(parent) === tabId && !pages.includes(targetIdOf(target))) pages.push(targetIdOf(target));
    }
    const ids = [...popups, tabId, ...pages];
    const work = withDeadline(
      (async () => {
        const cdp = await browser.target().createCDPSession();
        try {
          // A target already gone (closed with its tab, by the page, or by the browser) is what was wanted.
          const close = async () => {
            for (const targetId of ids) await cdp.send('Target.closeTarget', { targetId }).catch(() => undefined);
          };
          await close();
          // Target.closeTarget answers before the tab is gone: the capture ends once the browser no longer lists it.
          // A close can be passed over (answered, never done): sent again while the tab is still there.
          let sent = Date.now();
          for (;;) {
            // Every type: the default list leaves tab targets out, and a tab whose page target was replaced
            // (a navigation that swapped its process) would then read as closed while it stays open.
            const { targetInfos } = await cdp.send('Target.getTargets', { filter: [{}] });
            if (!targetInfos.some((info) => ids.includes(info.targetId))) return;
            if (Date.now() - sent >= TAB_CLOSE_RESEND_MS) {
              await close();
              sent = Date.now();
            }
            await new Promise((resolve) => setTimeout(resolve, TAB_GONE_POLL_MS));
          }
        } finally {
          await cdp.detach().catch(() => undefined);
        }
      })(),
      timeoutMs,
      { took: 'closing the capture tab' },
    ).catch((err: unknown) => {
      if (err instanceof DeadlineExceeded) log(`could not close a capture tab: ${err.message}`);
    });
    // Shutdown waits for a close under way before it disconnects (a close not yet sent would leave the tab).
    this.closingTabs.add(work);
    void work.finally(() => this.closingTabs.delete(work));
    return work;
  }

  /** Closes what a capture opened: its context, or in the browser session its tab. */
  async closePrepared(prepared: Pick<PreparedPage, 'context' | 'tabId'>): Promise<void> {
    if (prepared.tabId) await this.closeTab(prepared.context.browser(), prepared.tabId);
    else await this.closeContext(prepared.context);
  }

  /** A story switched into a kept preview did not leave it as its fresh load did: said once, the story loads fresh. */
  noteStaleSwitch(storyId: string, why: string): void {
    if (this.staleSwitchLogged) return;
    this.staleSwitchLogged = true;
    log(`story ${storyId}: ${why}; it is captured on a fresh load, as is every story that does so (same evidence, slower; --fresh-loads skips the switch)`);
  }

  /** Prepares the next capture's context and page in the background (launched browsers only). */
  prepareSpare(): void {
    const browser = this.browser;
    const viewport = this.lastViewport;
    // Never for an attached browser: an idle spare would be an extra tab in the user's browser.
    if (this.spare || !viewport || this.shuttingDown || !browser?.connected || this.attachTarget()) return;
    // Stories switched in kept previews need no fresh page.
    if (this.storyPreviews.busy()) return;
    const ready = this.openPreparedPage(browser, viewport);
    ready.catch(() => undefined);
    this.spare = { browser, ready };
  }

  /**
   * Closes a capture's context, even when its renderer hangs (the browser
   * disposes the context from its own process). If even that does not
   * answer, a launched browser is killed so the next capture starts clean.
   */
  async closeContext(context: BrowserContext, timeoutMs = CONTEXT_CLOSE_MS): Promise<void> {
    const id = context.id;
    if (!id || !this.ownedContexts.has(id)) return; // already closed
    this.ownedContexts.delete(id);
    try {
      await withDeadline(context.close(), timeoutMs, { took: 'closing the capture context' });
    } catch (err) {
      if (!(err instanceof DeadlineExceeded) || !context.browser().connected) return;
      log(`could not close a capture context: ${err.message}`);
      if (!this.attachTarget()) this.kill();
    }
  }

  /** Kills a launched browser (never an attached one); the next capture relaunches. */
  kill(): void {
    const browser = this.browser;
    if (!browser) return;
    const child = browser.process();
    if (child && child.exitCode === null) child.kill('SIGKILL');
  }

  /** Closes what this process opened: the launched browser, or only our contexts of an attached one. */
  async shutdown(): Promise<void> {
    this.shuttingDown = true;
    this.spare = null;
    // Their contexts go with the browser (launched ones only are kept).
    this.storyPreviews.forgetIdle();
    const browser = this.browser ?? (this.pending ? await this.pending.catch(() => null) : null);
    this.browser = null;
    if (!browser) return;
    if (browser.process()) {
      try {
        await withDeadline(browser.close(), BROWSER_SHUTDOWN_MS, { took: 'closing the browser' });
      } catch {
        const child = browser.process();
        if (child && child.exitCode === null) child.kill('SIGKILL');
        await new Promise<void>((resolve) => (child && child.exitCode === null ? child.once('exit', () => resolve()) : resolve()));
      }
      await this.removeProfile(browser);
      return;
    }
    for (const context of browser.browserContexts()) {
      if (context.id && this.ownedContexts.has(context.id)) await context.close().catch(() => undefined);
    }
    this.ownedContexts.clear();
    // Browser session: a tab still open (a capture cut short by the shutdown) does not stay behind in the user's browser.
    // A tab being opened now is known once its opening ends (it sees the shutdown and closes itself).
    await withDeadline(this.tabQueue, CONTEXT_CLOSE_MS, { orElse: undefined });
    for (const tabId of [...this.openTabs.keys()]) void this.closeTab(browser, tabId);
    await Promise.all([...this.closingTabs]);
    browser.off('targetdiscovered', this.onTargetDiscovered);
    const transport = this.transport;
    this.transport = null;
    await browser.disconnect().catch(() => undefined);
    // Gone at the other end before this returns: a farm counts its session as ended only when the socket closes.
    if (transport) await withDeadline(transport.closed, CLOSE_HANDSHAKE_MS + 500, { orElse: undefined });
  }

  private async removeProfile(browser: Browser): Promise<void> {
    const dir = (browser as unknown as { __profileDir?: string }).__profileDir;
    if (!dir) return;
    const child = browser.process();
    if (child && child.exitCode === null && child.signalCode === null) {
      await withDeadline(new Promise<void>((resolve) => child.once('exit', () => resolve())), BROWSER_SHUTDOWN_MS, { orElse: undefined });
    }
    await fs.promises.rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }).catch(() => undefined);
    if (this.profileDir === dir) this.profileDir = null;
  }

  /** Last resort on process exit: whatever profile folder is still there goes. */
  private installExitHook(): void {
    if (this.exitHookInstalled) return;
    this.exitHookInstalled = true;
    process.once('exit', () => {
      this.kill();
      if (this.profileDir) {
        try {
          fs.rmSync(this.profileDir, { recursive: true, force: true, maxRetries: 3 });
        } catch {
          // nothing more can be done while exiting
        }
      }
    });
  }
}

function firstLines(message: string, count = 4): string {
  return message.split('\n').slice(0, count).join(' ').replace(/\s+/g, ' ').trim();
}
