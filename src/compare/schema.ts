/**
 * The comparison's result, `compare.json`: one zod schema, from which the
 * JSON Schema in schemas/ (compare_result_v1.schema.json, written by
 * scripts/generate-schemas.js), the MCP tool's outputSchema and the
 * TypeScript types all come, so they cannot drift.
 *
 * The per-type details keep the shapes of the modules that make them
 * (pixels: ./pixels/schema.ts; the aria, probe and trace diffs and the
 * attributions: their modules' types), described here as objects so that
 * a reader that knows only this schema still finds every key.
 */
import { z } from 'zod';
import { pixelComparisonSchema } from './pixels/schema';

export const COMPARE_SCHEMA_VERSION = 1 as const;
export const COMPARE_SCHEMA_FILE = 'compare_result_v1.schema.json';
export const COMPARE_SCHEMA_ID = 'urn:design-playbook-evidence:compare-result:v1';

/** What a comparison sets side by side: the capture types, and a screenshot's probe sidecar on its own. */
export const COMPARED_KINDS = ['screenshot', 'probe sidecar', 'a11y tree', 'interaction trace'] as const;
export type ComparedKind = (typeof COMPARED_KINDS)[number];

const details = (what: string) => z.record(z.string(), z.unknown()).describe(what);

export const artifactRefSchema = z.object({
  /** Relative to evidence/ when it comes from a manifest; null for a file named directly. */
  artifact: z.string().nullable(),
  path: z.string().nullable(),
  line: z.number().int().nullable().describe('The manifest line that names it; null for a file named directly.'),
  observedState: z.string().nullable(),
});
export type ArtifactRef = z.infer<typeof artifactRefSchema>;

export const compareImagesSchema = z.object({
  /** Changes over a dimmed copy of the before image, relative to the output folder. */
  diff: z.string().nullable(),
  /** Cropped before/after tiles of each changed region, relative to the output folder. */
  tiles: z.array(z.object({ region: z.number().int(), before: z.string(), after: z.string() })),
});

export const compareItemSchema = z.object({
  criterion: z.string().nullable(),
  kind: z.enum(COMPARED_KINDS),
  before: artifactRefSchema,
  after: artifactRefSchema,
  status: z.enum(['unchanged', 'changed']),
  /** One line per thing that changed, for people: `button#buy: background-color #1565c0 → #d32f2f`. */
  summary: z.array(z.string()),
  pixels: pixelComparisonSchema.optional(),
  regions: z.array(details('RegionAttribution (src/compare/attribution.ts): the region, the elements under it on each side, their changes')).optional(),
  probe: details('ProbeDiff (src/compare/probeDiff.ts): binding, measurement status, findings gained/lost/kept, distinct font sizes').nullable().optional(),
  aria: details('AriaDiff (src/compare/ariaDiff.ts): counts and entries added/removed/changed/moved, each with its ancestor path').optional(),
  trace: details('TraceDiff (src/compare/traceDiff.ts): actions paired by order and selector, messages and failed requests gained or lost').optional(),
  images: compareImagesSchema.optional(),
  /** What the comparison could not look at (a side with no probe sidecar, no element boxes). */
  notes: z.array(z.string()),
});
export type CompareItem = z.infer<typeof compareItemSchema>;

const unpairedSchema = z.object({
  criterion: z.string(),
  type: z.string(),
  before: artifactRefSchema.nullable(),
  after: artifactRefSchema.nullable(),
  reason: z.string(),
});

export const compareResultSchema = z
  .object({
    schemaVersion: z.literal(COMPARE_SCHEMA_VERSION),
    mode: z.enum(['artifacts', 'runs', 'rounds']),
    before: z.string(),
    after: z.string(),
    status: z.enum(['unchanged', 'changed']),
    summary: z.object({
      compared: z.number().int(),
      unchanged: z.number().int(),
      changed: z.number().int(),
      new: z.number().int(),
      gone: z.number().int(),
      notComparable: z.number().int(),
    }),
    options: z.object({
      threshold: z.number(),
      includeAA: z.boolean(),
      ignoreRects: z.array(z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() })),
      ignoreSelectors: z.array(z.string()),
    }),
    items: z.array(compareItemSchema),
    /** In the second run (or round) only. */
    new: z.array(z.object({ criterion: z.string(), type: z.string(), after: artifactRefSchema })),
    /** In the first run only. */
    gone: z.array(z.object({ criterion: z.string(), type: z.string(), before: artifactRefSchema })),
    notComparable: z.array(unpairedSchema),
    skippedLines: z.array(z.string()),
    /** Where compare.json, index.html and the images were written. */
    out: z.string().nullable(),
  })
  .describe('The result of design-playbook-evidence compare (compare.json), version 1.');
export type CompareResult = z.infer<typeof compareResultSchema>;

/** The result's JSON Schema (draft 2020-12), with its id. */
export function compareResultJsonSchema(): Record<string, unknown> {
  const { $schema, ...rest } = z.toJSONSchema(compareResultSchema, { target: 'draft-2020-12' }) as Record<string, unknown>;
  return { $schema, $id: COMPARE_SCHEMA_ID, title: 'design-playbook-evidence compare result, version 1', ...rest };
}

/** The committed file's exact text (2-space JSON, trailing newline), as scripts/generate-schemas.js writes it. */
export function serializeCompareSchema(): string {
  return JSON.stringify(compareResultJsonSchema(), null, 2) + '\n';
}
