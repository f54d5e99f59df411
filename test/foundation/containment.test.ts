/**
 * Containment: writeTarget / readArtifact and their stable codes, and each
 * code's write-side message as executeCapturePlan reports it.
 */
import * as fs from 'fs';
import * as path from 'path';
import { writeTarget, readArtifact, CONTAINMENT_MESSAGES, CONTAINMENT_CODES, containmentRefusal, isAbsoluteOnAnyHost } from '../../src/boundary/containment';
import { executeCapturePlan } from '../../src/boundary';
import { FakeProvider } from '../helpers/fakeProvider';
import { makeRunFixture, validArgs, snapshotTree, type RunFixture } from './fixtures';

let fx: RunFixture;
beforeEach(() => {
  fx = makeRunFixture();
  fs.mkdirSync(path.join(fx.evidence, 'sub'));
  fs.writeFileSync(path.join(fx.root, 'spec.md'), 'spec');
  // Links inside evidence/: one leading out, a loop, one staying inside.
  fs.symlinkSync(fx.outside, path.join(fx.evidence, 'out'));
  fs.symlinkSync(path.join(fx.outside, 'file.png'), path.join(fx.evidence, 'dangling-out.png'));
  fs.symlinkSync(path.join(fx.evidence, 'loop-b'), path.join(fx.evidence, 'loop-a'));
  fs.symlinkSync(path.join(fx.evidence, 'loop-a'), path.join(fx.evidence, 'loop-b'));
  fs.symlinkSync('sub', path.join(fx.evidence, 'alias'));
  fs.symlinkSync(fx.root, path.join(fx.evidence, 'up'));
  fs.symlinkSync('.', path.join(fx.evidence, 'self'));
});
afterEach(() => fx.cleanup());

const TABLE: Record<string, string[]> = {
  absolute_path: ['/x', '/evidence/x.png', 'C:\\x', 'C:/x', 'c:x', '\\\\server\\share', '\\\\server\\share\\evidence\\x.png', '\\evidence\\x.png'],
  dotdot_segment: ['evidence/../evidence/x.png', '../x.png', 'evidence/..', 'evidence/sub/../../spec.md', 'evidence\\..\\spec.md', 'evidence/a/..\\b.png'],
  resolution_failure: [
    'evidence/a\0b.png',
    `evidence/${'a'.repeat(5000)}.png`,
    `evidence/${'ab/'.repeat(1700)}x.png`,
    `evidence/${'a'.repeat(300)}.png`,
    'evidence/loop-a/x.png',
    'evidence/loop-a',
    'evidence/sub/',
  ],
  canonical_escape: ['spec.md', 'skills/x', 'skills/evidence/x.png', 'Evidence/x.png', 'evidence', 'evidence/', './spec.md', 'evidencex/y.png'],
  symlink_escape: ['evidence/out/x.png', 'evidence/out', 'evidence/dangling-out.png', 'evidence/up/spec.md'],
};

