/**
 * Property test of the boundary: a few hundred random and hostile argument
 * objects (seeded, so a failure replays) through executeCapturePlan with the
 * fake provider. Whatever comes in, the call either returns a payload that
 * satisfies the output schema or throws ToolInputError; nothing outside
 * <root>/evidence changes; manifest.jsonl keeps its bytes; no temporary file
 * survives; Object.prototype stays clean.
 */
import * as fs from 'fs';
import * as path from 'path';
import { executeCapturePlan } from '../../src/boundary';
import { ToolInputError } from '../../src/common/errors';
import { captureResultSchema } from '../../src/contract/result';
import { captureToolDeclaration } from '../../src/contract/toolDeclaration';
import Ajv2020 from 'ajv/dist/2020';
import { FakeProvider, writes, writesThenFails, writesThenThrows, claimsWithoutWriting, FAKE_PNG, type FakeBehaviour } from '../helpers/fakeProvider';
import { makeRunFixture, validArgs, snapshotTree, partialFiles, type RunFixture } from './fixtures';

const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed);
const CASES = Number(process.env.FUZZ_CASES ?? 400);

/** mulberry32: small, seedable, good enough to pick cases. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Gen {
  constructor(readonly next: () => number) {}
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }

  string(): string {
    switch (this.int(9)) {
      case 0:
        return '';
      case 1:
        return 'x'.repeat(this.pick([255, 256, 4097, 100_000]));
      case 2:
        return `a\0b${this.int(10)}`;
      case 3:
        return this.pick(['证据', 'ü', '😀', '\u202e', '\ufeff', 'a\u0000', '\r\n', ' \t ', 'NaN', 'true', '1']);
      case 4:
        return this.pick(['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty']);
      case 5:
        return this.pick(['screenshot', 'a11y tree', 'interaction trace', 'light', 'dark', 'no-preference']);
      case 6:
        return this.pick(['http://127.0.0.1/x', 'file:///etc/passwd', 'about:blank', 'javascript:1', 'ftp://x']);
      default:
        return Array.from({ length: this.int(12) }, () => String.fromCharCode(this.int(0x3000))).join('');
    }
  }

  scalar(): unknown {
    return this.pick<() => unknown>([
      () => undefined,
      () => null,
      () => true,
      () => false,
      () => this.int(3),
      () => this.pick([-1, 0, 0.05, 0.1, 1.5, 1e308, -0, Number.MAX_SAFE_INTEGER + 2]),
      () => this.pick([NaN, Infinity, -Infinity]),
      () => this.string(),
    ])();
  }

  /** Any JSON-ish value, objects possibly carrying prototype-named own keys. */
  value(depth = 0): unknown {
    if (depth > 2 || this.chance(0.55)) return this.scalar();
    if (this.chance(0.4)) return Array.from({ length: this.int(4) }, () => this.value(depth + 1));
    const obj: Record<string, unknown> = {};
    for (let i = this.int(4); i > 0; i--) obj[this.string().slice(0, 20)] = this.value(depth + 1);
    if (this.chance(0.2)) Object.assign(obj, JSON.parse('{"__proto__": {"polluted": 1}, "constructor": {"prototype": {"polluted": 1}}}'));
    return obj;
  }

  artifactPath(type: string): unknown {
    if (this.chance(0.1)) return this.scalar();
    if (this.chance(0.4)) {
      // A well-formed name, so enough calls reach the provider and the commit.
      const ext = type === 'screenshot' ? '.png' : type === 'a11y tree' ? '.json' : this.pick(['.zip', '.trace.ZIP']);
      return `evidence/${this.pick(['', 'sub/', 'alias/', 'new/deep/', '证据/'])}${this.pick(['a', 'b', 'c', 'shot', 'x'])}${ext}`;
    }
    const segments = [
      'evidence',
      'evidence',
      'evidence',
      'sub',
      'out',
      'loop-a',
      'alias',
      'up',
      '..',
      '.',
      '',
      'manifest.jsonl',
      'MANIFEST.JSONL',
      'Manifest.Jsonl',
      'x.png',
      'y.json',
      't.zip',
      't.ZIP',
      'C:',
      '\\\\server',
      'spec.md',
      'skills',
      '证据',
      'a\0b',
      'x'.repeat(300),
      'shot.probe.json',
      'plan.md',
      'dangling-out.png',
    ];
    const separators = ['/', '/', '/', '\\', '//'];
    const count = 1 + this.int(5);
    let p = this.chance(0.1) ? this.pick(['/', '\\', 'C:\\', 'C:/', '\\\\srv\\share\\', './']) : '';
    for (let i = 0; i < count; i++) p += (i ? this.pick(separators) : '') + this.pick(segments);
    if (this.chance(0.05)) p += '/';
    if (this.chance(0.05)) p = `  ${p}  `;
    return p;
  }
}

