/**
 * Attribution on hand-made sidecars (device pixel ratio 2): a changed region
 * is named by the elements under it, paired across the two captures, with
 * the style change that explains it; elements on one side only, elements put
 * elsewhere, off-scale values when bound, and what cannot be named and why.
 * Ignore-selectors resolve to device-pixel rectangles through the boxes.
 */
import { attributeRegion, attributeRegions, pairElements, readableValue, resolveIgnoreSelectors } from '../../src/compare/attribution';
import { DESIGN, shop, sidecarOf, type ElementSpec } from './sidecars';

const BASE = sidecarOf(shop());
/** The CSS box [x, y, w, h] of a shop element as a device-pixel region (ratio 2). */
const region = (x: number, y: number, w: number, h: number) => ({ x: x * 2, y: y * 2, width: w * 2, height: h * 2 });
const BUY = region(41, 174, 93, 34);

function change(edit: (specs: ElementSpec[]) => void, design = undefined as typeof DESIGN | undefined) {
  return sidecarOf(shop(edit), design);
}

test('a colour change is named by the button under it and the style that changed', () => {
  const after = change((s) => (s[5].background = 'rgb(211, 47, 47)'));
  const at = attributeRegion(BUY, BASE, after);
  expect(at.after[0]).toMatchObject({ selector: 'button#buy', tag: 'button', name: 'Buy now', fit: 1 });
  expect(at.before.map((e) => e.selector)).toEqual(['button#buy', 'html > body > main > section.card', 'html > body > main', 'html > body']);
  expect(at.changes).toEqual([
    expect.objectContaining({
      kind: 'changed',
      pairedBy: 'selector and name',
      styles: [{ property: 'background-color', before: 'rgb(21, 101, 192)', after: 'rgb(211, 47, 47)' }],
      summary: 'button#buy: background-color #1565c0 → #d32f2f',
    }),
  ]);
  expect(at.unavailable).toEqual([]);
});

test('bound: a font size, colour or radius off the declared scale says so; on the scale it does not', () => {
  const before = sidecarOf(shop(), DESIGN);
  const offScale = attributeRegion(
    BUY,
    before,
    change((s) => {
      s[5].fontSize = 15;
      s[5].radius = '6px';
      s[5].background = 'rgb(25, 118, 210)';
    }, DESIGN),
  );
  expect(offScale.changes[0].summary).toBe(
    'button#buy: font-size 16px → 15px (off the declared type scale), background-color #1565c0 → #1976d2 (off the declared palette), border-radius 8px → 6px (off the declared radius scale)',
  );
  const onScale = attributeRegion(
    BUY,
    before,
    change((s) => (s[5].background = 'rgb(211, 47, 47)'), DESIGN),
  );
  expect(onScale.changes[0].styles).toEqual([{ property: 'background-color', before: 'rgb(21, 101, 192)', after: 'rgb(211, 47, 47)' }]);
  // Unbound: nothing to hold the value against.
  expect(
    attributeRegion(
      BUY,
      BASE,
      change((s) => (s[5].fontSize = 15)),
    ).changes[0].styles,
  ).toEqual([{ property: 'font-size', before: '16px', after: '15px' }]);
});

test('a changed label pairs by selector and names the change', () => {
  const at = attributeRegion(
    BUY,
    BASE,
    change((s) => (s[5].text = 'Purchase')),
  );
  expect(at.changes[0]).toMatchObject({
    pairedBy: 'selector',
    name: { before: 'Buy now', after: 'Purchase' },
    summary: 'button#buy: name "Buy now" → "Purchase"',
  });
});

test('a new list item is only after; the item it pushed down is the same item, by name, not by position', () => {
  const after = change((s) => {
    s[7].box = [41, 289, 718, 72];
    s[9].text = 'Spoon';
    s.push({ tag: 'li', selector: 'ul#items > li:nth-of-type(3)', parent: 7, box: [65, 337, 694, 24], text: 'Saucer' });
  });
  const pairs = pairElements(BASE.elements!, after.elements!);
  expect(pairs.get(9)).toEqual({ after: 10, by: 'tag, role and name' });
  const at = attributeRegion(region(41, 313, 718, 48), BASE, after);
  expect(at.changes.map((c) => c.summary)).toEqual([
    'ul#items > li:nth-of-type(2) "Spoon": only after',
    // Boxes that only moved or grew follow from the new item; best fit first.
    'ul#items: size 718×48 → 718×72',
    'ul#items > li:nth-of-type(2) (now ul#items > li:nth-of-type(3)): moved (65, 313) → (65, 337)',
  ]);
});

