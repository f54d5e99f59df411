/**
 * interaction trace: a Playwright trace ZIP, which must be named `.zip` —
 * both as given and where it resolves (a link named x.zip may lead to a file
 * that is not), so Playwright's viewer opens it.
 */
import type { CaptureTypeSpec } from './spec';

function refuseName(artifactPath: string, resolvedLeaf: string): string | null {
  if (artifactPath.toLowerCase().endsWith('.zip') && resolvedLeaf.toLowerCase().endsWith('.zip')) return null;
  return `interaction trace artifacts are Playwright trace ZIPs: artifact_path must end in .zip (got '${artifactPath}'); name it evidence/<leaf>.trace.zip`;
}

export const interactionTraceType = {
  name: 'interaction trace',
  writes: 'Playwright trace .zip',
  refuseName,
  artifact: { mimeType: 'application/zip' },
  sidecars: [],
  reportView: 'trace',
  browserModule: 'interactionTrace',
} as const satisfies CaptureTypeSpec<'interaction trace'>;
