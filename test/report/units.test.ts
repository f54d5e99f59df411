/**
 * The report's pieces without a browser: reading the aria text back, image
 * headers, the binding model (superseded lines, missing and unbound files,
 * sidecars travelling with their image, box placement at devicePixelRatio),
 * the all-or-nothing folder write and its refusals, the palette's contrast,
 * and the CLI's usage errors.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseAriaYaml, renderAriaYaml, type AriaLine, type AriaNode } from '../../cdp/aria/yaml';
import { imageInfoOf } from '../../src/report/imageInfo';
import { buildReportModel, shellQuote, naturalCompare } from '../../src/report/model';
import { readRun } from '../../src/report/readRun';
import { checkOutputFolder, writeReportFolder, ReportOutputError, REPORT_MARKER } from '../../src/report/writeReport';
import { buildReport } from '../../src/report';
import { DARK, LIGHT, REPORT_DESIGN, RULE_COLORS, type SchemePalette } from '../../src/report/tokens';
import { runMain } from '../../src/app/main';

const tmp: string[] = [];
function tempDir(label: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `dpe-report-${label}-`));
  tmp.push(dir);
  return dir;
}
afterAll(() => tmp.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function png(width: number, height: number): Buffer {
  const b = Buffer.alloc(33);
  Buffer.from('89504e470d0a1a0a', 'hex').copy(b, 0);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12, 'latin1');
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  return b;
}

describe('aria text', () => {
  const node = (role: string, name: string, children: AriaNode['children'] = [], extra: Partial<AriaNode> = {}): AriaNode => ({
    role,
    name,
    children,
    ...extra,
  });

  test('reads back what the snapshot writer writes: roles, names, states, text and properties', () => {
    const tricky = ['Save: now', 'say "hi"', '- dash first', 'yes', 'two\nlines', "it's", '#hash'];
    const top: AriaNode[] = [
      node('banner', '', [node('heading', 'Title', [], { level: 1 })]),
      node('main', '', [
        ...tricky.map((name) => node('button', name, [], { pressed: true, disabled: true })),
        node('link', 'Docs', ['Read: the docs'], { url: 'https://example.test/a?b=1' }),
        node('checkbox', 'Agree', [], { checked: 'mixed' }),
        'loose text',
        node('textbox', 'Email', [], { placeholder: 'you@example.com' }),
      ]),
    ];
    const parsed = parseAriaYaml(renderAriaYaml(top));
    expect(parsed.map((l) => l.role)).toEqual(['banner', 'main']);
    expect(parsed[0].children[0]).toMatchObject({ kind: 'node', role: 'heading', name: 'Title', states: ['level=1'], depth: 1 });
    const main = parsed[1].children;
    tricky.forEach((name, i) => expect(main[i]).toMatchObject({ kind: 'node', role: 'button', name, states: ['disabled', 'pressed'] }));
    const link = main[tricky.length];
    expect(link).toMatchObject({ role: 'link', name: 'Docs' });
    expect(link.children.map((c: AriaLine) => [c.kind, c.role, c.value])).toEqual([
      ['prop', 'url', 'https://example.test/a?b=1'],
      ['text', 'text', 'Read: the docs'],
    ]);
    expect(main[tricky.length + 1]).toMatchObject({ role: 'checkbox', states: ['checked=mixed'] });
    expect(main[tricky.length + 2]).toMatchObject({ kind: 'text', value: 'loose text' });
    expect(main[tricky.length + 3].children[0]).toMatchObject({ kind: 'prop', role: 'placeholder', value: 'you@example.com' });
  });

  test('an unreadable line is kept as written, nested under its nearest parent', () => {
    const parsed = parseAriaYaml('- list:\n  - listitem: one\n  ??? not a line\n      - listitem: deep');
    expect(parsed[0].children.map((c) => [c.kind, c.depth])).toEqual([
      ['node', 1],
      ['raw', 1],
    ]);
    expect(parsed[0].children[1].source).toBe('  ??? not a line');
    expect(parsed[0].children[1].children[0]).toMatchObject({ role: 'listitem', value: 'deep', depth: 2 });
  });
});

test('image headers: PNG and JPEG sizes, anything else null', () => {
  expect(imageInfoOf(png(1600, 1200))).toEqual({ format: 'png', width: 1600, height: 1200 });
  const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0xf4, 0x03, 0x20, 0x03]);
  expect(imageInfoOf(jpeg)).toEqual({ format: 'jpeg', width: 800, height: 500 });
  expect(imageInfoOf(Buffer.from('not an image'))).toBeNull();
});

test('shell quoting and criterion order', () => {
  expect(shellQuote('/tmp/run/evidence/a.trace.zip')).toBe('/tmp/run/evidence/a.trace.zip');
  expect(shellQuote("/tmp/my run/it's.zip")).toBe(`'/tmp/my run/it'\\''s.zip'`);
  expect(['L6.10', 'L6.2', 'L6.1'].sort(naturalCompare)).toEqual(['L6.1', 'L6.2', 'L6.10']);
});

const REQUEST = {
  schemaVersion: 1,
  viewport: { width: 400, height: 300, devicePixelRatio: 2, colorScheme: 'light' },
  freeze: { enabled: true, waitFonts: true, networkIdle: false },
};

function manifestLine(criterion: string, artifact: string, ts: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    criterion,
    artifact,
    observed_state: 'ready',
    result: 'captured',
    ts,
    capture: { provider: 'p', url: 'http://127.0.0.1/', type: 'screenshot', state: 'ready', artifact_path: `evidence/${artifact}` },
    request: REQUEST,
    ...extra,
  });
}

function makeRun(): string {
  const root = tempDir('run');
  const evidence = path.join(root, 'evidence');
  fs.mkdirSync(path.join(evidence, 'sub'), { recursive: true });
  fs.writeFileSync(path.join(root, 'plan.md'), '#');
  fs.writeFileSync(path.join(evidence, 'a.png'), png(800, 2000));
  const sample = { selector: 'p.small', box: { x: 40, y: 500, width: 100, height: 20 } };
  fs.writeFileSync(
    path.join(evidence, 'a.probe.json'),
    JSON.stringify({
      page: { finalUrl: 'http://127.0.0.1/', documentSize: { width: 400, height: 1000 }, viewport: { width: 400, height: 300 }, devicePixelRatio: 2 },
      renderTokens: {
        measurement_status: 'measured',
        measurement_error: '',
        findings: [
          { axis: 'fontSizes', rule: 'font-size-off-scale', value: '13px', count: 1, samples: [sample] },
          {
            axis: 'radii',
            rule: 'concentric-radius',
            value: '8px',
            count: 1,
            samples: [
              { selector: '.in', box: { x: 12, y: 12, width: 50, height: 50 } },
              { selector: '.out', box: { x: 10, y: 10, width: 54, height: 54 } },
            ],
          },
        ],
        undecidable: [],
        distinctFontSizes: [13, 14],
      },
    }),
  );
  fs.writeFileSync(path.join(evidence, 'sub', 'loose.png'), png(10, 10));
  fs.writeFileSync(path.join(evidence, 'sub', 'loose.probe.json'), '{}');
  fs.writeFileSync(path.join(evidence, 'orphan.probe.json'), '{}');
  fs.writeFileSync(
    path.join(evidence, 'manifest.jsonl'),
    [
      manifestLine('L6.1', 'a.png', '2026-07-16T10:00:00+02:00', { observed_state: 'newer' }),
      manifestLine('L6.1', 'a.png', '2026-07-16T09:00:00Z', { observed_state: 'older' }),
      manifestLine('L6.10', 'gone.png', '2026-07-16T09:00:00Z'),
      manifestLine('L6.2', 'failed.png', '2026-07-16T09:00:00Z', { result: 'failed', error: 'navigation failed' }),
      '{"criterion": "L6.3", "artifact": "sub/loose.png", "result": "pass"}',
    ].join('\n'),
  );
  return root;
}

describe('model', () => {
  test('the latest ts binds; missing, unbound (sidecars travel with their image) and flagged are told apart', async () => {
    const model = await buildReportModel(readRun(makeRun()));
    expect(model.criteria.map((c) => c.id)).toEqual(['L6.1', 'L6.2', 'L6.10']);
    const a = model.items.find((i) => i.artifact === 'a.png')!;
    // 10:00+02:00 is 08:00Z, earlier than 09:00Z: the second line binds.
    expect(a.observed).toBe('older');
    expect(a.line).toBe(2);
    expect(a.superseded).toEqual([1]);
    expect(model.missing.map((i) => i.artifact)).toEqual(['gone.png']);
    expect(model.items.find((i) => i.artifact === 'failed.png')).toMatchObject({ missing: false, error: 'navigation failed', kind: 'none' });
    expect(model.unbound.map((u) => [u.file.rel, u.sidecar, u.namedByFlaggedLines])).toEqual([
      ['orphan.probe.json', '', []],
      ['sub/loose.png', 'sub/loose.probe.json', [5]],
    ]);
    expect(model.flagged.map((f) => [f.line, f.facts.map((x) => x.code)])).toEqual([[5, expect.arrayContaining(['bad_field'])]]);
    // No line names a story: not a stories run, so no link to a story index.
    expect(model.stories).toBe(false);
  });

  test('sidecar boxes (CSS px) are placed on the image at its devicePixelRatio; a concentric pair draws inner and outer', async () => {
    const model = await buildReportModel(readRun(makeRun()));
    const shot = model.items.find((i) => i.artifact === 'a.png')!.screenshot!;
    expect(shot.scale).toBe(2);
    expect(shot.geometryNote).toBe('');
    const [font, outer, inner] = shot.boxes;
    // x 40 css px → 80 image px of 800; y 500 → 1000 of 2000.
    expect(font.pct).toEqual({ left: 10, top: 50, width: 25, height: 2 });
    expect([outer.part, outer.selector, inner.part, inner.selector]).toEqual(['outer', '.out', 'inner', '.in']);
    expect(model.copies).toEqual(expect.arrayContaining([{ from: path.join(model.evidenceDir, 'a.png'), to: 'files/a.png' }]));
  });
});

describe('writing the report folder', () => {
  test('refuses evidence/, a folder holding evidence/, and a non-empty folder it did not write', () => {
    const root = makeRun();
    const evidence = path.join(root, 'evidence');
    expect(() => checkOutputFolder(path.join(evidence, 'r'), evidence)).toThrow(/never writes inside evidence/);
    expect(() => checkOutputFolder(root, evidence)).toThrow(/must not contain the evidence/);
    const mine = path.join(root, 'mine');
    fs.mkdirSync(mine);
    fs.writeFileSync(path.join(mine, 'x'), 'x');
    expect(() => checkOutputFolder(mine, evidence)).toThrow(ReportOutputError);
    fs.writeFileSync(path.join(mine, REPORT_MARKER), '');
    expect(() => checkOutputFolder(mine, evidence)).not.toThrow();
    // A link into evidence/ is seen through.
    fs.symlinkSync(evidence, path.join(root, 'sneaky'));
    expect(() => checkOutputFolder(path.join(root, 'sneaky', 'r'), evidence)).toThrow(/never writes inside evidence/);
  });

  test('a build that fails midway leaves the previous report and no staging folder', async () => {
    const root = makeRun();
    const built = await buildReport({ runRoot: root });
    const before = fs.readFileSync(built.indexPath, 'utf8');
    expect(() => writeReportFolder(built.outDir, { html: 'new', copies: [{ from: path.join(root, 'no-such-file'), to: 'files/x.png' }], blobs: [] })).toThrow();
    expect(fs.readFileSync(built.indexPath, 'utf8')).toBe(before);
    expect(fs.readdirSync(root).sort()).toEqual(['evidence', 'plan.md', 'report']);
    const again = await buildReport({ runRoot: root });
    expect(fs.readdirSync(root).sort()).toEqual(['evidence', 'plan.md', 'report']);
    expect(fs.existsSync(path.join(again.outDir, REPORT_MARKER))).toBe(true);
  });
});

describe('tokens', () => {
  const luminance = (hex: string) => {
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const contrast = (a: string, b: string) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };

  test.each([
    ['light', LIGHT],
    ['dark', DARK],
  ] as [string, SchemePalette][])('%s: every text colour reaches 4.5:1 on every background it sits on, control borders 3:1', (_scheme, p) => {
    for (const fg of [p.text, p.muted, p.accent, p.ok, p.bad])
      for (const bg of [p.canvas, p.surface, p.sunken]) expect(contrast(fg, bg)).toBeGreaterThanOrEqual(4.5);
    expect(contrast(p.onAccent, p.accent)).toBeGreaterThanOrEqual(4.5);
    expect(contrast(p.onMark, p.mark)).toBeGreaterThanOrEqual(4.5);
    expect(contrast(p.line, p.surface)).toBeGreaterThanOrEqual(3);
    // Finding boxes must stand out on the report's own surfaces too.
    for (const colour of Object.values(RULE_COLORS)) expect(contrast(colour, p.sunken)).toBeGreaterThanOrEqual(3);
  });

  test('the declared design lists every colour, size and radius the style sheet can use', () => {
    expect(REPORT_DESIGN.colors).toEqual(expect.arrayContaining([...Object.values(LIGHT), ...Object.values(DARK), ...Object.values(RULE_COLORS)]));
    expect(REPORT_DESIGN.colors.every((c) => /^#[0-9a-f]{6}$/.test(c))).toBe(true);
    const css = fs.readFileSync(path.join(__dirname, '..', '..', 'src', 'report', 'page', 'report.css'), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
    // No literal colours, px font sizes or radii in the style sheet: only the token properties.
    expect(css).not.toMatch(/#[0-9a-fA-F]{3,8}\b|rgba?\(|hsla?\(/);
    expect(css).not.toMatch(/font-size:\s*\d/);
    expect(css).not.toMatch(/border-radius:\s*\d/);
  });
});

describe('CLI', () => {
  let stderr: string;
  let stdout: string;
  beforeEach(() => {
    stderr = '';
    stdout = '';
    jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true));
    jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((stdout += String(chunk)), true));
  });
  afterEach(() => jest.restoreAllMocks());

  test('usage errors exit 2 and say what is wrong', async () => {
    expect(await runMain(['report', '--nope'])).toBe(2);
    expect(stderr).toContain('report: unknown option --nope');
    expect(await runMain(['report', 'a', 'b'])).toBe(2);
    expect(stderr).toContain('takes one RUN_ROOT, got 2');
    expect(await runMain(['report', '--help'])).toBe(0);
    expect(stdout).toContain('Usage: design-playbook-evidence report [RUN_ROOT] [--out DIR]');
  });

  test('a run folder without evidence/ is refused with what to pass', async () => {
    const root = tempDir('empty');
    fs.writeFileSync(path.join(root, 'plan.md'), '#');
    expect(await runMain(['report', root])).toBe(1);
    expect(stderr).toContain('has no evidence/ folder');
    expect(fs.readdirSync(root)).toEqual(['plan.md']);
  });
});
