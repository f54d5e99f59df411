/**
 * a11y tree: Playwright's aria snapshot text of the frozen page, in the
 * envelope its capture-type spec owns (src/contract/captureTypes/a11yTree.ts).
 */
import { ariaSnapshotText } from '../../../../cdp/ariaSnapshot';
import { ariaEnvelope } from '../../../contract/captureTypes';
import type { CaptureTypeModule } from './types';
import { maskSecretValues } from '../../../common/secrets';

export const a11yTreeCapture: CaptureTypeModule = {
  async start({ cdp, secrets }) {
    return {
      async finish() {
        // A field holding a secret shows its name in place of the value.
        return { bytes: ariaEnvelope(maskSecretValues(await ariaSnapshotText(cdp), secrets)) };
      },
      async dispose() {},
    };
  },
};