test('a removed button is only before; a button put in another parent says where it went', () => {
  const removed = change((s) => s.splice(6, 1));
  expect(attributeRegion(region(139, 174, 127, 34), BASE, removed).changes.map((c) => c.summary)).toEqual(['button#later "Save for later": only before']);
  const moved = change((s) => {
    s[6].parent = 3;
    s[6].box = [41, 400, 127, 34];
  });
  const [first] = attributeRegions([region(139, 174, 127, 34)], BASE, moved)[0].changes;
  expect(first.reparented).toEqual({ before: 'html > body > main > section.card', after: 'html > body > main' });
  expect(first.summary).toBe('button#later: now in html > body > main (was in html > body > main > section.card), moved (139, 174) → (41, 400)');
});

test('an unchanged pair under a region names the elements and lists no change', () => {
  const at = attributeRegion(BUY, BASE, sidecarOf(shop()));
  expect(at.after[0].selector).toBe('button#buy');
  expect(at.changes).toEqual([]);
});

test('a side without element boxes is named as such, not guessed', () => {
  const old = sidecarOf(shop(), undefined, { elements: false });
  const at = attributeRegion(BUY, old, BASE);
  expect(at.before).toEqual([]);
  expect(at.after[0].selector).toBe('button#buy');
  expect(at.changes).toEqual([]);
  expect(at.unavailable).toEqual([expect.stringContaining('the before probe sidecar records no element boxes')]);
  expect(attributeRegion(BUY, null, BASE).unavailable).toEqual(['the before screenshot has no probe sidecar']);
});

test('ignore-selectors resolve to device-pixel rectangles through the recorded boxes', () => {
  // 'main > #items': where a recorded path ends at an id, its parent is unknown and '>' reads as ' '.
  const resolved = resolveIgnoreSelectors(['#buy', 'section.card > button', 'main li', 'main > #items', 'header h1, x', '.nothing'], BASE);
  expect(resolved.map((r) => [r.selector, r.matched, r.via])).toEqual([
    ['#buy', ['button#buy'], 'element'],
    ['section.card > button', ['button#buy', 'button#later'], 'element'],
    ['main li', ['ul#items > li:nth-of-type(1)', 'ul#items > li:nth-of-type(2)'], 'element'],
    ['main > #items', ['ul#items'], 'element'],
    ['header h1, x', [], null],
    ['.nothing', [], null],
  ]);
  expect(resolved[0].rects).toEqual([{ x: 82, y: 348, width: 186, height: 68 }]);
  expect(resolved[4].problem).toContain('is not one this comparison resolves');
  expect(resolved[5].problem).toBe('ignore selector ".nothing" matched no element the probe sidecar records');
});

test('a selector naming a wrapper the face leaves out covers what the wrapper holds', () => {
  const sidecar = sidecarOf([
    { tag: 'body', selector: 'html > body', box: [0, 0, 800, 600], background: 'rgb(250, 250, 250)' },
    { tag: 'span', selector: 'body > div.ad > span', parent: 0, box: [10, 10, 100, 20], text: 'Ad' },
    { tag: 'img', selector: 'body > div.ad > img', parent: 0, box: [10, 30, 100, 50] },
  ]);
  const [ad] = resolveIgnoreSelectors(['div.ad'], sidecar);
  expect(ad).toMatchObject({ via: 'descendants', matched: ['body > div.ad > span', 'body > div.ad > img'] });
});

test('colours read as hex wherever they appear in a value', () => {
  expect(readableValue('1px solid rgb(224, 224, 224)')).toBe('1px solid #e0e0e0');
  expect(readableValue('rgba(0, 0, 0, 0.5)')).toBe('rgba(0, 0, 0, 0.5)');
});
