/**
 * The tool's schemas pass the MCP Inspector's `--strict` portability checks
 * (restated in ./schemaPortability.ts; the Inspector itself runs in
 * ./inspector.e2e.test.ts when installed), and the portable spelling accepts
 * exactly what zod's own spelling accepted.
 */
import { z } from 'zod';
import Ajv2020 from 'ajv/dist/2020';
import { captureToolDeclaration } from '../../src/contract/toolDeclaration';
import { captureInputSchema } from '../../src/contract/toolArguments';
import { captureResultSchema } from '../../src/contract/result';
import { portabilityFindings } from './schemaPortability';

const declaration = captureToolDeclaration();

function zodSpelling(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io, target: 'draft-2020-12' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

test('no finding on the input or the output schema', () => {
  expect(portabilityFindings(declaration.inputSchema, 'inputSchema')).toEqual([]);
  expect(portabilityFindings(declaration.outputSchema, 'outputSchema')).toEqual([]);
});

test("the checks find what zod's own spelling has: the Inspector's 7 warnings", () => {
  const findings = [
    ...portabilityFindings(zodSpelling(captureInputSchema, 'input'), 'inputSchema'),
    ...portabilityFindings(zodSpelling(captureResultSchema, 'output'), 'outputSchema'),
  ];
  expect(findings.map((f) => `${f.rule} ${f.path}`).sort()).toEqual(
    [
      'untyped-schema inputSchema.properties.actions.items.additionalProperties',
      'type-union inputSchema.properties.design.properties.fontSizes.items',
      'type-union inputSchema.properties.design.properties.colors.items',
      'type-union inputSchema.properties.design.properties.radii.items',
      'untyped-schema outputSchema.properties.request.properties.design.properties.fontSizes.items',
      'untyped-schema outputSchema.properties.request.properties.design.properties.colors.items',
      'untyped-schema outputSchema.properties.request.properties.design.properties.radii.items',
    ].sort(),
  );
});

test('a bare boolean schema and a remote $ref are found too', () => {
  expect(portabilityFindings({ type: 'object', properties: { a: true, b: { $ref: 'https://example.com/s.json' } }, additionalProperties: false })).toEqual([
    { rule: 'boolean-schema', severity: 'error', path: '.properties.a' },
    { rule: 'remote-ref', severity: 'warning', path: '.properties.b' },
  ]);
});

describe('the portable spelling accepts exactly what zod spelled', () => {
  const ajv = () => new Ajv2020({ strict: false });
  const base = {
    schemaVersion: 1,
    url: 'http://127.0.0.1/x',
    type: 'screenshot',
    state: 'ready',
    artifact_path: 'evidence/x.png',
    viewport: { width: 800, height: 600, devicePixelRatio: 1, colorScheme: 'light' },
  };
  const inputs: unknown[] = [
    base,
    { ...base, design: { fontSizes: [16, '16px'], colors: ['#fff'], radii: [] } },
    { ...base, design: { fontSizes: [true] } },
    { ...base, design: { colors: [null, { a: 1 }] } },
    { ...base, actions: [{ do: 'click', selector: '#a', note: 'extra keys ride along' }] },
    { ...base, actions: [{ do: 'drag' }] },
    { ...base, schemaVersion: 2 },
    { ...base, schemaVersion: 1.5 },
    { ...base, freeze: { enabled: false } },
    { ...base, freeze: { settle: true } },
    { ...base, overwrite: 'yes' },
    { ...base, viewport: { ...base.viewport, colorScheme: 'sepia' } },
  ];
  test.each(inputs.map((v, i) => [i, v]))('input %i', (_i, value) => {
    expect(ajv().validate(declaration.inputSchema, value)).toBe(ajv().validate(zodSpelling(captureInputSchema, 'input'), value));
  });

  const result = { artifact: 'evidence/x.png', observed_state: 'unknown', result: 'captured', error: '', written_path: '/r/evidence/x.png', warnings: [] };
  const request = { schemaVersion: 1, viewport: base.viewport, freeze: { enabled: true, waitFonts: true, networkIdle: false } };
  const outputs: unknown[] = [
    result,
    { ...result, request },
    { ...result, request: { ...request, design: { fontSizes: [null, true, { x: 1 }, [1], 'a', 2] } } },
    { ...result, request: { ...request, design: { spacing: [] } } },
    { ...result, result: 'pass' },
  ];
  test.each(outputs.map((v, i) => [i, v]))('output %i', (_i, value) => {
    expect(ajv().validate(declaration.outputSchema!, value)).toBe(ajv().validate(zodSpelling(captureResultSchema, 'output'), value));
  });

  test('the corpus has both verdicts on each side (the comparison can fail)', () => {
    const verdicts = (schema: object, values: unknown[]) => new Set(values.map((v) => ajv().validate(schema, v)));
    expect(verdicts(declaration.inputSchema, inputs)).toEqual(new Set([true, false]));
    expect(verdicts(declaration.outputSchema!, outputs)).toEqual(new Set([true, false]));
  });
});
