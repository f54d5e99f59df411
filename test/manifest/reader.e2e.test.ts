/**
 * readManifest / bindingFor and the `manifest check` CLI on real files.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { readManifest, parseManifest, bindingFor } from '../../src/manifest';
import { DESIGN, FIELD_LINE_TEXT, variant } from './lines';

const REPO = path.resolve(__dirname, '..', '..');
const BIN = path.join(REPO, 'dist', 'src', 'bin.js');
let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'manifest-reader-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, lines: string[]): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

const j = (v: unknown) => JSON.stringify(v);

describe('readManifest facts', () => {
  test('a broken line, an empty line and a non-object line', () => {
    const file = write('mixed.jsonl', [
      FIELD_LINE_TEXT, // 1 good
      '{"criterion": "L6.4", "artifact": ', // 2 broken JSON
      '', // 3 empty: skipped, no fact
      '["L6.5", "x.png"]', // 4 not an object
      '   ', // 5 blank: skipped
      j(variant((l) => (l.criterion = 'L6.6'))), // 6 good
      '"just a string"', // 7 not an object
    ]);
    const report = readManifest(file);
    expect(report.facts.map((f) => [f.line, f.code])).toEqual([
      [2, 'malformed_json'],
      [4, 'invalid_entry'],
      [7, 'invalid_entry'],
    ]);
    expect(report.facts[1].detail).toContain('array');
    expect(report.entries.map((e) => [e.line, e.criterion])).toEqual([
      [1, 'L6.3'],
      [6, 'L6.6'],
    ]);
  });

  test('schema violations are line-numbered facts; the request snapshot uses the contract codes', () => {
    const file = write('violations.jsonl', [
      j(variant((l) => (l.result = 'pass'))),
      j(variant((l) => (l.request.schemaVersion = 2))),
      j(variant((l) => delete l.request)),
      j(variant((l) => (l.artifact = '../x'))),
      j(variant((l) => (l.request.freeze = { enabled: true }))),
      j(
        variant((l) => {
          l.capture.request = { schemaVersion: 1, freeze: l.request.freeze };
          delete l.request;
        }),
      ),
    ]);
    const { facts, entries } = readManifest(file);
    expect(entries).toEqual([]);
    expect(facts.map((f) => [f.line, f.code, f.field])).toEqual([
      [1, 'bad_field', 'result'],
      [2, 'unsupported_schema_version', 'request'],
      [3, 'missing_schema_version', 'request'],
      [4, 'bad_field', 'artifact'],
      [5, 'bad_freeze_shape', 'request'],
      [6, 'missing_viewport', 'capture.request'],
    ]);
    expect(facts[0].detail).toContain('(got "pass")');
  });

  test('a missing file is unreadable at line 0, never a throw', () => {
    const report = readManifest(path.join(dir, 'nope.jsonl'));
    expect(report).toEqual({
      entries: [],
      facts: [{ line: 0, code: 'unreadable', detail: expect.stringContaining('nope.jsonl'), repair: expect.any(String) }],
    });
  });

  test('a folder is unreadable', () => {
    expect(readManifest(dir).facts.map((f) => f.code)).toEqual(['unreadable']);
  });

  test('CRLF line ends and a BOM are tolerated', () => {
    const report = parseManifest('\uFEFF' + FIELD_LINE_TEXT + '\r\n' + FIELD_LINE_TEXT + '\r\n');
    expect(report.facts).toEqual([]);
    expect(report.entries.length).toBe(2);
  });

  test('an entry carries the bound request: top level first, else inside capture', () => {
    const top = variant((l) => (l.capture.request = { ...l.request, design: DESIGN }));
    const inside = variant((l) => {
      l.capture.request = { ...l.request, design: DESIGN };
      delete l.request;
    });
    const { entries, facts } = parseManifest([j(top), j(inside)].join('\n'));
    expect(facts).toEqual([]);
    expect(entries[0].requestSource).toBe('request');
    expect(entries[0].request.design).toBeUndefined();
    expect(entries[1].requestSource).toBe('capture.request');
    expect(entries[1].request.design).toEqual(DESIGN);
    expect(entries[0].raw).toEqual(top);
  });
});

describe('bindingFor', () => {
  const line = (criterion: string, artifact: string, ts: string, state: string) =>
    j(variant((l) => Object.assign(l, { criterion, artifact, ts, observed_state: state })));

  test('the latest ts wins, compared as instants across offsets', () => {
    const { entries, facts } = parseManifest(
      [
        line('L6.3', 'L6.3-error.png', '2026-07-16T15:00:00+08:00', 'first'), // 07:00Z
        line('L6.3', 'L6.3-error.png', '2026-07-16T08:00:00Z', 'latest'), // 08:00Z, written before the next line
        line('L6.3', 'L6.3-error.png', '2026-07-16T15:30:00+08:00', 'middle'), // 07:30Z
        line('L6.3', 'other.png', '2026-07-17T00:00:00Z', 'other artifact'),
        line('L6.4', 'L6.3-error.png', '2026-07-18T00:00:00Z', 'other criterion'),
      ].join('\n'),
    );
    expect(facts).toEqual([]);
    expect(bindingFor(entries, 'L6.3', 'L6.3-error.png')?.observed_state).toBe('latest');
    expect(bindingFor(entries, 'L6.3', 'other.png')?.observed_state).toBe('other artifact');
    expect(bindingFor(entries, 'L6.9', 'L6.3-error.png')).toBeUndefined();
  });

  test('on the same instant the later line wins', () => {
    const { entries } = parseManifest(
      [line('L6.3', 'a.png', '2026-07-16T15:00:00+08:00', 'earlier line'), line('L6.3', 'a.png', '2026-07-16T07:00:00Z', 'later line')].join('\n'),
    );
    expect(bindingFor(entries, 'L6.3', 'a.png')?.observed_state).toBe('later line');
  });

  test('a leap second and fractional seconds order correctly; an impossible day is a fact', () => {
    const { entries, facts } = parseManifest(
      [
        line('L6.3', 'a.png', '2016-12-31T23:59:60Z', 'leap'),
        line('L6.3', 'a.png', '2016-12-31T23:59:59.999Z', 'before'),
        line('L6.3', 'a.png', '2026-02-30T00:00:00Z', 'no such day'),
      ].join('\n'),
    );
    expect(facts.map((f) => [f.line, f.code, f.field])).toEqual([[3, 'bad_field', 'ts']]);
    expect(bindingFor(entries, 'L6.3', 'a.png')?.observed_state).toBe('leap');
  });
});

describe('design-playbook-evidence manifest check', () => {
  const run = (...args: string[]) => spawnSync(process.execPath, [BIN, 'manifest', ...args], { encoding: 'utf8' });

  beforeAll(() => {
    if (!fs.existsSync(BIN)) throw new Error('run npm run build first');
  });

  test('a good manifest exits 0', () => {
    const r = run('check', write('good.jsonl', [FIELD_LINE_TEXT, '', FIELD_LINE_TEXT]));
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('ok, 2 entries');
  });

  test('a bad line prints its fact and exits 1', () => {
    const file = write('bad.jsonl', [FIELD_LINE_TEXT, '{oops', j(variant((l) => (l.request.schemaVersion = 2)))]);
    const r = run('check', file);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(`${file}:2: malformed_json:`);
    expect(r.stdout).toContain(`${file}:3: unsupported_schema_version:`);
    expect(r.stdout).toContain('2 bad lines (2, 3), 1 good entry');
    expect(r.stdout).toContain('; to fix: ');
  });

  test('--json prints the facts as JSON', () => {
    const file = write('bad2.jsonl', ['[]']);
    const r = run('check', file, '--json');
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({
      path: file,
      entries: 0,
      facts: [{ line: 1, code: 'invalid_entry', detail: expect.any(String), repair: expect.any(String) }],
    });
  });

  test('a missing file exits 1 with unreadable', () => {
    const r = run('check', path.join(dir, 'missing.jsonl'));
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(':0: unreadable:');
  });

  test('a run root or its evidence/ folder names the manifest inside it', () => {
    const root = fs.mkdtempSync(path.join(dir, 'run-'));
    fs.mkdirSync(path.join(root, 'evidence'));
    const file = path.join(root, 'evidence', 'manifest.jsonl');
    fs.writeFileSync(file, FIELD_LINE_TEXT + '\n');
    for (const given of [root, path.join(root, 'evidence')]) {
      const r = run('check', given);
      expect(r.status).toBe(0);
      expect(r.stdout).toContain(`${file}: ok, 1 entry`);
    }
    const empty = fs.mkdtempSync(path.join(dir, 'empty-'));
    const r = run('check', empty);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(`${path.join(empty, 'manifest.jsonl')}:0: unreadable:`);
  });

  test('--help prints the usage and exits 0', () => {
    const r = run('--help');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('manifest check <path/to/manifest.jsonl>');
  });

  test('no path is a usage error (exit 2)', () => {
    const r = run('check');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('manifest check');
  });
});
