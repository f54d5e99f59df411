/**
 * The contract boundary for `design`: only the declaration's shape is checked;
 * literals inside the arrays are kept exactly as given.
 */
import { z } from 'zod';
import { DESIGN_AXES, checkDesignDeclaration, designInputSchema } from '../../src/contract/designBinding';

function errorOf(value: unknown): string {
  const result = checkDesignDeclaration(value);
  if (result.ok) throw new Error(`expected a rejection for ${JSON.stringify(value)}`);
  return result.error;
}

describe('checkDesignDeclaration rejects a malformed declaration', () => {
  test.each([
    ['null', null, 'null'],
    ['an array', [14, 16], 'array'],
    ['a string', '16px', 'string'],
    ['a number', 16, 'number'],
    ['a boolean', true, 'boolean'],
  ])('design that is %s is not an object', (_name, value, got) => {
    expect(errorOf(value)).toBe(`design must be an object when provided (got ${got})`);
  });

  test('an unknown axis is named with the allowed axes', () => {
    expect(errorOf({ fontSizes: [16], spacing: [4] })).toBe("design: unknown axis 'spacing'; allowed axes are fontSizes, colors, radii");
  });

  test('every unknown axis is named', () => {
    expect(errorOf({ spacing: [4], shadows: [] })).toBe("design: unknown axes 'spacing', 'shadows'; allowed axes are fontSizes, colors, radii");
  });

  test('a JSON "__proto__" key is an unknown axis, not a prototype', () => {
    expect(errorOf(JSON.parse('{"__proto__": [1]}'))).toMatch(/unknown axis '__proto__'/);
  });

  test.each([
    ['scalar number', { fontSizes: 16 }, 'design.fontSizes must be an array of literals (got number)'],
    ['scalar string', { colors: '#ffffff' }, 'design.colors must be an array of literals (got string)'],
    ['name->literal object', { colors: { brand: '#0b6bcb' } }, 'design.colors must be an array of literals (got object)'],
    ['explicit null', { radii: null }, 'design.radii must be an array of literals (got null)'],
    ['boolean', { radii: false }, 'design.radii must be an array of literals (got boolean)'],
  ])('a %s axis is rejected', (_name, value, message) => {
    expect(errorOf(value)).toBe(message);
  });
});

describe('checkDesignDeclaration keeps a well-formed declaration as given', () => {
  test('the validated declaration is the caller object, byte-for-byte in JSON', () => {
    const text = '{"radii":[4,"8px"," 12px\\u000b",1e400],"colors":["#F5F5F5","rgba(0,0,0,0.5)",true,null,{"x":1}],"fontSizes":["1rem","var(--x)",16.0]}';
    const value = JSON.parse(text);
    const result = checkDesignDeclaration(value);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.design).toBe(value);
    expect(Object.keys(result.design)).toEqual(['radii', 'colors', 'fontSizes']);
    // Literals are never rewritten or dropped at the boundary.
    expect(JSON.stringify(result.design)).toBe(JSON.stringify(value));
    expect((result.design.colors as unknown[]).length).toBe(5);
  });

  test('an empty object and empty axes are declarations (their comparisons are undecidable, not rejected)', () => {
    expect(checkDesignDeclaration({}).ok).toBe(true);
    expect(checkDesignDeclaration({ fontSizes: [], colors: [], radii: [] }).ok).toBe(true);
  });
});

describe('designInputSchema', () => {
  test('is built from DESIGN_AXES: optional array axes of number-or-string items, no other keys', () => {
    const schema = z.toJSONSchema(designInputSchema) as any;
    expect(schema.type).toBe('object');
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties)).toEqual([...DESIGN_AXES]);
    expect(schema.required ?? []).toEqual([]);
    for (const axis of DESIGN_AXES) {
      const prop = schema.properties[axis];
      expect(prop.type).toBe('array');
      const itemTypes = prop.items.anyOf ? prop.items.anyOf.map((s: any) => s.type) : prop.items.type;
      expect([...itemTypes].sort()).toEqual(['number', 'string']);
      expect(typeof prop.description).toBe('string');
    }
    expect(schema.description).toMatch(/undecidable/);
  });

  test('agrees with the checker on shape', () => {
    const good = { colors: ['#ffffff'], radii: [4, '8px'] };
    expect(designInputSchema.safeParse(good).success).toBe(true);
    expect(checkDesignDeclaration(good).ok).toBe(true);
    for (const bad of [null, [], { spacing: [4] }, { fontSizes: 16 }, { colors: { a: '#fff' } }, { radii: null }]) {
      expect(designInputSchema.safeParse(bad).success).toBe(false);
      expect(checkDesignDeclaration(bad).ok).toBe(false);
    }
  });
});

describe('designRecordSchema', () => {
  test('accepts every declaration the checker accepts, including items the input schema does not describe', async () => {
    const { designRecordSchema } = await import('../../src/contract/designBinding');
    const kept = JSON.parse('{"colors":[true,null,{"a":1},"#fff"],"radii":[1e400]}');
    expect(checkDesignDeclaration(kept).ok).toBe(true);
    expect(designRecordSchema.safeParse(kept).success).toBe(true);
    expect(designRecordSchema.safeParse(JSON.parse(JSON.stringify(kept))).success).toBe(true);
    for (const bad of [null, [], { spacing: [4] }, { fontSizes: 16 }, { radii: null }]) {
      expect(designRecordSchema.safeParse(bad).success).toBe(false);
    }
  });
});
