/**
 * Per-capture emulation and navigation: viewport size, device pixel ratio and
 * prefers-color-scheme are set on the capture's own page before it loads
 * anything; navigation waits for DOMContentLoaded (network idle when the
 * freeze asks for it) within NAVIGATION_BUDGET_MS.
 */
import type { Page } from 'puppeteer';
import type { Freeze, Viewport } from '../contract';
import { ACTION_BUDGET_MS, NAVIGATION_BUDGET_MS } from '../deadline';

export async function emulate(page: Page, viewport: Viewport): Promise<void> {
  page.setDefaultTimeout(ACTION_BUDGET_MS);
  page.setDefaultNavigationTimeout(NAVIGATION_BUDGET_MS);
  // Playwright dismisses dialogs nobody handles; an open alert() would otherwise stall the capture.
  page.on('dialog', (dialog) => void dialog.dismiss().catch(() => undefined));
  await Promise.all([
    page.setViewport({ width: viewport.width, height: viewport.height, deviceScaleFactor: viewport.devicePixelRatio }),
    page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: viewport.colorScheme }]),
  ]);
}

export class NavigationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NavigationError';
  }
}

export async function navigate(page: Page, url: string, freeze: Freeze): Promise<void> {
  const waitUntil = freeze.networkIdle ? 'networkidle0' : 'domcontentloaded';
  const milestone = freeze.networkIdle ? 'network idle' : 'DOMContentLoaded';
  try {
    await page.goto(url, { waitUntil, timeout: NAVIGATION_BUDGET_MS });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof Error && err.name === 'TimeoutError') {
      throw new NavigationError(`navigation to ${url} did not reach ${milestone} within ${NAVIGATION_BUDGET_MS} ms`);
    }
    throw new NavigationError(`navigation to ${url} failed: ${message}`);
  }
}
