/**
 * The face and the sidecar: what was and was not measured is always said,
 * `design` is absent when unbound, and the declaration travels byte-for-byte.
 * Comparator edge rules on hand-built elements (shapes as the walker yields them).
 */
import { z } from 'zod';
import { usedRadii, type Corner, type RenderedElement } from '../../cdp/styleWalker';
import { checkDesignDeclaration } from '../../src/contract/designBinding';
import { buildProbeSidecar, compareRenderTokens, renderTokensFaceSchema } from '../../src/probe';
import { SAMPLE_LIMIT } from '../../src/probe/comparator';

const PAGE_FACTS = {
  finalUrl: 'http://127.0.0.1:1/page.html',
  documentSize: { width: 800, height: 1200 },
  viewport: { width: 800, height: 600, devicePixelRatio: 2, colorScheme: 'light' },
  devicePixelRatio: 2,
};

type Spec = {
  parent?: number | null;
  box?: [number, number, number, number];
  fontSize?: number;
  color?: string;
  background?: string | null;
  radius?: string | Partial<Record<Corner, string>>;
};

/** Builds walker-shaped elements; radii go through the walker's own used-radius resolution. */
function elements(specs: Spec[]): RenderedElement[] {
  return specs.map((spec, index) => {
    const [x, y, width, height] = spec.box ?? [0, 0, 100, 20];
    const corners = typeof spec.radius === 'string' || spec.radius === undefined ? {} : spec.radius;
    const all = typeof spec.radius === 'string' ? spec.radius : '0px';
    const computed = {
      'top-left': corners['top-left'] ?? all,
      'top-right': corners['top-right'] ?? all,
      'bottom-right': corners['bottom-right'] ?? all,
      'bottom-left': corners['bottom-left'] ?? all,
    };
    return {
      index,
      parent: spec.parent ?? (index === 0 ? null : 0),
      document: 0,
      selector: `div#e${index}`,
      box: { x, y, width, height },
      text:
        spec.fontSize === undefined
          ? null
          : { fontSize: `${spec.fontSize}px`, fontSizePx: spec.fontSize, color: spec.color ?? 'rgb(0, 0, 0)', colorProperty: 'color' },
      backgroundColor: spec.background === undefined ? 'rgba(0, 0, 0, 0)' : spec.background,
      borders: [],
      radii: usedRadii(computed, width, height),
    };
  });
}

describe('buildProbeSidecar', () => {
  test('unbound and unprobed: an unmeasured face naming every axis, and no design key at all', () => {
    const sidecar = buildProbeSidecar({ page_facts: PAGE_FACTS });
    expect('design' in sidecar).toBe(false);
    const json = JSON.stringify(sidecar);
    expect(json).not.toMatch(/"design"/);
    expect(sidecar.page).toEqual(PAGE_FACTS);
    const face = sidecar.renderTokens;
    expect(face.measurement_status).toBe('unmeasured');
    expect(face.measurement_error).not.toBe('');
    expect(face.findings).toEqual([]);
    expect(face.distinctFontSizes).toEqual([]);
    expect(face.undecidable.filter((u) => u.kind === 'unmeasured').map((u) => u.axis)).toEqual(['fontSizes', 'colors', 'radii']);
    expect(face.undecidable.filter((u) => u.kind === 'unbound').map((u) => u.axis)).toEqual(['fontSizes', 'colors', 'radii']);
    expect(renderTokensFaceSchema.safeParse(face).success).toBe(true);
  });

  test('bound: the declaration is carried byte-for-byte, and its undecidable literals are named even when unmeasured', () => {
    const text = '{"radii":[8,"1rem"],"colors":["#FFF","rgba(0,0,0,0.5)",true],"fontSizes":[16,"16 px"]}';
    const checked = checkDesignDeclaration(JSON.parse(text));
    if (!checked.ok) throw new Error(checked.error);
    const sidecar = buildProbeSidecar({ page_facts: PAGE_FACTS }, checked.design);
    expect(JSON.stringify(sidecar.design)).toBe(text);
    const literals = sidecar.renderTokens.undecidable.filter((u) => u.kind === 'literal').map((u) => [u.axis, u.literal, u.index]);
    expect(literals).toEqual([
      ['fontSizes', '16 px', 1],
      ['colors', 'rgba(0,0,0,0.5)', 1],
      ['colors', true, 2],
      ['radii', '1rem', 1],
    ]);
  });

  test('a measured face passes through unchanged', () => {
    const face = compareRenderTokens(elements([{ fontSize: 16 }]), { fontSizes: [16] });
    const sidecar = buildProbeSidecar({ page_facts: PAGE_FACTS, render_tokens: face }, { fontSizes: [16] });
    expect(sidecar.renderTokens).toBe(face);
    expect(sidecar.renderTokens.measurement_status).toBe('measured');
  });

  test('a malformed face from a provider becomes a failed face, never measured', () => {
    const sidecar = buildProbeSidecar({ page_facts: PAGE_FACTS, render_tokens: { measurement_status: 'measured', findings: [] } });
    expect(sidecar.renderTokens.measurement_status).toBe('failed');
    expect(sidecar.renderTokens.measurement_error).toMatch(/malformed render-token face/);
  });

  test('missing page facts are null, not invented', () => {
    expect(buildProbeSidecar({}).page).toBeNull();
  });

  test('the face schema converts to JSON Schema for the output schema', () => {
    const schema = z.toJSONSchema(renderTokensFaceSchema) as any;
    expect(schema.required).toEqual(['measurement_status', 'measurement_error', 'findings', 'undecidable', 'distinctFontSizes']);
    expect(schema.properties.measurement_status.enum).toEqual(['measured', 'unmeasured', 'failed']);
  });
});