describe('writeTarget refusals', () => {
  const rows = Object.entries(TABLE).flatMap(([code, paths]) => paths.map((p) => [code, p] as const));
  test.each(rows)('%s: %j', (code, artifactPath) => {
    // 'evidence/' ends with a separator: refused as unresolvable or as an escape, never accepted.
    const result = writeTarget(fx.root, artifactPath);
    expect(result.ok).toBe(false);
    if (artifactPath === 'evidence/') expect(['canonical_escape', 'resolution_failure']).toContain(!result.ok && result.code);
    else expect(result).toEqual({ ok: false, code });
  });

  test('every code has a stable write-side message', () => {
    expect(CONTAINMENT_CODES).toEqual(['absolute_path', 'dotdot_segment', 'resolution_failure', 'canonical_escape', 'symlink_escape', 'not_regular_file']);
    expect(CONTAINMENT_MESSAGES).toMatchObject({
      absolute_path: 'artifact_path must be relative to the configured run root',
      dotdot_segment: "artifact_path must not contain '..' segments",
      resolution_failure: 'artifact_path could not be resolved under the evidence/ subtree',
      canonical_escape: 'artifact_path must stay under the evidence/ subtree',
      symlink_escape: 'artifact_path symlink escapes the evidence/ subtree',
    });
  });

  test('Windows absolute forms are absolute on this host too', () => {
    for (const p of ['C:\\x', 'C:/x', 'z:', '\\\\server\\share', '/x']) expect(isAbsoluteOnAnyHost(p)).toBe(true);
    for (const p of ['evidence/x', 'evidence\\x', './evidence/x']) expect(isAbsoluteOnAnyHost(p)).toBe(false);
  });

  test('refusals are checked in order: absolute before dotdot before resolution', () => {
    expect(writeTarget(fx.root, '/evidence/../x')).toEqual({ ok: false, code: 'absolute_path' });
    expect(writeTarget(fx.root, 'evidence/../a\0b')).toEqual({ ok: false, code: 'dotdot_segment' });
    expect(writeTarget(fx.root, 'spec\0.md')).toEqual({ ok: false, code: 'resolution_failure' });
  });

  test('a run root that does not exist is a resolution failure, not a crash', () => {
    expect(writeTarget(path.join(fx.base, 'nope'), 'evidence/x.png')).toEqual({ ok: false, code: 'resolution_failure' });
  });

  test('evidence/ itself a link is an escape; evidence/ a file is unresolvable', () => {
    fs.rmSync(fx.evidence, { recursive: true });
    fs.symlinkSync(fx.outside, fx.evidence);
    expect(writeTarget(fx.root, 'evidence/x.png')).toEqual({ ok: false, code: 'symlink_escape' });
    fs.unlinkSync(fx.evidence);
    fs.writeFileSync(fx.evidence, 'not a folder');
    expect(writeTarget(fx.root, 'evidence/x.png')).toEqual({ ok: false, code: 'resolution_failure' });
  });

  test('a file where a folder is needed is unresolvable', () => {
    fs.writeFileSync(path.join(fx.evidence, 'plain'), 'x');
    expect(writeTarget(fx.root, 'evidence/plain/x.png')).toEqual({ ok: false, code: 'resolution_failure' });
  });
});

describe('writeTarget accepts', () => {
  test('a plain path, a missing suffix of folders, and backslashes as separators', () => {
    expect(writeTarget(fx.root, 'evidence/x.png')).toEqual({
      ok: true,
      path: path.join(fx.evidence, 'x.png'),
      evidenceRoot: fx.evidence,
      folderSegments: [],
      leaf: 'x.png',
    });
    expect(writeTarget(fx.root, 'evidence/new/deeper/x.png')).toMatchObject({
      ok: true,
      path: path.join(fx.evidence, 'new/deeper/x.png'),
      folderSegments: ['new', 'deeper'],
      leaf: 'x.png',
    });
    expect(writeTarget(fx.root, 'evidence\\sub\\x.png')).toMatchObject({ ok: true, path: path.join(fx.evidence, 'sub', 'x.png'), folderSegments: ['sub'] });
    expect(writeTarget(fx.root, './evidence/./sub//x.png')).toMatchObject({ ok: true, path: path.join(fx.evidence, 'sub', 'x.png') });
  });

  test('a link that stays inside evidence/ resolves to its real place', () => {
    expect(writeTarget(fx.root, 'evidence/alias/x.png')).toMatchObject({ ok: true, path: path.join(fx.evidence, 'sub', 'x.png'), folderSegments: ['sub'] });
  });

  test('no evidence/ yet: allowed, resolved under the (future) folder', () => {
    fs.rmSync(fx.evidence, { recursive: true });
    expect(writeTarget(fx.root, 'evidence/a/x.png')).toMatchObject({
      ok: true,
      path: path.join(fx.evidence, 'a', 'x.png'),
      folderSegments: ['a'],
      leaf: 'x.png',
    });
  });

  test('a linked run root resolves to its real place', () => {
    const link = path.join(fx.base, 'run-link');
    fs.symlinkSync(fx.root, link);
    expect(writeTarget(link, 'evidence/x.png')).toMatchObject({ ok: true, path: path.join(fx.evidence, 'x.png') });
  });

  test('unicode names are fine', () => {
    expect(writeTarget(fx.root, 'evidence/证据/ü.png')).toMatchObject({ ok: true, leaf: 'ü.png', folderSegments: ['证据'] });
  });
});

