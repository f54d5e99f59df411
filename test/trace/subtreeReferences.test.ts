/**
 * Back-references: every encoded snapshot expands (by the viewer's rules,
 * implemented independently in the harness) to exactly the tree that was
 * captured, and unchanged parts are stored as references.
 */
import { SubtreeReferencer } from '../../cdp/trace/subtreeReferences';
import type { NodeSnapshot } from '../../cdp/trace/format';
import { expandSnapshotTrees } from './harness';

type El = [string, Record<string, string>, ...NodeSnapshot[]];

function page(status: string, value: string, extraItems: number): NodeSnapshot {
  const items: El[] = [];
  for (let i = 0; i < 3 + extraItems; i++) items.push(['LI', { class: 'item' }, `Item ${i}`]);
  return [
    'HTML',
    {},
    ['HEAD', {}, ['BASE', { href: 'http://127.0.0.1/x.html' }], ['TITLE', {}, 'T']],
    [
      'BODY',
      {},
      ['UL', {}, ...items],
      ['INPUT', { __playwright_value_: value }],
      ['P', { id: 'status' }, status],
      ['FOOTER', {}, ['SPAN', {}, 'same'], ['SPAN', {}, 'same']],
    ],
  ];
}

function encodeAll(trees: NodeSnapshot[]) {
  const referencer = new SubtreeReferencer();
  const events = trees.map((html) => ({ type: 'frame-snapshot', snapshot: { frameId: 'frame@main', html: referencer.encode(html) } }));
  return { events, expanded: expandSnapshotTrees(events).map((s) => s.html) };
}

test('each encoded snapshot expands back to the captured tree', () => {
  const trees = [
    page('idle', '', 0),
    page('idle', 'A', 0),
    page('idle', 'A', 0),
    page('done', 'A', 2),
    page('idle', '', 0),
    ['HTML', {}, ['BODY', {}, 'other page']] as NodeSnapshot,
    page('done', 'A', 2),
  ];
  const { expanded } = encodeAll(trees);
  expect(expanded).toEqual(trees);
});

test('attribute text cannot make different subtrees look equal', () => {
  const trees: NodeSnapshot[] = [
    ['DIV', {}, ['P', { a: 'x3:b1:y' }]],
    ['DIV', {}, ['P', { a: 'x', b: 'y' }]],
    ['DIV', {}, ['P', { a: 'x3:b1:y' }], 'tail'],
  ];
  expect(encodeAll(trees).expanded).toEqual(trees);
});

test('an unchanged page is one reference, and a changed one keeps only the change literal', () => {
  const { events } = encodeAll([page('idle', '', 0), page('idle', '', 0), page('done', '', 0)]);
  const [first, same, changed] = events.map((e) => e.snapshot.html as unknown);
  expect(JSON.stringify(first)).toContain('Item 0');
  expect(Array.isArray((same as unknown[])[0])).toBe(true);
  expect(JSON.stringify(changed)).toContain('done');
  expect(JSON.stringify(changed)).not.toContain('Item 0');
  expect(JSON.stringify(changed).length).toBeLessThan(JSON.stringify(first).length / 2);
});
