/** The virtual clock on a page of a test browser, as the clock tests drive it. */
import type { Browser, Page } from 'puppeteer-core';
import { PageClock } from '../../src/browser/page/pageClock';

/**
 * A new page with the clock installed, loaded from `url` and settled by the
 * rest rule (bounded by `settleMaxMs`, or the default): the page, the
 * settle's warnings, and the page time it ended at.
 */
export async function settledPage(browser: Browser, url: string, settleMaxMs?: number): Promise<{ page: Page; warnings: string[]; now: number }> {
  const page = await browser.newPage();
  const clock = await PageClock.install(page, await page.createCDPSession(), null, settleMaxMs);
  await page.goto(url);
  const warnings = await clock.settle();
  const now = (await page.evaluate('globalThis.__designPlaybookClock.now()')) as number;
  return { page, warnings, now };
}
