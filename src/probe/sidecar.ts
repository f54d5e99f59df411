/**
 * The `<stem>.probe.json` sidecar object written next to a screenshot PNG:
 * the probe's page facts, the `renderTokens` face and the `design` it ran
 * against. `design` is absent (not null) when the capture was unbound. When
 * the provider produced no face, the sidecar carries an `unmeasured` face that
 * names every axis undecidable — never `measured` with empty findings.
 */
import { z } from 'zod';
import type { DesignDeclaration } from '../design';
import { renderTokensFaceSchema, unmeasuredFace, type RenderTokensFace } from './face';

export interface ProbePageFacts {
  finalUrl: string;
  documentSize: { width: number; height: number };
  viewport: { width: number; height: number; devicePixelRatio?: number; colorScheme?: string };
  devicePixelRatio: number;
}

export interface ProbeSidecar {
  /** null when the provider reported no page facts. */
  page: ProbePageFacts | null;
  renderTokens: RenderTokensFace;
  design?: DesignDeclaration;
}

export const NOT_PROBED_ERROR = 'the capture provider returned no render-token face, so rendered values were not compared';

/**
 * `renderTokens` may come from a third-party provider, so it is checked
 * against the face schema; a malformed face becomes a `failed` one naming the
 * problem rather than being written as if it were measured.
 */
export function buildProbeSidecar(input: {
  pageFacts?: ProbePageFacts | null;
  renderTokens?: RenderTokensFace | unknown;
  design?: DesignDeclaration;
}): ProbeSidecar {
  const facts = input.pageFacts;
  const sidecar: ProbeSidecar = {
    page: facts
      ? { finalUrl: facts.finalUrl, documentSize: facts.documentSize, viewport: facts.viewport, devicePixelRatio: facts.devicePixelRatio }
      : null,
    renderTokens: readFace(input.renderTokens, input.design),
  };
  // The caller's declaration object itself, so it serializes byte-for-byte as given.
  if (input.design !== undefined) sidecar.design = input.design;
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

export const probeSidecarSchema = z
  .object({
    page: z
      .object({
      finalUrl: z.string(),
      documentSize: z.object({ width: z.number(), height: z.number() }),
      viewport: z.object({ width: z.number(), height: z.number() }).passthrough(),
      devicePixelRatio: z.number(),
      })
      .nullable(),
    renderTokens: renderTokensFaceSchema,
    design: z.record(z.string(), z.array(z.unknown())).optional().describe('The declaration the probe ran against; absent when unbound.'),
  })
  .describe('Contents of <stem>.probe.json.');
