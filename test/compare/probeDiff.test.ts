/**
 * The probe sidecar diff on hand-made sidecars: findings gained, lost and
 * kept, distinct font sizes, measurement status, the binding on each side
 * (bound and unbound never equal), a changed declaration, and the reader's
 * errors naming the file and the rule.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { diffProbeSidecars, readProbeSidecarFile } from '../../src/compare/probeDiff';
import { buildProbeSidecar } from '../../src/probe/sidecar';
import type { DesignDeclaration } from '../../src/contract/designBinding';
import { DESIGN, PAGE, shop, sidecarOf } from './sidecars';

test('two identical sidecars: no change, every finding kept', () => {
  const a = sidecarOf(
    shop((s) => (s[5].fontSize = 15)),
    DESIGN,
  );
  const diff = diffProbeSidecars(
    a,
    sidecarOf(
      shop((s) => (s[5].fontSize = 15)),
      DESIGN,
    ),
  );
  expect(diff.changed).toBe(false);
  expect(diff.findings.gained).toEqual([]);
  expect(diff.findings.lost).toEqual([]);
  expect(diff.findings.kept.map((k) => [k.before.rule, k.before.value, k.countChanged])).toEqual([['font-size-off-scale', '15px', false]]);
  expect(diff.binding).toMatchObject({ before: 'bound', after: 'bound', differs: false, note: 'both bound to the same declaration' });
});

test('findings gained and lost by rule, value and element; font sizes added and removed', () => {
  const before = sidecarOf(
    shop((s) => (s[5].fontSize = 15)),
    DESIGN,
  );
  const after = sidecarOf(
    shop((s) => {
      s[6].fontSize = 13;
      s[5].background = 'rgb(25, 118, 210)';
    }),
    DESIGN,
  );
  const diff = diffProbeSidecars(before, after);
  expect(diff.changed).toBe(true);
  expect(diff.findings.lost).toEqual([{ rule: 'font-size-off-scale', axis: 'fontSizes', value: '15px', count: 1, elements: ['button#buy'] }]);
  expect(diff.findings.gained).toEqual([
    { rule: 'font-size-off-scale', axis: 'fontSizes', value: '13px', count: 1, elements: ['button#later'] },
    { rule: 'color-off-palette', axis: 'colors', value: 'rgb(25, 118, 210)', count: 1, elements: ['button#buy'] },
  ]);
  expect(diff.distinctFontSizes).toEqual({ added: [13], removed: [15] });
});

test('a kept finding that now covers other elements says which', () => {
  const before = sidecarOf(
    shop((s) => (s[5].fontSize = 15)),
    DESIGN,
  );
  const after = sidecarOf(
    shop((s) => {
      s[5].fontSize = 15;
      s[6].fontSize = 15;
    }),
    DESIGN,
  );
  const [kept] = diffProbeSidecars(before, after).findings.kept;
  expect(kept).toMatchObject({ countChanged: true, elementsGained: ['button#later'], elementsLost: [] });
});

test('a bound and an unbound sidecar are named as such and never equal, even with the same page', () => {
  const diff = diffProbeSidecars(sidecarOf(shop(), DESIGN), sidecarOf(shop()));
  expect(diff.changed).toBe(true);
  expect(diff.binding).toMatchObject({ before: 'bound', after: 'unbound', differs: true });
  expect(diff.binding.note).toMatch(/^bound → unbound: one capture was checked against a design declaration and the other was not/);
  expect(diff.undecidable.gained.map((u) => [u.axis, u.kind])).toEqual([
    ['fontSizes', 'unbound'],
    ['colors', 'unbound'],
    ['radii', 'unbound'],
  ]);
  expect(diffProbeSidecars(sidecarOf(shop()), sidecarOf(shop())).binding.note).toBe(
    'both unbound: only declaration-free facts (concentric radii, distinct font sizes) are compared',
  );
});

test('a different declaration is reported axis by axis', () => {
  const other = { ...DESIGN, fontSizes: [16, 24, 15], radii: undefined } as unknown as DesignDeclaration;
  delete (other as Record<string, unknown>).radii;
  const diff = diffProbeSidecars(sidecarOf(shop(), DESIGN), sidecarOf(shop(), other));
  expect(diff.binding.differs).toBe(true);
  expect(diff.binding.axes).toEqual([
    { axis: 'fontSizes', added: [15], removed: [], declared: { before: true, after: true } },
    { axis: 'radii', added: [], removed: [8], declared: { before: true, after: false } },
  ]);
  expect(diff.binding.note).toBe('both bound, to different declarations: a finding gained or lost may come from the declaration, not the page');
});

test('measurement status changes, and the page facts that differ', () => {
  const measured = sidecarOf(shop());
  const failed = buildProbeSidecar({ page_facts: { ...PAGE, documentSize: { width: 800, height: 900 } }, render_tokens: { bad: true } });
  const diff = diffProbeSidecars(measured, failed);
  expect(diff.measurement).toMatchObject({ before: 'measured', after: 'failed', changed: true });
  expect(diff.measurement.errors.after).toMatch(/malformed render-token face/);
  expect(diff.page).toEqual([{ field: 'documentSize', before: { width: 800, height: 600 }, after: { width: 800, height: 900 } }]);
  expect(diff.elements).toEqual({ before: 10, after: null });
});

describe('reading a sidecar file', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'probe-diff-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('a sidecar reads back as written', () => {
    const file = path.join(dir, 'a.probe.json');
    const sidecar = sidecarOf(shop(), DESIGN);
    fs.writeFileSync(file, JSON.stringify(sidecar, null, 2));
    expect(readProbeSidecarFile(file)).toEqual(sidecar);
  });

  test('a file that is not a sidecar is refused naming the file and the field', () => {
    const file = path.join(dir, 'bad.probe.json');
    fs.writeFileSync(file, JSON.stringify({ page: null }));
    expect(() => readProbeSidecarFile(file)).toThrow(`${file}: not a probe sidecar: renderTokens: `);
    fs.writeFileSync(file, '{');
    expect(() => readProbeSidecarFile(file)).toThrow(`${file}: not a readable probe sidecar: `);
  });
});
