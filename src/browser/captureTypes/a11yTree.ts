/**
 * a11y tree: Playwright's aria snapshot text of the frozen page, in the
 * envelope callers read — UTF-8 JSON, 2-space indent, non-ASCII as is.
 */
import { ariaSnapshotText } from '../../../cdp/ariaSnapshot';
import type { CaptureTypeModule } from './types';

export function ariaEnvelope(tree: string): Buffer {
  return Buffer.from(JSON.stringify({ format: 'aria_snapshot', tree }, null, 2), 'utf8');
}

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
