/**
 * Run root: run_root argument (this call only, absolute, marked, never falls
 * back) > DESIGN_PLAYBOOK_RUN_ROOT (relative against the start cwd) > cwd
 * (a warnings entry and one stderr line per process when unmarked).
 */
import * as fs from 'fs';
import * as path from 'path';
import { executeCapturePlan } from '../../src/boundary';
import { FakeProvider } from '../helpers/fakeProvider';
import { makeRunFixture, validArgs, listFiles, type RunFixture } from './fixtures';

type RunRootModule = typeof import('../../src/boundary/runRoot');

/** A fresh copy of the module: its start cwd and its once-per-process flag are new. */
function freshRunRoot(): RunRootModule {
  let mod!: RunRootModule;
  jest.isolateModules(() => {
    mod = require('../../src/boundary/runRoot');
  });
  return mod;
}

const ORIGINAL_CWD = process.cwd();
let a: RunFixture; // marked root (argument)
let b: RunFixture; // marked root (environment)
let c: RunFixture; // unmarked folder (cwd)

beforeEach(() => {
  a = makeRunFixture();
  b = makeRunFixture({ marker: 'point-back.md' });
  c = makeRunFixture({ marker: null });
});
afterEach(() => {
  process.chdir(ORIGINAL_CWD);
  for (const fx of [a, b, c]) fx.cleanup();
  jest.restoreAllMocks();
});

describe('resolveRunRoot order', () => {
  test('argument > environment > cwd', () => {
    const { resolveRunRoot } = freshRunRoot();
    process.chdir(c.root);
    jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(resolveRunRoot(a.root, { DESIGN_PLAYBOOK_RUN_ROOT: b.root })).toMatchObject({ ok: true, root: a.root, source: 'run_root', warnings: [] });
    expect(resolveRunRoot(undefined, { DESIGN_PLAYBOOK_RUN_ROOT: b.root })).toMatchObject({
      ok: true,
      root: b.root,
      source: 'DESIGN_PLAYBOOK_RUN_ROOT',
      warnings: [],
    });
    expect(resolveRunRoot(undefined, {})).toMatchObject({ ok: true, root: c.root, source: 'cwd' });
  });

  test.each([
    ['unset', {}],
    ["'.'", { DESIGN_PLAYBOOK_RUN_ROOT: '.' }],
    ['empty', { DESIGN_PLAYBOOK_RUN_ROOT: '' }],
  ])('environment %s -> the process cwd', (_n, env) => {
    const { resolveRunRoot } = freshRunRoot();
    process.chdir(a.root);
    expect(resolveRunRoot(undefined, env as NodeJS.ProcessEnv)).toEqual({ ok: true, root: a.root, source: 'cwd', warnings: [] });
  });

  test('either marker counts (plan.md, point-back.md); a folder named plan.md does not', () => {
    const { resolveRunRoot, RUN_MARKERS } = freshRunRoot();
    expect([...RUN_MARKERS].sort()).toEqual(['plan.md', 'point-back.md']);
    expect(resolveRunRoot(a.root, {}).ok).toBe(true);
    expect(resolveRunRoot(b.root, {}).ok).toBe(true);
    fs.mkdirSync(path.join(c.root, 'plan.md'));
    expect(resolveRunRoot(c.root, {})).toMatchObject({ ok: false, error: expect.stringContaining('holds no run marker') });
  });

  test('a relative environment value resolves against the cwd at start, not the current cwd', () => {
    const start = path.join(c.base, 'start');
    fs.mkdirSync(path.join(start, 'rel', 'run'), { recursive: true });
    fs.writeFileSync(path.join(start, 'rel', 'run', 'plan.md'), '');
    process.chdir(start);
    const { resolveRunRoot, START_CWD } = freshRunRoot();
    expect(START_CWD).toBe(start);
    process.chdir(a.root);
    expect(resolveRunRoot(undefined, { DESIGN_PLAYBOOK_RUN_ROOT: 'rel/run' })).toMatchObject({
      ok: true,
      root: path.join(start, 'rel', 'run'),
      source: 'DESIGN_PLAYBOOK_RUN_ROOT',
    });
  });

  test('an absolute environment value is used as is; an unmarked one carries a warning; a missing one fails', () => {
    const { resolveRunRoot } = freshRunRoot();
    expect(resolveRunRoot(undefined, { DESIGN_PLAYBOOK_RUN_ROOT: c.root })).toMatchObject({
      ok: true,
      root: c.root,
      warnings: [expect.stringContaining(c.root)],
    });
    expect(resolveRunRoot(undefined, { DESIGN_PLAYBOOK_RUN_ROOT: path.join(c.root, 'nope') })).toMatchObject({ ok: false });
  });
});

