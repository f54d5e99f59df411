/** The text format's quoting rules on names and values a YAML reader would otherwise misread. */
import { needsYamlQuotes, quoteKey, quoteValue, renderAriaYaml, type AriaNode } from '../../cdp/ariaSnapshot';

const node = (role: string, name = '', children: AriaNode['children'] = [], extra: Partial<AriaNode> = {}): AriaNode => ({ role, name, children, ...extra });

describe('needsYamlQuotes', () => {
  test.each([
    ['', true],
    ['plain text', false],
    [' leading', true],
    ['trailing ', true],
    ['- dash', true],
    ['a-b', false],
    ['key: value', true],
    ['ends with colon:', true],
    ['10:30', false],
    ['a # b', true],
    ['a#b', false],
    ['#tag', true],
    ['"quoted"', true],
    ["'single'", true],
    ['line\nbreak', true],
    ['cr\rhere', true],
    ['[x]', true],
    ['x]', false],
    ['{x}', true],
    ['back`tick', true],
    ['@user', true],
    ['&amp', true],
    ['*star', true],
    ['!bang', true],
    ['%pct', true],
    ['>gt', true],
    ['|pipe', true],
    ['?q', true],
    [',comma', true],
    ['123', true],
    ['3.14', true],
    ['1e5', true],
    ['0x1F', true],
    ['yes', true],
    ['No', true],
    ['TRUE', true],
    ['null', true],
    ['~', true],
    ['.inf', true],
    ['-.NaN', true],
    ['Infinity', true],
    ['nullable', false],
    ['世界', false],
    ['🎉 party', false],
    ['مرحبا', false],
    ['tab\there', false],
    ['bell\x07', true],
    ['\x85', true],
  ])('%j -> %s', (input, expected) => {
    expect(needsYamlQuotes(input)).toBe(expected);
  });
});

describe('quoting', () => {
  test('keys use single quotes with doubled inner quotes', () => {
    expect(quoteKey('button "It\'s: here"')).toBe("'button \"It''s: here\"'");
    expect(quoteKey('button "Save"')).toBe('button "Save"');
  });
  test('values use double quotes with escapes', () => {
    expect(quoteValue('a: b')).toBe('"a: b"');
    expect(quoteValue('say "hi": now')).toBe('"say \\"hi\\": now"');
    expect(quoteValue('C:\\dir: x')).toBe('"C:\\\\dir: x"');
    expect(quoteValue('one\ntwo')).toBe('"one\\ntwo"');
    expect(quoteValue('tab\t: x')).toBe('"tab\\t: x"');
    expect(quoteValue('bell\x07')).toBe('"bell\\x07"');
    expect(quoteValue('日本語')).toBe('日本語');
    expect(quoteValue('👩‍💻 coder')).toBe('👩‍💻 coder');
  });
});

describe('renderAriaYaml', () => {
  test('names are JSON strings inside the key; states in fixed order', () => {
    const text = renderAriaYaml([
      node('checkbox', 'All', [], { checked: 'mixed', disabled: true }),
      node('heading', 'Title: "x"', [], { level: 2 }),
      node('button', 'Bold', [], { pressed: true, expanded: true }),
      node('option', 'Two', [], { selected: true, checked: true }),
      node('textbox', 'Email', [], { invalid: true }),
    ]);
    expect(text.split('\n')).toEqual([
      '- checkbox "All" [checked=mixed] [disabled]',
      '- \'heading "Title: \\"x\\"" [level=2]\'',
      '- button "Bold" [expanded] [pressed]',
      '- option "Two" [checked] [selected]',
      '- textbox "Email" [invalid]',
    ]);
  });

  test('single text child goes after a colon, props become /url and /placeholder children', () => {
    const text = renderAriaYaml([
      node('paragraph', '', ['Hello: world']),
      node('link', 'Docs', [], { url: '../docs.html' }),
      node('textbox', 'Name', ['Bob'], { placeholder: 'Your name' }),
      'loose text',
      node('list', '', [node('listitem', '', ['- one']), node('listitem', '', ['42'])]),
    ]);
    expect(text).toBe(
      [
        '- paragraph: "Hello: world"',
        '- link "Docs":',
        '  - /url: ../docs.html',
        '- textbox "Name":',
        '  - /placeholder: Your name',
        '  - text: Bob',
        '- text: loose text',
        '- list:',
        '  - listitem: "- one"',
        '  - listitem: "42"',
      ].join('\n'),
    );
  });

  test('names over 900 characters are left out of the key', () => {
    expect(renderAriaYaml([node('button', 'x'.repeat(901))])).toBe('- button');
    expect(renderAriaYaml([node('button', 'x'.repeat(900))])).toBe(`- button "${'x'.repeat(900)}"`);
  });

  test('a shown element carrying aria-hidden is marked after its states', () => {
    expect(renderAriaYaml([node('region', 'Kept', ['text'], { selected: true, ariaHidden: true })])).toBe('- region "Kept" [selected] [aria-hidden]: text');
  });
});
