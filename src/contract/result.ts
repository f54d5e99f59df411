/**
 * The result payload every call returns (the tool's outputSchema) and its
 * constructors. `result` says whether the capture happened, never pass/fail.
 */
import { z } from 'zod';
import { requestSnapshotSchema, type CaptureRequestSnapshot } from './captureContract';
import { READING_ORDER } from '../probe/face';

export const UNKNOWN_STATE = 'unknown';

export const captureResultSchema = z
  .object({
    artifact: z.string().describe('the run-root-relative artifact_path as given, trimmed'),
    observed_state: z.string().describe("read from the page's data-state after the capture, else 'unknown'; never the requested state"),
    result: z.enum(['captured', 'failed']).describe('whether the capture happened, not a verdict'),
    error: z.string().describe("'' on success"),
    written_path: z
      .string()
      .describe("absolute target; '' when no target was resolved; on failure it says where the write was attempted, not that a file exists"),
    request: requestSnapshotSchema.optional().describe('normalized contract echo (absent when the contract itself failed)'),
    warnings: z.array(z.string()).describe('mis-root and other notices; read them'),
  })
  .describe(`One capture. For a screenshot, <stem>.probe.json sits beside written_path: read its ${READING_ORDER}`);

/**
 * One call's result payload (from captureResultSchema, the tool's
 * outputSchema); its `request` carries the session's name when the call
 * named one (the schema then offered it: src/contract/toolDeclaration.ts).
 */
export type CaptureResult = Omit<z.infer<typeof captureResultSchema>, 'request'> & { request?: CaptureRequestSnapshot };

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
