/**
 * The capture-provider seam. The runtime (execute.ts) owns the boundary —
 * unknown fields, contract, design shape, run root, containment, manifest and
 * overwrite refusals — and only then calls a provider; after it returns, the
 * runtime checks the artifact it reports. A third party replaces the bundled
 * browser provider with `registerCaptureProvider(provider)` before serving.
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

import type { ProbePageFacts } from './probe/sidecar';
/** Page facts a probing provider reports for the screenshot sidecar. */
export type { ProbePageFacts };

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
}

const registered: CaptureProvider[] = [];
// Lazy so that importing the library loads no browser code.
let bundledFactory: () => CaptureProvider = () =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('./browser/bundledProvider') as typeof import('./browser/bundledProvider')).createBundledProvider();
let bundled: CaptureProvider | null = null;

/** Makes `provider` the one the server advertises and calls (call before serving). */
export function registerCaptureProvider(provider: CaptureProvider): void {
  if (!provider || typeof provider.toolName !== 'string' || typeof provider.describe !== 'function' || typeof provider.capture !== 'function') {
    throw new TypeError('registerCaptureProvider needs { toolName, describe(), capture(arguments, context) }');
  }
  if (!provider.toolName.trim()) throw new TypeError('registerCaptureProvider: toolName must be a non-empty string');
  // tools/list advertises describe().name while calls are routed by toolName: they must agree.
  const declared = provider.describe()?.name;
  if (declared !== provider.toolName) {
    throw new TypeError(`registerCaptureProvider: describe().name '${String(declared)}' must equal toolName '${provider.toolName}'`);
  }
  const existing = registered.findIndex((p) => p.toolName === provider.toolName);
  if (existing >= 0) registered.splice(existing, 1);
  registered.push(provider);
}

/** Forgets registered providers (tests). */
export function clearCaptureProviders(): void {
  registered.length = 0;
}

/** Replaces how the bundled provider is made (tests inject a fake browser adapter). */
export function setBundledProviderFactory(factory: () => CaptureProvider): void {
  bundledFactory = factory;
  bundled = null;
}

export function bundledCaptureProvider(): CaptureProvider {
  if (!bundled) bundled = bundledFactory();
  return bundled;
}

/** The provider the server serves: the last registered, else the bundled one. */
export function activeCaptureProvider(): CaptureProvider {
  return registered.length ? registered[registered.length - 1] : bundledCaptureProvider();
}

/** Finds the provider that serves `toolName` (the bundled one answers `execute_capture_plan`). */
export function probeCaptureProvider(toolName: string): CaptureProvider | undefined {
  for (let i = registered.length - 1; i >= 0; i--) if (registered[i].toolName === toolName) return registered[i];
  const fallback = bundledCaptureProvider();
  return fallback.toolName === toolName ? fallback : undefined;
}
