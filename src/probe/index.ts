/**
 * The render-token probe: the CDP computed-style walker feeds the comparator
 * (and, for a screenshot, the element boxes). A walker failure yields a
 * `failed` face (with the error), never a silent empty one.
 */
import type { CdpSession } from '../../cdp/types';
import { walkRenderedStyles } from '../../cdp/styleWalker';
import type { DesignDeclaration } from '../contract/designBinding';
import { compareRenderTokens } from './comparator';
import { unmeasuredFace, type RenderTokensFace } from './face';
import { PROBE_TIMEOUT_MS, withDeadline } from '../common/time';
import { buildElementBoxes, type ElementBoxesFace } from './elementBoxes';

export async function renderTokenProbe(
  session: CdpSession,
  design: DesignDeclaration | undefined,
  options: { timeoutMs?: number } = {},
): Promise<RenderTokensFace> {
  return (await screenshotProbe(session, design, { ...options, elementBoxes: false })).render_tokens;
}

/**
 * The screenshot's probe: the render-token face and, from the same walk, the
 * element boxes (unless `elementBoxes: false`); a failed walk gives a failed
 * face and no boxes.
 */
export async function screenshotProbe(
  session: CdpSession,
  design: DesignDeclaration | undefined,
  options: { timeoutMs?: number; elementBoxes?: boolean } = {},
): Promise<{ render_tokens: RenderTokensFace; element_boxes?: ElementBoxesFace }> {
  const timeoutMs = options.timeoutMs ?? PROBE_TIMEOUT_MS;
  const details = options.elementBoxes !== false;
  let elements;
  try {
    elements = await withDeadline(walkRenderedStyles(session, { details }), timeoutMs, `no snapshot within ${timeoutMs} ms`);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { render_tokens: unmeasuredFace('failed', `computed-style walk failed: ${message}`, design) };
  }
  const render_tokens = compareRenderTokens(elements, design);
  return details ? { render_tokens, element_boxes: buildElementBoxes(elements) } : { render_tokens };
}

export { compareRenderTokens } from './comparator';
export { buildProbeSidecar, probeSidecarSchema, type ProbePageFacts, type ProbeSidecar } from './sidecar';
export { renderTokensFaceSchema, unmeasuredFace, type RenderTokensFace, type Finding, type Undecidable, type MeasurementStatus } from './face';
export { classifyLiteral, classifyPxLiteral, classifyColorLiteral } from './literals';
