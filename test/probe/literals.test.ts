/**
 * Literal reading, one test per rule of the seed with the literals it names.
 * The Chromium oracle for the same rules is in chromium.browser.test.ts.
 */
import { classifyColorLiteral, classifyPxLiteral, serializeChannel, trimCssWhitespace } from '../../src/probe/literals';

function px(literal: unknown, axis: 'fontSizes' | 'radii' = 'fontSizes') {
  return classifyPxLiteral(literal, axis);
}
function reasonOf(result: { comparable: boolean; reason?: string }): string {
  expect(result.comparable).toBe(false);
  return (result as { reason: string }).reason;
}

describe('numeric literals', () => {
  test.each([
    [16, 16],
    [0, 0],
    [13.5, 13.5],
    ['16px', 16],
    ['+16px', 16],
    ['1.6e1px', 16],
    ['160E-1px', 16],
    ['16PX', 16],
    [' \t\n\r\f16px \t\n\r\f', 16],
  ])('%j is comparable as %d px', (literal, value) => {
    expect(px(literal)).toEqual({ comparable: true, px: value });
  });

  test.each([
    ['1_6px', /'_' is not a digit separator/],
    ['１６px', /non-ASCII digit U\+FF11/],
    ['16 px', /whitespace between the number and px/],
    ['inf', /not a CSS number/],
    ['infpx', /not a CSS number/],
    ['Infinity', /not a CSS number/],
    ['NaN', /not a CSS number/],
    ['\u00a016px', /U\+00A0, which is not CSS whitespace/],
    ['16px\u00a0', /U\+00A0, which is not CSS whitespace/],
    ['\u000b16px', /U\+000B, which is not CSS whitespace/],
    ['16px\u000b', /U\+000B/],
    ['1rem', /unit 'rem' is not px/],
    ['50%', /unit '%' is not px/],
    ['var(--x)', /token reference var\(--x\) is not resolved/],
    ['calc(8px + 8px)', /math function/],
    ['16', /bare number without a unit/],
    ['.5px', /not a complete CSS number/],
    ['16.px', /not a complete CSS number/],
    ['', /empty literal/],
    ['1e400px', /overflows to Infinity/],
    ['-4px', /negative length/],
  ])('%j is undecidable', (literal, reason) => {
    expect(reasonOf(px(literal))).toMatch(reason);
  });

  test('non-finite and negative JSON numbers are undecidable', () => {
    expect(reasonOf(px(NaN))).toMatch(/NaN is not a finite number/);
    expect(reasonOf(px(Infinity))).toMatch(/Infinity is not a finite number/);
    expect(reasonOf(px(JSON.parse('1e400')))).toMatch(/Infinity is not a finite number/);
    expect(reasonOf(px(-Infinity))).toMatch(/-Infinity/);
    expect(reasonOf(px(-2, 'radii'))).toMatch(/negative length -2px is invalid for border-radius/);
  });

  test('values the browser clamps are not painted as written', () => {
    expect(px(10000)).toEqual({ comparable: true, px: 10000 });
    expect(reasonOf(px(10001))).toMatch(/clamps font-size at 10000px/);
    expect(reasonOf(px('1e9px'))).toMatch(/clamps font-size/);
    expect(px(1e6, 'radii')).toEqual({ comparable: true, px: 1e6 });
    expect(reasonOf(px(1e9, 'radii'))).toMatch(/clamps lengths/);
  });

  test('non-number, non-string items are kept and undecidable', () => {
    expect(reasonOf(px(true))).toMatch(/not a boolean/);
    expect(reasonOf(px(null))).toMatch(/not null/);
    expect(reasonOf(px({ px: 16 }))).toMatch(/not a object/);
    expect(reasonOf(px([16]))).toMatch(/not an array/);
  });
});

describe('CSS whitespace', () => {
  test('only space, tab, LF, CR and form feed are trimmed', () => {
    expect(trimCssWhitespace(' \t\n\r\fx \t\n\r\f')).toBe('x');
    expect(trimCssWhitespace('\u00a0x\u00a0')).toBe('\u00a0x\u00a0');
    expect(trimCssWhitespace('\u000bx\u000b')).toBe('\u000bx\u000b');
    expect(trimCssWhitespace('\u2003x\ufeff')).toBe('\u2003x\ufeff');
  });
});

