/**
 * interaction trace: a Playwright trace ZIP recorded from raw CDP. The
 * recorder starts before navigation (so the load's resources are in the
 * archive), records the navigation and each action as calls (each as its
 * entry of the action table says, src/contract/actions.ts), and finishes
 * with the archive's bytes.
 */
import type { Browser } from 'puppeteer-core';
import { traceCallOf } from '../../../contract/actions';
import { TraceRecorder } from '../../../../cdp/trace/recorder';
import type { CaptureTypeModule } from './types';
import { secretPlaceholder } from '../../../common/secrets';
import { checkPageTextForSecrets, maskSecretFields } from '../secretMasking';

/** "HeadlessChrome/156.0.1.2" or "Chrome/156…" -> "156.0.1.2". */
function versionNumber(product: string): string {
  const match = /\/([\d.]+)/.exec(product);
  return match ? match[1] : product;
}

/** A browser's product and user agent, asked once per browser (two round trips per capture otherwise). */
const browserIdentity = new WeakMap<Browser, Promise<[string, string]>>();

function identityOf(browser: Browser): Promise<[string, string]> {
  let known = browserIdentity.get(browser);
  if (!known) {
    known = Promise.all([browser.version(), browser.userAgent()]);
    known.catch(() => browserIdentity.delete(browser));
    browserIdentity.set(browser, known);
  }
  return known;
}

export const interactionTraceCapture: CaptureTypeModule = {
  async start({ browser, cdp, request, secrets }) {
    const viewport = request.viewport;
    let masking = false;
    const [product, userAgent] = await identityOf(browser);
    const recorder = await TraceRecorder.start(
      cdp,
      {
        viewport: { width: viewport.width, height: viewport.height },
        deviceScaleFactor: viewport.devicePixelRatio,
        colorScheme: viewport.colorScheme,
        browserName: 'chromium',
        browserVersion: versionNumber(product),
        userAgent,
      },
      { pageIsBlank: true, ...(secrets ? { secrets: secrets.entries().map(([name, value]) => ({ value, mask: secretPlaceholder(name) })) } : {}) },
    );
    return {
      navigate: (url, run) => recorder.navigation(url, run),
      wrapAction: async (_index, action, run) => {
        if (!secrets) return recorder.action(traceCallOf(action), run);
        // The film strip: every text field is covered before a secret goes in, and after each action
        // (once one did) the boxes cover the fields holding one, wherever they are now.
        const typesSecret = 'secret' in action && action.secret !== undefined;
        if (typesSecret) await maskSecretFields(cdp, secrets, { everyField: true });
        masking ||= typesSecret;
        await recorder.action(traceCallOf(action), async () => {
          await run();
          if (masking) await maskSecretFields(cdp, secrets).catch(() => undefined);
        });
        // The strip shows every state between actions: a page that echoed a secret along the way fails closed now.
        if (masking) await checkPageTextForSecrets(cdp, secrets);
      },
      async finish(taken) {
        return { bytes: await recorder.finish(taken) };
      },
      dispose: () => recorder.dispose(),
    };
  },
};
