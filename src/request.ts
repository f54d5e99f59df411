/**
 * The tool's argument list and the runtime fields (url, type, state, actions,
 * artifact_path, overwrite). Owns which fields exist, their refusal wording,
 * and the zod input schema advertised for them.
 */
import { z } from 'zod';
import { ToolInputError } from './errors';
import { contractInputShape } from './contract';
import { describeValue, nonEmptyString } from './values';
import { actionInputSchema, parseActions, type CaptureAction } from './actionVocabulary';

export const CAPTURE_TYPES = ['screenshot', 'a11y tree', 'interaction trace'] as const;
export type CaptureType = (typeof CAPTURE_TYPES)[number];

export const URL_SCHEMES = ['http://', 'https://', 'file://', 'about:'] as const;

export const RUNTIME_OBJECT_FIELDS = [
  'schemaVersion',
  'url',
  'type',
  'state',
  'actions',
  'artifact_path',
  'overwrite',
  'viewport',
  'freeze',
  'run_root',
  'design',
] as const;

export interface RuntimeFields {
  url: string;
  type: CaptureType;
  state: string;
  actions: CaptureAction[];
  artifactPath: string;
  overwrite: boolean;
}

/** Step 1: every field the caller sent must be a Runtime Object field. */
export function refuseUnknownFields(args: Record<string, unknown>): void {
  const unknown = Object.keys(args).filter((k) => !(RUNTIME_OBJECT_FIELDS as readonly string[]).includes(k));
  if (unknown.length) {
    throw new ToolInputError(
      `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `'${k}'`).join(', ')}: provider accepts Runtime Object fields only (${RUNTIME_OBJECT_FIELDS.join(', ')})`,
    );
  }
}

/** Step 3: runtime fields, after the contract passed. */
export function parseRuntimeFields(args: Record<string, unknown>): RuntimeFields {
  if (!nonEmptyString(args.url)) throw new ToolInputError(`url must be a non-empty string (got ${describeValue(args.url)})`);
  const url = args.url.trim();
  if (!URL_SCHEMES.some((scheme) => url.toLowerCase().startsWith(scheme))) {
    throw new ToolInputError(`url must start with http://, https://, file:// or about: (got ${describeValue(url)})`);
  }
  if (typeof args.type !== 'string' || !(CAPTURE_TYPES as readonly string[]).includes(args.type.trim())) {
    throw new ToolInputError(`type must be one of ${CAPTURE_TYPES.map((t) => `'${t}'`).join(', ')} (got ${describeValue(args.type)})`);
  }
  if (!nonEmptyString(args.state)) throw new ToolInputError(`state must be a non-empty string (got ${describeValue(args.state)})`);
  const actions = parseActions(args.actions);
  if (!nonEmptyString(args.artifact_path)) {
    throw new ToolInputError(`artifact_path must be a non-empty string under evidence/ (got ${describeValue(args.artifact_path)})`);
  }
  if (args.overwrite !== undefined && typeof args.overwrite !== 'boolean') {
    throw new ToolInputError(`overwrite must be a boolean (got ${describeValue(args.overwrite)})`);
  }
  return {
    url,
    type: args.type.trim() as CaptureType,
    state: args.state.trim(),
    actions,
    artifactPath: args.artifact_path.trim(),
    overwrite: args.overwrite === true,
  };
}

export const captureInputSchema = z
  .object({
    schemaVersion: contractInputShape.schemaVersion,
    url: z.string().min(1).describe(`page to capture: ${URL_SCHEMES.join(', ')}`),
    type: z.enum(CAPTURE_TYPES).describe('screenshot (full-page PNG + .probe.json sidecar), a11y tree (aria snapshot JSON), interaction trace (Playwright trace .zip)'),
    state: z.string().min(1).describe('the expected UI state: intent only, never reported back as observed'),
    actions: z.array(actionInputSchema).optional().describe('run in order after navigation, before capture'),
    artifact_path: z.string().min(1).describe('run-root-relative path under evidence/, e.g. evidence/L6.3-error.png'),
    overwrite: z.boolean().optional().describe('replace an existing artifact (default false: refuse)'),
    viewport: contractInputShape.viewport,
    freeze: contractInputShape.freeze,
    run_root: z
      .string()
      .optional()
      .describe('absolute run folder holding plan.md or point-back.md; binds this call only (outranks DESIGN_PLAYBOOK_RUN_ROOT)'),
    design: contractInputShape.design,
  })
  .strict();
