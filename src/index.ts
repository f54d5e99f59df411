/**
 * Library API of design-playbook-evidence.
 */
export { sidecarLeaf } from './contract/captureTypes';
export { MANIFEST_REFUSAL } from './boundary';
export {
  executeCapturePlan,
  registerCaptureProvider,
  findCaptureProvider,
  probeCaptureProvider,
  activeCaptureProvider,
  createServer,
  serveStdio,
  closeBundledBrowser,
} from './app/main';
export {
  parseCaptureContract,
  validateCaptureSnapshot,
  requestSnapshotSchema,
  CAPTURE_SCHEMA_VERSION,
  COLOR_SCHEMES,
  FREEZE_DEFAULTS,
  type CaptureRequestSnapshot,
  type SnapshotFact,
} from './contract/captureContract';
export { writeTarget, readArtifact, CONTAINMENT_CODES, CONTAINMENT_MESSAGES, type ContainmentCode } from './boundary/containment';
export { resolveRunRoot, RUN_MARKERS } from './boundary/runRoot';
export { ToolInputError } from './common/errors';
// Secrets by name (docs/secrets.md): a library caller passes a store as executeCapturePlan's `secrets`.
export { loadSecrets, secretStore, SecretsFileError, type SecretStore } from './common/secrets';
export { captureResultSchema, type CaptureResult } from './contract/result';
export type { CapturePlanArguments, CapturePlanAction, CaptureViewport } from './contract/publicTypes';
export type { CaptureType } from './contract/captureTypes';
export type { CaptureProvider, CaptureContext, CaptureStepReport, ProviderPayload, ToolDeclaration } from './contract/captureProvider';
export { captureToolDeclaration, TOOL_NAME, SERVER_NAME } from './contract/toolDeclaration';
export { DualFramingStdioTransport } from './mcp/transport';
export {
  readManifest,
  parseManifest,
  bindingFor,
  checkManifestLine,
  manifestSchemaPath,
  manifestLineJsonSchema,
  MANIFEST_FACT_CODES,
  type ManifestEntry,
  type ManifestFact,
  type ManifestReport,
} from './manifest';
/** The in-process adapter seam (src/app/inProcessAdapter.ts). */
export { InProcessAdapterProvider, type InProcessAdapter, type CaptureJob, type AdapterOutcome } from './app/inProcessAdapter';
// Evidence compared across rounds and runs (docs/compare.md): the function the compare command and the opt-in tool share.
export { compareEvidence, exitStatusOf, CompareInputError, type CompareInput, type CompareRunOptions } from './compare/run';
export { compareResultSchema, COMPARE_SCHEMA_FILE, type CompareResult, type CompareItem } from './compare/schema';
