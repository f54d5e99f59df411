/**
 * The freeze step, run after navigation and again after the actions: stop
 * animations, transitions and the caret blink, let the page's virtual time
 * run until the page is at rest (src/browser/page/pageClock.ts), then wait for
 * fonts and (when asked) for the network to go idle.
 *
 * The sheet is a constructed stylesheet adopted by the document and by every
 * shadow root (a document's sheet stops at a shadow root; the virtual clock
 * knows each root, cdp/injected/clock/shadowRoots.ts): a page's
 * Content-Security-Policy does not block it, and it adds no node to the DOM
 * the a11y snapshot or trace reads.
 */
import type { Frame, Page } from 'puppeteer-core';
import type { Freeze } from '../../contract/captureContract';
import { DOCUMENT_POLL_MS, DOCUMENT_SETTLE_MS, FONTS_BUDGET_MS, NAVIGATION_BUDGET_MS, NETWORK_IDLE_MS, withDeadline } from '../../common/time';
import { classifyProtocolError } from '../../../cdp/failureKinds';
import { PageClock } from './pageClock';

/** The document a step ran in went away under it: an action's navigation replaced it. */
const replacedDocument = (err: unknown) => ['context-gone', 'frame-detached'].includes(classifyProtocolError(err));

/**
 * The caret is hidden where one can show (`:read-write`: editable fields, contenteditable
 * and designMode content) rather than on every element: a caret-color change on every
 * element repaints the whole page, and a page changed after its first paint (a story's
 * play function) then rasters a few edge pixels unlike Playwright's shot of it.
 */
export const FREEZE_CSS =
  '*, *::before, *::after { animation: none !important; transition: none !important; } :read-write { caret-color: transparent !important; }';

async function adoptFreezeSheet(frame: Frame): Promise<void> {
  await frame.evaluate((css) => {
    // The virtual clock's document knows every shadow root, closed ones its scripts made included (cdp/injected/clock/shadowRoots.ts).
    const clock = (window as unknown as Record<string, { freeze?: (css: string) => boolean } | undefined>).__designPlaybookClock;
    if (clock?.freeze?.(css)) return;
    const key = '__designPlaybookFreezeSheet';
    const holder = window as unknown as Record<string, CSSStyleSheet | HTMLStyleElement | undefined>;
    const existing = holder[key];
    if (typeof CSSStyleSheet === 'function' && 'adoptedStyleSheets' in document) {
      const sheet = existing instanceof CSSStyleSheet ? existing : new CSSStyleSheet();
      if (!(existing instanceof CSSStyleSheet)) {
        sheet.replaceSync(css);
        holder[key] = sheet;
      }
      // Without the clock (a frame in another process): the document and its open shadow roots, as they stand.
      const scopes: Array<Document | ShadowRoot> = [document];
      for (let scope = scopes.pop(); scope; scope = scopes.pop()) {
        if (!scope.adoptedStyleSheets.includes(sheet)) scope.adoptedStyleSheets = [...scope.adoptedStyleSheets, sheet];
        for (const element of Array.from(scope.querySelectorAll('*'))) if (element.shadowRoot) scopes.push(element.shadowRoot);
      }
      return;
    }
    // Documents without constructed sheets (old engines): a <style> element.
    if (existing instanceof HTMLStyleElement && existing.isConnected) return;
    const style = document.createElement('style');
    style.textContent = css;
    (document.head || document.documentElement).appendChild(style);
    holder[key] = style;
  }, FREEZE_CSS);
}

const SETTLE_ATTEMPTS = 20;

/**
 * Runs `step` on the page, again if an action had just started a navigation
 * that destroyed the document it ran in (a submitted form, a followed link):
 * the freeze belongs on the document that will be captured.
 */
async function onSettledDocument<T>(page: Page, step: () => Promise<T>, signal?: AbortSignal, onReplaced?: () => void): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (err) {
      if (attempt >= SETTLE_ATTEMPTS || !replacedDocument(err)) throw err;
      onReplaced?.();
      // Polled from here: the page's own timers may be virtual and stand still.
      await waitForParsedDocument(page, signal);
    }
  }
}

async function waitForParsedDocument(page: Page, signal?: AbortSignal): Promise<void> {
  const deadline = Date.now() + DOCUMENT_SETTLE_MS;
  while (Date.now() < deadline) {
    if (signal?.aborted) throw signal.reason;
    const parsed = await page.evaluate(() => document.readyState !== 'loading').catch(() => false);
    if (parsed) return;
    await new Promise((resolve) => setTimeout(resolve, DOCUMENT_POLL_MS));
  }
}

/**
 * Returns warnings (a page still busy at the settle's bound, fonts that never
 * settled); throws when network idle never came. `signal` (the capture's)
 * ends its waits for a replaced document when the capture ends;
 * `beforeSettle` is what must reach the page before its time moves.
 */
export async function applyFreeze(page: Page, freeze: Freeze, signal?: AbortSignal, beforeSettle?: Promise<void> | null): Promise<string[]> {
  const warnings: string[] = [];
  if (!freeze.enabled) {
    await beforeSettle;
    return warnings;
  }
  const clock = PageClock.of(page);
  // The load wait goes out with the sheet: the settle needs both, and the page answers them in turn.
  let loaded = clock?.loaded();
  let replaced = false;
  await onSettledDocument(
    page,
    () =>
      Promise.all([
        ...page.frames().map((frame) =>
          adoptFreezeSheet(frame).catch((err) => {
            // A detached or navigating subframe is not worth failing the capture for; the main frame is.
            if (frame === page.mainFrame()) throw err;
          }),
        ),
        // Closed roots declared in the HTML reach the clock (and so the sheet) only this way.
        clock?.revealDeclaredShadowRoots(),
      ]),
    signal,
    () => (replaced = true),
  );
  // The document the load was asked of went away: the settle waits for its successor's.
  if (replaced) loaded = clock?.loaded();
  // What had to reach the page first (the pointer's move) is in before its time moves.
  if (beforeSettle) loaded = Promise.all([loaded, beforeSettle]).then(() => undefined);
  // Virtual time settles before the fonts wait, so text the page's timers add still gets its fonts.
  warnings.push(...((await clock?.settle(loaded)) ?? []));
  await beforeSettle;
  if (freeze.waitFonts) {
    // Bounded on this side: the page's own timers may be virtual and stand still.
    const settled = await withDeadline(
      onSettledDocument(page, () => page.evaluate(() => document.fonts.ready.then(() => true)), signal),
      FONTS_BUDGET_MS,
      { orElse: false },
    );
    if (!settled) warnings.push(`freeze: web fonts were still loading after ${FONTS_BUDGET_MS} ms; captured with what had loaded`);
  }
  if (freeze.networkIdle) {
    try {
      await page.waitForNetworkIdle({ idleTime: NETWORK_IDLE_MS, timeout: NAVIGATION_BUDGET_MS });
    } catch (err) {
      throw new Error(`freeze: the network did not go idle within ${NAVIGATION_BUDGET_MS} ms (${(err as Error).message})`);
    }
  }
  return warnings;
}
