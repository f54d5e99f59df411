/**
 * Capture contract v1: the one owner of schemaVersion, viewport and freeze.
 *
 * Three forms derive from the constants below so they cannot drift:
 * - the normalizing parser (write side) that turns tool arguments into the
 *   request echo, with the exact error wording callers match on;
 * - the snapshot validator (read side) that reports a fact code for a request
 *   snapshot found in a manifest line, without throwing;
 * - the zod schemas used by the tool's input/output schema and by the
 *   generated manifest JSON Schema.
 */
import { z } from 'zod';
import { describeValue, isIntegerAt, isPlainObject } from './argumentValues';
import { stringifyJson } from '../common/pythonJson';
import { checkDesignDeclaration, designInputSchema, designRecordSchema } from './designBinding';
import { sessionEchoSchema } from './sessions';

export const CAPTURE_SCHEMA_VERSION = 1 as const;
/** In the original's order (it lists them sorted), which its schema enum and refusal text follow. */
export const COLOR_SCHEMES = ['dark', 'light', 'no-preference'] as const;
export type ColorScheme = (typeof COLOR_SCHEMES)[number];
export const VIEWPORT_KEYS = ['width', 'height', 'devicePixelRatio', 'colorScheme'] as const;
export const MIN_DEVICE_PIXEL_RATIO = 0.1;
export const FREEZE_DEFAULTS = { enabled: true, waitFonts: true, networkIdle: false } as const;
export const FREEZE_KEYS = Object.keys(FREEZE_DEFAULTS) as (keyof typeof FREEZE_DEFAULTS)[];

type FreezeKey = keyof typeof FREEZE_DEFAULTS;

/** The emulated viewport (from viewportInputSchema: all four keys). */
export type Viewport = z.infer<typeof viewportInputSchema>;
/** A complete freeze, defaults filled in (from freezeSnapshotSchema). */
export type Freeze = z.infer<typeof freezeSnapshotSchema>;
/**
 * The normalized contract echo carried in results and manifest lines (from
 * requestSnapshotSchema), with the session's name when the call named one
 * (sessionRequestSnapshotSchema).
 */
export type CaptureRequestSnapshot = z.infer<typeof sessionRequestSnapshotSchema>;

export type ContractParse = { ok: true; request: CaptureRequestSnapshot } | { ok: false; error: string };

const RECAPTURE_HINT = `recapture with capture contract schemaVersion=${CAPTURE_SCHEMA_VERSION}`;

export { describeValue, isPlainObject } from './argumentValues';

/** An integer >= 1, written as one: the original (Python) refuses `800.0`. */
function isPositiveIntegerAt(holder: Record<string, unknown>, key: string): boolean {
  return isIntegerAt(holder, key) && (holder[key] as number) >= 1;
}

/**
 * The contract's integers are JSON integers; zod writes a numeric literal as
 * `type: number`, so the literal's schema says `integer` itself.
 */
function integerLiteral<N extends number>(value: N) {
  return z.literal(value).meta({ type: 'integer' });
}

function colorSchemeList(): string {
  return '[' + COLOR_SCHEMES.map((s) => `'${s}'`).join(', ') + ']';
}

function unknownKeys(value: Record<string, unknown>, allowed: readonly string[]): string[] {
  return Object.keys(value).filter((k) => !allowed.includes(k));
}

function unknownKeysError(object: string, extra: string[], allowed: readonly string[]): string {
  return `${object} has unknown keys ${extra.map((k) => `'${k}'`).join(', ')}; allowed keys are ${allowed.join(', ')}`;
}

/**
 * One row per viewport key, in the order the parser checks them: the test,
 * the rule's wording, and the zod schema. The parser, the snapshot validator
 * and the tool/manifest schemas all read this table.
 */
interface KeyRule {
  /** Whether `viewport[key]` keeps the rule (the holder, for how a number was written). */
  valid(viewport: Record<string, unknown>, key: string): boolean;
  /** Completes `viewport.<key> ...` in the parser's error. */
  must: string;
  schema: z.ZodType;
  /** The echo writes this number as a float (`1.0`), as the original's Python writer does. */
  float?: true;
}