describe('compareRenderTokens: what was and was not decided', () => {
  const page = () =>
    elements([
      { background: 'rgb(255, 255, 255)', box: [0, 0, 400, 400] },
      { fontSize: 16, color: 'rgb(26, 26, 26)' },
      { fontSize: 13, color: 'rgb(26, 26, 26)', radius: '6px', background: 'rgb(245, 245, 245)' },
    ]);

  test('unbound: distinct font sizes are facts, every declared comparison is undecidable, no declared findings', () => {
    const face = compareRenderTokens(page(), undefined);
    expect(face.measurement_status).toBe('measured');
    expect(face.distinctFontSizes).toEqual([13, 16]);
    expect(face.findings).toEqual([]);
    expect(face.undecidable).toEqual([
      { axis: 'fontSizes', kind: 'unbound', literal: null, reason: expect.stringMatching(/no design declaration bound/) },
      { axis: 'colors', kind: 'unbound', literal: null, reason: expect.stringMatching(/no design declaration bound/) },
      { axis: 'radii', kind: 'unbound', literal: null, reason: expect.stringMatching(/no design declaration bound/) },
    ]);
  });

  test('one axis omitted: that axis is undecidable and not judged', () => {
    const face = compareRenderTokens(page(), { fontSizes: [16], colors: ['#fff', '#1a1a1a', '#f5f5f5'] });
    expect(face.findings.map((f) => [f.rule, f.value])).toEqual([['font-size-off-scale', '13px']]);
    expect(face.undecidable.map((u) => [u.axis, u.kind])).toEqual([['radii', 'axis-omitted']]);
  });

  test('an empty axis, or one whose literals are all undecidable, does not run (it would flag everything)', () => {
    const face = compareRenderTokens(page(), { fontSizes: ['1rem', 'var(--x)'], colors: [], radii: [NaN, Infinity] });
    expect(face.findings).toEqual([]);
    expect(face.undecidable.map((u) => [u.axis, u.kind, u.literal])).toEqual([
      ['fontSizes', 'literal', '1rem'],
      ['fontSizes', 'literal', 'var(--x)'],
      ['fontSizes', 'no-comparable-literal', null],
      ['colors', 'no-comparable-literal', null],
      ['radii', 'literal', 'NaN'],
      ['radii', 'literal', 'Infinity'],
      ['radii', 'no-comparable-literal', null],
    ]);
    // Non-finite literals are named in a JSON-safe spelling.
    expect(JSON.parse(JSON.stringify(face)).undecidable[4].literal).toBe('NaN');
  });

  test('font sizes match at the precision Chromium serializes', () => {
    const face = compareRenderTokens(elements([{ fontSize: 13.3333 }]), { fontSizes: [13.333333] });
    expect(face.findings).toEqual([]);
    expect(compareRenderTokens(elements([{ fontSize: 13.3333 }]), { fontSizes: [13.33] }).findings).toHaveLength(1);
  });

  test(`a finding lists at most ${SAMPLE_LIMIT} samples but counts every element`, () => {
    const many = elements([{}, ...Array.from({ length: 7 }, () => ({ fontSize: 11 }))]);
    const [finding] = compareRenderTokens(many, { fontSizes: [16] }).findings;
    expect(finding.count).toBe(7);
    expect(finding.samples.map((s) => s.selector)).toEqual(['div#e1', 'div#e2', 'div#e3']);
  });

  test('square corners are not scale steps; zero-area boxes are not judged', () => {
    const face = compareRenderTokens(elements([{ radius: '0px' }, { radius: '7px', box: [0, 0, 0, 0] }]), { radii: [8] });
    expect(face.findings).toEqual([]);
  });
});

