/**
 * The capture-provider seam (types only). The runtime (src/boundary/) owns the
 * boundary — unknown fields, contract, design shape, run root, containment,
 * manifest and overwrite refusals — and only then calls a provider; after it
 * returns, the runtime checks the artifact it reports. Which provider serves
 * is the registry's business (providerRegistry.ts); a third party replaces
 * the bundled browser provider with `registerCaptureProvider(provider)`.
 */
import type { CaptureRequestSnapshot } from './contract';
import type { RuntimeFields } from './request';

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** What `tools/list` advertises for the provider's tool. */
export interface ToolDeclaration {
  name: string;
  title?: string;
  description: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
  outputSchema?: { type: 'object'; [key: string]: unknown };
  annotations?: ToolAnnotations;
}

/** Page facts a probing provider reports for the screenshot sidecar. */
export type { ProbePageFacts } from './probe/sidecar';
import type { ProbePageFacts } from './probe/sidecar';

export interface CaptureContext {
  /** Absolute path the runtime resolved (and will verify) for the artifact. */
  writtenPath: string;
  runRoot: string;
  /** The normalized contract echo, `design` included when bound. */
  request: CaptureRequestSnapshot;
  /** The normalized runtime fields. */
  fields: RuntimeFields;
  /**
   * Stages the artifact's bytes; the runtime moves them into place (with the
   * screenshot sidecar) only when the provider returns `captured`. A provider
   * may instead write `writtenPath` itself; the runtime verifies either way.
   */
  writeArtifact(bytes: Buffer | string): void;
}

/** What a provider returns; the runtime builds the public payload from it. */
export interface ProviderPayload {
  result: 'captured' | 'failed';
  error?: string;
  observed_state?: string;
  warnings?: string[];
  /**
   * Optional claims about the file, as in the tool's advertised payload. When
   * present they must name the runtime's own target (`context.writtenPath`,
   * the requested `artifact_path`); any other path fails the capture.
   */
  artifact?: string;
  written_path?: string;
  /** The render-token face for the screenshot sidecar; absent = not measured. */
  render_tokens?: unknown;
  page_facts?: ProbePageFacts;
}

export interface CaptureProvider {
  readonly toolName: string;
  describe(): ToolDeclaration;
  /**
   * `args` are the caller's arguments as sent (after the boundary accepted
   * them): an unbound call carries no `design` key at all.
   */
  capture(args: Record<string, unknown>, context: CaptureContext): Promise<ProviderPayload>;
  /**
   * Optional: releases what the provider holds (a browser). The program
   * calls it once, when the server shuts down or a CLI command is done.
   */
  close?(): Promise<void>;
}
