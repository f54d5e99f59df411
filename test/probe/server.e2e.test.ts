/**
 * The design binding through the built server (dist/src/bin.js) driven by the
 * MCP SDK client, against real Chromium: boundary rejections leave no PNG and
 * no sidecar; the request echo and the sidecar carry the declaration
 * byte-for-byte; bound, partly bound and unbound sidecars say what was and
 * was not measured.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { servePages, CHROMIUM_PATH, type PageServer } from '../helpers/browser';
import { probeSidecarSchema } from '../../src/probe';

const REPO = path.resolve(__dirname, '..', '..');
const BIN = path.join(REPO, 'dist', 'src', 'bin.js');

let base: string;
let root: string;
let server: PageServer;
let client: Client;

type Payload = Record<string, any>;

async function capture(leaf: string, page: string, extra: Record<string, unknown> = {}): Promise<Payload> {
  const result = await client.callTool(
    {
      name: 'execute_capture_plan',
      arguments: {
        schemaVersion: 1,
        url: server.url(page),
        type: 'screenshot',
        state: 'ready',
        artifact_path: `evidence/${leaf}.png`,
        viewport: { width: 800, height: 600, devicePixelRatio: 1, colorScheme: 'light' },
        ...extra,
      },
    },
    undefined,
    { timeout: 120_000 },
  );
  expect(result.isError ?? false).toBe(false);
  return result.structuredContent as Payload;
}

const evidence = (name: string) => path.join(root, 'evidence', name);
/** Reads a sidecar and checks it against the published sidecar schema. */
const sidecarOf = (leaf: string) => {
  const sidecar = JSON.parse(fs.readFileSync(evidence(`${leaf}.probe.json`), 'utf8'));
  const parsed = probeSidecarSchema.safeParse(sidecar);
  if (!parsed.success) throw new Error(`sidecar ${leaf} does not match probeSidecarSchema: ${parsed.error.message}`);
  return sidecar;
};

beforeAll(async () => {
  if (!fs.existsSync(BIN)) throw new Error('run npm run build first');
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-probe-')));
  root = path.join(base, 'run');
  fs.mkdirSync(path.join(root, 'evidence'), { recursive: true });
  fs.writeFileSync(path.join(root, 'plan.md'), '# plan\n');
  server = await servePages(path.join(__dirname, 'pages'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN],
    cwd: base,
    env: { ...getDefaultEnvironment(), DESIGN_PLAYBOOK_RUN_ROOT: root, DESIGN_PLAYBOOK_CHROME_PATH: CHROMIUM_PATH },
    stderr: 'pipe',
  });
  client = new Client({ name: 'probe-e2e', version: '1.0.0' });
  await client.connect(transport);
}, 60_000);

