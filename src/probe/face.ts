/**
 * The `renderTokens` face (the seed's word for the sidecar's render-token
 * part): its zod schema (for the sidecar) and the types derived from it, the
 * faces for a probe that did not measure, and READING_ORDER, the one
 * wording of how to read it. A face that did not measure, or an axis that
 * was not declared, is always named in `undecidable`, so an empty
 * `findings` list cannot pass for conformance.
 */
import { z } from 'zod';
import { DESIGN_AXES, type DesignAxis, type DesignDeclaration } from '../contract/designBinding';
import { classifyLiteral } from './literals';

export const FINDING_RULES = ['font-size-off-scale', 'color-off-palette', 'radius-off-scale', 'concentric-radius'] as const;
export type FindingRule = (typeof FINDING_RULES)[number];

/**
 * Why an entry is undecidable:
 * - `unbound`: no design declaration was bound to the capture;
 * - `axis-omitted`: the declaration leaves this axis out;
 * - `no-comparable-literal`: the axis is declared but none of its literals is comparable;
 * - `literal`: this declared literal (at `index`) cannot be compared;
 * - `rendered-value`: a rendered value (`value`, on `count` elements) cannot be compared;
 * - `unmeasured`: the probe did not measure the page (see measurement_status/error).
 */
export const UNDECIDABLE_KINDS = ['unbound', 'axis-omitted', 'no-comparable-literal', 'literal', 'rendered-value', 'unmeasured'] as const;
export type UndecidableKind = (typeof UNDECIDABLE_KINDS)[number];

const xy = z.object({ x: z.number(), y: z.number() });
const boxSchema = z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() });
const sampleSchema = z.object({ selector: z.string(), box: boxSchema });
const axisSchema = z.enum(DESIGN_AXES);

const cornerRelationSchema = z.object({
  corner: z.enum(['top-left', 'top-right', 'bottom-right', 'bottom-left']),
  /** Used outer radius (px), horizontal and vertical. */
  outer: xy,
  /** Distance between the outer and inner border-box edges at that corner (px). */
  inset: xy,
  /** Concentric inner radius: max(0, outer - inset). */
  expected: xy,
  /** Used inner radius (px). */
  actual: xy,
});

export const findingSchema = z
  .object({
    axis: axisSchema,
    rule: z.enum(FINDING_RULES),
    /** As the browser serialized it ("13px", "rgb(1, 2, 3)", "10px 5px"). */
    value: z.string().describe('The rendered value as the browser serialized it.'),
    count: z.number().int().describe('How many rendered elements carry the value (1 for a concentric pair).'),
    /** In document order. */
    samples: z.array(sampleSchema).describe('A few elements carrying it; for concentric-radius [inner, outer].'),
    /** color-off-palette: which properties painted it. */
    properties: z.array(z.string()).optional(),
    /** concentric-radius: the inner and outer box of the pair. */
    inner: sampleSchema.optional(),
    outer: sampleSchema.optional(),
    /** concentric-radius: the corners that break the relation. */
    corners: z.array(cornerRelationSchema).optional(),
  })
  .describe('A rendered value that breaks a rule.');

export const undecidableSchema = z
  .object({
    axis: axisSchema,
    kind: z.enum(UNDECIDABLE_KINDS),
    /** Non-finite numbers appear as "NaN"/"Infinity". */
    literal: z.unknown().describe('The declared literal as written (kind literal), else null.'),
    /** Position of the literal in its axis array (kind `literal`). */
    index: z.number().int().optional(),
    /** The rendered value (kind `rendered-value`). */
    value: z.string().optional(),
    /** Elements carrying the rendered value (kind `rendered-value`). */
    count: z.number().int().optional(),
    reason: z.string(),
  })
  .describe('A comparison or literal that could not be decided, and why.');

export const MEASUREMENT_STATUSES = ['measured', 'unmeasured', 'failed'] as const;

/**
 * How to read a screenshot's sidecar, worded once: the tool's description,
 * its output schema, this face's schema and the demo put a verb before it
 * ("read …"), so a reader meets the same order everywhere.
 */
export const READING_ORDER =
  "renderTokens.measurement_status first ('unmeasured' means blocked, not clean; 'failed' carries measurement_error), " +
  'then renderTokens.undecidable (what could not be compared, and why), and only then findings; ' +
  'an empty findings list is never conformance on its own.';

