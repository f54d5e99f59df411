/**
 * Pairing through the runs' manifests (src/compare/pairing.ts): two run
 * roots by criterion and type, with criteria added, removed and recaptured;
 * one run in rounds (-r1/-r2, and a recapture in place); and input that
 * cannot be paired, refused naming the file and the rule.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { CompareInputError, pairRounds, pairRuns, revisionName } from '../../src/compare/pairing';
import { variant, type Line } from '../manifest/lines';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
});

/** A line for `criterion` whose artifact is `artifact` (relative to evidence/), of `type`, at minute `minute`. */
function line(criterion: string, artifact: string, minute: number, type = 'screenshot', edit: (l: Line) => void = () => undefined): Line {
  return variant((l) => {
    l.criterion = criterion;
    l.artifact = artifact;
    l.ts = `2026-07-16T15:${String(minute).padStart(2, '0')}:00+08:00`;
    l.capture.type = type;
    l.capture.artifact_path = `evidence/${artifact}`;
    edit(l);
  });
}

/** A run root holding `files` under evidence/ and the manifest lines given (objects, or raw text). */
function run(lines: Array<Line | string>, files: string[]): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'pairing-'));
  roots.push(root);
  fs.mkdirSync(path.join(root, 'evidence'), { recursive: true });
  fs.writeFileSync(path.join(root, 'plan.md'), '# run\n');
  for (const file of files) fs.writeFileSync(path.join(root, 'evidence', file), file);
  fs.writeFileSync(path.join(root, 'evidence', 'manifest.jsonl'), lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return root;
}

test('two runs: pairs by criterion and type, the binding capture of each side; new and gone listed', () => {
  const before = run(
    [
      line('L6.1', 'L6.1-empty.png', 0),
      line('L6.2', 'L6.2-a11y-tree.json', 1, 'a11y tree'),
      line('L6.3', 'L6.3-error.png', 2),
      line('L6.1', 'L6.1-empty-again.png', 3),
    ],
    ['L6.1-empty.png', 'L6.2-a11y-tree.json', 'L6.3-error.png', 'L6.1-empty-again.png'],
  );
  const after = run(
    [line('L6.1', 'L6.1-empty.png', 5), line('L6.2', 'L6.2-a11y-tree.json', 6, 'a11y tree'), line('L6.4', 'L6.4-flow.trace.zip', 7, 'interaction trace')],
    ['L6.1-empty.png', 'L6.2-a11y-tree.json', 'L6.4-flow.trace.zip'],
  );
  const pairing = pairRuns(before, after);
  expect(pairing.pairs.map((p) => [p.criterion, p.type, p.before.artifact, p.after.artifact])).toEqual([
    // L6.1 was captured twice in the first run: the later line binds.
    ['L6.1', 'screenshot', 'L6.1-empty-again.png', 'L6.1-empty.png'],
    ['L6.2', 'a11y tree', 'L6.2-a11y-tree.json', 'L6.2-a11y-tree.json'],
  ]);
  expect(pairing.pairs[0].before.path).toBe(fs.realpathSync(path.join(before, 'evidence', 'L6.1-empty-again.png')));
  expect(pairing.onlyBefore.map((a) => a.criterion)).toEqual(['L6.3']);
  expect(pairing.onlyAfter.map((a) => [a.criterion, a.type])).toEqual([['L6.4', 'interaction trace']]);
  expect(pairing.notComparable).toEqual([]);
});

test('two runs: a failed capture or a file that is not there is set aside with the reason', () => {
  const before = run([line('L6.1', 'a.png', 0), line('L6.2', 'b.png', 1)], ['a.png', 'b.png']);
  const after = run([line('L6.1', 'a.png', 2, 'screenshot', (l) => (l.result = 'failed')), line('L6.2', 'b.png', 3)], []);
  const pairing = pairRuns(before, after);
  expect(pairing.pairs).toEqual([]);
  expect(pairing.notComparable.map((u) => [u.criterion, u.reason])).toEqual([
    ['L6.1', 'the capture on line 1 failed: nothing was written'],
    ['L6.2', `${path.join(after, 'evidence', 'b.png')} is not there (line 2 names it)`],
  ]);
});

test('rounds: successive captures of one criterion and type, in manifest order; a recapture in place is overwritten', () => {
  const root = run(
    [
      line('L6.1', 'L6.1-empty-r1.png', 0),
      line('L6.2', 'L6.2-a11y-tree.json', 1, 'a11y tree'),
      line('L6.1', 'L6.1-empty-r2.png', 2),
      line('L6.2', 'L6.2-a11y-tree.json', 3, 'a11y tree'),
      line('L6.1', 'L6.1-empty-r3.png', 4),
    ],
    ['L6.1-empty-r1.png', 'L6.1-empty-r2.png', 'L6.1-empty-r3.png', 'L6.2-a11y-tree.json'],
  );
  const pairing = pairRounds(root);
  expect(pairing.mode).toBe('rounds');
  expect(pairing.pairs.map((p) => [p.before.artifact, p.after.artifact])).toEqual([
    ['L6.1-empty-r1.png', 'L6.1-empty-r2.png'],
    ['L6.1-empty-r2.png', 'L6.1-empty-r3.png'],
  ]);
  expect(pairing.notComparable).toHaveLength(1);
  expect(pairing.notComparable[0].reason).toBe(
    "overwritten: line 4 recaptured L6.2-a11y-tree.json in place, so line 2's capture is gone; give each round its own name (L6.2-a11y-tree-r2.json)",
  );
});

test('a manifest line that points outside evidence/ is never read', () => {
  const root = run([line('L6.1', 'a.png', 0), line('L6.1', 'link.png', 1)], ['a.png']);
  fs.symlinkSync('/etc/hostname', path.join(root, 'evidence', 'link.png'));
  const pairing = pairRounds(root);
  expect(pairing.pairs).toEqual([]);
  expect(pairing.notComparable[0].reason).toBe(`line 2 names link.png, which resolves outside ${path.join(root, 'evidence')} (symlink_escape)`);
});

describe('input that cannot be paired is refused, naming the file and the rule', () => {
  test('not a run root', () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'pairing-'));
    roots.push(empty);
    expect(() => pairRounds(empty)).toThrow(CompareInputError);
    expect(() => pairRuns(empty, empty)).toThrow(`${empty} is not a run root: it holds no evidence/manifest.jsonl`);
  });

  test('a manifest line with no artifact', () => {
    const root = run([line('L6.1', 'a.png', 0), line('L6.2', 'b.png', 1, 'screenshot', (l) => delete l.artifact)], ['a.png', 'b.png']);
    expect(() => pairRounds(root)).toThrow(
      new RegExp(`^${path.join(root, 'evidence', 'manifest.jsonl').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: .*artifact`),
    );
  });

  test('a line that is not JSON', () => {
    const root = run([line('L6.1', 'a.png', 0), '{"criterion": "L6.2",'], ['a.png']);
    expect(() => pairRounds(root)).toThrow(/manifest\.jsonl:2: /);
  });
});

test('revision names', () => {
  expect(revisionName('L6.1-empty.png')).toBe('L6.1-empty-r2.png');
  expect(revisionName('L6.2-a11y-tree.json')).toBe('L6.2-a11y-tree-r2.json');
  expect(revisionName('flows/L6.4.trace.zip')).toBe('flows/L6.4-r2.trace.zip');
});