afterAll(async () => {
  await client?.close();
  await server?.close();
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

describe('a malformed declaration fails closed before the browser starts', () => {
  test.each([
    ['null', null, 'design must be an object when provided (got null)'],
    ['array', [16], 'design must be an object when provided (got array)'],
    ['string', 'tokens.json', 'design must be an object when provided (got string)'],
    ['unknown-axis', { fontSizes: [16], spacing: [4] }, "design: unknown axis 'spacing'; allowed axes are fontSizes, colors, radii"],
    ['scalar-axis', { fontSizes: 16 }, 'design.fontSizes must be an array of literals (got number)'],
    ['object-axis', { colors: { brand: '#0b6bcb' } }, 'design.colors must be an array of literals (got object)'],
    ['null-axis', { radii: null }, 'design.radii must be an array of literals (got null)'],
  ])('design %s', async (leaf, design, message) => {
    const result = await client.callTool({
      name: 'execute_capture_plan',
      arguments: {
        schemaVersion: 1,
        url: server.url('scale.html'),
        type: 'screenshot',
        state: 'ready',
        artifact_path: `evidence/reject-${leaf}.png`,
        viewport: { width: 800, height: 600, devicePixelRatio: 1, colorScheme: 'light' },
        design,
      },
    });
    const payload = (result.structuredContent ?? JSON.parse((result.content as any)[0].text)) as Payload;
    expect(payload.result).toBe('failed');
    expect(payload.error).toContain(message);
    expect(payload.written_path).toBe('');
    expect(payload.request).toBeUndefined();
    expect(fs.existsSync(evidence(`reject-${leaf}.png`))).toBe(false);
    expect(fs.existsSync(evidence(`reject-${leaf}.probe.json`))).toBe(false);
  });
});

describe('bound and unbound captures', () => {
  test('bound: the request echo and the sidecar carry the declaration byte-for-byte; the face is measured', async () => {
    // Key order, literal spellings and kept non-literal items as the caller wrote them.
    const designText =
      '{"radii":[4,"8px",12,20],"colors":["#F5F5F5","#ffffff","rgb(26 26 26)","#0b6bcb","rgba(0, 0, 0, 0.5)"],"fontSizes":[14,"16px",20,24,"1rem","16\\u00a0px"]}';
    const design = JSON.parse(designText);
    // JSON.stringify writes NBSP raw; compare in that canonical form.
    const canonical = JSON.stringify(design);
    expect(canonical).toContain('16\u00a0px');
    const payload = await capture('bound', 'scale.html', { design });
    expect(payload.result).toBe('captured');
    expect(JSON.stringify(payload.request.design)).toBe(canonical);
    const sidecar = sidecarOf('bound');
    expect(JSON.stringify(sidecar.design)).toBe(canonical);
    const face = sidecar.renderTokens;
    expect(face.measurement_status).toBe('measured');
    expect(face.measurement_error).toBe('');
    expect(face.distinctFontSizes).toEqual([13, 16, 20, 24]);
    expect(face.findings.map((f: Payload) => [f.rule, f.value, f.count])).toEqual([
      ['font-size-off-scale', '13px', 2],
      ['color-off-palette', 'rgb(13, 0, 0)', 1],
      ['color-off-palette', 'rgb(128, 0, 0)', 1],
      ['radius-off-scale', '6px', 1],
      ['radius-off-scale', '4px 6px', 1],
    ]);
    expect(face.undecidable.map((u: Payload) => [u.axis, u.kind, u.literal ?? u.value])).toEqual([
      ['fontSizes', 'literal', '1rem'],
      ['fontSizes', 'literal', '16\u00a0px'],
      ['colors', 'literal', 'rgba(0, 0, 0, 0.5)'],
      ['radii', 'rendered-value', '50%'],
    ]);
    expect(sidecar.page.finalUrl).toBe(server.url('scale.html'));
    expect(sidecar.page.viewport).toMatchObject({ width: 800, height: 600 });
    expect(fs.existsSync(evidence('bound.png'))).toBe(true);
  });

  test('unbound: no design key anywhere; declared comparisons are undecidable; concentric findings still appear', async () => {
    const payload = await capture('unbound', 'concentric.html');
    expect(payload.result).toBe('captured');
    expect('design' in payload.request).toBe(false);
    const raw = fs.readFileSync(evidence('unbound.probe.json'), 'utf8');
    expect(raw).not.toMatch(/"design"/);
    const face = sidecarOf('unbound').renderTokens;
    expect(face.measurement_status).toBe('measured');
    expect(face.undecidable.map((u: Payload) => [u.axis, u.kind])).toEqual([
      ['fontSizes', 'unbound'],
      ['colors', 'unbound'],
      ['radii', 'unbound'],
    ]);
    expect(face.findings.map((f: Payload) => [f.rule, f.inner.selector, f.corners.map((c: Payload) => c.corner)])).toEqual([
      ['concentric-radius', 'div#broken.outer > div.inner', ['top-left', 'top-right', 'bottom-right', 'bottom-left']],
      ['concentric-radius', 'div#tab.outer > div.inner', ['top-left']],
      ['concentric-radius', 'div#nested.outer > div.inner > div.button', ['top-left', 'top-right', 'bottom-right', 'bottom-left']],
    ]);
    expect(face.distinctFontSizes).toEqual([]);
  });

  test('items outside number-or-string are kept, echoed and named undecidable, never dropped or rejected', async () => {
    const design = { colors: [true, null, { brand: '#0b6bcb' }, '#ffffff'], radii: [], fontSizes: ['NaN', 'Infinity', '1e400px'] };
    const payload = await capture('odd-items', 'borders.html', { design });
    expect(payload.result).toBe('captured');
    expect(JSON.stringify(payload.request.design)).toBe(JSON.stringify(design));
    const sidecar = sidecarOf('odd-items');
    expect(JSON.stringify(sidecar.design)).toBe(JSON.stringify(design));
    expect(sidecar.renderTokens.undecidable.map((u: Payload) => [u.axis, u.kind, u.literal])).toEqual([
      ['fontSizes', 'literal', 'NaN'],
      ['fontSizes', 'literal', 'Infinity'],
      ['fontSizes', 'literal', '1e400px'],
      ['fontSizes', 'no-comparable-literal', null],
      ['colors', 'literal', true],
      ['colors', 'literal', null],
      ['colors', 'literal', { brand: '#0b6bcb' }],
      ['radii', 'no-comparable-literal', null],
    ]);
  });

  test('one axis omitted: that axis is undecidable, the others are judged', async () => {
    const payload = await capture('partial', 'translucent.html', { design: { colors: ['#000000', '#0b6bcb'] } });
    expect(payload.result).toBe('captured');
    const face = sidecarOf('partial').renderTokens;
    expect(face.undecidable.filter((u: Payload) => u.kind === 'axis-omitted').map((u: Payload) => u.axis)).toEqual(['fontSizes', 'radii']);
    expect(face.findings.map((f: Payload) => f.value)).toEqual(['rgba(0, 0, 0, 0.5)', 'rgba(11, 107, 203, 0.1)']);
  });
});
