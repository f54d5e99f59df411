/**
 * Manifest lines from every provider an orchestrator uses — this server, a
 * Playwright script, a person (`manual`) — read by the committed JSON Schema
 * (ajv), the runtime line check, the reader and `manifest check`. Lines from
 * other providers carry no url or artifact_path, and a person's actions are
 * free-text steps; a line written before the request snapshot existed
 * reports exactly `missing_schema_version`.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { spawnSync } from 'child_process';
import Ajv2020 from 'ajv/dist/2020';
import { bindingFor, checkManifestLine, parseManifest } from '../../src/manifest';
import { FIELD_LINE_TEXT, MANUAL_LINE_TEXT, PLAYWRIGHT_LINE_TEXT, PRE_SNAPSHOT_LINE_TEXT, parse, type Line } from './lines';

const REPO = path.resolve(__dirname, '..', '..');
const BIN = path.join(REPO, 'dist', 'src', 'bin.js');
const schema = JSON.parse(fs.readFileSync(path.join(REPO, 'schemas', 'manifest_v1.schema.json'), 'utf8'));
const validate = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true, validateFormats: false }).compile(schema);

function edit(text: string, change: (line: Line) => void): Line {
  const line = parse(text);
  change(line);
  return line;
}

function verdicts(line: unknown): { ajv: boolean; codes: string[]; fields: (string | undefined)[] } {
  const facts = checkManifestLine(line);
  return { ajv: validate(line) as boolean, codes: facts.map((f) => f.code), fields: facts.map((f) => f.field) };
}

const SNAPSHOT = parse(MANUAL_LINE_TEXT).request;

const valid: [string, Line][] = [
  ['issue example: manual, free-text steps, the snapshot at both places', parse(MANUAL_LINE_TEXT)],
  ['issue example: playwright, no url, no actions, the snapshot inside capture only', parse(PLAYWRIGHT_LINE_TEXT)],
  ['this server, with its request snapshot (the contract-facts line)', parse(FIELD_LINE_TEXT)],
  [
    'manual with free-text steps and the snapshot at the top level only',
    edit(MANUAL_LINE_TEXT, (l) => {
      delete l.capture.request;
      delete l.capture.schemaVersion;
      l.capture.actions = ['facilitate the export task', 'record what the participant did'];
    }),
  ],
  [
    'manual session notes (another kind of evidence) with field-note keys',
    edit(MANUAL_LINE_TEXT, (l) => {
      Object.assign(l.capture, { type: 'session notes', state: 'usertest-round1' });
      Object.assign(l, {
        artifact: 'L6.1-usertest-notes.md',
        criterion: 'L6.1',
        observed_state: 'usertest-round1',
        method: 'user-test',
        observation: 'two of three looked in the toolbar first',
        interpretation: null,
        population: '3 operators',
        ethics: null,
      });
    }),
  ],
  ['manual with an empty step list', edit(MANUAL_LINE_TEXT, (l) => (l.capture.actions = []))],
  ['playwright with actions [] and a url', edit(PLAYWRIGHT_LINE_TEXT, (l) => Object.assign(l.capture, { actions: [], url: 'http://127.0.0.1:8138/ui.html' }))],
  [
    'playwright with action objects and steps mixed',
    edit(PLAYWRIGHT_LINE_TEXT, (l) => (l.capture.actions = [{ do: 'click', selector: '#retry' }, 'wait for the toast'])),
  ],
  ['playwright, a failed capture', edit(PLAYWRIGHT_LINE_TEXT, (l) => Object.assign(l, { result: 'failed', observed_state: 'unknown' }))],
  [
    'this server, without url and artifact_path (optional for every provider)',
    edit(FIELD_LINE_TEXT, (l) => {
      delete l.capture.url;
      delete l.capture.artifact_path;
      delete l.capture.note;
    }),
  ],
  [
    'a third-party provider with its own capture type',
    edit(PLAYWRIGHT_LINE_TEXT, (l) => Object.assign(l.capture, { provider: 'acme-device-farm', type: 'video' })),
  ],
];

describe('lines from every provider that must validate', () => {
  test.each(valid)('%s', (_name, line) => {
    const v = verdicts(line);
    expect(validate.errors ?? []).toEqual([]);
    expect(v).toEqual({ ajv: true, codes: [], fields: [] });
  });
});

const invalid: [string, Line, string[], (string | undefined)[]][] = [
  ['issue example: this server before the request snapshot', parse(PRE_SNAPSHOT_LINE_TEXT), ['missing_schema_version'], ['request']],
  [
    'manual without any request snapshot',
    edit(MANUAL_LINE_TEXT, (l) => {
      delete l.request;
      delete l.capture.request;
    }),
    ['missing_schema_version'],
    ['request'],
  ],
  ['manual with a verdict as result', edit(MANUAL_LINE_TEXT, (l) => (l.result = 'pass')), ['bad_field'], ['result']],
  ['playwright with a verdict as result', edit(PLAYWRIGHT_LINE_TEXT, (l) => (l.result = 'fail')), ['bad_field'], ['result']],
  ['manual with schemaVersion 2', edit(MANUAL_LINE_TEXT, (l) => (l.request.schemaVersion = 2)), ['unsupported_schema_version'], ['request']],
  [
    'playwright with schemaVersion 2 inside capture',
    edit(PLAYWRIGHT_LINE_TEXT, (l) => (l.capture.request.schemaVersion = 2)),
    ['unsupported_schema_version'],
    ['capture.request'],
  ],
  [
    'playwright with a viewport without devicePixelRatio',
    edit(PLAYWRIGHT_LINE_TEXT, (l) => delete l.capture.request.viewport.devicePixelRatio),
    ['bad_viewport_shape'],
    ['capture.request'],
  ],
  [
    'manual with a viewport without devicePixelRatio',
    edit(MANUAL_LINE_TEXT, (l) => delete l.request.viewport.devicePixelRatio),
    ['bad_viewport_shape'],
    ['request'],
  ],
  ['this server naming a type it cannot make', edit(FIELD_LINE_TEXT, (l) => (l.capture.type = 'session notes')), ['bad_field'], ['capture.type']],
  ['manual steps that are neither objects nor strings', edit(MANUAL_LINE_TEXT, (l) => (l.capture.actions = ['open', 3])), ['bad_field'], ['capture.actions']],
  ['manual actions as one string', edit(MANUAL_LINE_TEXT, (l) => (l.capture.actions = 'open, click')), ['bad_field'], ['capture.actions']],
  ['playwright without a provider', edit(PLAYWRIGHT_LINE_TEXT, (l) => delete l.capture.provider), ['missing_field'], ['capture.provider']],
  ['manual without a type', edit(MANUAL_LINE_TEXT, (l) => delete l.capture.type), ['missing_field'], ['capture.type']],
  ['manual without a state', edit(MANUAL_LINE_TEXT, (l) => delete l.capture.state), ['missing_field'], ['capture.state']],
  ['playwright with an empty url', edit(PLAYWRIGHT_LINE_TEXT, (l) => (l.capture.url = '')), ['bad_field'], ['capture.url']],
  [
    'manual with an artifact_path outside evidence/',
    edit(MANUAL_LINE_TEXT, (l) => (l.capture.artifact_path = 'shots/L6.2.png')),
    ['bad_field'],
    ['capture.artifact_path'],
  ],
  ['manual with an evidence/-prefixed artifact', edit(MANUAL_LINE_TEXT, (l) => (l.artifact = 'evidence/L6.2-empty.png')), ['bad_field'], ['artifact']],
  ['playwright with a non-L6 criterion', edit(PLAYWRIGHT_LINE_TEXT, (l) => (l.criterion = 'C-5')), ['bad_field'], ['criterion']],
  [
    'a pre-snapshot line with a verdict: both facts, nothing else',
    edit(PRE_SNAPSHOT_LINE_TEXT, (l) => (l.result = 'pass')),
    ['bad_field', 'missing_schema_version'],
    ['result', 'request'],
  ],
];

describe('lines that must still fail, with exactly the facts that say why', () => {
  test.each(invalid)('%s', (_name, line, codes, fields) => {
    const v = verdicts(line);
    expect(v).toEqual({ ajv: false, codes, fields });
  });

  test('every fact says what to do about it', () => {
    for (const [, line] of invalid) {
      for (const fact of checkManifestLine(line)) {
        expect(fact.repair.length).toBeGreaterThan(20);
        expect(fact.detail).toContain(fact.field?.split('.')[0] ?? '');
      }
    }
  });
});

describe('the reader on a run written by several providers', () => {
  const serverLine = (ts: string, state: string) =>
    JSON.stringify(edit(FIELD_LINE_TEXT, (l) => Object.assign(l, { criterion: 'L6.2', artifact: 'L6.2-empty.png', ts, observed_state: state })));
  const manualLine = (ts: string, state: string) => JSON.stringify(edit(MANUAL_LINE_TEXT, (l) => Object.assign(l, { ts, observed_state: state })));
  const playwrightLine = (ts: string, state: string) =>
    JSON.stringify(edit(PLAYWRIGHT_LINE_TEXT, (l) => Object.assign(l, { criterion: 'L6.2', artifact: 'L6.2-empty.png', ts, observed_state: state })));

  test("entries keep each provider's capture as written; the request comes from where the line holds it", () => {
    const { entries, facts } = parseManifest([MANUAL_LINE_TEXT, PLAYWRIGHT_LINE_TEXT, FIELD_LINE_TEXT, PRE_SNAPSHOT_LINE_TEXT].join('\n'));
    expect(facts.map((f) => [f.line, f.code, f.field])).toEqual([[4, 'missing_schema_version', 'request']]);
    expect(entries.map((e) => [e.line, e.capture.provider, e.requestSource])).toEqual([
      [1, 'manual', 'request'],
      [2, 'playwright', 'capture.request'],
      [3, 'design-playbook-evidence', 'request'],
    ]);
    expect(entries[0].capture.actions).toEqual(['open the empty dataset', 'click export']);
    expect(entries[0].request).toEqual(SNAPSHOT);
    expect(entries[1].capture.url).toBeUndefined();
    expect(entries[1].request.viewport).toEqual({ width: 1280, height: 800, devicePixelRatio: 1, colorScheme: 'light' });
  });

  test('several lines for one criterion and artifact: the latest ts wins, whichever provider wrote it', () => {
    const { entries, facts } = parseManifest(
      [
        manualLine('2026-07-18T09:12:00+08:00', 'manual first'), // 01:12Z
        serverLine('2026-07-18T02:30:00Z', 'server latest'), // 02:30Z
        playwrightLine('2026-07-18T10:00:00+08:00', 'playwright middle'), // 02:00Z, written last
      ].join('\n'),
    );
    expect(facts).toEqual([]);
    const bound = bindingFor(entries, 'L6.2', 'L6.2-empty.png');
    expect([bound?.observed_state, bound?.capture.provider, bound?.line]).toEqual(['server latest', 'design-playbook-evidence', 2]);
  });

  test('a later line without a snapshot does not bind: it is a fact, and the earlier good line still binds', () => {
    const stale = JSON.stringify(
      edit(PRE_SNAPSHOT_LINE_TEXT, (l) => Object.assign(l, { criterion: 'L6.2', artifact: 'L6.2-empty.png', ts: '2026-07-19T00:00:00Z' })),
    );
    const { entries, facts } = parseManifest([manualLine('2026-07-18T09:12:00+08:00', 'empty'), stale].join('\n'));
    expect(facts.map((f) => [f.line, f.code])).toEqual([[2, 'missing_schema_version']]);
    expect(bindingFor(entries, 'L6.2', 'L6.2-empty.png')?.line).toBe(1);
  });
});

describe('manifest check on a run written by several providers', () => {
  let dir: string;
  beforeAll(() => {
    if (!fs.existsSync(BIN)) throw new Error('run npm run build first');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'manifest-providers-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test("the issue's three lines: two good entries, the third reported once as missing_schema_version with what to do", () => {
    const file = path.join(dir, 'manifest.jsonl');
    fs.writeFileSync(file, [MANUAL_LINE_TEXT, PLAYWRIGHT_LINE_TEXT, PRE_SNAPSHOT_LINE_TEXT].join('\n') + '\n');
    const r = spawnSync(process.execPath, [BIN, 'manifest', 'check', file], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    const out = r.stdout.trim().split('\n');
    expect(out).toEqual([
      `${file}:3: missing_schema_version: no request snapshot at the top level or inside capture; to fix: ` +
        "copy the capture result's `request` into the line as is; a line written before capture contract v1 has none, so recapture the artifact with schemaVersion 1",
      `${file}: 1 bad line (3), 2 good entries`,
    ]);
  });

  test('--json carries the repair beside each fact', () => {
    const file = path.join(dir, 'bad.jsonl');
    fs.writeFileSync(file, JSON.stringify(edit(MANUAL_LINE_TEXT, (l) => (l.result = 'pass'))) + '\n');
    const r = spawnSync(process.execPath, [BIN, 'manifest', 'check', file, '--json'], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout).facts).toEqual([
      {
        line: 1,
        code: 'bad_field',
        field: 'result',
        detail: "result must be 'captured' or 'failed' (whether the capture happened), never a verdict (got \"pass\")",
        repair: expect.stringContaining('"captured" or "failed"'),
      },
    ]);
  });
});