describe('colour literals', () => {
  test.each([
    ['#f5f5f5', 'rgb(245, 245, 245)'],
    ['#F5F5F5', 'rgb(245, 245, 245)'],
    ['#fff', 'rgb(255, 255, 255)'],
    ['#0b6bcbff', 'rgb(11, 107, 203)'],
    ['#fffF', 'rgb(255, 255, 255)'],
    ['rgb(11, 107, 203)', 'rgb(11, 107, 203)'],
    ['rgb(11 107 203)', 'rgb(11, 107, 203)'],
    ['RGB(11,107,203)', 'rgb(11, 107, 203)'],
    ['rgba(11, 107, 203, 1)', 'rgb(11, 107, 203)'],
    ['rgb(11 107 203 / 100%)', 'rgb(11, 107, 203)'],
    ['rgb(100%, 0%, 50%)', 'rgb(255, 0, 128)'],
    ['rgb(12.5, 0, 0)', 'rgb(13, 0, 0)'],
    ['rgb(12.49 0 0)', 'rgb(12, 0, 0)'],
    ['rgb(300 -5 none)', 'rgb(255, 0, 0)'],
    ['rgb(1 2% 3)', 'rgb(1, 5, 3)'],
    ['\t#ffffff\n', 'rgb(255, 255, 255)'],
  ])('%j is comparable as %s', (literal, serialized) => {
    const result = classifyColorLiteral(literal);
    expect(result).toMatchObject({ comparable: true, serialized });
  });

  test('a fractional channel rounds to the nearest integer, ties up: 12.5 paints 13', () => {
    expect(serializeChannel(12.5)).toBe(13);
    expect(serializeChannel(13.5)).toBe(14);
    expect(serializeChannel(12.4999)).toBe(12);
    expect(serializeChannel(254.5)).toBe(255);
    expect(serializeChannel(-0.5)).toBe(0);
  });

  test.each([
    ['rgba(0, 0, 0, 0.5)', /alpha 0.5 is translucent/],
    ['rgba(11,107,203,.5)', /alpha/],
    ['rgb(0 0 0 / 10%)', /alpha 10% is translucent/],
    ['rgb(0 0 0 / 0.999)', /translucent/],
    ['rgba(0, 0, 0, 0)', /translucent/],
    ['#0b6bcb80', /hex alpha 0.502 is translucent/],
    ['#0008', /hex alpha/],
  ])('translucent %j is undecidable, never read as its opaque channels', (literal, reason) => {
    expect(reasonOf(classifyColorLiteral(literal))).toMatch(reason);
  });

  test.each([
    ['red', /named colour 'red'/],
    ['transparent', /not an opaque colour literal/],
    ['currentColor', /not an opaque colour literal/],
    ['hsl(0 100% 50%)', /hsl\(\) colours are not compared/],
    ['color(srgb 1 0 0)', /color\(\) colours/],
    ['var(--brand)', /token reference var\(--brand\)/],
    ['rgb(var(--r) 0 0)', /reference, math function/],
    ['rgb(calc(1) 0 0)', /reference, math function/],
    ['rgb(1, 2%, 3)', /mixes numbers and percentages/],
    ['rgb(1, 2)', /three channels/],
    ['rgb(1_0 0 0)', /channel that is not/],
    ['rgb(１ 0 0)', /non-ASCII digit/],
    ['rgb(1\u00a00 0)', /U\+00A0/],
    ['#ff00', /hex alpha 0 is translucent/],
    ['#ggg', /not a hex colour/],
    ['#12345', /not a hex colour/],
    ['\u00a0#ffffff', /U\+00A0/],
  ])('%j is undecidable with a reason', (literal, reason) => {
    expect(reasonOf(classifyColorLiteral(literal))).toMatch(reason);
  });

  test('numbers and other JSON values on the colour axis are undecidable', () => {
    expect(reasonOf(classifyColorLiteral(0xffffff))).toMatch(/must be a string/);
    expect(reasonOf(classifyColorLiteral(true))).toMatch(/not a boolean/);
    expect(reasonOf(classifyColorLiteral(null))).toMatch(/not null/);
  });
});