describe('run_root argument never falls back', () => {
  test.each<[string, (fx: RunFixture) => unknown, string]>([
    ['relative', () => 'run', 'run_root must be an absolute path'],
    ['relative with ./', () => './run', 'run_root must be an absolute path'],
    ['missing folder', (fx) => path.join(fx.base, 'missing'), 'run_root is not an existing folder'],
    ['a file', (fx) => path.join(fx.root, 'plan.md'), 'run_root is not an existing folder'],
    ['markerless', (fx) => fx.outside, 'holds no run marker'],
    ['empty', () => '', 'run_root must be a non-empty absolute path'],
    ['a number', () => 7, 'run_root must be a non-empty absolute path'],
    ['null', () => null, 'run_root must be a non-empty absolute path'],
    ['with a NUL byte', (fx) => `${fx.root}\0`, 'run_root must be a non-empty absolute path'],
  ])('%s -> failed, nothing written in the env root or the cwd', async (_n, make, phrase) => {
    const { resolveRunRoot } = freshRunRoot();
    const resolved = resolveRunRoot(make(a), { DESIGN_PLAYBOOK_RUN_ROOT: b.root });
    expect(resolved).toMatchObject({ ok: false, error: expect.stringContaining(phrase) });

    process.chdir(c.root);
    const provider = new FakeProvider();
    const result = await executeCapturePlan(validArgs(undefined, { run_root: make(a) }), { provider, env: { DESIGN_PLAYBOOK_RUN_ROOT: b.root } });
    expect(result.result).toBe('failed');
    expect(result.error).toContain(phrase);
    expect(result.written_path).toBe('');
    expect(result.request).toBeDefined();
    expect(provider.calls).toHaveLength(0);
    for (const fx of [a, b, c]) expect(listFiles(fx.evidence)).toEqual([]);
    expect(fs.readdirSync(a.outside)).toEqual([]);
  });
});

describe('a relative run_root is told the rule and its absolute spelling', () => {
  test.each([['run'], ['./run'], ['.scratch/my-run/']])('%s', (given) => {
    const { resolveRunRoot } = freshRunRoot();
    process.chdir(c.root);
    const resolved = resolveRunRoot(given, {});
    expect(resolved).toEqual({
      ok: false,
      error:
        `run_root must be an absolute path (got '${given}'); pass the run folder's full path, ` +
        `e.g. '${path.resolve(c.root, given)}' if it is relative to the server's working directory`,
    });
  });
});

describe('run root through executeCapturePlan', () => {
  test('the argument binds one call only; the next call goes back to the environment', async () => {
    const provider = new FakeProvider();
    const env = { DESIGN_PLAYBOOK_RUN_ROOT: b.root };
    const first = await executeCapturePlan(validArgs(a.root, { artifact_path: 'evidence/one.png' }), { provider, env });
    expect(first).toMatchObject({ result: 'captured', written_path: path.join(a.root, 'evidence', 'one.png') });
    const second = await executeCapturePlan(validArgs(undefined, { artifact_path: 'evidence/two.png' }), { provider, env });
    expect(second).toMatchObject({ result: 'captured', written_path: path.join(b.root, 'evidence', 'two.png') });
    expect(listFiles(a.evidence).sort()).toEqual(['one.png', 'one.probe.json']);
    expect(listFiles(b.evidence).sort()).toEqual(['two.png', 'two.probe.json']);
    expect(provider.calls[0].context.runRoot).toBe(a.root);
    expect(provider.calls[1].context.runRoot).toBe(b.root);
  });

  test('an unmarked cwd: warnings entry on every call, one stderr line per process', () => {
    const { resolveRunRoot } = freshRunRoot();
    process.chdir(c.root);
    const writes: string[] = [];
    jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      writes.push(String(chunk));
      return true;
    });
    const first = resolveRunRoot(undefined, {});
    const second = resolveRunRoot(undefined, { DESIGN_PLAYBOOK_RUN_ROOT: '.' });
    for (const r of [first, second]) {
      expect(r.ok).toBe(true);
      if (r.ok) {
        expect(r.warnings).toHaveLength(1);
        expect(r.warnings[0]).toMatch(/^DESIGN_PLAYBOOK_RUN_ROOT is unset or '\.'/);
        expect(r.warnings[0]).toContain(c.root);
      }
    }
    const lines = writes
      .join('')
      .split('\n')
      .filter((l) => l.includes("DESIGN_PLAYBOOK_RUN_ROOT is unset or '.'"));
    expect(lines).toHaveLength(1);
  });

  test('the cwd warning reaches the result payload', async () => {
    process.chdir(c.root);
    jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    fs.mkdirSync(c.evidence, { recursive: true });
    const result = await executeCapturePlan(validArgs(undefined), { provider: new FakeProvider(), env: {} });
    expect(result.result).toBe('captured');
    expect(result.written_path).toBe(path.join(c.root, 'evidence', 'shot.png'));
    expect(result.warnings.some((w) => w.startsWith("DESIGN_PLAYBOOK_RUN_ROOT is unset or '.'"))).toBe(true);
  });

  test('a marked cwd: no warning', async () => {
    process.chdir(a.root);
    const result = await executeCapturePlan(validArgs(undefined), { provider: new FakeProvider(), env: {} });
    expect(result).toMatchObject({ result: 'captured', warnings: [] });
  });
});
