/**
 * Library API of design-playbook-evidence.
 */
export { executeCapturePlan, sidecarLeaf, MANIFEST_REFUSAL } from './execute';
export {
  parseCaptureContract,
  validateCaptureSnapshot,
  requestSnapshotSchema,
  CAPTURE_SCHEMA_VERSION,
  COLOR_SCHEMES,
  FREEZE_DEFAULTS,
  type CaptureRequestSnapshot,
  type SnapshotFact,
} from './contract';
export { writeTarget, readArtifact, CONTAINMENT_CODES, CONTAINMENT_MESSAGES, type ContainmentCode } from './containment';
export { resolveRunRoot, RUN_MARKERS } from './runRoot';
export { ToolInputError } from './errors';
export { captureResultSchema, type CaptureResult } from './result';
export {
  registerCaptureProvider,
  probeCaptureProvider,
  activeCaptureProvider,
  type CaptureProvider,
  type CaptureContext,
  type ProviderPayload,
  type ToolDeclaration,
} from './provider';
export { captureToolDeclaration, TOOL_NAME, SERVER_NAME } from './toolDeclaration';
export { createServer, serveStdio } from './server';
export { DualFramingStdioTransport } from './transport';
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
export {
  createBundledProvider,
  BundledCaptureProvider,
  type BrowserAdapter,
  type CaptureJob,
  type AdapterOutcome,
} from './browser/bundledProvider';

/**
 * Closes the bundled provider's browser, for library users who capture with
 * executeCapturePlan without serving (the server closes it on exit itself).
 * Loads no browser code when none was started.
 */
export async function closeBundledBrowser(): Promise<void> {
  if (!require.cache[require.resolve('./browser/puppeteerAdapter')]) return;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  await (require('./browser/puppeteerAdapter') as typeof import('./browser/puppeteerAdapter')).closeDefaultAdapter();
}