export const VIEWPORT_RULES = {
  width: { valid: isPositiveIntegerAt, must: 'must be a positive integer', schema: z.number().int().min(1).describe('CSS pixels, integer >= 1') },
  height: { valid: isPositiveIntegerAt, must: 'must be a positive integer', schema: z.number().int().min(1).describe('CSS pixels, integer >= 1') },
  devicePixelRatio: {
    valid: (viewport, key) => {
      const v = viewport[key];
      return typeof v === 'number' && Number.isFinite(v) && v >= MIN_DEVICE_PIXEL_RATIO;
    },
    must: `must be a number greater than or equal to ${MIN_DEVICE_PIXEL_RATIO}`,
    schema: z.number().min(MIN_DEVICE_PIXEL_RATIO).describe(`finite number >= ${MIN_DEVICE_PIXEL_RATIO}`),
    float: true,
  },
  colorScheme: {
    valid: (viewport, key) => COLOR_SCHEMES.includes(viewport[key] as ColorScheme),
    must: `must be one of ${colorSchemeList()}`,
    schema: z.enum(COLOR_SCHEMES).describe('emulated prefers-color-scheme'),
  },
} satisfies Record<(typeof VIEWPORT_KEYS)[number], KeyRule>;

/** Keys the request echo writes as floats (contract-facts: `devicePixelRatio` as a float); read by stringifyJson's callers. */
export const FLOAT_KEYS: ReadonlySet<string> = new Set(
  Object.entries(VIEWPORT_RULES as Record<string, KeyRule>)
    .filter(([, rule]) => rule.float)
    .map(([key]) => key),
);

/** JSON text of anything carrying a request echo (a result, a wire message, a manifest line), floats as the original writes them. */
export function echoJson(value: unknown, space?: number): string {
  return stringifyJson(value, FLOAT_KEYS, space);
}

/** What each freeze switch does (its default comes from FREEZE_DEFAULTS); each must be a boolean. */
export const FREEZE_RULES: Record<FreezeKey, { does: string }> = {
  enabled: { does: 'disable animations, transitions and the caret, and run the page on the virtual clock' },
  waitFonts: { does: 'wait for document.fonts.ready' },
  networkIdle: { does: 'wait for network idle' },
};

/** The first viewport rule `value` breaks, as the parser words it; null when it keeps them all. */
function viewportError(value: unknown): string | null {
  if (!isPlainObject(value)) {
    return `viewport object is required for schemaVersion=${CAPTURE_SCHEMA_VERSION}; ${RECAPTURE_HINT} and viewport {width, height, devicePixelRatio, colorScheme}`;
  }
  const extra = unknownKeys(value, VIEWPORT_KEYS);
  if (extra.length) return unknownKeysError('viewport', extra, VIEWPORT_KEYS);
  for (const key of VIEWPORT_KEYS) {
    if (!VIEWPORT_RULES[key].valid(value, key)) return `viewport.${key} ${VIEWPORT_RULES[key].must} (got ${describeValue(value[key], value, key)})`;
  }
  return null;
}

/** The first freeze rule broken; `complete` (a recorded snapshot) also needs every key. */
function freezeError(value: unknown, complete: boolean): string | null {
  if (!isPlainObject(value)) return `freeze must be an object when provided (got ${describeValue(value)})`;
  const extra = unknownKeys(value, FREEZE_KEYS);
  if (extra.length) return unknownKeysError('freeze', extra, FREEZE_KEYS);
  for (const key of FREEZE_KEYS) {
    if (value[key] === undefined && !complete) continue;
    if (typeof value[key] !== 'boolean') return `freeze.${key} must be a boolean (got ${describeValue(value[key])})`;
  }
  return null;
}

function parseViewport(value: unknown): { ok: true; viewport: Viewport } | { ok: false; error: string } {
  const error = viewportError(value);
  if (error) return { ok: false, error };
  const v = value as Record<string, unknown>;
  return {
    ok: true,
    viewport: {
      width: v.width as number,
      height: v.height as number,
      devicePixelRatio: v.devicePixelRatio as number,
      colorScheme: v.colorScheme as ColorScheme,
    },
  };
}

function parseFreeze(value: unknown): { ok: true; freeze: Freeze } | { ok: false; error: string } {
  if (value === undefined) return { ok: true, freeze: { ...FREEZE_DEFAULTS } };
  const error = freezeError(value, false);
  if (error) return { ok: false, error };
  const freeze = { ...FREEZE_DEFAULTS } as Freeze;
  for (const key of FREEZE_KEYS) {
    const given = (value as Record<string, unknown>)[key];
    if (given !== undefined) freeze[key] = given as boolean;
  }
  return { ok: true, freeze };
}

/** `holder.schemaVersion` is the integer 1, written as an integer. */
function isSchemaVersion(holder: Record<string, unknown>): boolean {
  return isIntegerAt(holder, 'schemaVersion') && holder.schemaVersion === CAPTURE_SCHEMA_VERSION;
}

/**
 * Write side: schemaVersion, then viewport, then freeze, then the optional
 * design declaration. Runs before any path is resolved.
 */
