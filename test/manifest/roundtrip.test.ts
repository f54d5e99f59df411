/**
 * A line built the way an orchestrator builds it — from a real
 * executeCapturePlan result, its `request` copied as is — is accepted by the
 * schema and the reader, bound or unbound, at the top level or inside capture.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import Ajv2020 from 'ajv/dist/2020';
import { executeCapturePlan } from '../../src/boundary';
import { captureResultSchema, type CaptureResult } from '../../src/contract/result';
import type { CaptureProvider } from '../../src/contract/captureProvider';
import { captureToolDeclaration, SERVER_NAME, TOOL_NAME } from '../../src/contract/toolDeclaration';
import { bindingFor, parseManifest } from '../../src/manifest';

const schema = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', 'schemas', 'manifest_v1.schema.json'), 'utf8'));
const validate = new Ajv2020({ strict: true, allowUnionTypes: true, validateFormats: false }).compile(schema);

const provider: CaptureProvider = {
  toolName: TOOL_NAME,
  describe: captureToolDeclaration,
  async capture(_args, context) {
    context.writeArtifact(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    return { result: 'captured', observed_state: 'error' };
  },
};

let root: string;
beforeAll(() => {
  root = path.join(fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-roundtrip-'))), 'run');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(root, 'plan.md'), '# plan\n');
});
afterAll(() => fs.rmSync(path.dirname(root), { recursive: true, force: true }));

let counter = 0;
async function capture(extra: Record<string, unknown>): Promise<{ args: Record<string, any>; result: CaptureResult }> {
  const args = {
    schemaVersion: 1,
    url: 'http://127.0.0.1:8138/ui.html',
    type: 'screenshot',
    state: 'error',
    actions: [],
    artifact_path: `evidence/L6.${++counter}-error.png`,
    viewport: { width: 1280, height: 800, devicePixelRatio: 1, colorScheme: 'light' },
    ...extra,
  };
  const result = await executeCapturePlan(args, { provider, env: { DESIGN_PLAYBOOK_RUN_ROOT: root } });
  expect(result.result).toBe('captured');
  return { args, result };
}

/** What an orchestrator appends after a capture. */
function lineFor(criterion: string, args: Record<string, any>, result: CaptureResult, where: 'top' | 'capture'): Record<string, unknown> {
  const captureBlock: Record<string, unknown> = {
    provider: SERVER_NAME,
    url: args.url,
    type: args.type,
    state: args.state,
    actions: args.actions,
    artifact_path: result.artifact,
    note: 'surface: live',
  };
  const line: Record<string, unknown> = {
    criterion,
    artifact: result.artifact.replace(/^evidence\//, ''),
    observed_state: result.observed_state,
    result: result.result,
    ts: '2026-07-16T15:00:00+08:00',
    capture: captureBlock,
  };
  if (where === 'top') line.request = result.request;
  else captureBlock.request = result.request;
  return line;
}

test.each([
  ['unbound, request at the top level', {}, 'top'],
  ['unbound, request inside capture', { freeze: { networkIdle: true } }, 'capture'],
  ['bound, request at the top level', { design: { fontSizes: [14, 16, '20px'], colors: ['#0b6bcb'], radii: [] } }, 'top'],
  ['bound with undecidable literals, inside capture', { design: { fontSizes: ['1rem', 'var(--x)', 'NaNpx', 1e6], colors: ['rgba(0,0,0,0.5)'] } }, 'capture'],
] as const)('%s', async (_name, extra, where) => {
  const { args, result } = await capture(extra as Record<string, unknown>);
  const line = lineFor('L6.3', args, result, where);
  const text = JSON.stringify(line);
  expect(validate(JSON.parse(text))).toBe(true);
  const { entries, facts } = parseManifest(text + '\n');
  expect(facts).toEqual([]);
  const bound = bindingFor(entries, 'L6.3', line.artifact as string);
  expect(bound?.request).toEqual(JSON.parse(JSON.stringify(result.request)));
  expect(bound?.observed_state).toBe('error');
});

test('a declaration item the boundary keeps is recorded exactly when the tool output schema allows it', async () => {
  // The boundary keeps every literal (the probe reports odd ones undecidable).
  // Whether the echo may carry a non-number/non-string item is one decision,
  // the contract's requestSnapshotSchema: the output schema, the manifest
  // schema and the reader all follow it, so they never disagree.
  const { args, result } = await capture({ design: { colors: [true, null, '#fff'] } });
  const echoAllowed = captureResultSchema.safeParse(JSON.parse(JSON.stringify(result))).success;
  const line = JSON.parse(JSON.stringify(lineFor('L6.4', args, result, 'top')));
  expect(validate(line)).toBe(echoAllowed);
  expect(parseManifest(JSON.stringify(line)).facts.length === 0).toBe(echoAllowed);
});
