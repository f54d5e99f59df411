/**
 * The capture-provider seam (types only). The runtime (src/boundary/) owns the
 * boundary — unknown fields, contract, design shape, run root, containment,
 * manifest and overwrite refusals — and only then calls a provider; after it
 * returns, the runtime checks the artifact it reports. Which provider serves
 * is the registry's business (providerRegistry.ts); a third party replaces
 * the bundled browser provider with `registerCaptureProvider(provider)`.
 */
import type { CaptureRequestSnapshot } from './captureContract';
import type { RuntimeFields } from './toolArguments';
import type { SecretStore } from '../common/secrets';
import type { StorageState } from './storageState';

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
export type { ProbePageFacts } from '../probe/sidecar';
import type { ProbePageFacts } from '../probe/sidecar';

export interface CaptureContext {
  /** Absolute path the runtime resolved (and will verify) for the artifact. */
  writtenPath: string;
  runRoot: string;
  /** The normalized contract echo, `design` included when bound. */
  request: CaptureRequestSnapshot;
  /** The normalized runtime fields. */
  fields: RuntimeFields;
  /**
   * The state the capture starts from, when the call names a session or
   * --storage-state is set (src/contract/sessions.ts): its cookies, each
   * origin's localStorage and IndexedDB, to restore into the capture's fresh
   * context before the first navigation. A credential: never log or echo it.
   * Absent: an empty context, as before.
   */
  startState?: StorageState;
  /**
   * Stages the artifact's bytes; the runtime moves them into place (with the
   * screenshot sidecar) only when the provider returns `captured`. A provider
   * may instead write `writtenPath` itself; the runtime verifies either way.
   */
  writeArtifact(bytes: Buffer | string): void;
  /**
   * Fires when the caller cancelled the call (MCP `notifications/cancelled`,
   * or the client went away). A provider should stop at once, release what it
   * opened and return or throw: from then on the runtime commits nothing it
   * staged, and no result reaches the caller. A provider that writes
   * `writtenPath` itself must stop before it writes. Absent when the caller
   * cannot cancel (optional, so providers written before it keep compiling).
   */
  signal?: AbortSignal;
  /**
   * Tells the caller a step of the capture started (navigation, an action…):
   * the server sends it on as an MCP progress notification when the call
   * asked for progress. Optional to call; absent when nobody listens. The
   * runtime numbers the steps and adds its own last one, the commit.
   */
  onStep?(report: CaptureStepReport): void;
  /**
   * The secrets the server was started with (--secrets), present only then:
   * an action naming one (`"secret": "NAME"`, in `fields.actions`) types its
   * value, asked for here when it types. A value must never reach the
   * payload, a warning or an error; the runtime scans what is staged for
   * every value before it commits (src/boundary/secretGuard.ts).
   */
  secrets?: SecretStore;
}

/** A step of a capture as its provider tells it (CaptureContext.onStep). */
export interface CaptureStepReport {
  /** The kind of step: `navigation`, `settle`, `action`, `capture`, `probe`… */
  step: string;
  /** The step for a person to read: `navigation to https://…`, `actions[0] click '#go'`. */
  message: string;
  /** For a step that repeats (the actions): which one, 0-based, of how many. */
  index?: number;
  count?: number;
  /** How many steps the provider expects the capture to take, this one included, when it knows. */
  expectedSteps?: number;
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
  /** The sidecar's optional `elements` face (src/compare/elementBoxes.ts); absent = not recorded. */
  element_boxes?: unknown;
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
