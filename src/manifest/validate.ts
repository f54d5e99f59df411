/**
 * Runtime check of one manifest line against the v1 rules, without a JSON
 * Schema engine: the same constants and patterns as ./schema.ts, and the
 * contract's own read-side snapshot validator for the request part. A test
 * runs ajv over the committed schema and this check on the same lines and
 * requires them to agree.
 */
import {
  isPlainObject,
  sessionRequestSnapshotSchema,
  SNAPSHOT_FACTS,
  validateCaptureSnapshot,
  type CaptureRequestSnapshot,
  type SnapshotFact,
} from '../contract/captureContract';
import { DESIGN_AXES } from '../contract/designBinding';
import { CAPTURE_TYPES } from '../contract/captureTypes';
import {
  ARTIFACT_PATTERN,
  BUNDLED_PROVIDER,
  CAPTURE_ARTIFACT_PATH_PATTERN,
  CAPTURE_REQUIRED_FIELDS,
  CRITERION_PATTERN,
  MANIFEST_REQUIRED_FIELDS,
  MANIFEST_RESULTS,
  TS_PATTERN,
} from './schema';

/** Every fact code the reader can report. */
export const MANIFEST_FACT_CODES = [
  'unreadable',
  'malformed_json',
  'invalid_entry',
  'missing_field',
  'bad_field',
  // The request snapshot: the contract's read-side codes...
  ...SNAPSHOT_FACTS,
  // ...plus what the snapshot validator leaves to the contract's zod schema.
  'unknown_request_keys',
  'bad_design_shape',
] as const;
export type ManifestFactCode = (typeof MANIFEST_FACT_CODES)[number];

export interface ManifestFact {
  /** 1-based physical line number; 0 for the file as a whole (unreadable). */
  line: number;
  code: ManifestFactCode;
  /** What is wrong, naming the field and the rule. */
  detail: string;
  /** What to do about it, in words a person can act on. */
  repair: string;
  /** The offending field path (`criterion`, `capture.type`, `request`, ...), when one is at fault. */
  field?: string;
}

/** A line's problems without its line number (the reader adds it). */
export type LineFact = Omit<ManifestFact, 'line'>;

const criterionRe = new RegExp(CRITERION_PATTERN, 'u');
const artifactRe = new RegExp(ARTIFACT_PATTERN, 'u');
const captureArtifactPathRe = new RegExp(CAPTURE_ARTIFACT_PATH_PATTERN, 'u');
const tsRe = new RegExp(TS_PATTERN, 'u');

const SNAPSHOT_DETAILS: Record<SnapshotFact, string> = {
  missing_schema_version: 'has no schemaVersion',
  unsupported_schema_version: 'schemaVersion is not the integer 1',
  missing_viewport: 'has no viewport',
  bad_viewport_shape: 'viewport needs exactly width, height (integers >= 1), devicePixelRatio (>= 0.1) and colorScheme (light, dark, no-preference)',
  missing_freeze: 'has no freeze',
  bad_freeze_shape: 'freeze needs exactly the booleans enabled, waitFonts and networkIdle',
};

/** How to mend a request snapshot: it is a copy of the tool result, never written by hand. */
const SNAPSHOT_REPAIRS: Record<SnapshotFact, string> = {
  missing_schema_version:
    "copy the capture result's `request` into the line as is; a line written before capture contract v1 has none, so recapture the artifact with schemaVersion 1",
  unsupported_schema_version: "recapture with capture contract schemaVersion 1 and copy the result's `request` as is",
  missing_viewport: "copy the capture result's `request` as is (it always holds the full viewport), or recapture",
  bad_viewport_shape: "copy the capture result's `request` as is instead of editing its viewport, or recapture",
  missing_freeze: "copy the capture result's `request` as is (it always holds the full freeze, defaults filled in), or recapture",
  bad_freeze_shape: "copy the capture result's `request` as is instead of editing its freeze, or recapture",
};

/** What a valid value of each checked line field is, for the repair text. */
const FIELD_GUIDE: Record<string, string> = {
  criterion: 'the L6 criterion id the artifact is evidence for, e.g. "L6.3"',
  artifact: 'the artifact path relative to evidence/, without the evidence/ prefix, e.g. "L6.3-error.png"',
  observed_state: 'the capture result\'s observed_state, verbatim ("unknown" when the page had none)',
  result: 'the capture result\'s result: "captured" or "failed" (a verdict belongs elsewhere, e.g. point-back.md)',
  ts: 'when the capture was recorded, with an offset, e.g. "2026-07-16T15:00:00+08:00" or "2026-07-16T07:00:00Z"',
  capture: 'an object saying how the capture was made: {"provider": ..., "type": ..., "state": ...}',
  'capture.provider': 'who captured, e.g. "design-playbook-evidence", "playwright" or "manual"',
  'capture.url': 'the page address the capture opened, or leave the key out',
  'capture.type': `the kind of evidence; lines from ${BUNDLED_PROVIDER} name one of ${CAPTURE_TYPES.map((t) => `"${t}"`).join(', ')}`,
  'capture.state': 'the state the capture was meant to show (the request\'s state), e.g. "error"',
  'capture.actions': 'a list of action objects ({"do": "click", "selector": "#go"}) or free-text steps ("click export")',
  'capture.artifact_path': 'the artifact_path argument with its evidence/ prefix, e.g. "evidence/L6.3-error.png", or leave the key out',
  'capture.note': 'a string, or leave the key out',
};

