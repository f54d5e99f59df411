/**
 * a11y tree: Playwright's aria snapshot text in the envelope callers read —
 * `{"format": "aria_snapshot", "tree": "…"}`, UTF-8 JSON, 2-space indent,
 * non-ASCII as is. The browser module fills it; the report reads it back.
 */
import type { CaptureTypeSpec } from './spec';

export const ARIA_ENVELOPE_FORMAT = 'aria_snapshot';

/** The artifact's bytes for an aria snapshot text. */
export function ariaEnvelope(tree: string): Buffer {
  return Buffer.from(JSON.stringify({ format: ARIA_ENVELOPE_FORMAT, tree }, null, 2), 'utf8');
}

/** The tree text of a parsed envelope, or null when `json` is not one. */
export function envelopeTree(json: unknown): string | null {
  const tree = json && typeof json === 'object' ? (json as { tree?: unknown }).tree : undefined;
  return typeof tree === 'string' ? tree : null;
}

export const a11yTreeType = {
  name: 'a11y tree',
  writes: 'aria snapshot JSON',
  refuseName: () => null,
  artifact: { mimeType: 'application/json' },
  sidecars: [],
  reportView: 'a11y',
  browserModule: 'a11yTree',
} as const satisfies CaptureTypeSpec<'a11y tree'>;
