/**
 * observed_state: the page's own `data-state` marker, read after the
 * capture — <body>, else <html>, else the first element carrying a non-empty
 * one; trimmed. Anything else, or a probe that throws, is `unknown`. Never the
 * requested state.
 */
import type { Page } from 'puppeteer-core';
import { UNKNOWN_STATE } from '../../contract/result';
import { OBSERVED_STATE_MS, withDeadline } from '../../common/time';

/** The in-page read; exported so tests can run the same rule on a page. */
export function readDataStateInPage(): string | null {
  const pick = (el: Element | null | undefined): string | null => {
    const value = el?.getAttribute('data-state');
    return value && value.trim() ? value.trim() : null;
  };
  const direct = pick(document.body) ?? pick(document.documentElement);
  if (direct) return direct;
  for (const el of Array.from(document.querySelectorAll('[data-state]'))) {
    const value = pick(el);
    if (value) return value;
  }
  return null;
}

export async function readObservedState(page: Page, timeoutMs = OBSERVED_STATE_MS): Promise<string> {
  try {
    const value = await withDeadline(page.evaluate(readDataStateInPage), timeoutMs, 'reading data-state');
    return typeof value === 'string' && value.trim() ? value.trim() : UNKNOWN_STATE;
  } catch {
    return UNKNOWN_STATE;
  }
}
