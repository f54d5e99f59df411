/**
 * The seed's compatibility rules for the `design` binding, each on real files:
 * - unbound calls reach a provider with exactly the caller's argument names
 *   (no `design` key at all) and the sidecar reports `unmeasured`;
 * - a bound call to a provider that returns no render-token face gets an
 *   `unmeasured` sidecar — never `measured` with empty findings;
 * - the in-process adapter seam declares whether it accepts a design;
 *   a bound call to one that does not fails closed (failed, no sidecar, no
 *   artifact captured unbound).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { executeCapturePlan, clearCaptureProviders, registerCaptureProvider } from '../../src/app/main';
import type { CaptureContext, CaptureProvider, ProviderPayload } from '../../src/contract/captureProvider';
import { InProcessAdapterProvider, type AdapterOutcome, type InProcessAdapter, type CaptureJob } from '../../src/app/inProcessAdapter';
import { captureToolDeclaration } from '../../src/contract/toolDeclaration';
import { DESIGN_AXES } from '../../src/contract/designBinding';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x02]);
const PAGE_FACTS = {
  finalUrl: 'http://127.0.0.1:9/ui.html',
  documentSize: { width: 800, height: 900 },
  viewport: { width: 800, height: 600 },
  devicePixelRatio: 1,
};
const DESIGN = { fontSizes: [14, 16, '20px'], colors: ['#ffffff', 'rgb(11 107 203)'], radii: [4, 8] };

let root: string;
let evidence: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-compat-')));
  root = path.join(base, 'run');
  evidence = path.join(root, 'evidence');
  fs.mkdirSync(evidence, { recursive: true });
  fs.writeFileSync(path.join(root, 'point-back.md'), '# run\n');
  env = { DESIGN_PLAYBOOK_RUN_ROOT: root };
});
afterEach(() => {
  clearCaptureProviders();
  fs.rmSync(path.dirname(root), { recursive: true, force: true });
});

/** What a caller sent before the design binding existed. */
function preDesignArgs(): Record<string, unknown> {
  return {
    schemaVersion: 1,
    url: 'http://127.0.0.1:9/ui.html',
    type: 'screenshot',
    state: 'error',
    actions: [{ do: 'click', selector: '#retry' }],
    artifact_path: 'evidence/L6.3-error.png',
    overwrite: false,
    viewport: { width: 800, height: 600, devicePixelRatio: 1, colorScheme: 'dark' },
    freeze: { enabled: true, waitFonts: false },
  };
}

/** A provider written before the render-token face existed: it never returns one. */
function legacyProvider() {
  const seen: { args: Record<string, unknown>; context: CaptureContext }[] = [];
  const provider: CaptureProvider = {
    toolName: 'legacy_capture',
    describe: () => ({ ...captureToolDeclaration(), name: 'legacy_capture' }),
    async capture(args, context): Promise<ProviderPayload> {
      seen.push({ args, context });
      context.writeArtifact(PNG);
      return { result: 'captured', observed_state: 'error', page_facts: PAGE_FACTS };
    },
  };
  return { provider, seen };
}

const readSidecar = () => JSON.parse(fs.readFileSync(path.join(evidence, 'L6.3-error.probe.json'), 'utf8'));
const evidenceFiles = () => fs.readdirSync(evidence).sort();

function expectUnmeasuredFace(sidecar: Record<string, any>): void {
  expect(sidecar.renderTokens.measurement_status).toBe('unmeasured');
  expect(sidecar.renderTokens.measurement_error).not.toBe('');
  expect(sidecar.renderTokens.findings).toEqual([]);
  // Every axis is named undecidable, so the empty findings cannot read as clean.
  const unmeasuredAxes = sidecar.renderTokens.undecidable.filter((u: any) => u.kind === 'unmeasured').map((u: any) => u.axis);
  expect(unmeasuredAxes.sort()).toEqual([...DESIGN_AXES].sort());
}

describe('unbound calls are unaffected', () => {
  test('the provider receives exactly the caller argument names, no design key; the sidecar says unmeasured', async () => {
    const { provider, seen } = legacyProvider();
    registerCaptureProvider(provider);
    const sent = preDesignArgs();
    const result = await executeCapturePlan(sent, { env });
    expect(result.result).toBe('captured');
    expect(seen).toHaveLength(1);
    expect(Object.keys(seen[0].args)).toEqual(Object.keys(sent));
    expect(seen[0].args).toEqual(sent);
    expect('design' in seen[0].args).toBe(false);
    expect('design' in seen[0].context.request).toBe(false);
    expect('design' in result.request!).toBe(false);
    const sidecar = readSidecar();
    expectUnmeasuredFace(sidecar);
    expect('design' in sidecar).toBe(false);
  });

  test('a minimal unbound call (no optional fields) reaches the provider with only those names', async () => {
    const { provider, seen } = legacyProvider();
    registerCaptureProvider(provider);
    const sent = preDesignArgs();
    delete sent.actions;
    delete sent.overwrite;
    delete sent.freeze;
    await executeCapturePlan(sent, { env });
    expect(Object.keys(seen[0].args)).toEqual(['schemaVersion', 'url', 'type', 'state', 'artifact_path', 'viewport']);
  });
});

