/**
 * The browser half of `login`: a fresh context on the browser the flags
 * name (launched headless, or attached), the page loaded, the actions run by
 * the capture's own action runner (on the wall clock: no freeze, a person's
 * sign-in flow as it runs), then the context's state collected in
 * Playwright's shape (src/browser/page/storageState.ts), IndexedDB
 * included. The state is returned, never logged; writing it is the
 * command's (src/cli/login.ts).
 */
import type { CDPSession, Page } from 'puppeteer-core';
import type { CaptureAction } from '../../contract/actions';
import { cookiesOfHosts, type SignInOutcome, type StorageState } from '../../contract/storageState';
import { BrowserSession } from '../fleet/browserSession';
import { captureTimeoutMs, navigationTimeoutMs, type BrowserFlags } from '../options';
import { navigate } from '../page/pageSetup';
import { collectStorageState, restoreStorageState } from '../page/storageState';
import { runActions, type SecretValue } from './actionRunner';
import { CaptureProgress } from './progress';
import { HEADED_POLL_MS } from '../../common/time';

export interface SignInRequest {
  url: string;
  actions: CaptureAction[];
  flags: BrowserFlags;
  env: NodeJS.ProcessEnv;
  /** A state to start from (--storage-state: refreshing a saved session), restored before the page loads. */
  startState?: StorageState;
  /** A secret's value by name (--secrets), asked by the runner as the action that names it types. */
  secretValue?: SecretValue;
  /** A visible window for a person to sign in (`--headed`): saved when it closes, or when `until` is reached. */
  headed?: boolean;
  /** With `headed`: done once the page's address contains `url`, or a CSS `selector` matches. */
  until?: { url?: string; selector?: string };
}

const LOGIN_VIEWPORT = { width: 1280, height: 800, devicePixelRatio: 1, colorScheme: 'light' as const };

/** Loads `url`, runs `actions`, and answers the context's state; the browser it started is closed again. */
export async function signIn(request: SignInRequest): Promise<SignInOutcome> {
  const session = new BrowserSession(() => request.flags, request.env, undefined, request.headed === true);
  const progress = new CaptureProgress(captureTimeoutMs(request.env));
  try {
    const browser = await session.acquire();
    const opened = await session.newContextAndPage(browser, LOGIN_VIEWPORT);
    try {
      const restored = request.startState ? await restoreStorageState(opened.emulation.cdp, request.startState) : null;
      const freeze = { enabled: false, waitFonts: false, networkIdle: false };
      await navigate(opened.page, request.url, freeze, { budgetMs: navigationTimeoutMs(request.env), cdp: opened.emulation.cdp });
      await restored?.settle();
      await runActions(opened.page, request.actions, {
        session: opened.emulation.cdp,
        progress,
        ...(request.secretValue ? { secretValue: request.secretValue } : {}),
      });
      const outcome = request.headed
        ? await awaitPerson(opened.page, opened.emulation.cdp, request.until ?? {})
        : { state: await collectStorageState(opened.page, opened.emulation.cdp, { indexedDB: true }), finalUrl: opened.page.url() };
      return opened.tabId ? keepSitesShown(outcome) : outcome;
    } finally {
      await session.closePrepared(opened);
    }
  } finally {
    progress.finish();
    await session.shutdown().catch(() => undefined);
  }
}

/**
 * In an attached browser's own session the cookie jar is the whole
 * browser's: only the cookies of the sites the page shows at the end (its
 * frames' hosts and its address) are kept.
 */
function keepSitesShown(outcome: SignInOutcome): SignInOutcome {
  const hosts = new Set(outcome.state.origins.map((entry) => new URL(entry.origin).hostname));
  try {
    hosts.add(new URL(outcome.finalUrl).hostname);
  } catch {
    // an address with no host (about:blank): its frames' hosts alone
  }
  const kept = cookiesOfHosts(outcome.state.cookies, [...hosts]);
  return { ...outcome, state: { ...outcome.state, cookies: kept }, otherSitesCookies: outcome.state.cookies.length - kept.length };
}

/**
 * A person signs in in the window: the state is read every HEADED_POLL_MS
 * (a window once closed can no longer be read, so what is saved then is the
 * last reading, at most that long before), and read once more when `until`
 * is reached. No time limit: a person takes the time they need; Ctrl-C
 * stops the command with nothing written.
 */
async function awaitPerson(page: Page, cdp: CDPSession, until: { url?: string; selector?: string }): Promise<SignInOutcome> {
  let last: SignInOutcome | null = null;
  // A closed window answers no more calls: its close (or the browser's exit) ends a reading under way.
  let closed = false;
  const gone = new Promise<null>((resolve) => {
    const close = () => {
      closed = true;
      resolve(null);
    };
    page.once('close', close);
    page.browser().once('disconnected', close);
  });
  const reached = async () =>
    (until.url !== undefined && page.url().includes(until.url)) || (until.selector !== undefined && (await page.$(until.selector)) !== null);
  const read = async () => {
    // Asked before the reading, so a reading that ends the wait is taken after the page got there.
    const done = await reached();
    const state = await collectStorageState(page, cdp, { indexedDB: true });
    return { done, outcome: { state, finalUrl: page.url() } };
  };
  while (!closed && !page.isClosed() && page.browser().connected) {
    try {
      const reading = await Promise.race([read(), gone]);
      if (!reading) break;
      last = reading.outcome;
      if (reading.done) return last;
    } catch {
      // The window closed while it was being read: the last reading stands.
      if (closed || page.isClosed() || !page.browser().connected) break;
    }
    await Promise.race([new Promise((resolve) => setTimeout(resolve, HEADED_POLL_MS)), gone]);
  }
  if (!last) throw new Error('the window was closed before the page could be read; nothing was written');
  return last;
}
