/**
 * src/common/pythonJson.ts: the same values as JSON.parse, plus which numbers were
 * written with a fraction or exponent; describeValue's Python wording of
 * booleans, null and floats; and the readers that hold JSON text (plan lines,
 * manifest lines) keeping `1.0` apart from `1` as the wire does.
 */
import { parseJsonText, stringifyJson, writtenAsFloat } from '../../src/common/pythonJson';
import { describeValue, isIntegerAt } from '../../src/contract/argumentValues';
import { parseManifest } from '../../src/manifest/reader';
import { parsePlan } from '../../src/batch/planFile';
import { FIELD_LINE_TEXT } from '../manifest/lines';

describe('parseJsonText returns what JSON.parse returns', () => {
  const corpus = [
    '{"a":1.0,"b":[1,2.5,3e2,-0.0,1E-3],"c":{"d":"x\\u00e9\\"y\\\\","e":null,"f":true,"g":false}}',
    '[1.0, {"x": [ 2.0 , {"y": 3.0}]}, "1.0", "\\n\\t"]',
    '{"dup":1.0,"dup":{"inner":2.0},"dup":3}',
    '{"__proto__":{"polluted":1.0},"constructor":2.0}',
    '{"big":1e400,"tiny":5e-324,"long":12345678901234567890.0,"neg":-1.5e+3}',
    '  {"spaced" :\t1.0 ,\r\n "s": "a,b:c{}[]"}  ',
    '{"2":1.0,"1":2,"b":3.5,"a":[]}',
    '{}',
    '[]',
    '[[],{},[{}]]',
    '1.0',
    '"1.0"',
    'true',
    '{"k":"ü证😀 1.0"}',
  ];
  test.each(corpus)('%s', (text) => {
    const mine = parseJsonText(text);
    expect(mine).toEqual(JSON.parse(text));
    expect(JSON.stringify(mine)).toBe(JSON.stringify(JSON.parse(text)));
    if (mine && typeof mine === 'object') expect(Object.getPrototypeOf(mine)).toBe(Object.getPrototypeOf(JSON.parse(text)));
  });

  test('a `__proto__` key is an own property, as JSON.parse makes it, not the prototype', () => {
    const value = parseJsonText('{"__proto__":{"polluted":1.0}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test.each(['{"a":1.0', '{"a":01}', '{"a":1.}', "{'a':1}", '[1,]', ''])('invalid text %p throws what JSON.parse throws', (text) => {
    let expected: unknown;
    try {
      JSON.parse(text);
    } catch (err) {
      expected = err;
    }
    expect(() => parseJsonText(text)).toThrow((expected as Error).message);
  });
});

describe('float-literal marks', () => {
  test('every number written with a fraction or exponent is marked on its holder, and only those', () => {
    const value = parseJsonText('{"a":1.0,"b":1,"c":[2.0,3,4e0],"d":{"e":5E1,"f":-6},"g":"7.0","h":0.5}') as Record<string, any>;
    expect(['a', 'b', 'c', 'd', 'g', 'h'].filter((k) => writtenAsFloat(value, k))).toEqual(['a', 'h']);
    expect([0, 1, 2].filter((i) => writtenAsFloat(value.c, i))).toEqual([0, 2]);
    expect(writtenAsFloat(value.d, 'e')).toBe(true);
    expect(writtenAsFloat(value.d, 'f')).toBe(false);
  });

  test('a repeated key takes the mark of its last value', () => {
    expect(writtenAsFloat(parseJsonText('{"v":1.0,"v":1}') as object, 'v')).toBe(false);
    expect(writtenAsFloat(parseJsonText('{"v":1,"v":1.0}') as object, 'v')).toBe(true);
    const nested = parseJsonText('{"v":{"w":1.0},"v":{"w":1}}') as Record<string, Record<string, unknown>>;
    expect(writtenAsFloat(nested.v, 'w')).toBe(false);
  });

  test('a copy carries no marks, and values built in code have none', () => {
    const value = parseJsonText('{"a":1.0}') as Record<string, unknown>;
    expect(isIntegerAt(value, 'a')).toBe(false);
    expect(isIntegerAt({ ...value }, 'a')).toBe(true);
    expect(isIntegerAt({ a: 1.0 }, 'a')).toBe(true);
  });

  test('text without a fraction or exponent outside strings parses to unmarked values', () => {
    const value = parseJsonText('{"url":"http://127.0.0.1:9/x.html","n":1}') as Record<string, unknown>;
    expect(isIntegerAt(value, 'n')).toBe(true);
  });
});

describe('describeValue words values as the original (Python) does', () => {
  test.each<[unknown, string]>([
    [true, 'True'],
    [false, 'False'],
    [null, 'None'],
    ['x', "'x'"],
    [undefined, 'nothing'],
    [99, '99'],
    [1.5, '1.5'],
    [[1, 'a'], '[1,"a"]'],
    [{ a: 1 }, '{"a":1}'],
    // Python repr of these floats, as `python3 -c "print(repr(x))"` prints them.
    [1e-5, '1e-05'],
    [1.5e-7, '1.5e-07'],
    [0.00025, '0.00025'],
    [1e300, '1e+300'],
    [1 / 3, '0.3333333333333333'],
    [Infinity, 'inf'],
    [-Infinity, '-inf'],
  ])('%p -> %s', (value, words) => {
    expect(describeValue(value)).toBe(words);
  });

  test.each([
    ['1.0', '1.0'],
    ['1e0', '1.0'],
    ['8e2', '800.0'],
    ['-0.0', '-0.0'],
    ['1e16', '1e+16'],
    ['1.5e17', '1.5e+17'],
    ['123456789012345.0', '123456789012345.0'],
  ])('an integral number written %s reads %s, as Python prints the float', (token, words) => {
    const holder = parseJsonText(`{"v":${token}}`) as Record<string, unknown>;
    expect(describeValue(holder.v, holder, 'v')).toBe(words);
  });
});

describe('readers that hold JSON text keep 1.0 apart from 1', () => {
  test('a plan line with schemaVersion 1.0 reaches the boundary marked (the same refusal as on the wire)', () => {
    const [line] = parsePlan('{"schemaVersion": 1.0, "viewport": {"width": 800.0}}\n');
    expect(line).toHaveProperty('args');
    const args = (line as { args: unknown }).args as Record<string, unknown>;
    expect(isIntegerAt(args, 'schemaVersion')).toBe(false);
    expect(isIntegerAt(args.viewport as Record<string, unknown>, 'width')).toBe(false);
  });

  test('a manifest line whose request says schemaVersion 1.0 or width 1280.0 is refused by the snapshot check', () => {
    expect(parseManifest(FIELD_LINE_TEXT + '\n').facts).toEqual([]);
    const floatVersion = FIELD_LINE_TEXT.replace('"request": {"schemaVersion": 1,', '"request": {"schemaVersion": 1.0,');
    expect(floatVersion).not.toBe(FIELD_LINE_TEXT);
    expect(parseManifest(floatVersion + '\n').facts.map((f) => f.code)).toContain('unsupported_schema_version');
    const floatWidth = FIELD_LINE_TEXT.replace('"width": 1280', '"width": 1280.0');
    expect(parseManifest(floatWidth + '\n').facts.map((f) => f.code)).toContain('bad_viewport_shape');
  });
});

describe('stringifyJson: whole numbers under the float keys keep a fraction, as Python writes float(1)', () => {
  const keys = new Set(['devicePixelRatio']);
  test('an integral ratio reads 1.0, a fractional one as is, other keys and values untouched', () => {
    const value = { viewport: { width: 800, devicePixelRatio: 2 }, list: [{ devicePixelRatio: 1.5 }, { devicePixelRatio: -3 }], note: 'devicePixelRatio: 1' };
    const text = stringifyJson(value, keys);
    expect(text).toBe(
      '{"viewport":{"width":800,"devicePixelRatio":2.0},"list":[{"devicePixelRatio":1.5},{"devicePixelRatio":-3.0}],"note":"devicePixelRatio: 1"}',
    );
    expect(JSON.parse(text)).toEqual(value);
  });
  test('indentation as JSON.stringify, and exponent forms left as they are (already floats)', () => {
    expect(stringifyJson({ devicePixelRatio: 1 }, keys, 2)).toBe('{\n  "devicePixelRatio": 1.0\n}');
    expect(stringifyJson({ devicePixelRatio: 1e21 }, keys)).toBe('{"devicePixelRatio":1e+21}');
    expect(stringifyJson({ devicePixelRatio: '1' }, keys)).toBe('{"devicePixelRatio":"1"}');
  });
  test('with nothing to mark it is exactly JSON.stringify', () => {
    const value = { a: [1, 2, { b: null }], c: 'x' };
    expect(stringifyJson(value, keys, 2)).toBe(JSON.stringify(value, null, 2));
  });
});