let fx: RunFixture;
let manifest: string;

beforeAll(() => {
  fx = makeRunFixture();
  fs.mkdirSync(path.join(fx.evidence, 'sub'));
  manifest = path.join(fx.evidence, 'manifest.jsonl');
  fs.writeFileSync(manifest, '{"criterion":"L1","artifact":"x.png"}\n');
  fs.writeFileSync(path.join(fx.outside, 'keep.txt'), 'outside bytes');
  fs.writeFileSync(path.join(fx.root, 'spec.md'), 'spec');
  fs.symlinkSync(fx.outside, path.join(fx.evidence, 'out'));
  fs.symlinkSync(path.join(fx.outside, 'dangling.png'), path.join(fx.evidence, 'dangling-out.png'));
  fs.symlinkSync(path.join(fx.evidence, 'loop-b'), path.join(fx.evidence, 'loop-a'));
  fs.symlinkSync(path.join(fx.evidence, 'loop-a'), path.join(fx.evidence, 'loop-b'));
  fs.symlinkSync('sub', path.join(fx.evidence, 'alias'));
  fs.symlinkSync(fx.root, path.join(fx.evidence, 'up'));
});
afterAll(() => fx.cleanup());

/** Everything under the temp base except the evidence/ subtree's contents. */
function outsideEvidence(): Map<string, string> {
  const prefix = `run${path.sep}evidence${path.sep}`;
  return new Map([...snapshotTree(fx.base)].filter(([rel]) => !rel.startsWith(prefix)));
}

