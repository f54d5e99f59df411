/**
 * a11y tree: Playwright's aria snapshot text of the frozen page, in the
 * envelope its capture-type spec owns (src/contract/captureTypes/a11yTree.ts).
 */
import { ariaSnapshotText } from '../../../../cdp/ariaSnapshot';
import { ariaEnvelope } from '../../../contract/captureTypes';
import type { CaptureTypeModule } from './types';

export const a11yTreeCapture: CaptureTypeModule = {
  async start({ cdp }) {
    return {
      async finish() {
        return { bytes: ariaEnvelope(await ariaSnapshotText(cdp)) };
      },
      async dispose() {},
    };
  },
};
