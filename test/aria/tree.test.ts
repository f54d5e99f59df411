/** Tree building and normalization rules, on hand-made walk records (no browser). */
import { buildAriaTree, truncateDataUrl } from '../../cdp/aria/tree';
import type { WalkedChild, WalkedElement } from '../../cdp/aria/domWalk';
import type { ElementFacts } from '../../cdp/aria/axFacts';
import { renderAriaYaml } from '../../cdp/aria/yaml';

let nextIndex = 0;
const names = new Map<number, string>();

function el(tag: string, role: string, kids: WalkedChild[], extra: Partial<WalkedElement> & { name?: string } = {}): WalkedElement {
  const i = nextIndex++;
  if (extra.name !== undefined) names.set(i, extra.name);
  const { name: _name, ...rest } = extra;
  void _name;
  return {
    i, t: tag, blk: false, inl: true, oneText: kids.length === 1 && typeof kids[0] === 'string',
    role, before: '', after: '', at: {}, kids, ...rest,
  };
}

// Chromium's node for an element: same role as the walk decided, name as given.
const factsOf = (rec: WalkedElement): ElementFacts => ({
  tag: rec.t.toUpperCase(),
  attrs: new Map(Object.entries(rec.at)),
  ax: { nodeId: String(rec.i), ignored: false, role: { value: rec.role }, name: { value: names.get(rec.i) ?? '' } },
});

const render = (top: WalkedChild[]) => renderAriaYaml(buildAriaTree(top, factsOf).children);

describe('buildAriaTree', () => {
  test('elements without a role pass their text through; inline text runs join without spaces', () => {
    expect(render([el('P', 'paragraph', ['Hello ', el('B', '', ['big']), ' world', el('SPAN', '', ['!'])], { blk: true, inl: false })]))
      .toBe('- paragraph: Hello big world!');
  });

  test('block elements separate their text with a space', () => {
    expect(render([el('DIV', '', ['one'], { blk: true, inl: false }), el('DIV', '', ['two'], { blk: true, inl: false })]))
      .toBe('- text: one two');
  });

  test('a lone text child that repeats the name is dropped', () => {
    expect(render([el('BUTTON', 'button', ['  Save  '], { name: 'Save', blk: true, inl: false })])).toBe('- button "Save"');
    expect(render([el('BUTTON', 'button', ['Save now'], { name: 'Save' })])).toBe('- button "Save": Save now');
  });

  test('a text field shows its value, not its text nodes; placeholder only when it is not the name', () => {
    expect(render([el('TEXTAREA', 'textbox', ['ignored'], { value: 'typed', name: 'Bio', placeholder: 'Bio' })]))
      .toBe('- textbox "Bio": typed');
    expect(render([el('INPUT', 'textbox', [], { value: '', name: 'Email', placeholder: 'you@x' })]))
      .toBe('- textbox "Email":\n  - /placeholder: you@x');
  });

  test('links carry /url as written; data URLs keep only their media type', () => {
    expect(render([el('A', 'link', ['Docs'], { name: 'Docs', href: '../docs.html' })])).toBe('- link "Docs":\n  - /url: ../docs.html');
    expect(truncateDataUrl('data:text/plain;base64,SGVsbG8=')).toBe('data:text/plain;base64,\u2026');
    expect(truncateDataUrl('/plain')).toBe('/plain');
  });

  test('an inline generic around one text node is just text; an empty generic vanishes', () => {
    expect(render([el('SPAN', 'generic', ['inline'], { at: { role: 'generic' } }), el('DIV', 'generic', [], { blk: true, inl: false })]))
      .toBe('- text: inline');
    expect(render([el('DIV', 'generic', ['block'], { blk: true, inl: false, at: { role: 'generic' } })])).toBe('- generic: block');
  });

  test('generated content is part of the text', () => {
    expect(render([el('P', 'paragraph', ['Name'], { after: ' *', blk: true, inl: false })])).toBe('- paragraph: Name *');
  });

  test('a row without a name from Chromium is named by its cells', () => {
    const row = el('TR', 'row', [el('TD', 'cell', ['a'], { name: 'a', blk: true, inl: false }), el('TD', 'cell', ['b'], { name: 'b', blk: true, inl: false })], { blk: true, inl: false });
    expect(render([row])).toBe('- row "a b":\n  - cell "a"\n  - cell "b"');
  });

  test('a name from content is spelled as the DOM has it when Chromium differs only in case', () => {
    expect(render([el('BUTTON', 'button', ['save changes'], { name: 'SAVE CHANGES' })])).toBe('- button "save changes"');
    // A name that is not the content stays as Chromium computed it.
    expect(render([el('BUTTON', 'button', ['x'], { name: 'Close dialog' })])).toBe('- button "Close dialog": x');
  });
});
