/**
 * The tool's argument list and the runtime fields (url, type, state, actions,
 * artifact_path, overwrite). Owns which fields exist, their refusal wording,
 * and the zod input schema advertised for them.
 */
import { pathToFileURL } from 'url';
import { z } from 'zod';
import { ToolInputError } from '../common/errors';
import { contractInputShape } from './captureContract';
import { describeValue, nonEmptyString } from './argumentValues';
import { actionInputSchema, parseActions, type CaptureAction } from './actions';
import { CAPTURE_TYPES, CAPTURE_TYPE_SPECS, type CaptureType } from './captureTypes';

/** An existing artifact is refused unless the caller opts in. */
export const OVERWRITE_DEFAULT = false;

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

/**
 * The runtime fields, normalized (trimmed, actions parsed, the default
 * filled in). A provider reads them as `context.fields` (public:
 * docs/providers.md), which is why `artifact_path` is spelled
 * `artifactPath` here, as providers written against it expect; on the wire
 * and in every result it is `artifact_path`.
 */
export interface RuntimeFields {
  url: string;
  type: CaptureType;
  state: string;
  actions: CaptureAction[];
  artifactPath: string;
  overwrite: boolean;
}

/**
 * Every field the caller sent must be a Runtime Object field, or one of
 * `offered` (a field the configuration turns on, as `session` with a
 * sessions folder): the refusal naming the others, or null.
 */
export function checkUnknownFields(args: Record<string, unknown>, offered: readonly string[] = []): string | null {
  const known: readonly string[] = [...RUNTIME_OBJECT_FIELDS, ...offered];
  const unknown = Object.keys(args).filter((k) => !known.includes(k));
  if (!unknown.length) return null;
  return `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `'${k}'`).join(', ')}: provider accepts Runtime Object fields only (${known.join(', ')})`;
}

/** A regular expression source matching `text` in any letter case (JSON Schema patterns take no flags). */
function anyCase(text: string): string {
  return [...text]
    .map((c) => (c.toLowerCase() !== c.toUpperCase() ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')))
    .join('');
}

/** Not only whitespace (the parsers trim). */
const SOMETHING = /\S/;
const URL_PATTERN = new RegExp(`^\\s*(?:${URL_SCHEMES.map(anyCase).join('|')})`);

/** What to send instead of a url with no scheme the browser captures from: the same address spelled with one, or how to serve it. */
function urlFix(url: string): string {
  if (url.startsWith('/')) return `a local file is captured as file://, e.g. ${describeValue(pathToFileURL(url).href)}`;
  if (/^[\w.-]+(:\d+)?([/?#]|$)/.test(url) && !/^[a-z][a-z0-9+.-]*:[^\d]/i.test(url)) return `write the scheme, e.g. ${describeValue(`http://${url}`)}`;
  return 'serve the page over http:// or https:// (a local server on 127.0.0.1 will do), or capture a local file as file://';
}

function refuse(message: string): never {
  throw new ToolInputError(message);
}

/**
 * One row per runtime field, in the order the parser checks them: how the
 * value is read (throwing the contract's wording) and the schema advertised
 * for it. The parser and the tool's input schema both read this table.
 */
const RUNTIME_FIELD_RULES = {
  url: {
    read(value: unknown): string {
      if (!nonEmptyString(value)) refuse(`url must be a non-empty string (got ${describeValue(value)})`);
      const url = value.trim();
      if (!URL_PATTERN.test(url)) refuse(`url must start with http://, https://, file:// or about: (got ${describeValue(url)}); ${urlFix(url)}`);
      return url;
    },
    schema: z
      .string()
      .regex(SOMETHING)
      .regex(URL_PATTERN)
      .describe(`page to capture: ${URL_SCHEMES.join(', ')}`),
  },
  type: {
    read(value: unknown): CaptureType {
      const type = typeof value === 'string' ? value.trim() : '';
      if (!(CAPTURE_TYPES as readonly string[]).includes(type)) {
        refuse(`type must be one of ${CAPTURE_TYPES.map((t) => `'${t}'`).join(', ')} (got ${describeValue(value)})`);
      }
      return type as CaptureType;
    },
    // The canonical spellings; the parser also forgives surrounding whitespace.
    schema: z.enum(CAPTURE_TYPES).describe(CAPTURE_TYPES.map((type) => `${type} (${CAPTURE_TYPE_SPECS[type].writes})`).join(', ')),
  },
  state: {
    read(value: unknown): string {
      if (!nonEmptyString(value)) refuse(`state must be a non-empty string (got ${describeValue(value)})`);
      return value.trim();
    },
    schema: z.string().regex(SOMETHING).describe('the expected UI state: intent only, never reported back as observed'),
  },
  actions: {
    read: parseActions,
    schema: z.array(actionInputSchema).optional().describe('run in order after navigation, before capture'),
  },
  artifact_path: {
    read(value: unknown): string {
      if (!nonEmptyString(value)) refuse(`artifact_path must be a non-empty string under evidence/ (got ${describeValue(value)})`);
      return value.trim();
    },
    schema: z.string().regex(SOMETHING).describe('run-root-relative path under evidence/, e.g. evidence/L6.3-error.png'),
  },
  overwrite: {
    read(value: unknown): boolean {
      if (value !== undefined && typeof value !== 'boolean') refuse(`overwrite must be a boolean (got ${describeValue(value)})`);
      return value ?? OVERWRITE_DEFAULT;
    },
    // `.default` only for the schema's `default` keyword: read() above fills it in.
    schema: z.boolean().default(OVERWRITE_DEFAULT).describe(`replace an existing artifact (default ${OVERWRITE_DEFAULT}: refuse)`),
  },
};

export type RuntimeFieldsParse = { ok: true; fields: RuntimeFields } | { ok: false; error: string };

/** The runtime fields, after the contract passed: normalized, or the first rule broken (in the table's order). */
export function parseRuntimeFields(args: Record<string, unknown>): RuntimeFieldsParse {
  const rules = RUNTIME_FIELD_RULES;
  try {
    const url = rules.url.read(args.url);
    const type = rules.type.read(args.type);
    const state = rules.state.read(args.state);
    const actions = rules.actions.read(args.actions);
    const artifactPath = rules.artifact_path.read(args.artifact_path);
    const overwrite = rules.overwrite.read(args.overwrite);
    return { ok: true, fields: { url, type, state, actions, artifactPath, overwrite } };
  } catch (err) {
    // The rules (and the action vocabulary) word a refusal as a ToolInputError; here it becomes data.
    if (err instanceof ToolInputError) return { ok: false, error: err.message };
    throw err;
  }
}

export const captureInputSchema = z
  .object({
    schemaVersion: contractInputShape.schemaVersion,
    url: RUNTIME_FIELD_RULES.url.schema,
    type: RUNTIME_FIELD_RULES.type.schema,
    state: RUNTIME_FIELD_RULES.state.schema,
    actions: RUNTIME_FIELD_RULES.actions.schema,
    artifact_path: RUNTIME_FIELD_RULES.artifact_path.schema,
    overwrite: RUNTIME_FIELD_RULES.overwrite.schema,
    viewport: contractInputShape.viewport,
    freeze: contractInputShape.freeze,
    run_root: z.string().optional().describe('absolute run folder holding plan.md or point-back.md; binds this call only (outranks DESIGN_PLAYBOOK_RUN_ROOT)'),
    design: contractInputShape.design,
  })
  .strict();
