/**
 * The browser half of `login`: a fresh context on the browser the flags
 * name (launched headless, or attached), the page loaded, the actions run by
 * the capture's own action runner (on the wall clock: no freeze, a person's
 * sign-in flow as it runs), then the context's state collected in
 * Playwright's shape (src/browser/page/storageState.ts), IndexedDB
 * included. The state is returned, never logged; writing it is the
 * command's (src/cli/login.ts).
 */
import type { CaptureAction } from '../../contract/actions';
import type { StorageState } from '../../contract/storageState';
import { BrowserSession } from '../fleet/browserSession';
import { captureTimeoutMs, navigationTimeoutMs, type BrowserFlags } from '../options';
import { navigate } from '../page/pageSetup';
import { collectStorageState, restoreStorageState } from '../page/storageState';
import { runActions, type SecretValue } from './actionRunner';
import { CaptureProgress } from './progress';

export interface SignInRequest {
  url: string;
  actions: CaptureAction[];
  flags: BrowserFlags;
  env: NodeJS.ProcessEnv;
  /** A state to start from (--storage-state: refreshing a saved session), restored before the page loads. */
  startState?: StorageState;
  /** A secret's value by name (--secrets), asked by the runner as the action that names it types. */
  secretValue?: SecretValue;
}

/** What the sign-in left: the state, and the page's address at the end (for the command's summary). */
export interface SignInOutcome {
  state: StorageState;
  finalUrl: string;
}

const LOGIN_VIEWPORT = { width: 1280, height: 800, devicePixelRatio: 1, colorScheme: 'light' as const };

/** Loads `url`, runs `actions`, and answers the context's state; the browser it started is closed again. */
export async function signIn(request: SignInRequest): Promise<SignInOutcome> {
  const session = new BrowserSession(() => request.flags, request.env);
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
      const state = await collectStorageState(opened.page, opened.emulation.cdp, { indexedDB: true });
      return { state, finalUrl: opened.page.url() };
    } finally {
      await session.closeContext(opened.context);
    }
  } finally {
    progress.finish();
    await session.shutdown().catch(() => undefined);
  }
}
