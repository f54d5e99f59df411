/**
 * screenshot: a full-page PNG (beyond the viewport, at the requested device
 * pixel ratio), then the render-token probe on the same frozen page, with the
 * page facts the sidecar records.
 */
import type { Page, CDPSession } from 'puppeteer';
import type { ProbePageFacts } from '../../provider';
import type { Viewport } from '../../contract';
import { renderTokenProbe } from '../../probe';
import type { CaptureTypeModule } from './types';
import { fullPagePng, measurePage } from './fullPage';

export async function readPageFacts(page: Page, cdp: CDPSession, viewport: Viewport): Promise<ProbePageFacts> {
  const [metrics, devicePixelRatio] = await Promise.all([
    cdp.send('Page.getLayoutMetrics'),
    page.evaluate(() => window.devicePixelRatio),
  ]);
  const size = metrics.cssContentSize ?? metrics.contentSize;
  return {
    finalUrl: page.url(),
    documentSize: { width: Math.ceil(size.width), height: Math.ceil(size.height) },
    viewport: { width: viewport.width, height: viewport.height },
    devicePixelRatio,
  };
}

export const screenshotCapture: CaptureTypeModule = {
  async start({ page, cdp, request, progress }) {
    return {
      async finish() {
        const bytes = await fullPagePng(page, await measurePage(cdp, request.viewport.devicePixelRatio));
        progress.enter('probe', 'the render-token probe');
        const page_facts = await readPageFacts(page, cdp, request.viewport);
        const render_tokens = await renderTokenProbe(cdp, request.design);
        return { bytes, page_facts, render_tokens };
      },
      async dispose() {},
    };
  },
};
