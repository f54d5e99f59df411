/**
 * The execute_capture_plan tool declaration: input and output JSON Schemas
 * generated from the zod schemas that sit beside the parsers, plus
 * annotations that tell the truth about what a call does.
 *
 * The generated schemas are rewritten into the portable spelling clients
 * that map tool schemas onto narrower dialects expect (what the MCP
 * Inspector's `--strict` check asks): no `type` arrays and no schema that
 * constrains nothing. Each rewrite accepts exactly what zod's spelling did.
 */
import { z } from 'zod';
import { captureInputSchema } from './toolArguments';
import { captureResultSchema } from './result';
import { sessionRequestSnapshotSchema } from './captureContract';
import { SESSION_ARGUMENT, sessionArgumentSchema } from './sessions';
import type { ToolDeclaration } from './captureProvider';
import { READING_ORDER } from '../probe/face';
import { SECRET_FIELD_SCHEMA } from './actions';

export const TOOL_NAME = 'execute_capture_plan';
export const SERVER_NAME = 'design-playbook-evidence';
/** The opt-in second tool (src/compare/tool.ts), named here so the server knows it without loading the comparison. */
export const COMPARE_TOOL_NAME = 'compare_evidence';

type JsonSchemaNode = Record<string, unknown>;

/** Keywords whose value is one subschema, a list of them, or a name -> subschema map. */
const ONE_SUBSCHEMA = ['items', 'additionalProperties', 'unevaluatedProperties', 'contains', 'not', 'propertyNames', 'if', 'then', 'else'];
const SUBSCHEMA_LISTS = ['anyOf', 'allOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs'];
/** Positions where `true` is the ordinary spelling of "anything else is allowed". */
const BOOLEAN_POSITIONS = new Set(['additionalProperties', 'unevaluatedProperties']);

/** Keywords that restrict what a value may be; a node with none of them accepts anything. */
const CONSTRAINING = new Set([
  'type',
  'enum',
  'const',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'format',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxContains',
  'minContains',
  'maxProperties',
  'minProperties',
  'required',
  'dependentRequired',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'items',
  'prefixItems',
  'contains',
  'properties',
  'patternProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'dependentSchemas',
  '$ref',
]);

/** "Any JSON value", spelled with a single `type` per branch. */
const ANY_JSON_VALUE = ['null', 'boolean', 'number', 'string', 'array', 'object'].map((type) => ({ type }));

function isNode(value: unknown): value is JsonSchemaNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One subschema in portable form; `position` is the keyword it sits under. */
function portable(node: unknown, position?: string): unknown {
  if (!isNode(node)) return node;
  const out: JsonSchemaNode = {};
  for (const [key, value] of Object.entries(node)) {
    if (ONE_SUBSCHEMA.includes(key)) out[key] = portable(value, key);
    else if (SUBSCHEMA_LISTS.includes(key) && Array.isArray(value)) out[key] = value.map((v) => portable(v, key));
    else if (SUBSCHEMA_MAPS.includes(key) && isNode(value)) out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, portable(v, key)]));
    else out[key] = value;
  }
  if (Array.isArray(out.type)) {
    // `type: [a, b]` -> `anyOf` of single types; keywords for one type (minimum, pattern) stay beside it and still apply only to it.
    const branches = out.type.map((type) => ({ type }));
    delete out.type;
    if (out.anyOf === undefined) out.anyOf = branches;
    else out.allOf = [...((out.allOf as unknown[]) ?? []), { anyOf: branches }];
  }
  if (!Object.keys(out).some((key) => CONSTRAINING.has(key))) {
    // `{}` accepts anything: under additionalProperties that is `true`; elsewhere say "any JSON value" branch by branch.
    if (position !== undefined && BOOLEAN_POSITIONS.has(position) && Object.keys(out).length === 0) return true;
    if (position !== 'not') out.anyOf = ANY_JSON_VALUE;
  }
  return out;
}

