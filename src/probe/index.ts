/**
 * The render-token probe: the CDP computed-style walker feeds the comparator.
 * A walker failure yields a `failed` face (with the error), never a silent
 * empty one.
 */
import type { CdpSession } from '../../cdp/types';
import { walkRenderedStyles } from '../../cdp/styleWalker';
import type { DesignDeclaration } from '../contract/designBinding';
import { compareRenderTokens } from './comparator';
import { unmeasuredFace, type RenderTokensFace } from './face';
import { PROBE_TIMEOUT_MS, withDeadline } from '../common/time';

export async function renderTokenProbe(
  session: CdpSession,
  design: DesignDeclaration | undefined,
  options: { timeoutMs?: number } = {},
): Promise<RenderTokensFace> {
  const timeoutMs = options.timeoutMs ?? PROBE_TIMEOUT_MS;
  let elements;
  try {
    elements = await withDeadline(walkRenderedStyles(session), timeoutMs, `no snapshot within ${timeoutMs} ms`);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return unmeasuredFace('failed', `computed-style walk failed: ${message}`, design);
  }
  return compareRenderTokens(elements, design);
}

export { compareRenderTokens } from './comparator';
export { buildProbeSidecar, probeSidecarSchema, type ProbePageFacts, type ProbeSidecar } from './sidecar';
export { renderTokensFaceSchema, unmeasuredFace, type RenderTokensFace, type Finding, type Undecidable, type MeasurementStatus } from './face';
export { classifyLiteral, classifyPxLiteral, classifyColorLiteral } from './literals';