const addRepair = (field: string) => `add "${field.split('.').pop()}"${field.includes('.') ? ` inside ${field.split('.')[0]}` : ''}: ${FIELD_GUIDE[field]}`;
const setRepair = (field: string) => `set ${field} to ${FIELD_GUIDE[field]}`;

function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 80 ? text.slice(0, 77) + '...' : text;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/**
 * A `ts` as epoch milliseconds, or NaN when it is not an RFC 3339 date-time
 * with an offset or names no real day (2026-02-30). A leap second (:60) counts
 * as the following instant.
 */
export function tsInstant(ts: string): number {
  if (!tsRe.test(ts)) return NaN;
  const upper = ts.toUpperCase();
  const [, y, mo, d] = /^(\d{4})-(\d{2})-(\d{2})/.exec(upper) as RegExpExecArray;
  // Date.parse rolls 2026-02-30 over into March; such a day does not exist.
  if (Number(d) > new Date(Date.UTC(Number(y), Number(mo), 0)).getUTCDate()) return NaN;
  const leap = /^(.{17})60/.exec(upper);
  return leap ? Date.parse(leap[1] + '59' + upper.slice(19)) + 1000 : Date.parse(upper);
}

/**
 * One request snapshot (found at `field`): the contract's read-side fact
 * first, then the contract's zod `sessionRequestSnapshotSchema` itself — the schema
 * the committed JSON Schema is generated from — for what the read-side
 * validator leaves open (unknown keys, the design declaration, integer range).
 */
export function checkRequestSnapshot(snapshot: unknown, field: string): LineFact | null {
  const fact = validateCaptureSnapshot(snapshot);
  if (fact) return { code: fact, field, detail: `${field} ${SNAPSHOT_DETAILS[fact]}`, repair: SNAPSHOT_REPAIRS[fact] };
  const parsed = sessionRequestSnapshotSchema.safeParse(snapshot);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0];
  const where = [field, ...issue.path.map(String)].join('.');
  if (issue.code === 'unrecognized_keys' && issue.path.length === 0) {
    return {
      code: 'unknown_request_keys',
      field,
      detail: `${field} has unknown keys ${issue.keys.map((k) => `'${k}'`).join(', ')}; allowed keys are ${Object.keys(sessionRequestSnapshotSchema.shape).join(', ')}`,
      repair: `keep the capture result's \`request\` as is and put other notes outside ${field} (extra keys are welcome at the top level of the line)`,
    };
  }
  const top = issue.path[0];
  if (top === 'viewport') {
    return {
      code: 'bad_viewport_shape',
      field,
      detail: `${field} ${SNAPSHOT_DETAILS.bad_viewport_shape} (${where}: ${issue.message})`,
      repair: SNAPSHOT_REPAIRS.bad_viewport_shape,
    };
  }
  if (top === 'freeze') {
    return {
      code: 'bad_freeze_shape',
      field,
      detail: `${field} ${SNAPSHOT_DETAILS.bad_freeze_shape} (${where}: ${issue.message})`,
      repair: SNAPSHOT_REPAIRS.bad_freeze_shape,
    };
  }
  if (top === 'schemaVersion') {
    return {
      code: 'unsupported_schema_version',
      field,
      detail: `${field} ${SNAPSHOT_DETAILS.unsupported_schema_version}`,
      repair: SNAPSHOT_REPAIRS.unsupported_schema_version,
    };
  }
  // design is the only key left.
  return {
    code: 'bad_design_shape',
    field: where,
    detail: `${field}.design must be an object of the axes ${DESIGN_AXES.join(', ')}, each an array of literals (${where}: ${issue.message})`,
    repair: "copy the capture result's `request` as is: it records the design the capture was bound to",
  };
}

