/**
 * a11y tree: Playwright's aria snapshot text of the frozen page, in the
 * envelope its capture-type spec owns (src/capture/types/a11yTree.ts).
 */
import { ariaSnapshotText } from '../../../cdp/ariaSnapshot';
import { ariaEnvelope } from '../../capture/types';
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