export function parseCaptureContract(args: Record<string, unknown>): ContractParse {
  const version = args.schemaVersion;
  if (version === undefined || version === null) {
    return { ok: false, error: `capture contract schemaVersion is required; ${RECAPTURE_HINT}` };
  }
  // An integer written as one: neither `true` nor `1.0` is 1.
  if (!isSchemaVersion(args)) {
    return { ok: false, error: `unsupported capture schemaVersion ${describeValue(version, args, 'schemaVersion')}; ${RECAPTURE_HINT}` };
  }
  const viewport = parseViewport(args.viewport);
  if (!viewport.ok) return viewport;
  const freeze = parseFreeze(args.freeze);
  if (!freeze.ok) return freeze;
  const request: CaptureRequestSnapshot = {
    schemaVersion: CAPTURE_SCHEMA_VERSION,
    viewport: viewport.viewport,
    freeze: freeze.freeze,
  };
  if ('design' in args) {
    const design = checkDesignDeclaration(args.design);
    if (!design.ok) return { ok: false, error: design.error };
    request.design = design.design;
  }
  return { ok: true, request };
}

export const SNAPSHOT_FACTS = [
  'missing_schema_version',
  'unsupported_schema_version',
  'missing_viewport',
  'bad_viewport_shape',
  'missing_freeze',
  'bad_freeze_shape',
] as const;
export type SnapshotFact = (typeof SNAPSHOT_FACTS)[number];

/**
 * Read side: checks a request snapshot as recorded in a manifest line.
 * Returns the first fact that makes it invalid, or null when valid. A
 * recorded snapshot must be complete (full viewport, full freeze).
 */
export function validateCaptureSnapshot(snapshot: unknown): SnapshotFact | null {
  if (!isPlainObject(snapshot) || snapshot.schemaVersion === undefined || snapshot.schemaVersion === null) {
    return 'missing_schema_version';
  }
  if (!isSchemaVersion(snapshot)) {
    return 'unsupported_schema_version';
  }
  const viewport = snapshot.viewport;
  if (viewport === undefined || viewport === null) return 'missing_viewport';
  if (viewportError(viewport) !== null) return 'bad_viewport_shape';
  const freeze = snapshot.freeze;
  if (freeze === undefined || freeze === null) return 'missing_freeze';
  if (freezeError(freeze, true) !== null) return 'bad_freeze_shape';
  return null;
}

// ---------------------------------------------------------------------------
// The zod schemas, built from the same constants as the parser above.

/** `{ [key]: rules[key].schema }`, typed per key (so z.infer sees each key's type). */
function shapeOf<R extends Record<string, { schema: z.ZodType }>>(rules: R, keys: readonly (keyof R & string)[]): { [K in keyof R]: R[K]['schema'] } {
  return Object.fromEntries(keys.map((k) => [k, rules[k].schema])) as { [K in keyof R]: R[K]['schema'] };
}

export const viewportInputSchema = z.object(shapeOf(VIEWPORT_RULES, VIEWPORT_KEYS)).strict();

export const freezeInputSchema = z
  .object(
    // `.default` only for the schema's `default` keyword: the parser above fills the defaults in.
    Object.fromEntries(
      FREEZE_KEYS.map((k) => [k, z.boolean().default(FREEZE_DEFAULTS[k]).describe(`${FREEZE_RULES[k].does} (default ${FREEZE_DEFAULTS[k]})`)]),
    ) as Record<FreezeKey, z.ZodDefault<z.ZodBoolean>>,
  )
  .strict();

/** A complete, normalized freeze as recorded in the request echo. */
export const freezeSnapshotSchema = z.object(Object.fromEntries(FREEZE_KEYS.map((k) => [k, z.boolean()])) as Record<FreezeKey, z.ZodBoolean>).strict();

/** The request echo (result `request`, manifest request snapshot). */
export const requestSnapshotSchema = z
  .object({
    schemaVersion: integerLiteral(CAPTURE_SCHEMA_VERSION),
    viewport: viewportInputSchema,
    freeze: freezeSnapshotSchema,
    // Recorded as the caller sent it: items the probe reports undecidable are kept too.
    design: designRecordSchema.optional(),
  })
  .strict();

/**
 * The request echo where sessions are configured (src/contract/sessions.ts):
 * `session` names the state the capture started from. The manifest schema
 * accepts it; the tool's output schema carries it only when the `session`
 * argument is offered, so tools/list stays the original's otherwise.
 */
export const sessionRequestSnapshotSchema = requestSnapshotSchema.extend({ session: sessionEchoSchema.optional() }).strict();

export const contractInputShape = {
  schemaVersion: integerLiteral(CAPTURE_SCHEMA_VERSION).describe(`capture contract version; must be the integer ${CAPTURE_SCHEMA_VERSION}`),
  viewport: viewportInputSchema.describe('emulated viewport; all four keys required, no others'),
  freeze: freezeInputSchema.optional().describe('stabilize the page before capture; omitted keys take their defaults'),
  design: designInputSchema.optional(),
};