export const renderTokensFaceSchema = z
  .object({
    measurement_status: z.enum(MEASUREMENT_STATUSES).describe('Read first: measured = the computed-style walker ran on the rendered page.'),
    measurement_error: z.string().describe('Why the probe did not measure; "" when measured.'),
    findings: z.array(findingSchema).describe('Read last: empty findings alone never mean conformance.'),
    undecidable: z.array(undecidableSchema).describe('Read before findings: what was not measured or not comparable.'),
    distinctFontSizes: z.array(z.number()).describe('Sorted distinct rendered text sizes in px (facts).'),
  })
  .describe(`Render-token probe face (the sidecar's renderTokens). Read ${READING_ORDER}`);

// The face's types, from its schemas.
export type Box = z.infer<typeof boxSchema>;
export type Sample = z.infer<typeof sampleSchema>;
export type CornerRelation = z.infer<typeof cornerRelationSchema>;
export type Finding = z.infer<typeof findingSchema>;
export type Undecidable = z.infer<typeof undecidableSchema>;
export type MeasurementStatus = (typeof MEASUREMENT_STATUSES)[number];
export type RenderTokensFace = z.infer<typeof renderTokensFaceSchema>;

/** Literal JSON cannot carry (NaN, ±Infinity) is reported by its JS spelling. */
function literalAsWritten(literal: unknown): unknown {
  if (typeof literal === 'number' && !Number.isFinite(literal)) return Number.isNaN(literal) ? 'NaN' : String(literal);
  return literal === undefined ? null : literal;
}

const AXIS_COMPARISON: Record<DesignAxis, string> = {
  fontSizes: 'type-scale comparison',
  colors: 'palette comparison',
  radii: 'radius-scale comparison',
};

/**
 * The declaration-side undecidable entries: per axis, why the declared
 * comparison cannot run (unbound, omitted, nothing comparable) and every
 * literal that cannot be compared. Needs no browser, so faces that did not
 * measure carry them too. Returns the comparable keys per axis.
 */
export function readDeclaration(design: DesignDeclaration | undefined): {
  undecidable: Undecidable[];
  comparable: Record<DesignAxis, Set<string> | null>;
} {
  const undecidable: Undecidable[] = [];
  const comparable = { fontSizes: null, colors: null, radii: null } as Record<DesignAxis, Set<string> | null>;
  for (const axis of DESIGN_AXES) {
    if (design === undefined) {
      undecidable.push({
        axis,
        kind: 'unbound',
        literal: null,
        reason: `no design declaration bound to this capture: the ${AXIS_COMPARISON[axis]} is not decidable without design.${axis}`,
      });
      continue;
    }
    const literals = (design as Record<string, unknown>)[axis];
    if (!Array.isArray(literals)) {
      undecidable.push({
        axis,
        kind: 'axis-omitted',
        literal: null,
        reason: `design.${axis} was not declared: the ${AXIS_COMPARISON[axis]} did not run`,
      });
      continue;
    }
    const keys = new Set<string>();
    literals.forEach((literal, index) => {
      const reading = classifyLiteral(axis, literal);
      if (reading.comparable) keys.add(reading.key);
      else undecidable.push({ axis, kind: 'literal', literal: literalAsWritten(literal), index, reason: reading.reason });
    });
    if (keys.size === 0) {
      undecidable.push({
        axis,
        kind: 'no-comparable-literal',
        literal: null,
        reason: `design.${axis} declares no comparable literal (${literals.length === 0 ? 'empty array' : 'every literal is undecidable'}): the ${AXIS_COMPARISON[axis]} did not run`,
      });
    } else {
      comparable[axis] = keys;
    }
  }
  return { undecidable, comparable };
}

/**
 * A face for a probe that did not measure the page: every axis is named
 * undecidable (with the declaration's own undecidable literals), findings are
 * empty and the status says why — never `measured` with empty findings.
 */
export function unmeasuredFace(status: 'unmeasured' | 'failed', error: string, design: DesignDeclaration | undefined): RenderTokensFace {
  const declared = readDeclaration(design);
  const reason = `the render-token probe did not measure this capture (${status}: ${error}); no rendered value was compared`;
  const perAxis: Undecidable[] = DESIGN_AXES.map((axis) => ({
    axis,
    kind: 'unmeasured',
    literal: null,
    reason: axis === 'radii' ? `${reason}, including the concentric-radius relations` : reason,
  }));
  return {
    measurement_status: status,
    measurement_error: error,
    findings: [],
    undecidable: [...perAxis, ...declared.undecidable],
    distinctFontSizes: [],
  };
}
