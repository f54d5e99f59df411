/**
 * The manifest line an orchestrator appends after a capture (docs/manifest.md),
 * built from the call's arguments and its result: what `demo` and
 * `stories --run` write, so the two cannot drift apart.
 */
import { echoJson } from '../contract/captureContract';
import type { CaptureResult } from '../contract/result';
import { BUNDLED_PROVIDER } from './schema';

export interface ManifestLineExtras {
  /** `capture.note`: what the capture shows, in words. */
  note?: string;
  /** Fields of the line after `request` (a story's `story`). */
  fields?: Record<string, unknown>;
}

/** The line for one capture by this server; `artifact` is `artifact_path` without its `evidence/`. */
export function manifestLine(criterion: string, args: Record<string, unknown>, result: CaptureResult, ts: Date, extras: ManifestLineExtras = {}): string {
  return echoJson({
    criterion,
    artifact: String(args.artifact_path).replace(/^evidence\//, ''),
    observed_state: result.observed_state,
    result: result.result,
    ts: ts.toISOString(),
    capture: {
      provider: BUNDLED_PROVIDER,
      url: args.url,
      type: args.type,
      state: args.state,
      actions: args.actions ?? [],
      artifact_path: args.artifact_path,
      ...(extras.note !== undefined ? { note: extras.note } : {}),
    },
    request: result.request,
    ...extras.fields,
    ...(result.error ? { error: result.error } : {}),
  });
}
