/**
 * DEPRECATED: the in-process BrowserAdapter seam, kept so code written
 * against it keeps working. The bundled provider no longer goes through it:
 * PuppeteerCaptureProvider (src/browser/puppeteerProvider.ts) implements
 * CaptureProvider directly. New code writes a CaptureProvider.
 *
 * An adapter declares whether it can bind a design declaration; a bound call
 * to one that cannot fails closed rather than capturing unbound.
 */
import type { CaptureContext, CaptureProvider, ProbePageFacts, ProviderPayload } from './provider';
import type { CaptureRequestSnapshot } from './contract';
import type { RuntimeFields } from './request';
import type { DesignDeclaration } from './design';
import { captureToolDeclaration, TOOL_NAME } from './toolDeclaration';
import { createBrowserCaptureProvider } from './providerRegistry';

/** @deprecated write a CaptureProvider; its capture() receives the same fields in its context. */
export interface CaptureJob {
  fields: RuntimeFields;
  request: CaptureRequestSnapshot;
  /** Present only on bound calls, and only for adapters that accept it. */
  design?: DesignDeclaration;
}

/** @deprecated a CaptureProvider returns ProviderPayload (render_tokens, page_facts, observed_state, warnings). */
export interface AdapterOutcome {
  bytes: Buffer;
  observedState: string;
  /** The render-token face (screenshots); absent = not measured. */
  renderTokens?: unknown;
  pageFacts?: ProbePageFacts;
  warnings?: string[];
}

/** @deprecated write a CaptureProvider. */
export interface BrowserAdapter {
  /** Whether captureAndProbe accepts a design binding. */
  readonly acceptsDesign: boolean;
  captureAndProbe(job: CaptureJob): Promise<AdapterOutcome>;
}

/** @deprecated wraps a BrowserAdapter as a provider; write a CaptureProvider instead. */
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
 * @deprecated With an adapter: wraps it (as before). Without one: a new
 * bundled browser provider with its own browser,
 * which the caller closes with `close()` — the program's own bundled provider
 * is the registry's (`activeCaptureProvider()`).
 */
export function createBundledProvider(adapter?: BrowserAdapter): CaptureProvider {
  return adapter ? new BundledCaptureProvider(adapter) : createBrowserCaptureProvider();
}
