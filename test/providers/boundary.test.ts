/**
 * The boundary holds for every provider: a third-party provider registered
 * with registerCaptureProvider is reached only after the runtime's checks
 * pass, and its claims are verified after it returns.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { executeCapturePlan, activeCaptureProvider, clearCaptureProviders, probeCaptureProvider, registerCaptureProvider } from '../../src/app/main';
import { ToolInputError } from '../../src/common/errors';
import type { CaptureContext, CaptureProvider, ProviderPayload } from '../../src/contract/captureProvider';
import { captureToolDeclaration } from '../../src/contract/toolDeclaration';

type Behaviour = (args: Record<string, unknown>, context: CaptureContext) => ProviderPayload | Promise<ProviderPayload>;

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x01]);

/** A third-party provider that records its calls; `behaviour` decides what it does. */
function thirdParty(behaviour: Behaviour) {
  const calls: Record<string, unknown>[] = [];
  const provider: CaptureProvider = {
    toolName: 'capture_elsewhere',
    describe: () => ({ ...captureToolDeclaration(), name: 'capture_elsewhere', description: 'a third-party capture tool' }),
    async capture(args, context) {
      calls.push(args);
      return behaviour(args, context);
    },
  };
  return { provider, calls };
}

const stages: Behaviour = (_args, context) => {
  context.writeArtifact(PNG);
  return { result: 'captured', observed_state: 'ready' };
};

let base: string;
let root: string;
let evidence: string;
let outside: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-providers-')));
  root = path.join(base, 'run');
  evidence = path.join(root, 'evidence');
  outside = path.join(base, 'outside');
  fs.mkdirSync(evidence, { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(root, 'plan.md'), '# plan\n');
  env = { DESIGN_PLAYBOOK_RUN_ROOT: root };
});

afterEach(() => {
  clearCaptureProviders();
  fs.rmSync(base, { recursive: true, force: true });
});

