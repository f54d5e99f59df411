/**
 * schemas/manifest_v1.schema.json: generated from the contract module, valid
 * JSON Schema 2020-12 (ajv, strict), accepting the field lines and rejecting
 * the lines contract-facts rules out — and the runtime line check (no ajv)
 * agreeing with it on every line.
 */
import * as fs from 'fs';
import * as path from 'path';
import { execFileSync } from 'child_process';
import { z } from 'zod';
import Ajv2020 from 'ajv/dist/2020';
import { sessionRequestSnapshotSchema as requestSnapshotSchema } from '../../src/contract/captureContract';
import { manifestSchemaPath, serializeManifestSchema, checkManifestLine } from '../../src/manifest';
import { DESIGN, FIELD_LINE_TEXT, fieldLine, variant, type Line } from './lines';

const REPO = path.resolve(__dirname, '..', '..');
const SCHEMA_FILE = path.join(REPO, 'schemas', 'manifest_v1.schema.json');
const committed = JSON.parse(fs.readFileSync(SCHEMA_FILE, 'utf8'));
// Formats are annotations here: the schema's `ts` pattern carries the rule, so
// the result does not depend on a format plugin being present.
const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true, validateFormats: false });
const validate = ajv.compile(committed);

describe('the committed schema is the generator output', () => {
  test('schemas/manifest_v1.schema.json matches serializeManifestSchema() byte for byte', () => {
    expect(fs.readFileSync(SCHEMA_FILE, 'utf8')).toBe(serializeManifestSchema());
  });

  test('its request snapshot part is the contract module request echo (sessionRequestSnapshotSchema: session named when a capture started from one)', () => {
    const fromContract = z.toJSONSchema(requestSnapshotSchema, { target: 'draft-2020-12', io: 'output' }) as Record<string, unknown>;
    const { description: _d, ...def } = committed.$defs.requestSnapshot;
    const { $schema: _s, ...expected } = fromContract;
    expect(def).toEqual(expected);
    expect(committed.properties.request).toEqual({ $ref: '#/$defs/requestSnapshot' });
    expect(committed.$defs.capture.properties.request).toEqual({ $ref: '#/$defs/requestSnapshot' });
  });

  test('manifestSchemaPath() names the committed file', () => {
    expect(manifestSchemaPath()).toBe(SCHEMA_FILE);
  });

  test('scripts/generate-schemas.js --check passes against the built generator', () => {
    const built = path.join(REPO, 'dist', 'src', 'manifest', 'schema.js');
    if (!fs.existsSync(built)) throw new Error('run npm run build first');
    const out = execFileSync(process.execPath, [path.join(REPO, 'scripts', 'generate-schemas.js'), '--check'], { cwd: REPO, encoding: 'utf8' });
    expect(out).toContain('up to date');
  });

  test('it declares JSON Schema 2020-12', () => {
    expect(committed.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
  });
});

function verdicts(line: unknown): { ajv: boolean; runtime: boolean; codes: string[] } {
  const facts = checkManifestLine(line);
  return { ajv: validate(line) as boolean, runtime: facts.length === 0, codes: facts.map((f) => f.code) };
}

const accepted: [string, Line][] = [
  ['the contract-facts field line', fieldLine()],
  ['with design at the top level', variant((l) => (l.request.design = DESIGN))],
  ['with one declared axis only', variant((l) => (l.request.design = { radii: [] }))],
  ['with extra keys (field notes, method, observation)', variant((l) => Object.assign(l, { method: 'mirror', observation: 'banner red', field_notes: ['x'] }))],
  ['with extra keys inside capture', variant((l) => (l.capture.surface = 'mirror'))],
  [
    'with the request inside capture only',
    variant((l) => {
      l.capture.request = l.request;
      delete l.request;
    }),
  ],
  [
    'with a bound request inside capture only',
    variant((l) => {
      l.capture.request = { ...l.request, design: DESIGN };
      delete l.request;
    }),
  ],
  ['with the request at both places', variant((l) => (l.capture.request = l.request))],
  ['a failed capture', variant((l) => Object.assign(l, { result: 'failed', observed_state: 'unknown' }))],
  ['a UTC ts', variant((l) => (l.ts = '2026-07-16T07:00:00.250Z'))],
  ['an artifact in a subfolder', variant((l) => Object.assign(l, { artifact: 'run2/L6.3.png' }))],
  [
    'an a11y capture without actions or note',
    variant((l) => {
      delete l.capture.actions;
      delete l.capture.note;
      l.capture.type = 'a11y tree';
    }),
  ],
  ['an interaction trace with actions', variant((l) => Object.assign(l.capture, { type: 'interaction trace', actions: [{ do: 'click', selector: '#go' }] }))],
  [
    'without capture.url and capture.artifact_path',
    variant((l) => {
      delete l.capture.url;
      delete l.capture.artifact_path;
    }),
  ],
  ['free-text steps as actions', variant((l) => (l.capture.actions = ['open the page', 'click export']))],
  ['another provider with another kind of evidence', variant((l) => Object.assign(l.capture, { provider: 'manual', type: 'session notes' }))],
];

describe('lines the schema accepts', () => {
  test.each(accepted)('%s', (_name, line) => {
    const v = verdicts(line);
    expect(validate.errors ?? []).toEqual([]);
    expect(v).toEqual({ ajv: true, runtime: true, codes: [] });
  });

  test('the field line text parses to the line contract-facts shows', () => {
    expect(verdicts(JSON.parse(FIELD_LINE_TEXT)).ajv).toBe(true);
  });
});

const rejected: [string, Line, string][] = [
  ['no request anywhere', variant((l) => delete l.request), 'missing_schema_version'],
  ['a request without schemaVersion', variant((l) => delete l.request.schemaVersion), 'missing_schema_version'],
  ['a request without freeze (partial)', variant((l) => delete l.request.freeze), 'missing_freeze'],
  ['a request without viewport (partial)', variant((l) => delete l.request.viewport), 'missing_viewport'],
  ['a partial viewport', variant((l) => delete l.request.viewport.colorScheme), 'bad_viewport_shape'],
  ['a partial freeze', variant((l) => (l.request.freeze = { enabled: true })), 'bad_freeze_shape'],
  ['schemaVersion 2', variant((l) => (l.request.schemaVersion = 2)), 'unsupported_schema_version'],
  ['schemaVersion true', variant((l) => (l.request.schemaVersion = true)), 'unsupported_schema_version'],
  ['a non-boolean freeze value', variant((l) => (l.request.freeze.enabled = 'yes')), 'bad_freeze_shape'],
  ['a viewport with an extra key', variant((l) => (l.request.viewport.deviceScaleFactor = 2)), 'bad_viewport_shape'],
  ['devicePixelRatio below 0.1', variant((l) => (l.request.viewport.devicePixelRatio = 0.05)), 'bad_viewport_shape'],
  ['an unknown key in the request', variant((l) => (l.request.url = 'http://x')), 'unknown_request_keys'],
  ['a design with an unknown axis', variant((l) => (l.request.design = { spacing: [4] })), 'bad_design_shape'],
  ['a design with a scalar axis', variant((l) => (l.request.design = { fontSizes: 16 })), 'bad_design_shape'],
  ['a design that is null', variant((l) => (l.request.design = null)), 'bad_design_shape'],
  [
    'a broken request inside capture, even with a good one at the top',
    variant((l) => (l.capture.request = { ...l.request, schemaVersion: 2 })),
    'unsupported_schema_version',
  ],
  [
    'a partial request inside capture only',
    variant((l) => {
      l.capture.request = { schemaVersion: 1, viewport: l.request.viewport };
      delete l.request;
    }),
    'missing_freeze',
  ],
  ['a judged result (pass)', variant((l) => (l.result = 'pass')), 'bad_field'],
  ['a judged result (fail)', variant((l) => (l.result = 'fail')), 'bad_field'],
  ['a non-L6 criterion', variant((l) => (l.criterion = 'L5.3')), 'bad_field'],
  ['a criterion without a number', variant((l) => (l.criterion = 'L6')), 'bad_field'],
  ['a sub-numbered criterion', variant((l) => (l.criterion = 'L6.3.1')), 'bad_field'],
  ['an escaping artifact ../x', variant((l) => (l.artifact = '../x')), 'bad_field'],
  ['an artifact with an inner .. segment', variant((l) => (l.artifact = 'a/../../spec.md')), 'bad_field'],
  ['an absolute artifact /abs', variant((l) => (l.artifact = '/abs')), 'bad_field'],
  ['a Windows absolute artifact', variant((l) => (l.artifact = 'C:\\x.png')), 'bad_field'],
  ['an artifact with the evidence/ prefix', variant((l) => (l.artifact = 'evidence/L6.3-error.png')), 'bad_field'],
  ['an empty artifact', variant((l) => (l.artifact = '')), 'bad_field'],
  ['a capture.artifact_path outside evidence/', variant((l) => (l.capture.artifact_path = 'spec.md')), 'bad_field'],
  ['a capture.artifact_path with ..', variant((l) => (l.capture.artifact_path = 'evidence/../spec.md')), 'bad_field'],
  ['a ts without an offset', variant((l) => (l.ts = '2026-07-16T15:00:00')), 'bad_field'],
  ['a ts that is a date only', variant((l) => (l.ts = '2026-07-16')), 'bad_field'],
  ['an unknown capture type on a line from this server', variant((l) => (l.capture.type = 'video')), 'bad_field'],
  ['an empty capture type', variant((l) => Object.assign(l.capture, { provider: 'manual', type: '' })), 'bad_field'],
  ['a non-string observed_state', variant((l) => (l.observed_state = null)), 'bad_field'],
  ['actions that are neither objects nor strings', variant((l) => (l.capture.actions = [1])), 'bad_field'],
  ['actions that are not a list', variant((l) => (l.capture.actions = 'click')), 'bad_field'],
  ['no capture', variant((l) => delete l.capture), 'missing_field'],
  ['no criterion', variant((l) => delete l.criterion), 'missing_field'],
  ['no capture.provider', variant((l) => delete l.capture.provider), 'missing_field'],
  ['a capture that is a string', variant((l) => (l.capture = 'screenshot')), 'bad_field'],
];

describe('lines the schema rejects', () => {
  test.each(rejected)('%s', (_name, line, code) => {
    const v = verdicts(line);
    expect(v.ajv).toBe(false);
    expect(v.runtime).toBe(false);
    expect(v.codes).toContain(code);
  });

  test('a design item that is neither number nor string follows the contract schema, in both checks', () => {
    // Whether such an item may be recorded is the contract module's decision
    // (requestSnapshotSchema); the manifest schema and the reader follow it.
    const line = variant((l) => (l.request.design = { colors: [true, null, '#fff'] }));
    const contractAccepts = requestSnapshotSchema.safeParse(line.request).success;
    const v = verdicts(line);
    expect(v.ajv).toBe(contractAccepts);
    expect(v.runtime).toBe(contractAccepts);
    if (!contractAccepts) expect(v.codes).toEqual(['bad_design_shape']);
  });

  test('non-object lines are rejected by both', () => {
    for (const value of [[], 'L6.3', 3, null, true]) {
      expect(validate(value)).toBe(false);
      expect(checkManifestLine(value).map((f) => f.code)).toEqual(['invalid_entry']);
    }
  });
});
