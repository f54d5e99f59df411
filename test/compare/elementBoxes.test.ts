/**
 * The sidecar's `elements` face: which elements it keeps (structure, text,
 * paint; not bare wrappers nor an svg's insides), how it names them, which
 * styles it writes (initial values left out), its limit, and the sidecar
 * schema taking old sidecars without it and refusing to write a malformed one.
 */
import { buildElementBoxes, STYLE_INITIAL } from '../../src/probe/elementBoxes';
import { buildProbeSidecar, probeSidecarSchema } from '../../src/probe/sidecar';
import { compareRenderTokens } from '../../src/probe/comparator';
import { PAGE, rendered, shop } from './sidecars';

test('keeps structure, controls, text and painted boxes; leaves out bare wrappers and what an svg draws', () => {
  const face = buildElementBoxes(
    rendered([
      { tag: 'body', box: [0, 0, 800, 600] },
      { tag: 'div', selector: 'body > div', parent: 0, box: [0, 0, 800, 300] },
      { tag: 'div', selector: 'body > div > div.card', parent: 1, box: [10, 10, 200, 100], background: 'rgb(255, 255, 255)' },
      { tag: 'span', selector: 'div.card > span', parent: 2, box: [20, 20, 50, 18], text: 'Hello' },
      { tag: 'svg', selector: 'div.card > svg', parent: 2, box: [80, 20, 16, 16] },
      { tag: 'path', selector: 'div.card > svg > path', parent: 4, box: [80, 20, 16, 16], background: 'rgb(0, 0, 0)' },
      { tag: 'button', id: 'go', parent: 1, box: [10, 120, 60, 30], text: 'Go' },
      { tag: 'div', selector: 'body > div > div.empty', parent: 1, box: [0, 200, 0, 0], background: 'rgb(1, 1, 1)' },
    ]),
  );
  expect(face.items.map((i) => [i.selector, i.parent])).toEqual([
    ['body > div > div.card', null],
    ['div.card > span', 0],
    ['div.card > svg', 0],
    ['button#go', null],
  ]);
  expect(face.omitted).toBe(0);
});

test('names: written labels first, content only for elements named by content, and an own-text element by its text', () => {
  const face = buildElementBoxes(
    rendered([
      { tag: 'nav', attributes: { 'aria-label': 'Main menu', role: 'navigation' }, box: [0, 0, 800, 40] },
      { tag: 'a', selector: 'nav > a', parent: 0, box: [0, 0, 80, 40], attributes: { href: '/x' } },
      { tag: 'span', selector: 'nav > a > span', parent: 1, box: [0, 0, 80, 40], text: 'Docs' },
      { tag: 'img', selector: 'img', box: [0, 50, 40, 40], attributes: { alt: 'Logo' } },
      { tag: 'input', selector: 'input', box: [0, 100, 200, 30], attributes: { placeholder: 'you@example.com' } },
      { tag: 'section', selector: 'section', box: [0, 200, 800, 100], background: 'rgb(255, 255, 255)' },
      { tag: 'p', selector: 'section > p', parent: 5, box: [0, 200, 800, 20], text: 'x'.repeat(100) },
    ]),
  );
  expect(face.items.map((i) => [i.tag, i.role, i.name])).toEqual([
    ['nav', 'navigation', 'Main menu'],
    ['a', undefined, 'Docs'],
    ['span', undefined, 'Docs'],
    ['img', undefined, 'Logo'],
    ['input', undefined, 'you@example.com'],
    ['section', undefined, ''],
    ['p', undefined, 'x'.repeat(79) + '\u2026'],
  ]);
});

test('styles: text styles for text, paint when painted, shorthands folded, initial values left out', () => {
  const [buy] = buildElementBoxes(rendered([{ ...shop()[5], parent: null }])).items;
  expect(buy.styles).toEqual({
    color: 'rgb(255, 255, 255)',
    'font-size': '16px',
    'font-weight': '400',
    'font-family': 'sans-serif',
    'line-height': 'normal',
    'background-color': 'rgb(21, 101, 192)',
    'border-radius': '8px',
  });
  const [card] = buildElementBoxes(
    rendered([
      {
        tag: 'section',
        box: [0, 0, 100, 100],
        border: { width: 1, color: 'rgb(224, 224, 224)' },
        styles: {
          'padding-top': '8px',
          'padding-bottom': '8px',
          'padding-right': '16px',
          'padding-left': '16px',
          'margin-bottom': '16px',
          'box-shadow': 'rgb(0, 0, 0) 0px 1px 2px 0px',
          opacity: '0.5',
        },
      },
    ]),
  ).items;
  expect(card.styles).toEqual({
    border: '1px solid rgb(224, 224, 224)',
    padding: '8px 16px',
    margin: '0px 0px 16px',
    opacity: '0.5',
    'box-shadow': 'rgb(0, 0, 0) 0px 1px 2px 0px',
  });
  expect(STYLE_INITIAL['background-color']).toBe('rgba(0, 0, 0, 0)');
});

test('beyond the limit, structure and controls are kept before text, text before paint, in document order', () => {
  const specs = [
    { tag: 'div', selector: 'div.a', box: [0, 0, 10, 10] as [number, number, number, number], background: 'rgb(1, 1, 1)' },
    { tag: 'span', selector: 'span', box: [0, 10, 10, 10] as [number, number, number, number], text: 'x' },
    { tag: 'button', selector: 'button', box: [0, 20, 10, 10] as [number, number, number, number] },
    { tag: 'h2', selector: 'h2', box: [0, 30, 10, 10] as [number, number, number, number] },
  ];
  const face = buildElementBoxes(rendered(specs), 3);
  expect(face.items.map((i) => i.selector)).toEqual(['span', 'button', 'h2']);
  expect(face.omitted).toBe(1);
});

describe('in the sidecar', () => {
  const elements = rendered(shop());
  const render_tokens = compareRenderTokens(elements, undefined);

  test('written as `elements` when given, and read back by the sidecar schema', () => {
    const sidecar = buildProbeSidecar({ page_facts: PAGE, render_tokens, element_boxes: buildElementBoxes(elements) });
    expect(sidecar.elements?.items).toHaveLength(10);
    expect(probeSidecarSchema.parse(JSON.parse(JSON.stringify(sidecar))).elements).toEqual(sidecar.elements);
  });

  test('a sidecar written before the face reads as before: no elements', () => {
    const old = buildProbeSidecar({ page_facts: PAGE, render_tokens });
    expect(old).not.toHaveProperty('elements');
    expect(probeSidecarSchema.parse(JSON.parse(JSON.stringify(old)))).toEqual(old);
  });

  test("a provider's malformed face is left out, never written half-right", () => {
    const sidecar = buildProbeSidecar({ page_facts: PAGE, render_tokens, element_boxes: { items: [{ selector: 1 }], omitted: 0 } });
    expect(sidecar).not.toHaveProperty('elements');
    expect(sidecar.renderTokens.measurement_status).toBe('measured');
  });
});
