/**
 * The capture-type table (src/contract/captureTypes/): each spec's files, name rule
 * and browser module, and that no module outside the table compares `type`
 * strings.
 */
import * as fs from 'fs';
import * as path from 'path';
import { CAPTURE_TYPES, CAPTURE_TYPE_SPECS, captureFiles, findCaptureType, sidecarLeaf, type CaptureTypeSpec } from '../../src/contract/captureTypes';
import { CAPTURE_TYPE_MODULES } from '../../src/browser/capture/types';
import { captureInputSchema } from '../../src/contract/toolArguments';

const REPO = path.join(__dirname, '..', '..');

test('the table is keyed by name, in the order the tool advertises', () => {
  expect(CAPTURE_TYPES).toEqual(['screenshot', 'a11y tree', 'interaction trace']);
  for (const type of CAPTURE_TYPES) expect(CAPTURE_TYPE_SPECS[type].name).toBe(type);
  expect(captureInputSchema.shape.type.options).toEqual([...CAPTURE_TYPES]);
  expect(captureInputSchema.shape.type.description).toBe(
    'screenshot (full-page PNG + .probe.json sidecar), a11y tree (aria snapshot JSON), interaction trace (Playwright trace .zip)',
  );
});

test('findCaptureType knows only the table (not what every object inherits)', () => {
  expect(findCaptureType('a11y tree')).toBe(CAPTURE_TYPE_SPECS['a11y tree']);
  for (const name of ['toString', 'constructor', '__proto__', 'Screenshot', ' screenshot', '']) expect(findCaptureType(name)).toBeUndefined();
});

test('the files each type writes: a screenshot its PNG and the probe sidecar, the others their artifact alone', () => {
  const at = path.join('/run', 'evidence', 'sub', 'L6.2-x.png');
  expect(captureFiles(CAPTURE_TYPE_SPECS.screenshot, at).map(({ sidecar: _s, ...file }) => file)).toEqual([
    { path: at, mimeType: 'image/png', description: 'the screenshot artifact' },
    {
      path: path.join('/run', 'evidence', 'sub', 'L6.2-x.probe.json'),
      mimeType: 'application/json',
      description: "the screenshot's render-token probe sidecar",
    },
  ]);
  expect(captureFiles(CAPTURE_TYPE_SPECS['a11y tree'], '/e/t.json')).toEqual([
    { path: '/e/t.json', mimeType: 'application/json', description: 'the a11y tree artifact' },
  ]);
  expect(captureFiles(CAPTURE_TYPE_SPECS['interaction trace'], '/e/t.zip')).toEqual([
    { path: '/e/t.zip', mimeType: 'application/zip', description: 'the interaction trace artifact' },
  ]);
  expect(sidecarLeaf('a.b.png')).toBe('a.b.probe.json');
  expect(sidecarLeaf('noext')).toBe('noext.probe.json');
  expect(sidecarLeaf('.hidden')).toBe('.hidden.probe.json');
});

test("a trace's name must end in .zip, as given and where it resolves; other types take any name", () => {
  const trace = CAPTURE_TYPE_SPECS['interaction trace'];
  expect(trace.refuseName('evidence/t.trace.ZIP', 't.trace.ZIP')).toBeNull();
  expect(trace.refuseName('evidence/t.png', 't.png')).toBe(
    "interaction trace artifacts are Playwright trace ZIPs: artifact_path must end in .zip (got 'evidence/t.png'); name it evidence/<leaf>.trace.zip",
  );
  expect(trace.refuseName('evidence/link.zip', 'notes.txt')).toContain('must end in .zip');
  const others: CaptureTypeSpec[] = [CAPTURE_TYPE_SPECS.screenshot, CAPTURE_TYPE_SPECS['a11y tree']];
  for (const spec of others) expect(spec.refuseName('evidence/x.zip', 'x.zip')).toBeNull();
});

test("each spec names its browser module, and the provider's table resolves that name to the module's export", async () => {
  for (const type of CAPTURE_TYPES) {
    const file = path.join(REPO, 'src', 'browser', 'capture', 'types', `${CAPTURE_TYPE_SPECS[type].browserModule}.ts`);
    expect(fs.existsSync(file)).toBe(true);
    const exported = Object.values(await import(file));
    expect(exported).toContain(CAPTURE_TYPE_MODULES[type]);
  }
});

test('no module outside the table compares a capture type name', () => {
  const literal = `['"\`](?:${CAPTURE_TYPES.join('|')})['"\`]`;
  const comparison = new RegExp(`(?:[!=]==?\\s*${literal})|(?:${literal}\\s*[!=]==?)|(?:case\\s+${literal})`);
  const offenders: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(REPO, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (rel !== 'src/contract/captureTypes' && rel !== 'src/report/generated') walk(rel);
      } else if (entry.name.endsWith('.ts')) {
        fs.readFileSync(path.join(REPO, rel), 'utf8')
          .split('\n')
          .forEach((line, i) => comparison.test(line) && offenders.push(`${rel}:${i + 1}: ${line.trim()}`));
      }
    }
  };
  walk('src');
  expect(offenders).toEqual([]);
});