describe('a bound call to a provider without the render-token face', () => {
  test('gets an unmeasured sidecar that records the declaration, never measured with empty findings', async () => {
    const { provider, seen } = legacyProvider();
    registerCaptureProvider(provider);
    const result = await executeCapturePlan({ ...preDesignArgs(), design: DESIGN }, { env });
    expect(result.result).toBe('captured');
    expect(result.request?.design).toEqual(DESIGN);
    // Bound calls carry design inside the arguments.
    expect(seen[0].args.design).toEqual(DESIGN);
    const sidecar = readSidecar();
    expectUnmeasuredFace(sidecar);
    expect(sidecar.design).toEqual(DESIGN);
  });

  test('a provider face that does not match the face schema is not written as measured', async () => {
    const provider: CaptureProvider = {
      toolName: 'sloppy_capture',
      describe: () => ({ ...captureToolDeclaration(), name: 'sloppy_capture' }),
      async capture(_args, context) {
        context.writeArtifact(PNG);
        return { result: 'captured', observed_state: 'error', page_facts: PAGE_FACTS, render_tokens: { measurement_status: 'measured', findings: [] } };
      },
    };
    registerCaptureProvider(provider);
    const result = await executeCapturePlan({ ...preDesignArgs(), design: DESIGN }, { env });
    expect(result.result).toBe('captured');
    const face = readSidecar().renderTokens;
    expect(face.measurement_status).toBe('failed');
    expect(face.measurement_error).toContain('malformed render-token face');
    expect(face.undecidable.length).toBeGreaterThan(0);
  });
});

describe('the in-process adapter seam (captureAndProbe)', () => {
  function adapter(acceptsDesign: boolean | undefined, renderTokens?: unknown) {
    const jobs: CaptureJob[] = [];
    const value = {
      async captureAndProbe(job: CaptureJob): Promise<AdapterOutcome> {
        jobs.push(job);
        return { bytes: PNG, observedState: 'error', pageFacts: PAGE_FACTS, renderTokens };
      },
    } as InProcessAdapter;
    if (acceptsDesign !== undefined) (value as { acceptsDesign: boolean }).acceptsDesign = acceptsDesign;
    return { value, jobs };
  }

  test.each([
    ['declares acceptsDesign: false', false],
    ['predates the declaration (no acceptsDesign at all)', undefined],
  ])('an adapter that %s fails a bound call closed: failed, no sidecar, no artifact', async (_name, accepts) => {
    const { value, jobs } = adapter(accepts);
    const result = await executeCapturePlan({ ...preDesignArgs(), design: DESIGN }, { env, provider: new InProcessAdapterProvider(value) });
    expect(result.result).toBe('failed');
    expect(result.observed_state).toBe('unknown');
    expect(result.error).toContain('design');
    expect(jobs).toEqual([]);
    expect(evidenceFiles()).toEqual([]);
  });

  test('the same adapter still captures unbound calls, with a job that has no design key', async () => {
    const { value, jobs } = adapter(false);
    const result = await executeCapturePlan(preDesignArgs(), { env, provider: new InProcessAdapterProvider(value) });
    expect(result.result).toBe('captured');
    expect(Object.keys(jobs[0]).sort()).toEqual(['fields', 'request']);
    expect('design' in jobs[0].request).toBe(false);
    expect(evidenceFiles()).toEqual(['L6.3-error.png', 'L6.3-error.probe.json']);
    expectUnmeasuredFace(readSidecar());
  });

  test('an adapter that accepts design receives it; with no face returned the sidecar is still unmeasured', async () => {
    const { value, jobs } = adapter(true);
    const result = await executeCapturePlan({ ...preDesignArgs(), design: DESIGN }, { env, provider: new InProcessAdapterProvider(value) });
    expect(result.result).toBe('captured');
    expect(jobs[0].design).toEqual(DESIGN);
    expectUnmeasuredFace(readSidecar());
  });
});

describe('the library names the seam once (src/index.ts)', () => {
  test("the seam's earlier names (BrowserAdapter, BundledCaptureProvider, createBundledProvider) are gone; the seed's probeCaptureProvider stays", async () => {
    const lib: Record<string, unknown> = await import('../../src/index');
    expect(lib.InProcessAdapterProvider).toBe(InProcessAdapterProvider);
    expect([lib.BundledCaptureProvider, lib.createBundledProvider]).toEqual([undefined, undefined]);
    expect(lib.probeCaptureProvider).toBe(lib.findCaptureProvider);
  });
});
