/**
 * The aria snapshot diff on hand-written snapshots: each kind of change is
 * one entry with its ancestor path, identical texts give none, moves are one
 * entry (not a removal and an addition), and the result is the same on every
 * run.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { diffAriaSnapshots, describeAriaEntry, readAriaSnapshotFile, type AriaDiffEntry } from '../../src/compare/ariaDiff';
import { alignSequences, pairByScore } from '../../src/compare/ariaAlign';
import { renderAriaYaml, type AriaNode } from '../../cdp/aria/yaml';

const BASE = `- banner:
  - heading "Shop" [level=1]
- main:
  - form "Subscribe":
    - textbox "Email"
    - button "Send"
  - list:
    - listitem: Apples
    - listitem: Pears
  - link "Docs":
    - /url: /docs
  - checkbox "Agree"
  - paragraph: Free shipping on orders over 50 euros
- contentinfo:
  - button "Delete"`;

function lines(diff: { entries: AriaDiffEntry[] }): string[] {
  return diff.entries.map(describeAriaEntry);
}

function edit(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error(`test text lacks ${from}`);
  return text.replace(from, to);
}

test('identical snapshots report nothing, and count their nodes', () => {
  const diff = diffAriaSnapshots(BASE, BASE);
  expect(diff).toMatchObject({ identical: true, changed: false, entries: [] });
  // 15 lines, of which one is a /url property (14 nodes), and three inline texts are nodes too.
  expect(diff.counts).toEqual({ before: 17, after: 17, unchanged: 17, added: 0, removed: 0, changed: 0, moved: 0 });
});

test('a changed label is one change of name, with the path to it', () => {
  const diff = diffAriaSnapshots(BASE, edit(BASE, 'button "Send"', 'button "Subscribe now"'));
  expect(diff.entries).toEqual([
    {
      kind: 'changed',
      path: 'main > form "Subscribe" > button "Subscribe now"',
      before: expect.objectContaining({ role: 'button', name: 'Send', line: 6 }),
      after: expect.objectContaining({ role: 'button', name: 'Subscribe now', line: 6 }),
      changes: [{ field: 'name', before: 'Send', after: 'Subscribe now' }],
    },
  ]);
  expect(diff.counts).toMatchObject({ changed: 1, added: 0, removed: 0, moved: 0, unchanged: 16 });
});

test('states, properties, text and role each name what changed', () => {
  let after = edit(BASE, 'heading "Shop" [level=1]', 'heading "Shop" [level=2]');
  after = edit(after, 'checkbox "Agree"', 'checkbox "Agree" [checked] [disabled]');
  after = edit(after, '/url: /docs', '/url: /help');
  after = edit(after, 'paragraph: Free shipping on orders over 50 euros', 'paragraph: Free shipping on orders over 60 euros');
  after = edit(after, '  - button "Delete"', '  - link "Delete"');
  expect(lines(diffAriaSnapshots(BASE, after))).toEqual([
    '~ banner > heading "Shop" [level=2]: state level "1" → "2"',
    '~ main > link "Docs": prop url "/docs" → "/help"',
    '~ main > checkbox "Agree" [checked] [disabled]: state checked (none) → "true"; state disabled (none) → "true"',
    '~ main > paragraph: "Free shipping on orders over 60 euros" > text "Free shipping on orders over 60 euros": text "Free shipping on orders over 50 euros" → "Free shipping on orders over 60 euros"',
    '~ contentinfo > link "Delete": role "button" → "link"',
  ]);
});

test('a new list item is one addition in its place; the items around it are untouched', () => {
  const diff = diffAriaSnapshots(BASE, edit(BASE, '    - listitem: Pears', '    - listitem: Bananas\n    - listitem: Pears'));
  expect(diff.entries).toEqual([
    { kind: 'added', path: 'main > list > listitem: "Bananas"', node: expect.objectContaining({ role: 'listitem', line: 9 }), descendants: 1 },
  ]);
  expect(diff.counts).toMatchObject({ before: 17, after: 19, added: 1, unchanged: 17 });
});

test('a removed button is one removal, placed where it was', () => {
  const diff = diffAriaSnapshots(BASE, edit(BASE, '- contentinfo:\n  - button "Delete"', '- contentinfo'));
  expect(lines(diff)).toEqual(['- contentinfo > button "Delete"']);
  expect(diff.entries[0]).toMatchObject({ kind: 'removed', node: { line: 15 } });
});

test('a removed subtree is one entry counting what it held', () => {
  const after = BASE.replace(/ {2}- form "Subscribe":\n.*\n.*\n/, '');
  expect(lines(diffAriaSnapshots(BASE, after))).toEqual(['- main > form "Subscribe" (2 inside)']);
});

test('an element moved to another parent is one move, from its old path to its new one', () => {
  const after = edit(edit(BASE, '- contentinfo:\n  - button "Delete"', '- contentinfo'), '    - button "Send"', '    - button "Send"\n    - button "Delete"');
  const diff = diffAriaSnapshots(BASE, after);
  expect(diff.entries).toEqual([
    {
      kind: 'moved',
      from: 'contentinfo > button "Delete"',
      path: 'main > form "Subscribe" > button "Delete"',
      before: expect.objectContaining({ line: 15 }),
      after: expect.objectContaining({ line: 7 }),
      changes: [],
      reordered: false,
    },
  ]);
  expect(diff.counts).toMatchObject({ moved: 1, added: 0, removed: 0 });
});

test('a sibling put elsewhere in the same parent is a reorder, and a moved node that changed says both', () => {
  const after = edit(
    edit(BASE, '  - paragraph: Free shipping on orders over 50 euros\n', ''),
    '- main:\n',
    '- main:\n  - paragraph: Free shipping on orders over 50 euros\n',
  );
  expect(lines(diffAriaSnapshots(BASE, after))).toEqual([
    '> main > paragraph: "Free shipping on orders over 50 euros" → main > paragraph: "Free shipping on orders over 50 euros" (reordered)',
  ]);
  const movedAndChecked = edit(edit(BASE, '  - checkbox "Agree"\n', ''), '    - textbox "Email"', '    - textbox "Email"\n    - checkbox "Agree" [checked]');
  expect(lines(diffAriaSnapshots(BASE, movedAndChecked))).toEqual([
    '> main > checkbox "Agree" → main > form "Subscribe" > checkbox "Agree" [checked]: state checked (none) → "true"',
  ]);
});

test('a wrapper added around existing nodes: the wrapper is new, what it holds moved into it', () => {
  const after = edit(BASE, '  - link "Docs":\n    - /url: /docs', '  - group "More":\n    - link "Docs":\n      - /url: /docs');
  expect(lines(diffAriaSnapshots(BASE, after))).toEqual(['+ main > group "More" (+1 inside)', '> main > link "Docs" → main > group "More" > link "Docs"']);
});

test('swapping the sides swaps additions and removals', () => {
  const after = edit(BASE, '    - listitem: Pears', '    - listitem: Bananas\n    - listitem: Pears');
  expect(lines(diffAriaSnapshots(after, BASE))).toEqual(['- main > list > listitem: "Bananas" (1 inside)']);
});

test('names with quotes, colons and escapes are read by the snapshot reader, not split on them', () => {
  const before = renderAriaYaml([{ role: 'button', name: 'Save: "draft" #1', children: [] } as AriaNode, 'a: b']);
  const after = renderAriaYaml([{ role: 'button', name: 'Save: "final" #1', children: [] } as AriaNode, 'a: b']);
  expect(diffAriaSnapshots(before, after).entries).toEqual([
    expect.objectContaining({ kind: 'changed', changes: [{ field: 'name', before: 'Save: "draft" #1', after: 'Save: "final" #1' }] }),
  ]);
});

test('the same inputs give the same result, entry for entry', () => {
  const after = edit(edit(BASE, 'button "Send"', 'button "Go"'), '    - listitem: Apples\n', '');
  expect(JSON.stringify(diffAriaSnapshots(BASE, after))).toBe(JSON.stringify(diffAriaSnapshots(BASE, after)));
});

test('one item moved among two thousand identical-looking rows is found as one move', () => {
  const rows = Array.from({ length: 2000 }, (_, i) => `  - row "Row ${i}":\n    - cell "${i}"\n    - button "Edit"`);
  const before = `- table:\n${rows.join('\n')}`;
  const moved = [...rows];
  const [row] = moved.splice(1500, 1);
  moved.splice(10, 0, row);
  const diff = diffAriaSnapshots(before, `- table:\n${moved.join('\n')}`);
  expect(lines(diff)).toEqual(['> table > row "Row 1500" → table > row "Row 1500" (reordered)']);
});

test('unrelated snapshots: everything is added or removed, nothing is invented as a move', () => {
  const diff = diffAriaSnapshots('- navigation "A":\n  - link "One"', '- main:\n  - heading "Two" [level=1]');
  expect(lines(diff)).toEqual(['- navigation "A" (1 inside)', '+ main (+1 inside)']);
});

test('an unreadable line is kept as raw text and compared as such', () => {
  const diff = diffAriaSnapshots('- main:\n  - ??? odd', '- main:\n  - ??? odder');
  expect(diff.entries).toEqual([expect.objectContaining({ kind: 'changed', changes: [{ field: 'text', before: '- ??? odd', after: '- ??? odder' }] })]);
});

describe('reading an a11y tree artifact', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aria-diff-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('the envelope gives its tree text', () => {
    const file = path.join(dir, 'ok.json');
    fs.writeFileSync(file, JSON.stringify({ format: 'aria_snapshot', tree: BASE }));
    expect(readAriaSnapshotFile(file)).toBe(BASE);
  });

  test('a file that is not an envelope is refused, naming the file and the rule', () => {
    const file = path.join(dir, 'bad.json');
    fs.writeFileSync(file, '{"tree": 3}');
    expect(() => readAriaSnapshotFile(file)).toThrow(
      `${file}: not an aria snapshot envelope: it must be {"format": "aria_snapshot", "tree": "<snapshot text>"}`,
    );
    fs.writeFileSync(file, 'not json');
    expect(() => readAriaSnapshotFile(file)).toThrow(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not a readable aria snapshot envelope: `));
  });
});

describe('sequence alignment', () => {
  test('keeps the longest common order, prefixes, suffixes and unique anchors first', () => {
    expect(alignSequences(['a', 'b', 'c', 'd'], ['a', 'x', 'c', 'd'])).toEqual([
      [0, 0],
      [2, 2],
      [3, 3],
    ]);
    expect(alignSequences(['a', 'b', 'c'], ['c', 'a', 'b'])).toEqual([
      [0, 1],
      [1, 2],
    ]);
    expect(alignSequences([1, 1, 2], [1, 2, 1])).toEqual([
      [0, 0],
      [2, 1],
    ]);
  });

  test('pairs by the best total score, in order', () => {
    const score = (x: string, y: string) => (x[0] === y[0] ? (x === y ? 2 : 1) : null);
    // b1-b2 and a2-a2 (3) beat a1-a2 alone (1).
    expect(pairByScore(['a1', 'b1', 'a2'], ['b2', 'a2'], score, (x) => x[0])).toEqual([
      [1, 0],
      [2, 1],
    ]);
  });
});
