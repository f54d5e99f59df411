/**
 * The execute_capture_plan tool declaration: input and output JSON Schemas
 * generated from the zod schemas that sit beside the parsers, plus
 * annotations that tell the truth about what a call does.
 */
import { z } from 'zod';
import { captureInputSchema } from './request';
import { captureResultSchema } from './result';
import type { ToolDeclaration } from './provider';

export const TOOL_NAME = 'execute_capture_plan';
export const SERVER_NAME = 'design-playbook-evidence';

export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): { type: 'object'; [key: string]: unknown } {
  const json = z.toJSONSchema(schema, { io, target: 'draft-2020-12' }) as Record<string, unknown>;
  delete json.$schema;
  return json as { type: 'object'; [key: string]: unknown };
}

export function captureToolDeclaration(): ToolDeclaration {
  return {
    name: TOOL_NAME,
    title: 'Execute capture plan',
    description:
      'Capture evidence for one UI acceptance criterion: navigate to url, run actions, freeze, then write exactly one artifact under ' +
      '<run root>/evidence/: a full-page PNG plus <stem>.probe.json render-token sidecar (screenshot), ' +
      '{"format":"aria_snapshot","tree":...} JSON (a11y tree), or a Playwright trace .zip (interaction trace). ' +
      'Never writes manifest.jsonl and never judges: result says whether the capture happened; observed_state comes from the page data-state. ' +
      'Refuses to replace an existing artifact unless overwrite=true. In a screenshot sidecar read renderTokens.measurement_status and ' +
      'renderTokens.undecidable before findings: an empty findings list is not conformance on its own.',
    inputSchema: toJsonSchema(captureInputSchema, 'input'),
    outputSchema: toJsonSchema(captureResultSchema, 'output'),
    annotations: {
      title: 'Execute capture plan',
      readOnlyHint: false, // writes one new artifact file
      destructiveHint: false, // refuses to overwrite unless overwrite=true
      idempotentHint: false, // a repeat call without overwrite is refused
      openWorldHint: true, // loads the page and whatever it fetches
    },
  };
}
