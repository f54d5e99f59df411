/**
 * The result payload every call returns (the tool's outputSchema) and its
 * constructors. `result` says whether the capture happened, never pass/fail.
 */
import { z } from 'zod';
import { requestSnapshotSchema, type CaptureRequestSnapshot } from './contract';
import type { CaptureType } from './request';

export const UNKNOWN_STATE = 'unknown';

export const captureResultSchema = z.object({
  artifact: z.string().describe('the run-root-relative artifact_path as given, trimmed'),
  observed_state: z.string().describe("read from the page's data-state after the capture, else 'unknown'; never the requested state"),
  result: z.enum(['captured', 'failed']).describe('whether the capture happened, not a verdict'),
  error: z.string().describe("'' on success"),
  written_path: z
    .string()
    .describe("absolute target; '' when no target was resolved; on failure it says where the write was attempted, not that a file exists"),
  request: requestSnapshotSchema.optional().describe('normalized contract echo (absent when the contract itself failed)'),
  warnings: z.array(z.string()).describe('mis-root and other notices; read them'),
}).describe(
  'One capture. For a screenshot, <stem>.probe.json sits beside written_path: read its renderTokens.measurement_status ' +
    "first ('unmeasured' means blocked, not clean; 'failed' carries measurement_error), then renderTokens.undecidable " +
    '(what could not be compared, and why), and only then findings; an empty findings list is never conformance on its own.',
);

export interface CaptureResult {
  artifact: string;
  observed_state: string;
  result: 'captured' | 'failed';
  error: string;
  written_path: string;
  request?: CaptureRequestSnapshot;
  warnings: string[];
}

export function failedResult(fields: {
  artifact: string;
  error: string;
  writtenPath?: string;
  request?: CaptureRequestSnapshot;
  warnings?: string[];
}): CaptureResult {
  const result: CaptureResult = {
    artifact: fields.artifact,
    observed_state: UNKNOWN_STATE,
    result: 'failed',
    error: fields.error,
    written_path: fields.writtenPath ?? '',
    warnings: fields.warnings ?? [],
  };
  if (fields.request) result.request = fields.request;
  return result;
}

/** One file a captured call wrote, as the tool result links it (resource_link). */
export interface WrittenFile {
  /** Absolute path. */
  path: string;
  mimeType: string;
  description: string;
}

/** What the artifact of each capture type is, whatever its name. */
const ARTIFACT_MIME_TYPES: Record<CaptureType, string> = {
  screenshot: 'image/png',
  'a11y tree': 'application/json',
  'interaction trace': 'application/zip',
};

/** The files a captured call wrote: its artifact and, for a screenshot, the probe sidecar beside it. */
export function writtenFiles(type: CaptureType, artifactPath: string, sidecarPath?: string): WrittenFile[] {
  const files: WrittenFile[] = [{ path: artifactPath, mimeType: ARTIFACT_MIME_TYPES[type], description: `the ${type} artifact` }];
  if (sidecarPath !== undefined) files.push({ path: sidecarPath, mimeType: 'application/json', description: "the screenshot's render-token probe sidecar" });
  return files;
}
