/**
 * The in-process adapter seam (the seed's "in-process adapter whose
 * `capture_and_probe` predates the keyword"): code that captures in this
 * process implements `captureAndProbe(job)`, and InProcessAdapterProvider
 * puts it behind the boundary as a CaptureProvider. The bundled provider
 * does not go through it (src/browser/capture/puppeteerProvider.ts implements
 * CaptureProvider directly); a new out-of-process tool writes a
 * CaptureProvider (docs/providers.md).
 *
 * The seam carries the seed's compatibility rule for the `design` keyword:
 * an adapter declares whether its `captureAndProbe` accepts a design
 * binding; a bound call to one that does not (including one written before
 * the property existed) fails closed — `failed`, no sidecar, nothing
 * captured unbound — and `captureAndProbe` is not called.
 *
 * Its outcome keeps the names adapters were written against (`observedState`,
 * `renderTokens`, `pageFacts`); the provider payload spells them as on the
 * wire (`observed_state`, `render_tokens`, `page_facts`).
 */
import type { CaptureContext, CaptureProvider, ProbePageFacts, ProviderPayload } from '../contract/captureProvider';
import type { CaptureRequestSnapshot } from '../contract/captureContract';
import type { RuntimeFields } from '../contract/toolArguments';
import type { DesignDeclaration } from '../contract/designBinding';
import { captureToolDeclaration, TOOL_NAME } from '../contract/toolDeclaration';

/** What one capture asks of an adapter. */
export interface CaptureJob {
  fields: RuntimeFields;
  request: CaptureRequestSnapshot;
  /** Present only on bound calls, and only for adapters that accept it. */
  design?: DesignDeclaration;
  /** Fires when the caller cancelled: stop and throw (nothing the adapter returns afterwards is written). */
  signal?: AbortSignal;
}

/** What an adapter's captureAndProbe returns. */
export interface AdapterOutcome {
  bytes: Buffer;
  observedState: string;
  /** The render-token face (screenshots); absent = not measured. */
  renderTokens?: unknown;
  pageFacts?: ProbePageFacts;
  warnings?: string[];
}

/** Code that captures in this process. */
export interface InProcessAdapter {
  /** Whether captureAndProbe accepts a design binding. */
  readonly acceptsDesign: boolean;
  captureAndProbe(job: CaptureJob): Promise<AdapterOutcome>;
}

export const DESIGN_UNSUPPORTED =
  'this capture adapter cannot bind a design declaration (it predates the render-token probe); ' +
  'nothing was captured, rather than capture unbound — remove design or use an adapter that accepts it';

/** An in-process adapter as a CaptureProvider (serving `execute_capture_plan`). */
export class InProcessAdapterProvider implements CaptureProvider {
  readonly toolName = TOOL_NAME;

  constructor(private readonly adapter: InProcessAdapter) {}

  describe() {
    return captureToolDeclaration();
  }

  async capture(_args: Record<string, unknown>, context: CaptureContext): Promise<ProviderPayload> {
    const design = context.request.design;
    if (design !== undefined && !this.adapter.acceptsDesign) return { result: 'failed', error: DESIGN_UNSUPPORTED };
    const job: CaptureJob = { fields: context.fields, request: context.request };
    if (design !== undefined) job.design = design;
    if (context.signal) job.signal = context.signal;
    const outcome = await this.adapter.captureAndProbe(job);
    context.writeArtifact(outcome.bytes);
    const payload: ProviderPayload = { result: 'captured', observed_state: outcome.observedState };
    if (outcome.renderTokens !== undefined) payload.render_tokens = outcome.renderTokens;
    if (outcome.pageFacts !== undefined) payload.page_facts = outcome.pageFacts;
    if (outcome.warnings?.length) payload.warnings = outcome.warnings;
    return payload;
  }
}
