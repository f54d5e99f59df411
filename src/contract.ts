/**
 * Capture contract v1: the one owner of schemaVersion, viewport and freeze.
 *
 * Three faces derive from the constants below so they cannot drift:
 * - the normalizing parser (write side) that turns tool arguments into the
 *   request echo, with the exact error wording callers match on;
 * - the snapshot validator (read side) that reports a fact code for a request
 *   snapshot found in a manifest line, without throwing;
 * - the zod schemas used by the tool's input/output schema and by the
 *   generated manifest JSON Schema.
 */
import { z } from 'zod';
import { checkDesignDeclaration, designInputSchema, designRecordSchema, type DesignDeclaration } from './design';

export const CAPTURE_SCHEMA_VERSION = 1 as const;
export const COLOR_SCHEMES = ['light', 'dark', 'no-preference'] as const;
export type ColorScheme = (typeof COLOR_SCHEMES)[number];
export const VIEWPORT_KEYS = ['width', 'height', 'devicePixelRatio', 'colorScheme'] as const;
export const MIN_DEVICE_PIXEL_RATIO = 0.1;
export const FREEZE_DEFAULTS = { enabled: true, waitFonts: true, networkIdle: false } as const;
export const FREEZE_KEYS = Object.keys(FREEZE_DEFAULTS) as (keyof typeof FREEZE_DEFAULTS)[];

export interface Viewport {
  width: number;
  height: number;
  devicePixelRatio: number;
  colorScheme: ColorScheme;
}
export type Freeze = { -readonly [K in keyof typeof FREEZE_DEFAULTS]: boolean };

/** The normalized contract echo carried in results and manifest lines. */
export interface CaptureRequestSnapshot {
  schemaVersion: typeof CAPTURE_SCHEMA_VERSION;
  viewport: Viewport;
  freeze: Freeze;
  design?: DesignDeclaration;
}

export type ContractParse = { ok: true; request: CaptureRequestSnapshot } | { ok: false; error: string };

const RECAPTURE_HINT = `recapture with capture contract schemaVersion=${CAPTURE_SCHEMA_VERSION}`;

