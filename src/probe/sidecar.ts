/**
 * The `<stem>.probe.json` sidecar object written next to a screenshot PNG:
 * the probe's page facts, the `renderTokens` face, the `design` it ran
 * against and, optionally, the `elements` face (src/compare/elementBoxes.ts). `design` is absent (not null) when the capture was unbound. When
 * the provider produced no face, the sidecar carries an `unmeasured` face that
 * names every axis undecidable — never `measured` with empty findings.
 *
 * Names: the provider hands the face and the facts over as `render_tokens`
 * and `page_facts` (the payload's wire names, docs/providers.md); the
 * sidecar file writes them as `renderTokens` and `page` (its own wire names,
 * the seed's). Code between the two uses the payload's names.
 */
import { z } from 'zod';
import type { DesignDeclaration } from '../contract/designBinding';
import { renderTokensFaceSchema, unmeasuredFace, type RenderTokensFace } from './face';
import { elementBoxesFaceSchema } from './elementBoxes';

export const probePageFactsSchema = z.object({
  finalUrl: z.string(),
  documentSize: z.object({ width: z.number(), height: z.number() }),
  viewport: z.object({ width: z.number(), height: z.number() }).passthrough(),
  devicePixelRatio: z.number(),
});

/** Page facts a probing provider reports for the screenshot sidecar. */
export type ProbePageFacts = z.infer<typeof probePageFactsSchema>;

export const probeSidecarSchema = z
  .object({
    /** null when the provider reported no page facts. */
    page: probePageFactsSchema.nullable(),
    renderTokens: renderTokensFaceSchema,
    design: z.record(z.string(), z.array(z.unknown())).optional().describe('The declaration the probe ran against; absent when unbound.'),
    elements: elementBoxesFaceSchema.optional().describe('Element boxes, names and styles (absent in sidecars written before it, or when not recorded).'),
  })
  .describe('Contents of <stem>.probe.json.');

export type ProbeSidecar = z.infer<typeof probeSidecarSchema>;

/** What the sidecar is built from: the provider payload's fields, under its names. */
export interface ProbeSidecarSource {
  page_facts?: ProbePageFacts | null;
  /** Unchecked: it may come from a third-party provider. */
  render_tokens?: unknown;
  /** Unchecked, like render_tokens; optional. */
  element_boxes?: unknown;
}

export const NOT_PROBED_ERROR = 'the capture provider returned no render-token face, so rendered values were not compared';

/**
 * `render_tokens` may come from a third-party provider, so it is checked
 * against the face schema; a malformed face becomes a `failed` one naming the
 * problem rather than being written as if it were measured.
 */
export function buildProbeSidecar(measured: ProbeSidecarSource, design?: DesignDeclaration): ProbeSidecar {
  const facts = measured.page_facts;
  const sidecar: ProbeSidecar = {
    page: facts ? { finalUrl: facts.finalUrl, documentSize: facts.documentSize, viewport: facts.viewport, devicePixelRatio: facts.devicePixelRatio } : null,
    renderTokens: readFace(measured.render_tokens, design),
  };
  // The caller's declaration object itself, so it serializes byte-for-byte as given.
  if (design !== undefined) sidecar.design = design;
  // An optional face: one that does not read as the schema says is left out, never written half-right.
  if (measured.element_boxes !== undefined && elementBoxesFaceSchema.safeParse(measured.element_boxes).success) {
    sidecar.elements = measured.element_boxes as ProbeSidecar['elements'];
  }
  return sidecar;
}

function readFace(face: unknown, design: DesignDeclaration | undefined): RenderTokensFace {
  if (face === undefined || face === null) return unmeasuredFace('unmeasured', NOT_PROBED_ERROR, design);
  const parsed = renderTokensFaceSchema.safeParse(face);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'face';
    return unmeasuredFace('failed', `the capture provider returned a malformed render-token face (${where}: ${issue?.message ?? 'invalid'})`, design);
  }
  return face as RenderTokensFace;
}
