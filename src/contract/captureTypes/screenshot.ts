/**
 * screenshot: a full-page PNG, and beside it the `<stem>.probe.json` sidecar
 * the runtime writes from the provider's render-token face and page facts,
 * whichever provider captured it.
 */
import * as path from 'path';
import { buildProbeSidecar } from '../../probe/sidecar';
import type { CaptureTypeSpec } from './spec';

/** `evidence/L6.2-x.png` -> `L6.2-x.probe.json` (the screenshot's probe sidecar). */
export function sidecarLeaf(leaf: string): string {
  const ext = path.extname(leaf);
  const stem = ext && ext !== leaf ? leaf.slice(0, -ext.length) : leaf;
  return `${stem}.probe.json`;
}

export const screenshotType = {
  name: 'screenshot',
  writes: 'full-page PNG + .probe.json sidecar',
  refuseName: () => null,
  artifact: { mimeType: 'image/png' },
  sidecars: [
    {
      name: 'probe sidecar',
      leafOf: sidecarLeaf,
      mimeType: 'application/json',
      description: "the screenshot's render-token probe sidecar",
      contents: (measured, request) => JSON.stringify(buildProbeSidecar(measured, request.design), null, 2) + '\n',
    },
  ],
  reportView: 'image',
  browserModule: 'screenshot',
} as const satisfies CaptureTypeSpec<'screenshot'>;