/** Python-repr-like rendering of a caller's value inside an error message. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  if (value === undefined) return 'nothing';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1;
}

function isDevicePixelRatio(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= MIN_DEVICE_PIXEL_RATIO;
}

function colorSchemeList(): string {
  return '[' + COLOR_SCHEMES.map((s) => `'${s}'`).join(', ') + ']';
}

function unknownKeys(value: Record<string, unknown>, allowed: readonly string[]): string[] {
  return Object.keys(value).filter((k) => !allowed.includes(k));
}

function parseViewport(value: unknown): { ok: true; viewport: Viewport } | { ok: false; error: string } {
  if (!isPlainObject(value)) {
    return {
      ok: false,
      error: `viewport object is required for schemaVersion=${CAPTURE_SCHEMA_VERSION}; ${RECAPTURE_HINT} and viewport {width, height, devicePixelRatio, colorScheme}`,
    };
  }
  const extra = unknownKeys(value, VIEWPORT_KEYS);
  if (extra.length) {
    return { ok: false, error: `viewport has unknown keys ${extra.map((k) => `'${k}'`).join(', ')}; allowed keys are ${VIEWPORT_KEYS.join(', ')}` };
  }
  for (const key of ['width', 'height'] as const) {
    if (!isPositiveInteger(value[key])) {
      return { ok: false, error: `viewport.${key} must be a positive integer (got ${describeValue(value[key])})` };
    }
  }
  if (!isDevicePixelRatio(value.devicePixelRatio)) {
    return {
      ok: false,
      error: `viewport.devicePixelRatio must be a number greater than or equal to ${MIN_DEVICE_PIXEL_RATIO} (got ${describeValue(value.devicePixelRatio)})`,
    };
  }
  if (!COLOR_SCHEMES.includes(value.colorScheme as ColorScheme)) {
    return { ok: false, error: `viewport.colorScheme must be one of ${colorSchemeList()} (got ${describeValue(value.colorScheme)})` };
  }
  return {
    ok: true,
    viewport: {
      width: value.width as number,
      height: value.height as number,
      devicePixelRatio: value.devicePixelRatio as number,
      colorScheme: value.colorScheme as ColorScheme,
    },
  };
}

function parseFreeze(value: unknown): { ok: true; freeze: Freeze } | { ok: false; error: string } {
  if (value === undefined) return { ok: true, freeze: { ...FREEZE_DEFAULTS } };
  if (!isPlainObject(value)) return { ok: false, error: `freeze must be an object when provided (got ${describeValue(value)})` };
  const extra = unknownKeys(value, FREEZE_KEYS);
  if (extra.length) {
    return { ok: false, error: `freeze has unknown keys ${extra.map((k) => `'${k}'`).join(', ')}; allowed keys are ${FREEZE_KEYS.join(', ')}` };
  }
  const freeze = { ...FREEZE_DEFAULTS } as Freeze;
  for (const key of FREEZE_KEYS) {
    if (value[key] === undefined) continue;
    if (typeof value[key] !== 'boolean') return { ok: false, error: `freeze.${key} must be a boolean (got ${describeValue(value[key])})` };
    freeze[key] = value[key] as boolean;
  }
  return { ok: true, freeze };
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
  // typeof check first: `true == 1` must not pass.
  if (typeof version !== 'number' || version !== CAPTURE_SCHEMA_VERSION) {
    return { ok: false, error: `unsupported capture schemaVersion ${describeValue(version)}; ${RECAPTURE_HINT}` };
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
  if (typeof snapshot.schemaVersion !== 'number' || snapshot.schemaVersion !== CAPTURE_SCHEMA_VERSION) {
    return 'unsupported_schema_version';
  }
  const viewport = snapshot.viewport;
  if (viewport === undefined || viewport === null) return 'missing_viewport';
  if (
    !isPlainObject(viewport) ||
    unknownKeys(viewport, VIEWPORT_KEYS).length > 0 ||
    !isPositiveInteger(viewport.width) ||
    !isPositiveInteger(viewport.height) ||
    !isDevicePixelRatio(viewport.devicePixelRatio) ||
    !COLOR_SCHEMES.includes(viewport.colorScheme as ColorScheme)
  ) {
    return 'bad_viewport_shape';
  }
  const freeze = snapshot.freeze;
  if (freeze === undefined || freeze === null) return 'missing_freeze';
  if (!isPlainObject(freeze) || unknownKeys(freeze, FREEZE_KEYS).length > 0 || FREEZE_KEYS.some((k) => typeof freeze[k] !== 'boolean')) {
    return 'bad_freeze_shape';
  }
  return null;
}

// ---------------------------------------------------------------------------
// Schema faces, built from the same constants as the parser above.

export const viewportInputSchema = z
  .object({
    width: z.number().int().min(1).describe('CSS pixels, integer >= 1'),
    height: z.number().int().min(1).describe('CSS pixels, integer >= 1'),
    devicePixelRatio: z.number().min(MIN_DEVICE_PIXEL_RATIO).describe(`finite number >= ${MIN_DEVICE_PIXEL_RATIO}`),
    colorScheme: z.enum(COLOR_SCHEMES).describe('emulated prefers-color-scheme'),
  })
  .strict();

export const freezeInputSchema = z
  .object({
    enabled: z.boolean().optional().describe(`disable animations, transitions and the caret (default ${FREEZE_DEFAULTS.enabled})`),
    waitFonts: z.boolean().optional().describe(`wait for document.fonts.ready (default ${FREEZE_DEFAULTS.waitFonts})`),
    networkIdle: z.boolean().optional().describe(`wait for network idle (default ${FREEZE_DEFAULTS.networkIdle})`),
  })
  .strict();

/** A complete, normalized freeze as recorded in the request echo. */
export const freezeSnapshotSchema = z
  .object(Object.fromEntries(FREEZE_KEYS.map((k) => [k, z.boolean()])) as Record<keyof Freeze, z.ZodBoolean>)
  .strict();

/** The request echo (result `request`, manifest request snapshot). */
export const requestSnapshotSchema = z
  .object({
    schemaVersion: z.literal(CAPTURE_SCHEMA_VERSION),
    viewport: viewportInputSchema,
    freeze: freezeSnapshotSchema,
    // Recorded as the caller sent it: items the probe reports undecidable are kept too.
    design: designRecordSchema.optional(),
  })
  .strict();

export const contractInputShape = {
  schemaVersion: z.literal(CAPTURE_SCHEMA_VERSION).describe(`capture contract version; must be the integer ${CAPTURE_SCHEMA_VERSION}`),
  viewport: viewportInputSchema.describe('emulated viewport; all four keys required, no others'),
  freeze: freezeInputSchema.optional().describe('stabilize the page before capture; omitted keys take their defaults'),
  design: designInputSchema.optional(),
};
