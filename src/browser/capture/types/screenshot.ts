/**
 * screenshot: a full-page PNG (taken as Playwright takes it, at the requested
 * device pixel ratio, shot again if the page changed size meanwhile;
 * fullPage.ts), then the render-token probe on the same
 * frozen page, with the page facts and the element boxes the sidecar records. The document size
 * the facts give is the one the PNG was cut to, so the report places boxes
 * on the image it measured.
 */
import type { Page, CDPSession } from 'puppeteer-core';
import type { ProbePageFacts } from '../../../contract/captureProvider';
import type { Viewport } from '../../../contract/captureContract';
import { screenshotProbe } from '../../../probe';
import type { CaptureTypeModule } from './types';
import { shootFullPage, type FullPageShot } from './fullPage';
import { maskSecretFields } from '../secretMasking';

/** The sidecar's page facts, from the shot itself (its size and the ratio the page read) and the page. */
export async function readPageFacts(page: Page, cdp: CDPSession, viewport: Viewport, shot: Omit<FullPageShot, 'bytes'>): Promise<ProbePageFacts> {
  const { size } = shot;
  let devicePixelRatio = shot.pageDevicePixelRatio;
  if (devicePixelRatio === null) {
    const reply = await cdp.send('Runtime.evaluate', { expression: 'window.devicePixelRatio', returnByValue: true });
    devicePixelRatio = typeof reply.result.value === 'number' ? reply.result.value : size.devicePixelRatio;
  }
  return {
    finalUrl: page.url(),
    documentSize: { width: size.width, height: size.height },
    viewport: { width: viewport.width, height: viewport.height },
    devicePixelRatio,
  };
}

export const screenshotCapture: CaptureTypeModule = {
  steps: ['probe'],
  async start({ page, cdp, request, progress, secrets }) {
    return {
      async finish(taken) {
        // A field holding a secret is painted over for the shot alone; the probe reads the page as it is.
        const unmask = secrets ? await maskSecretFields(cdp, secrets) : null;
        let shot: FullPageShot;
        try {
          shot = await shootFullPage(cdp, request.viewport);
        } finally {
          await unmask?.();
        }
        const { bytes } = shot;
        taken?.();
        progress.enter('probe', 'the render-token probe');
        const page_facts = await readPageFacts(page, cdp, request.viewport, shot);
        const { render_tokens, element_boxes } = await screenshotProbe(cdp, request.design);
        return { bytes, page_facts, render_tokens, ...(element_boxes ? { element_boxes } : {}) };
      },
      async dispose() {},
    };
  },
};