test(`${CASES} random argument objects (seed ${SEED}): only ToolInputError, nothing written outside evidence/`, async () => {
  const gen = new Gen(prng(SEED));
  const provider = new FakeProvider();
  const behaviours: FakeBehaviour[] = [writes(), writes(FAKE_PNG, { page_facts: undefined }), writesThenFails(), writesThenThrows(), claimsWithoutWriting()];
  const fields = ['schemaVersion', 'url', 'type', 'state', 'actions', 'artifact_path', 'overwrite', 'viewport', 'freeze', 'run_root', 'design'];
  const runRoots = [fx.root, `${fx.root}/`, fx.outside, fx.base, fx.evidence, 'run', '/', path.join(fx.evidence, 'out'), `${fx.root}\0`];
  const before = outsideEvidence();
  const manifestBytes = fs.readFileSync(manifest);
  const outcomes = { captured: 0, failed: 0, toolInputError: 0, bound: 0 };
  // The schema a client actually receives, checked on what the client actually receives (JSON).
  const advertised = new Ajv2020({ strict: false }).compile(captureToolDeclaration().outputSchema!);

  for (let i = 0; i < CASES; i++) {
    const type = gen.pick(['screenshot', 'a11y tree', 'interaction trace']);
    const args: Record<string, unknown> = validArgs(undefined, {
      type,
      artifact_path: gen.artifactPath(type),
      overwrite: gen.chance(0.3),
    });
    for (let m = gen.int(3); m > 0; m--) {
      const field = gen.pick(fields);
      if (field === 'run_root') args.run_root = gen.chance(0.7) ? gen.pick(runRoots) : gen.value();
      else if (field === 'viewport' && gen.chance(0.6))
        args.viewport = {
          width: 800,
          height: 600,
          devicePixelRatio: 1,
          colorScheme: 'light',
          [gen.pick(['width', 'height', 'devicePixelRatio', 'colorScheme', 'zoom'])]: gen.value(),
        };
      else if (field === 'design' && gen.chance(0.6))
        args.design = Object.fromEntries(
          ['fontSizes', 'colors', 'radii'].filter(() => gen.chance(0.6)).map((axis) => [axis, Array.from({ length: gen.int(4) }, () => gen.value(1))]),
        );
      else if (field === 'actions' && gen.chance(0.6))
        args.actions = [{ do: gen.pick(['click', 'fill', 'press', 'wait', 'drag', gen.string()]), selector: gen.value(), value: gen.value(), ms: gen.value() }];
      else args[field] = gen.value();
    }
    if (gen.chance(0.05)) Object.assign(args, JSON.parse('{"__proto__": {"polluted": 1}}'));
    if (gen.chance(0.05)) args[gen.string()] = gen.value();
    provider.setBehaviour(gen.pick(behaviours));

    const label = `case ${i}: ${safeJson(args)}`;
    try {
      const result = await executeCapturePlan(args, { provider, env: { DESIGN_PLAYBOOK_RUN_ROOT: fx.root } });
      const parsed = captureResultSchema.safeParse(result);
      if (!parsed.success) throw new Error(`${label}: payload breaks the output schema: ${parsed.error.message}`);
      if (!advertised(JSON.parse(JSON.stringify(result))))
        throw new Error(`${label}: payload breaks the advertised outputSchema: ${JSON.stringify(advertised.errors)}`);
      if (result.request?.design !== undefined) outcomes.bound++;
      if (result.result === 'captured') {
        outcomes.captured++;
        if (!result.written_path.startsWith(fx.evidence + path.sep)) throw new Error(`${label}: captured outside evidence/: ${result.written_path}`);
        if (!fs.lstatSync(result.written_path).isFile()) throw new Error(`${label}: captured but no regular file`);
        if (path.basename(result.written_path).toLowerCase() === 'manifest.jsonl') throw new Error(`${label}: captured a manifest`);
      } else {
        outcomes.failed++;
        if (result.observed_state !== 'unknown') throw new Error(`${label}: failure with observed_state ${result.observed_state}`);
      }
    } catch (err) {
      if (err instanceof ToolInputError) {
        outcomes.toolInputError++;
      } else {
        throw new Error(`${label}: threw ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`);
      }
    }
    if (partialFiles(fx.base).length) throw new Error(`${label}: left a temporary file: ${partialFiles(fx.base)}`);
    if (!fs.readFileSync(manifest).equals(manifestBytes)) throw new Error(`${label}: manifest.jsonl changed`);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }

  expect(outsideEvidence()).toEqual(before);
  expect(fs.readFileSync(path.join(fx.outside, 'keep.txt'), 'utf8')).toBe('outside bytes');
  expect(fs.readdirSync(fx.outside)).toEqual(['keep.txt']);
  // The generator must reach every outcome, or the property says little.
  expect(outcomes.captured).toBeGreaterThan(10);
  expect(outcomes.failed).toBeGreaterThan(10);
  expect(outcomes.toolInputError).toBeGreaterThan(10);
  expect(outcomes.bound).toBeGreaterThan(5);
});

function safeJson(value: unknown): string {
  try {
    const text = JSON.stringify(value, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v));
    return text.length > 400 ? `${text.slice(0, 400)}…` : text;
  } catch {
    return String(value);
  }
}