export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): { type: 'object'; [key: string]: unknown } {
  const json = z.toJSONSchema(schema, { io, target: 'draft-2020-12' }) as JsonSchemaNode;
  delete json.$schema;
  return portable(json) as { type: 'object'; [key: string]: unknown };
}

/** What the configuration turns on in the declaration: the `session` argument (a sessions folder is configured), the actions' `secret` (a secrets file is). */
export interface DeclarationOptions {
  sessions?: boolean;
  secrets?: boolean;
}

/** The input and output schemas with `session` offered: the argument, and its echo in `request`. */
function sessionSchemas(): Pick<ToolDeclaration, 'inputSchema' | 'outputSchema'> {
  const input = captureInputSchema.extend({ [SESSION_ARGUMENT]: sessionArgumentSchema.optional() }).strict();
  const request = captureResultSchema.shape.request;
  const output = captureResultSchema.extend({ request: sessionRequestSnapshotSchema.optional().describe(request.description ?? '') });
  return { inputSchema: toJsonSchema(input, 'input'), outputSchema: toJsonSchema(output, 'output') };
}

/** The tool's declaration; without options exactly the original's (tools/list byte-identical). */
export function captureToolDeclaration(options: DeclarationOptions = {}): ToolDeclaration {
  return withDeclarationOptions(baseDeclaration(), options);
}

/** `declaration` (any provider's) with the schemas the options turn on. */
export function withDeclarationOptions(declaration: ToolDeclaration, options: DeclarationOptions): ToolDeclaration {
  const withSessions = options.sessions ? { ...declaration, ...sessionSchemas() } : declaration;
  return options.secrets ? withSecretField(withSessions) : withSessions;
}

function baseDeclaration(): ToolDeclaration {
  return {
    name: TOOL_NAME,
    title: 'Execute capture plan',
    description:
      'Capture evidence for one UI acceptance criterion: navigate to url, run actions, freeze, then write exactly one artifact under ' +
      '<run root>/evidence/: a full-page PNG plus <stem>.probe.json render-token sidecar (screenshot), ' +
      '{"format":"aria_snapshot","tree":...} JSON (a11y tree), or a Playwright trace .zip (interaction trace). ' +
      'Never writes manifest.jsonl and never judges: result says whether the capture happened; observed_state comes from the page data-state. ' +
      'Refuses to replace an existing artifact unless overwrite=true. ' +
      `In a screenshot sidecar read ${READING_ORDER} ` +
      'A captured result also links each written file (resource_link, file:// URI).',
    inputSchema: toJsonSchema(captureInputSchema, 'input'),
    outputSchema: toJsonSchema(captureResultSchema, 'output'),
    annotations: {
      title: 'Execute capture plan',
      readOnlyHint: false, // writes one new artifact file
      destructiveHint: true, // overwrite=true replaces an existing artifact (without it an existing file is refused)
      idempotentHint: false, // a repeat call without overwrite is refused
      openWorldHint: true, // loads the page and whatever it fetches
    },
  };
}

/**
 * The declaration with the actions' `secret` field, for a server started
 * with a secrets file: only then can a call use it, so only then does the
 * schema show it (without one, tools/list stays the original's, byte for byte).
 */
export function withSecretField(declaration: ToolDeclaration): ToolDeclaration {
  const copy = JSON.parse(JSON.stringify(declaration)) as ToolDeclaration;
  const actions = (copy.inputSchema.properties as Record<string, JsonSchemaNode> | undefined)?.actions;
  const items = actions && isNode(actions.items) ? actions.items : undefined;
  if (!items || !isNode(items.properties)) return declaration;
  const field = toJsonSchema(z.object({ secret: SECRET_FIELD_SCHEMA }), 'input').properties as Record<string, unknown>;
  const properties: JsonSchemaNode = {};
  // Beside the value it stands in for.
  for (const [name, schema] of Object.entries(items.properties)) {
    properties[name] = schema;
    if (name === 'text') properties.secret = field.secret;
  }
  properties.secret ??= field.secret;
  items.properties = properties;
  return copy;
}
