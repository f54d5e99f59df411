/**
 * Manifest line v1: the one owner of what a line of `evidence/manifest.jsonl`
 * may hold. The caller writes these lines (the provider never does); this
 * module owns the rules, and both forms derive from it:
 * - the JSON Schema 2020-12 document committed as
 *   schemas/manifest_v1.schema.json (`manifestLineJsonSchema()`), whose request
 *   snapshot part is generated from the contract module's zod
 *   `sessionRequestSnapshotSchema`, so schema and runtime cannot drift;
 * - the runtime line check in ./validate.ts (no ajv at run time), built from
 *   the same constants plus the contract's read-side snapshot validator.
 */
import * as fs from 'fs';
import * as path from 'path';
import { z } from 'zod';
import { sessionRequestSnapshotSchema } from '../contract/captureContract';
import { CAPTURE_TYPES } from '../contract/captureTypes';
import { SERVER_NAME } from '../contract/toolDeclaration';

export const MANIFEST_SCHEMA_VERSION = 1 as const;
export const MANIFEST_SCHEMA_FILE = 'manifest_v1.schema.json';
export const MANIFEST_SCHEMA_ID = 'urn:design-playbook-evidence:manifest-line:v1';

/** Capture outcomes a line may record; never a verdict such as pass/fail. */
export const MANIFEST_RESULTS = ['captured', 'failed'] as const;
export type ManifestResult = (typeof MANIFEST_RESULTS)[number];

/** Top-level keys every line carries (the request snapshot is checked separately). */
export const MANIFEST_REQUIRED_FIELDS = ['criterion', 'artifact', 'observed_state', 'result', 'ts', 'capture'] as const;
/**
 * Keys every `capture` object carries, whichever provider made the capture:
 * who captured, what kind of evidence, and the state it was meant to show.
 * `url`, `artifact_path`, `actions` and `note` are optional: a Playwright
 * script or a person (`"provider": "manual"`) has no tool arguments to echo.
 */
export const CAPTURE_REQUIRED_FIELDS = ['provider', 'type', 'state'] as const;

/**
 * The provider name this server's own lines carry (the server name). Only
 * such lines are held to this server's capture types; other providers record
 * other kinds of evidence (a person's `session notes`, for one).
 */
export const BUNDLED_PROVIDER = SERVER_NAME;

// Patterns are ECMA-262 regular expressions compiled with the `u` flag, as a
// JSON Schema 2020-12 validator compiles `pattern`; validate.ts compiles the
// very same strings.

/** `L6.<n>`: the L6 criterion id, n a non-negative integer without leading zeros. */
export const CRITERION_PATTERN = '^L6\\.(?:0|[1-9][0-9]*)$';

/**
 * `artifact`: a path relative to evidence/, in canonical form — `/`-separated
 * non-empty segments, no `.` or `..` segment, no backslash or control
 * character, not absolute (POSIX or a Windows drive), and without an
 * `evidence/` prefix (that belongs to `capture.artifact_path`).
 */
export const ARTIFACT_PATTERN = '^(?!evidence/)(?![A-Za-z]:)(?!(?:[^/]*/)*\\.{1,2}(?:/|$))[^/\\\\\\u0000-\\u001f]+(?:/[^/\\\\\\u0000-\\u001f]+)*$';

/**
 * `capture.artifact_path`: the tool argument as the caller sent it — relative,
 * first segment `evidence` (after optional `./`), no `..` segment with either
 * separator, not ending in a separator.
 */
export const CAPTURE_ARTIFACT_PATH_PATTERN = '^(?:\\./)*evidence[/\\\\](?!(?:.*[/\\\\])?\\.\\.(?:[/\\\\]|$)).*[^/\\\\]$';

/**
 * `ts`: an RFC 3339 date-time with an explicit offset (`Z` or `±hh:mm`), as
 * JSON Schema's `date-time` format; the pattern makes the rule hold in
 * validators that treat `format` as an annotation only.
 */
export const TS_PATTERN =
  '^[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])[Tt](?:[01][0-9]|2[0-3]):[0-5][0-9]:(?:[0-5][0-9]|60)(?:\\.[0-9]+)?(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])$';

type JsonSchema = Record<string, unknown>;

/** The request snapshot part, generated from the contract's zod schema. */
export function requestSnapshotJsonSchema(): JsonSchema {
  const json = z.toJSONSchema(sessionRequestSnapshotSchema, { target: 'draft-2020-12', io: 'output' }) as JsonSchema;
  delete json.$schema;
  if ('$defs' in json) {
    // A nested $defs would be resolved against the manifest document's root; fail loudly instead.
    throw new Error('sessionRequestSnapshotSchema generated $defs; the manifest schema generator must hoist them');
  }
  json.description =
    'The normalized capture contract echo (the tool result `request`): schemaVersion 1, the full viewport, the full freeze with defaults filled in, `design` only when the capture was bound, and `session` (a name) only when it started from a saved session. Generated from src/contract/captureContract.ts sessionRequestSnapshotSchema.';
  return json;
}

