/** Tree building and normalization rules, on hand-made walk records (no browser). */
import { buildAriaTree, truncateDataUrl } from '../../cdp/aria/tree';
import type { WalkedChild, WalkedElement } from '../../cdp/injected/aria/domWalk';
import { renderAriaYaml } from '../../cdp/aria/yaml';

function el(tag: string, role: string, kids: WalkedChild[], extra: Partial<WalkedElement> = {}): WalkedElement {
  return { t: tag, blk: false, inl: true, oneText: kids.length === 1 && typeof kids[0] === 'string', role, before: '', after: '', at: {}, kids, ...extra };
}

const render = (top: WalkedChild[]) => renderAriaYaml(buildAriaTree(top).children);

describe('buildAriaTree', () => {
  test('elements without a role pass their text through; inline text runs join without spaces', () => {
    expect(render([el('P', 'paragraph', ['Hello ', el('B', '', ['big']), ' world', el('SPAN', '', ['!'])], { blk: true, inl: false })])).toBe(
      '- paragraph: Hello big world!',
    );
  });

  test('block elements separate their text with a space', () => {
    expect(render([el('DIV', '', ['one'], { blk: true, inl: false }), el('DIV', '', ['two'], { blk: true, inl: false })])).toBe('- text: one two');
  });

  test('a lone text child that repeats the name is dropped', () => {
    expect(render([el('BUTTON', 'button', ['  Save  '], { name: 'Save', blk: true, inl: false })])).toBe('- button "Save"');
    expect(render([el('BUTTON', 'button', ['Save now'], { name: 'Save' })])).toBe('- button "Save": Save now');
  });

  test('a text field shows its value, not its text nodes; placeholder only when it is not the name', () => {
    expect(render([el('TEXTAREA', 'textbox', ['ignored'], { value: 'typed', name: 'Bio', placeholder: 'Bio' })])).toBe('- textbox "Bio": typed');
    expect(render([el('INPUT', 'textbox', [], { value: '', name: 'Email', placeholder: 'you@x' })])).toBe('- textbox "Email":\n  - /placeholder: you@x');
  });

  test('links carry /url as written; data URLs keep only their media type', () => {
    expect(render([el('A', 'link', ['Docs'], { name: 'Docs', href: '../docs.html' })])).toBe('- link "Docs":\n  - /url: ../docs.html');
    expect(truncateDataUrl('data:text/plain;base64,SGVsbG8=')).toBe('data:text/plain;base64,\u2026');
    expect(truncateDataUrl('/plain')).toBe('/plain');
  });

  test('an inline generic around one text node is just text; an empty generic vanishes', () => {
    expect(render([el('SPAN', 'generic', ['inline'], { at: { role: 'generic' } }), el('DIV', 'generic', [], { blk: true, inl: false })])).toBe(
      '- text: inline',
    );
    expect(render([el('DIV', 'generic', ['block'], { blk: true, inl: false, at: { role: 'generic' } })])).toBe('- generic: block');
  });

  test('generated content is part of the text', () => {
    expect(render([el('P', 'paragraph', ['Name'], { after: ' *', blk: true, inl: false })])).toBe('- paragraph: Name *');
  });

  test('names are shown flattened; a role that takes no name shows none', () => {
    expect(render([el('BUTTON', 'button', ['x'], { name: '  Close\n dialog ' })])).toBe('- button "Close dialog": x');
    expect(render([el('TR', 'row', [el('TD', 'cell', ['a'], { name: 'a', blk: true, inl: false })], { name: 'a', blk: true, inl: false })])).toBe(
      '- row "a":\n  - cell "a"',
    );
  });

  test('states come from the attributes as written and the native state', () => {
    expect(render([el('BUTTON', 'button', [], { name: 'Bold', at: { 'aria-pressed': 'mixed' } })])).toBe('- button "Bold" [pressed=mixed]');
    expect(render([el('INPUT', 'checkbox', [], { name: 'A', nativeChecked: true, at: { 'aria-checked': 'false' } })])).toBe('- checkbox "A" [checked]');
    expect(render([el('H2', 'heading', ['T'], { name: 'T', blk: true, inl: false })])).toBe('- heading "T" [level=2]');
  });
});