function checkCapture(capture: Record<string, unknown>, facts: LineFact[]): void {
  for (const key of CAPTURE_REQUIRED_FIELDS) {
    const field = `capture.${key}`;
    if (!(key in capture)) facts.push({ code: 'missing_field', field, detail: `${field} is required`, repair: addRepair(field) });
  }
  const bad = (key: string, rule: string) => {
    const field = `capture.${key}`;
    facts.push({ code: 'bad_field', field, detail: `${field} ${rule} (got ${show(capture[key])})`, repair: setRepair(field) });
  };
  for (const key of ['provider', 'url', 'type', 'state'] as const) {
    if (key in capture && !isNonEmptyString(capture[key])) bad(key, 'must be a non-empty string');
  }
  if (capture.provider === BUNDLED_PROVIDER && isNonEmptyString(capture.type) && !(CAPTURE_TYPES as readonly unknown[]).includes(capture.type)) {
    bad('type', `must be one of ${CAPTURE_TYPES.map((t) => `'${t}'`).join(', ')} on a line from ${BUNDLED_PROVIDER}`);
  }
  if ('actions' in capture && (!Array.isArray(capture.actions) || !capture.actions.every((a) => isPlainObject(a) || typeof a === 'string'))) {
    bad('actions', 'must be an array of action objects or free-text steps (strings)');
  }
  if ('artifact_path' in capture && (typeof capture.artifact_path !== 'string' || !captureArtifactPathRe.test(capture.artifact_path))) {
    bad('artifact_path', "must be a relative path under evidence/ (e.g. 'evidence/L6.3-error.png'), with no '..' segment");
  }
  if ('note' in capture && typeof capture.note !== 'string') bad('note', 'must be a string');
}

/**
 * Checks one parsed line. Returns every field problem found, then the
 * request snapshot's fact(s): the top-level `request` when present, the one
 * inside `capture` when present, and `missing_schema_version` when neither.
 */
export function checkManifestLine(entry: unknown): LineFact[] {
  if (!isPlainObject(entry)) {
    return [
      {
        code: 'invalid_entry',
        detail: `a manifest line must be a JSON object (got ${typeName(entry)})`,
        repair:
          'write one JSON object per line: {"criterion": ..., "artifact": ..., "observed_state": ..., "result": ..., "ts": ..., "capture": {...}, "request": {...}}',
      },
    ];
  }
  const facts: LineFact[] = [];
  for (const key of MANIFEST_REQUIRED_FIELDS) {
    if (!(key in entry)) facts.push({ code: 'missing_field', field: key, detail: `${key} is required`, repair: addRepair(key) });
  }
  const bad = (key: string, rule: string) =>
    facts.push({ code: 'bad_field', field: key, detail: `${key} ${rule} (got ${show(entry[key])})`, repair: setRepair(key) });
  if ('criterion' in entry && (typeof entry.criterion !== 'string' || !criterionRe.test(entry.criterion)))
    bad('criterion', "must be an L6 criterion id 'L6.<n>'");
  if ('artifact' in entry && (typeof entry.artifact !== 'string' || !artifactRe.test(entry.artifact))) {
    bad('artifact', "must be a path relative to evidence/ without the 'evidence/' prefix: not absolute, no '.' or '..' segments, '/' separators");
  }
  if ('observed_state' in entry && typeof entry.observed_state !== 'string') bad('observed_state', 'must be a string');
  if ('result' in entry && !(MANIFEST_RESULTS as readonly unknown[]).includes(entry.result)) {
    bad('result', "must be 'captured' or 'failed' (whether the capture happened), never a verdict");
  }
  if ('ts' in entry && (typeof entry.ts !== 'string' || !Number.isFinite(tsInstant(entry.ts))))
    bad('ts', 'must be an RFC 3339 date-time with an offset (Z or +hh:mm)');
  const capture = entry.capture;
  if ('capture' in entry) {
    if (isPlainObject(capture)) checkCapture(capture, facts);
    else bad('capture', 'must be an object');
  }

  const captureHasRequest = isPlainObject(capture) && 'request' in capture;
  if ('request' in entry) {
    const fact = checkRequestSnapshot(entry.request, 'request');
    if (fact) facts.push(fact);
  }
  if (captureHasRequest) {
    const fact = checkRequestSnapshot((capture as Record<string, unknown>).request, 'capture.request');
    if (fact) facts.push(fact);
  }
  if (!('request' in entry) && !captureHasRequest) {
    facts.push({
      code: 'missing_schema_version',
      field: 'request',
      detail: 'no request snapshot at the top level or inside capture',
      repair: SNAPSHOT_REPAIRS.missing_schema_version,
    });
  }
  return facts;
}

/** The request snapshot a valid line binds: the top level first, then inside capture. */
export function lineRequest(entry: Record<string, unknown>): { request: CaptureRequestSnapshot; source: 'request' | 'capture.request' } {
  if ('request' in entry) return { request: entry.request as CaptureRequestSnapshot, source: 'request' };
  return { request: (entry.capture as Record<string, unknown>).request as CaptureRequestSnapshot, source: 'capture.request' };
}