/** The JSON Schema 2020-12 document for one manifest line. */
export function manifestLineJsonSchema(): JsonSchema {
  const nonEmpty = { type: 'string', minLength: 1 };
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: MANIFEST_SCHEMA_ID,
    title: 'design-playbook-evidence manifest line (v1)',
    description:
      'One line of evidence/manifest.jsonl, written by the orchestrating caller after each capture, whichever provider made it ' +
      '(this server, a Playwright script, a person); the provider never writes the manifest. ' +
      'The request snapshot sits at the top level or inside `capture`; readers use the top level first; a line without one was written before capture contract v1. ' +
      'Unknown extra keys are allowed. ' +
      'Among lines with the same criterion and artifact, the latest ts binds.',
    type: 'object',
    required: [...MANIFEST_REQUIRED_FIELDS],
    properties: {
      criterion: { type: 'string', pattern: CRITERION_PATTERN, description: 'The L6 criterion id, `L6.<n>`.' },
      artifact: {
        type: 'string',
        pattern: ARTIFACT_PATTERN,
        description: 'Artifact path relative to evidence/ (no `evidence/` prefix), e.g. `L6.3-error.png`; never absolute, no `.`/`..` segments.',
      },
      observed_state: {
        type: 'string',
        description: "The tool result's observed_state, verbatim (read from the page's data-state, else `unknown`); never the requested state.",
      },
      result: {
        enum: [...MANIFEST_RESULTS],
        description: 'Whether the capture happened (the tool result `result`); never a verdict such as pass/fail.',
      },
      ts: {
        type: 'string',
        format: 'date-time',
        pattern: TS_PATTERN,
        description: 'When the capture was recorded: RFC 3339 date-time with an offset, e.g. 2026-07-16T15:00:00+08:00.',
      },
      capture: { $ref: '#/$defs/capture' },
      request: { $ref: '#/$defs/requestSnapshot' },
    },
    // The request snapshot must be somewhere; `properties` repeats the
    // names only so strict validators see each required key declared.
    anyOf: [
      { properties: { request: true }, required: ['request'] },
      { properties: { capture: { type: 'object', properties: { request: true }, required: ['request'] } }, required: ['capture'] },
    ],
    additionalProperties: true,
    $defs: {
      capture: {
        type: 'object',
        description:
          'How the capture was made, by whichever provider made it (this server, a Playwright script, a person). ' +
          'provider, type and state are required; the tool arguments url and artifact_path are recorded when the provider had them.',
        required: [...CAPTURE_REQUIRED_FIELDS],
        properties: {
          provider: { ...nonEmpty, description: `Who captured: ${BUNDLED_PROVIDER} for this server, or another provider such as playwright or manual.` },
          url: { ...nonEmpty, description: 'The url argument (optional: providers without one leave it out).' },
          type: {
            ...nonEmpty,
            description: `The kind of evidence. Lines from ${BUNDLED_PROVIDER} name one of its capture types (${CAPTURE_TYPES.join(', ')}); other providers may name others.`,
          },
          state: { ...nonEmpty, description: 'The requested (expected) state argument; intent only.' },
          actions: {
            type: 'array',
            items: { anyOf: [{ type: 'object' }, { type: 'string' }] },
            description: 'The actions argument (absent = []): action objects, or free-text steps as a person or script recorded them.',
          },
          artifact_path: {
            type: 'string',
            pattern: CAPTURE_ARTIFACT_PATH_PATTERN,
            description: 'The artifact_path argument, with its evidence/ prefix (optional).',
          },
          note: { type: 'string', description: 'Free-form note, e.g. `surface: live`.' },
          request: { $ref: '#/$defs/requestSnapshot' },
        },
        // This server only makes its own capture types.
        if: { properties: { provider: { const: BUNDLED_PROVIDER } }, required: ['provider'] },
        then: { properties: { type: { enum: [...CAPTURE_TYPES] } } },
        additionalProperties: true,
      },
      requestSnapshot: requestSnapshotJsonSchema(),
    },
  };
}

/** The committed file's exact text (2-space JSON, trailing newline). */
export function serializeManifestSchema(): string {
  return JSON.stringify(manifestLineJsonSchema(), null, 2) + '\n';
}

/**
 * Absolute path of the committed schemas/manifest_v1.schema.json, found by
 * walking up from this module (it sits at a different depth in src/ and dist/).
 */
export function manifestSchemaPath(): string {
  let dir = __dirname;
  for (;;) {
    const candidate = path.join(dir, 'schemas', MANIFEST_SCHEMA_FILE);
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return path.resolve(__dirname, '..', '..', 'schemas', MANIFEST_SCHEMA_FILE);
    dir = parent;
  }
}