function args(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    schemaVersion: 1,
    url: 'http://127.0.0.1:9/ui.html',
    type: 'screenshot',
    state: 'error',
    artifact_path: 'evidence/L6.3-error.png',
    viewport: { width: 800, height: 600, devicePixelRatio: 1, colorScheme: 'light' },
    ...overrides,
  };
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else out.push(path.relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

describe('registration', () => {
  test('a registered provider is the active one; the bundled one still answers its name', () => {
    const { provider } = thirdParty(stages);
    registerCaptureProvider(provider);
    expect(activeCaptureProvider()).toBe(provider);
    expect(probeCaptureProvider('capture_elsewhere')).toBe(provider);
    expect(probeCaptureProvider('execute_capture_plan')?.toolName).toBe('execute_capture_plan');
    expect(probeCaptureProvider('no_such_tool')).toBeUndefined();
  });

  test('an unregistered process serves the bundled provider', () => {
    expect(activeCaptureProvider().toolName).toBe('execute_capture_plan');
    expect(activeCaptureProvider().describe().name).toBe('execute_capture_plan');
  });

  test('a provider missing capture(), or whose declaration names another tool, is refused at registration', () => {
    expect(() => registerCaptureProvider({ toolName: 'x', describe: () => captureToolDeclaration() } as never)).toThrow(TypeError);
    const { provider } = thirdParty(stages);
    expect(() => registerCaptureProvider({ ...provider, describe: () => captureToolDeclaration() })).toThrow(/capture_elsewhere/);
    expect(activeCaptureProvider().toolName).toBe('execute_capture_plan');
  });
});

describe('refusals happen before the provider is called', () => {
  const thrown: [string, () => Record<string, unknown>, string][] = [
    ['an unknown field', () => args({ criterion: 'L6.3' }), "unknown field 'criterion'"],
    ['a criterion id by another name', () => args({ criterion_id: 'L6.3' }), 'provider accepts Runtime Object fields only'],
    ['a bad url (runtime field)', () => args({ url: 'ftp://x' }), 'url must start with'],
  ];
  test.each(thrown)('%s -> tool error', async (_name, make, message) => {
    const { provider, calls } = thirdParty(stages);
    registerCaptureProvider(provider);
    await expect(executeCapturePlan(make(), { env })).rejects.toThrow(ToolInputError);
    await expect(executeCapturePlan(make(), { env })).rejects.toThrow(message);
    expect(calls).toEqual([]);
    expect(filesUnder(evidence)).toEqual([]);
  });

  const failed: [string, () => Record<string, unknown>, string][] = [
    ['no schemaVersion (contract)', () => args({ schemaVersion: undefined }), 'capture contract schemaVersion is required'],
    ['schemaVersion true (contract)', () => args({ schemaVersion: true }), 'unsupported capture schemaVersion True'],
    ['a partial viewport (contract)', () => args({ viewport: { width: 800, height: 600 } }), 'viewport.devicePixelRatio'],
    ['a scalar design axis', () => args({ design: { fontSizes: 16 } }), 'design.fontSizes must be an array'],
    ['an unknown design axis', () => args({ design: { spacing: [4] } }), "design: unknown axis 'spacing'"],
    ['design null', () => args({ design: null }), 'design must be an object'],
    ['a relative run_root', () => args({ run_root: 'run' }), 'run_root'],
    ['a markerless run_root', () => args({ run_root: outside }), 'run_root'],
    ['../x escapes', () => args({ artifact_path: '../x.png' }), "artifact_path must not contain '..' segments"],
    ['an absolute path', () => args({ artifact_path: path.join(outside, 'x.png') }), 'artifact_path must be relative to the configured run root'],
    ['a path outside evidence/', () => args({ artifact_path: 'spec.png' }), 'artifact_path must stay under the evidence/ subtree'],
    ['a trace not named .zip', () => args({ type: 'interaction trace', artifact_path: 'evidence/L6.3.json' }), 'must end in .zip'],
    ['manifest.jsonl', () => args({ artifact_path: 'evidence/manifest.jsonl' }), 'provider never writes manifest.jsonl'],
    [
      'a case variant of manifest.jsonl',
      () => args({ type: 'a11y tree', artifact_path: 'evidence/sub/Manifest.JSONL' }),
      'provider never writes manifest.jsonl',
    ],
  ];
  test.each(failed)('%s -> failed', async (_name, make, message) => {
    const { provider, calls } = thirdParty(stages);
    registerCaptureProvider(provider);
    const raw = make();
    for (const key of Object.keys(raw)) if (raw[key] === undefined) delete raw[key];
    const result = await executeCapturePlan(raw, { env });
    expect(result.result).toBe('failed');
    expect(result.observed_state).toBe('unknown');
    expect(result.error).toContain(message);
    expect(calls).toEqual([]);
    expect(filesUnder(evidence)).toEqual([]);
    expect(filesUnder(outside)).toEqual([]);
  });

  test('a link inside evidence/ that leads outside -> failed, provider not called', async () => {
    fs.symlinkSync(outside, path.join(evidence, 'link'));
    const { provider, calls } = thirdParty(stages);
    registerCaptureProvider(provider);
    const result = await executeCapturePlan(args({ artifact_path: 'evidence/link/x.png' }), { env });
    expect(result.error).toBe('artifact_path symlink escapes the evidence/ subtree');
    expect(calls).toEqual([]);
    expect(filesUnder(outside)).toEqual([]);
  });

  test('an existing artifact without overwrite -> failed, provider not called, bytes kept', async () => {
    const target = path.join(evidence, 'L6.3-error.png');
    fs.writeFileSync(target, 'old');
    const { provider, calls } = thirdParty(stages);
    registerCaptureProvider(provider);
    const result = await executeCapturePlan(args(), { env });
    expect(result.error).toBe(`artifact already exists: ${target} (pass overwrite=true to replace)`);
    expect(calls).toEqual([]);
    expect(fs.readFileSync(target, 'utf8')).toBe('old');
  });
});

describe("the runtime verifies the provider's claim", () => {
  const target = () => path.join(evidence, 'L6.3-error.png');

  test('claiming captured without writing anything -> failed', async () => {
    const { provider, calls } = thirdParty(() => ({ result: 'captured', observed_state: 'ready' }));
    registerCaptureProvider(provider);
    const result = await executeCapturePlan(args(), { env });
    expect(calls).toHaveLength(1);
    expect(result).toMatchObject({ result: 'failed', observed_state: 'unknown', written_path: target() });
    expect(result.error).toContain('is not a regular file inside the evidence/ subtree');
    expect(filesUnder(evidence)).toEqual([]);
  });

  test('writing /tmp/x itself and reporting it -> failed; nothing claimed inside evidence/', async () => {
    const stray = path.join(outside, 'x.png');
    const { provider } = thirdParty(() => {
      fs.writeFileSync(stray, PNG);
      return { result: 'captured', observed_state: 'ready', artifact: stray, written_path: stray } as ProviderPayload;
    });
    registerCaptureProvider(provider);
    const result = await executeCapturePlan(args(), { env });
    expect(result.result).toBe('failed');
    expect(result.written_path).toBe(target());
    expect(result.artifact).toBe('evidence/L6.3-error.png');
    expect(filesUnder(evidence)).toEqual([]);
  });

  test('writing the target and also reporting a path outside evidence/ -> failed', async () => {
    const stray = path.join(outside, 'x.png');
    const { provider } = thirdParty((_a, context) => {
      context.writeArtifact(PNG);
      fs.writeFileSync(stray, PNG);
      return { result: 'captured', observed_state: 'ready', written_path: stray } as ProviderPayload;
    });
    registerCaptureProvider(provider);
    const result = await executeCapturePlan(args(), { env });
    expect(result.result).toBe('failed');
    expect(result.error).toContain(stray);
    expect(filesUnder(evidence)).toEqual([]);
  });

  test('reporting a different artifact than the one requested -> failed', async () => {
    const { provider } = thirdParty((_a, context) => {
      context.writeArtifact(PNG);
      return { result: 'captured', observed_state: 'ready', artifact: 'evidence/other.png' } as ProviderPayload;
    });
    registerCaptureProvider(provider);
    const result = await executeCapturePlan(args(), { env });
    expect(result.result).toBe('failed');
    expect(result.error).toContain('evidence/other.png');
    expect(filesUnder(evidence)).toEqual([]);
  });

  test('planting a link at writtenPath that leads outside -> failed', async () => {
    const stray = path.join(outside, 'x.png');
    const { provider } = thirdParty((_a, context) => {
      fs.writeFileSync(stray, PNG);
      fs.symlinkSync(stray, context.writtenPath);
      return { result: 'captured', observed_state: 'ready' };
    });
    registerCaptureProvider(provider);
    const result = await executeCapturePlan(args(), { env });
    expect(result.result).toBe('failed');
    expect(result.error).toContain('symlink_escape');
  });

  test('planting a link at writtenPath to another file inside evidence/ -> failed, and no sidecar is written', async () => {
    const { provider } = thirdParty((_a, context) => {
      fs.writeFileSync(path.join(evidence, 'other.png'), PNG);
      fs.symlinkSync('other.png', context.writtenPath);
      return { result: 'captured', observed_state: 'ready' };
    });
    registerCaptureProvider(provider);
    const result = await executeCapturePlan(args(), { env });
    expect(result.result).toBe('failed');
    expect(result.error).toContain('resolved elsewhere');
    expect(filesUnder(evidence).filter((f) => f.endsWith('.probe.json'))).toEqual([]);
  });

  test('writing writtenPath itself and reporting it truthfully -> captured, with the sidecar', async () => {
    const { provider } = thirdParty((_a, context) => {
      fs.writeFileSync(context.writtenPath, PNG);
      return { result: 'captured', observed_state: 'ready', artifact: 'evidence/L6.3-error.png', written_path: context.writtenPath } as ProviderPayload;
    });
    registerCaptureProvider(provider);
    const result = await executeCapturePlan(args(), { env });
    expect(result).toMatchObject({ result: 'captured', error: '', written_path: target(), observed_state: 'ready' });
    expect(filesUnder(evidence)).toEqual(['L6.3-error.png', 'L6.3-error.probe.json']);
  });

  test('a provider that throws -> failed with its message, nothing left behind', async () => {
    const { provider } = thirdParty((_a, context) => {
      context.writeArtifact(PNG);
      throw new Error('farm unreachable');
    });
    registerCaptureProvider(provider);
    const result = await executeCapturePlan(args(), { env });
    expect(result).toMatchObject({ result: 'failed', error: 'farm unreachable' });
    expect(filesUnder(evidence)).toEqual([]);
  });
});