describe('concentric radii', () => {
  test('elliptical outer corners need the per-axis offset radius', () => {
    const outer = { box: [0, 0, 208, 48] as [number, number, number, number], radius: '20px 10px' };
    const good = compareRenderTokens(elements([outer, { box: [4, 4, 200, 40], radius: '16px 6px' }]), undefined);
    expect(good.findings).toEqual([]);
    const bad = compareRenderTokens(elements([outer, { box: [4, 4, 200, 40], radius: '16px' }]), undefined);
    expect(bad.findings).toHaveLength(1);
    expect(bad.findings[0].corners![0]).toMatchObject({ expected: { x: 16, y: 6 }, actual: { x: 16, y: 16 } });
  });

  test('the inner radius may not go below zero: an inset larger than the radius frees the corner', () => {
    const face = compareRenderTokens(
      elements([
        { box: [0, 0, 100, 100], radius: '10px' },
        { box: [10, 10, 80, 80], radius: '3px' },
      ]),
      undefined,
    );
    expect(face.findings).toEqual([]);
    const flush = compareRenderTokens(
      elements([
        { box: [0, 0, 100, 100], radius: '10px' },
        { box: [9, 9, 82, 82], radius: '3px' },
      ]),
      undefined,
    );
    expect(flush.findings[0].corners!.map((c) => c.expected.x)).toEqual([1, 1, 1, 1]);
    expect(flush.findings[0].corners![0].actual.x).toBe(3);
  });

  test('within 1px is concentric, beyond is not', () => {
    const outer = { box: [0, 0, 100, 100] as [number, number, number, number], radius: '16px' };
    expect(compareRenderTokens(elements([outer, { box: [8, 8, 84, 84], radius: '9px' }]), undefined).findings).toEqual([]);
    expect(compareRenderTokens(elements([outer, { box: [8, 8, 84, 84], radius: '9.5px' }]), undefined).findings).toHaveLength(1);
  });

  test('used radii: overlapping radii are scaled down by one factor before comparing', () => {
    const radii = usedRadii({ 'top-left': '80px', 'top-right': '80px', 'bottom-right': '80px', 'bottom-left': '80px' }, 200, 100);
    expect(radii['top-left']).toEqual({ computed: '80px', x: 50, y: 50 });
    // A pill inside a pill: 9999px radii resolve to half the height on both.
    const face = compareRenderTokens(
      elements([
        { box: [0, 0, 200, 40], radius: '9999px' },
        { box: [4, 4, 192, 32], radius: '9999px' },
      ]),
      undefined,
    );
    expect(face.findings).toEqual([]);
  });

  test('an inner box that is not inside the outer box is not paired', () => {
    const face = compareRenderTokens(
      elements([
        { box: [0, 0, 100, 100], radius: '16px' },
        { box: [-20, -20, 50, 50], radius: '2px' },
      ]),
      undefined,
    );
    expect(face.findings).toEqual([]);
  });
});
