/**
 * The runtime line check (no ajv) and the committed JSON Schema must agree on
 * every line, not only on the hand-picked cases in schema.e2e.test.ts: this test
 * mutates the field line at random paths with values from a pool (seeded, so
 * a failure reproduces) and requires both verdicts to match.
 */
import * as fs from 'fs';
import * as path from 'path';
import Ajv2020 from 'ajv/dist/2020';
import { checkManifestLine } from '../../src/manifest';
import { DESIGN, fieldLine, type Line } from './lines';

const schema = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', 'schemas', 'manifest_v1.schema.json'), 'utf8'));
const validate = new Ajv2020({ strict: true, allowUnionTypes: true, validateFormats: false }).compile(schema);

const PATHS = [
  'criterion',
  'artifact',
  'observed_state',
  'result',
  'ts',
  'capture',
  'request',
  'method',
  'capture.provider',
  'capture.url',
  'capture.type',
  'capture.state',
  'capture.actions',
  'capture.artifact_path',
  'capture.note',
  'capture.request',
  'capture.extra',
  'request.schemaVersion',
  'request.viewport',
  'request.freeze',
  'request.design',
  'request.extra',
  'request.viewport.width',
  'request.viewport.height',
  'request.viewport.devicePixelRatio',
  'request.viewport.colorScheme',
  'request.viewport.extra',
  'request.freeze.enabled',
  'request.freeze.waitFonts',
  'request.freeze.networkIdle',
  'request.freeze.extra',
  'request.design.fontSizes',
  'request.design.colors',
  'request.design.radii',
  'request.design.spacing',
  'capture.request.schemaVersion',
  'capture.request.freeze',
  'capture.request.design',
];

const DELETE = Symbol('delete');
const VALUES: unknown[] = [
  DELETE,
  null,
  true,
  false,
  0,
  1,
  2,
  1.5,
  1e20,
  0.05,
  0.1,
  -1,
  '',
  ' ',
  'x',
  'L6.3',
  'L6.03',
  'L6.0',
  'l6.3',
  'L6.3 ',
  '../x',
  '/abs',
  'a/./b',
  'a//b',
  'evidence/x.png',
  'x.png',
  'sub/x.png',
  'C:x',
  'a\\b',
  'evidence\\x.png',
  './evidence/x.png',
  'captured',
  'failed',
  'pass',
  'manual',
  'playwright',
  'design-playbook-evidence',
  'session notes',
  'screenshot',
  'a11y tree',
  'interaction trace',
  'light',
  'dark',
  'no-preference',
  '2026-07-16T15:00:00+08:00',
  '2026-07-16T15:00:00Z',
  '2026-07-16t15:00:00z',
  '2026-07-16T15:00:00',
  '2026-13-01T00:00:00Z',
  '2026-07-16T24:00:00Z',
  [],
  [1],
  ['16px'],
  [true],
  [null],
  [{}],
  [{ do: 'click' }],
  ['click'],
  ['open the page', { do: 'click' }],
  [''],
  {},
  { a: 1 },
  { width: 1, height: 1, devicePixelRatio: 1, colorScheme: 'light' },
  { enabled: true, waitFonts: true, networkIdle: false },
  DESIGN,
  { fontSizes: [] },
  { spacing: [] },
];

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function setPath(line: Line, dotted: string, value: unknown): void {
  const keys = dotted.split('.');
  let node: any = line;
  for (const key of keys.slice(0, -1)) {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return;
    if (!(key in node)) node[key] = {};
    node = node[key];
  }
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return;
  const last = keys[keys.length - 1];
  if (value === DELETE) delete node[last];
  else node[last] = structuredClone(value);
}

test('ajv and the runtime check agree on 5000 mutated lines', () => {
  const next = rng(20260716);
  const disagreements: string[] = [];
  let valid = 0;
  for (let i = 0; i < 5000; i++) {
    const line = fieldLine();
    if (next() < 0.3) {
      line.capture.request = structuredClone(line.request);
      if (next() < 0.5) delete line.request;
    }
    const mutations = 1 + Math.floor(next() * 3);
    const applied: string[] = [];
    for (let m = 0; m < mutations; m++) {
      const p = PATHS[Math.floor(next() * PATHS.length)];
      const v = VALUES[Math.floor(next() * VALUES.length)];
      setPath(line, p, v);
      applied.push(`${p}=${v === DELETE ? '<deleted>' : JSON.stringify(v)}`);
    }
    const byAjv = validate(line) as boolean;
    const byRuntime = checkManifestLine(line).length === 0;
    if (byAjv) valid++;
    if (byAjv !== byRuntime) disagreements.push(`${applied.join(', ')}: ajv ${byAjv}, runtime ${byRuntime}`);
  }
  expect(disagreements).toEqual([]);
  // The pool must exercise both verdicts, or the agreement says little.
  expect(valid).toBeGreaterThan(200);
  expect(valid).toBeLessThan(4500);
});
