/**
 * The declared design binding (`design`) at the contract boundary.
 *
 * The boundary validates only the declaration's SHAPE: an object whose keys are
 * among DESIGN_AXES, each an array. Items inside the arrays are never rejected
 * or rewritten here — whether a literal is comparable is the probe's question
 * (src/probe/literals.ts), and an unreadable literal is reported there as
 * `undecidable`, never dropped. The validated declaration is the caller's own
 * object, so echoing it into the result's `request` and the sidecar keeps the
 * caller's key order and literals byte-for-byte.
 */
import { z } from 'zod';
import { isPlainObject } from './argumentValues';

/** The only axes a declaration may bind, in the order the probe reports them. */
export const DESIGN_AXES = ['fontSizes', 'colors', 'radii'] as const;
export type DesignAxis = (typeof DESIGN_AXES)[number];

export type DesignCheck = { ok: true; design: DesignDeclaration } | { ok: false; error: string };

/** JSON-flavoured name of a value's type for error messages. */
function jsonTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

const ALLOWED_AXES_TEXT = DESIGN_AXES.join(', ');

/**
 * Validates the shape of `design` (call only when the key is present). A
 * malformed declaration fails the capture closed before the browser starts;
 * the caller turns `error` into a failed result. On success `design` is the
 * very object passed in.
 */
export function checkDesignDeclaration(value: unknown): DesignCheck {
  if (!isPlainObject(value)) {
    return { ok: false, error: `design must be an object when provided (got ${jsonTypeName(value)})` };
  }
  const keys = Object.keys(value);
  const unknown = keys.filter((key) => !(DESIGN_AXES as readonly string[]).includes(key));
  if (unknown.length > 0) {
    const names = unknown.map((key) => `'${key}'`).join(', ');
    const noun = unknown.length === 1 ? 'axis' : 'axes';
    return { ok: false, error: `design: unknown ${noun} ${names}; allowed axes are ${ALLOWED_AXES_TEXT}` };
  }
  for (const key of keys) {
    const axisValue = value[key];
    if (!Array.isArray(axisValue)) {
      return {
        ok: false,
        error: `design.${key} must be an array of literals (got ${jsonTypeName(axisValue)})`,
      };
    }
  }
  return { ok: true, design: value as DesignDeclaration };
}

/**
 * A declaration as the boundary holds it (from designRecordSchema): the
 * known axes, each an array of literals exactly as the caller wrote them.
 * The contract asks for numbers or strings (designInputSchema); other JSON
 * values (`true`, `null`) may still arrive inside an array and are kept as
 * given — the probe reports them undecidable.
 */
export type DesignDeclaration = z.infer<typeof designRecordSchema>;

const AXIS_DESCRIPTIONS: Record<DesignAxis, string> = {
  fontSizes:
    'Declared type scale: px font sizes as finite numbers (16) or "16px" strings. A literal that is not a complete CSS number + px (e.g. "1rem", "var(--x)", "16 px") is reported undecidable by the probe, not rejected.',
  colors:
    'Declared palette: opaque hex ("#0b6bcb") or rgb() ("rgb(11 107 203)") literals. Translucent, named or other colour literals are reported undecidable by the probe, not rejected.',
  radii: 'Declared radius scale: px corner radii as finite numbers (8) or "8px" strings. Non-px literals are reported undecidable by the probe, not rejected.',
};

const literalSchema = z.union([z.number(), z.string()]);

/**
 * Input-schema description of `design` for the tool declaration, built from
 * DESIGN_AXES so the schema and checkDesignDeclaration cannot drift apart.
 */
export const designInputSchema = z
  .strictObject(
    Object.fromEntries(DESIGN_AXES.map((axis) => [axis, z.array(literalSchema).optional().describe(AXIS_DESCRIPTIONS[axis])])) as Record<
      DesignAxis,
      z.ZodOptional<z.ZodArray<typeof literalSchema>>
    >,
  )
  .describe(
    'Optional declared design binding: the token scales the page claims to use. Only the axes fontSizes, colors and radii, each an array of literals. Omit the key for an unbound capture (declared comparisons are then reported undecidable, not clean).',
  );

/**
 * The declaration as recorded (request echo, manifest request snapshot,
 * sidecar): the same axes, but items are whatever the caller sent, because the
 * boundary keeps every literal — including a `true` or `null` item the probe
 * reports undecidable, and a JSON overflow such as 1e400 that serializes back
 * as null. Validating a record with designInputSchema would reject what the
 * boundary accepted.
 */
export const designRecordSchema = z
  .strictObject(
    Object.fromEntries(
      DESIGN_AXES.map((axis) => [axis, z.array(z.unknown()).optional().describe(`design.${axis} exactly as the caller declared it`)]),
    ) as Record<DesignAxis, z.ZodOptional<z.ZodArray<z.ZodUnknown>>>,
  )
  .describe('The design declaration the capture was bound to, byte-for-byte as given.');
