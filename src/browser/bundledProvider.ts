/**
 * The bundled capture provider: serves execute_capture_plan with a real
 * browser. The browser work sits behind one in-process seam, BrowserAdapter
 * (the function that captures and probes), which declares whether it can bind
 * a design declaration; a bound call to one that cannot fails closed rather
 * than capturing unbound.
 */
import type { CaptureContext, CaptureProvider, ProbePageFacts, ProviderPayload } from '../provider';
import type { CaptureRequestSnapshot } from '../contract';
import type { RuntimeFields } from '../request';
import type { DesignDeclaration } from '../design';
import { captureToolDeclaration, TOOL_NAME } from '../toolDeclaration';

export interface CaptureJob {
  fields: RuntimeFields;
  request: CaptureRequestSnapshot;
  /** Present only on bound calls, and only for adapters that accept it. */
  design?: DesignDeclaration;
}

export interface AdapterOutcome {
  bytes: Buffer;
  observedState: string;
  /** The render-token face (screenshots); absent = not measured. */
  renderTokens?: unknown;
  pageFacts?: ProbePageFacts;
  warnings?: string[];
}

export interface BrowserAdapter {
  /** Whether captureAndProbe accepts a design binding. */
  readonly acceptsDesign: boolean;
  captureAndProbe(job: CaptureJob): Promise<AdapterOutcome>;
}

export class BundledCaptureProvider implements CaptureProvider {
  readonly toolName = TOOL_NAME;

  constructor(private readonly adapter: BrowserAdapter) {}

  describe() {
    return captureToolDeclaration();
  }

  async capture(_args: Record<string, unknown>, context: CaptureContext): Promise<ProviderPayload> {
    const design = context.request.design;
    if (design !== undefined && !this.adapter.acceptsDesign) {
      return {
        result: 'failed',
        error:
          'this capture adapter cannot bind a design declaration (it predates the render-token probe); ' +
          'nothing was captured, rather than capture unbound — remove design or use an adapter that accepts it',
      };
    }
    const job: CaptureJob = { fields: context.fields, request: context.request };
    if (design !== undefined) job.design = design;
    const outcome = await this.adapter.captureAndProbe(job);
    context.writeArtifact(outcome.bytes);
    const payload: ProviderPayload = { result: 'captured', observed_state: outcome.observedState };
    if (outcome.renderTokens !== undefined) payload.render_tokens = outcome.renderTokens;
    if (outcome.pageFacts !== undefined) payload.page_facts = outcome.pageFacts;
    if (outcome.warnings?.length) payload.warnings = outcome.warnings;
    return payload;
  }
}

/**
 * The bundled provider over the process-wide Puppeteer adapter (or the given
 * adapter: tests inject fakes). The adapter module loads only when a provider
 * is made without one, so importing this file loads no browser code.
 */
export function createBundledProvider(adapter?: BrowserAdapter): BundledCaptureProvider {
  if (adapter) return new BundledCaptureProvider(adapter);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { defaultPuppeteerAdapter } = require('./puppeteerAdapter') as typeof import('./puppeteerAdapter');
  return new BundledCaptureProvider(defaultPuppeteerAdapter());
}
