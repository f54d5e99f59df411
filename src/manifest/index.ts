/**
 * The versioned manifest line: its JSON Schema (generated, committed as
 * schemas/manifest_v1.schema.json), the runtime line check and the reader.
 */
export {
  manifestLineJsonSchema,
  serializeManifestSchema,
  manifestSchemaPath,
  requestSnapshotJsonSchema,
  MANIFEST_SCHEMA_FILE,
  MANIFEST_SCHEMA_ID,
  MANIFEST_SCHEMA_VERSION,
  MANIFEST_RESULTS,
  CRITERION_PATTERN,
  ARTIFACT_PATTERN,
  CAPTURE_ARTIFACT_PATH_PATTERN,
  TS_PATTERN,
  type ManifestResult,
} from './schema';
export { checkManifestLine, checkRequestSnapshot, tsInstant, MANIFEST_FACT_CODES, type ManifestFact, type ManifestFactCode, type LineFact } from './validate';
export { readManifest, parseManifest, bindingFor, type ManifestEntry, type ManifestCapture, type ManifestReport } from './reader';