describe('readArtifact', () => {
  test('an existing regular file', () => {
    fs.writeFileSync(path.join(fx.evidence, 'sub', 'a.png'), 'x');
    expect(readArtifact(fx.root, 'evidence/sub/a.png')).toMatchObject({ ok: true, path: path.join(fx.evidence, 'sub', 'a.png') });
    expect(readArtifact(fx.root, 'evidence/alias/a.png')).toMatchObject({ ok: true, path: path.join(fx.evidence, 'sub', 'a.png') });
  });

  test.each(['evidence/missing.png', 'evidence/sub', 'evidence/new/missing.png'])('not_regular_file: %s', (p) => {
    expect(readArtifact(fx.root, p)).toEqual({ ok: false, code: 'not_regular_file' });
  });

  test('a fifo is not a regular file', () => {
    const fifo = path.join(fx.evidence, 'pipe');
    require('child_process').execFileSync('mkfifo', [fifo]);
    expect(readArtifact(fx.root, 'evidence/pipe')).toEqual({ ok: false, code: 'not_regular_file' });
  });

  test('the write-side refusals come first', () => {
    fs.writeFileSync(path.join(fx.outside, 'file.png'), 'outside');
    expect(readArtifact(fx.root, 'evidence/dangling-out.png')).toEqual({ ok: false, code: 'symlink_escape' });
    expect(readArtifact(fx.root, 'evidence/out/file.png')).toEqual({ ok: false, code: 'symlink_escape' });
    expect(readArtifact(fx.root, 'spec.md')).toEqual({ ok: false, code: 'canonical_escape' });
    expect(readArtifact(fx.root, '/etc/passwd')).toEqual({ ok: false, code: 'absolute_path' });
  });
});

describe('containment refusals through executeCapturePlan', () => {
  const rows = Object.entries(TABLE).flatMap(([code, paths]) => paths.filter((p) => p !== 'evidence/').map((p) => [code, p] as const));
  test.each(rows)('%s: %j -> its message, written_path "", request echoed, nothing written', async (code, artifactPath) => {
    const before = snapshotTree(fx.base);
    const provider = new FakeProvider();
    const result = await executeCapturePlan(validArgs(fx.root, { artifact_path: artifactPath, type: 'a11y tree' }), { provider, env: {} });
    expect(result).toMatchObject({
      result: 'failed',
      // The message callers match on; an absolute path is also told what to write instead (below).
      error:
        code === 'absolute_path'
          ? expect.stringMatching(new RegExp(`^${CONTAINMENT_MESSAGES.absolute_path}; write it relative to the run root `))
          : CONTAINMENT_MESSAGES[code as keyof typeof CONTAINMENT_MESSAGES],
      written_path: '',
      observed_state: 'unknown',
      artifact: artifactPath.trim(),
    });
    expect(result.request).toBeDefined();
    expect(provider.calls).toHaveLength(0);
    expect(snapshotTree(fx.base)).toEqual(before);
  });
});

describe('an absolute artifact_path is told the rule and what to write instead', () => {
  const fix = (example: string) => `${CONTAINMENT_MESSAGES.absolute_path}; write it relative to the run root /runs/r1, e.g. ${example}`;
  test.each([
    ['inside the run root', '/runs/r1/evidence/sub/L1.png', 'evidence/sub/L1.png'],
    ["inside the run root's evidence/, with an evidence/ folder of its own", '/runs/r1/evidence/a/evidence/L1.png', 'evidence/a/evidence/L1.png'],
    ["another run's evidence/", '/runs/r0/evidence/L1.png', 'evidence/L1.png'],
    ['no evidence/ in it', '/home/me/shots/L1.png', 'evidence/L1.png'],
    ['a Windows drive path', 'C:\\runs\\r1\\evidence\\L1.png', 'evidence/L1.png'],
    ['a UNC path', '\\\\server\\share\\L1.json', 'evidence/L1.json'],
    ['with a .. segment', '/runs/r1/evidence/../L1.png', 'evidence/L1.png'],
    ['the root itself', '/', 'evidence/<leaf>.png'],
  ])('%s: %s', (_name, artifactPath, example) => {
    expect(containmentRefusal('absolute_path', '/runs/r1', artifactPath)).toBe(fix(example));
  });

  test('the other refusals keep their messages as they are', () => {
    for (const code of ['dotdot_segment', 'resolution_failure', 'canonical_escape', 'symlink_escape'] as const) {
      expect(containmentRefusal(code, '/runs/r1', 'evidence/x.png')).toBe(CONTAINMENT_MESSAGES[code]);
    }
  });

  test('through executeCapturePlan: an absolute path into the run root is told its relative spelling', async () => {
    const result = await executeCapturePlan(validArgs(fx.root, { artifact_path: path.join(fx.root, 'evidence', 'L1.png') }), {
      provider: new FakeProvider(),
      env: {},
    });
    expect(result).toMatchObject({
      result: 'failed',
      written_path: '',
      error: `artifact_path must be relative to the configured run root; write it relative to the run root ${fx.root}, e.g. evidence/L1.png`,
    });
  });
});
