/**
 * ArtifactWriter: the write itself cannot escape evidence/ even when a folder
 * is swapped for a link (or moved out) after containment judged the path, and
 * cannot clobber a file that appeared after the early existence check.
 */
import * as fs from 'fs';
import * as path from 'path';
import { writeTarget, type ResolvedArtifact } from '../../src/boundary/containment';
import { ArtifactWriter, WriteRefusal, existsMessage } from '../../src/boundary/safeWrite';
import { makeRunFixture, listFiles, partialFiles, snapshotTree, type RunFixture } from './fixtures';

let fx: RunFixture;
beforeEach(() => {
  fx = makeRunFixture();
});
afterEach(() => fx.cleanup());

function target(artifactPath: string): ResolvedArtifact {
  const resolved = writeTarget(fx.root, artifactPath);
  if (!resolved.ok) throw new Error(`fixture path refused: ${resolved.code}`);
  return resolved;
}

function expectRefusal(fn: () => unknown, code: string, phrase?: string): void {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(WriteRefusal);
  expect((caught as WriteRefusal).code).toBe(code);
  if (phrase) expect((caught as WriteRefusal).message).toContain(phrase);
}

/** Replace evidence/sub by a link to `outside` (the original folder is moved aside inside evidence/). */
function swapForLink(folder: string, to: string): void {
  fs.renameSync(folder, `${folder}-moved-aside`);
  fs.symlinkSync(to, folder);
}

/** This process's descriptors open on files or folders under `dir` (the writer's own). */
function openUnder(dir: string): number {
  let count = 0;
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      if (fs.readlinkSync(`/proc/self/fd/${fd}`).startsWith(dir)) count++;
    } catch {
      // closed meanwhile (the listing's own descriptor)
    }
  }
  return count;
}

describe('ArtifactWriter basics', () => {
  test('stage + commit places the bytes and leaves no temporary file', () => {
    const t = target('evidence/new/deeper/x.png');
    const writer = ArtifactWriter.open(t);
    writer.stage(t.leaf, Buffer.from('png-bytes'));
    writer.stage('x.probe.json', '{}\n');
    expect(partialFiles(fx.evidence)).toHaveLength(2);
    expect(fs.existsSync(t.path)).toBe(false);
    expect(writer.commit(false)).toEqual([t.path, path.join(path.dirname(t.path), 'x.probe.json')]);
    expect(fs.readFileSync(t.path, 'utf8')).toBe('png-bytes');
    expect(partialFiles(fx.evidence)).toEqual([]);
  });

  test('the flush to disk runs off the main thread: flushed() resolves, every descriptor is closed, then commit places the group', async () => {
    const t = target('evidence/flushed/x.png');
    const writer = ArtifactWriter.open(t);
    writer.stage(t.leaf, Buffer.alloc(256 * 1024, 7));
    writer.stage('x.probe.json', '{}\n');
    // Each staged file keeps its descriptor until its flush has finished (the folder's is pinned throughout).
    expect(openUnder(fx.evidence)).toBe(3);
    await writer.flushed();
    expect(openUnder(fx.evidence)).toBe(1);
    expect(fs.existsSync(t.path)).toBe(false);
    writer.commit(false);
    expect(openUnder(fx.evidence)).toBe(0);
    expect(fs.readFileSync(t.path)).toEqual(Buffer.alloc(256 * 1024, 7));
    expect(partialFiles(fx.evidence)).toEqual([]);
  });

  test('discard while a flush is still under way leaves no file, and the descriptor closes when the flush ends', async () => {
    const t = target('evidence/x.png');
    const writer = ArtifactWriter.open(t);
    writer.stage(t.leaf, Buffer.alloc(64 * 1024, 1));
    const pending = writer.flushed();
    writer.discard();
    expect(partialFiles(fx.evidence)).toEqual([]);
    await pending;
    expect(openUnder(fx.evidence)).toBe(0);
    expect(listFiles(fx.evidence)).toEqual([]);
  });

  test('discard removes every staged temporary file', () => {
    const t = target('evidence/x.png');
    const writer = ArtifactWriter.open(t);
    writer.stage(t.leaf, 'a');
    writer.stage('x.probe.json', 'b');
    writer.discard();
    expect(listFiles(fx.evidence)).toEqual([]);
  });

  test('commit(false) never replaces a file that exists at commit time; old bytes kept, group rolled back', () => {
    const t = target('evidence/x.png');
    const writer = ArtifactWriter.open(t);
    writer.stage('x.probe.json', 'new sidecar');
    writer.stage(t.leaf, 'new');
    fs.writeFileSync(t.path, 'someone else'); // appeared after the check
    expectRefusal(() => writer.commit(false), 'exists', existsMessage(t.path));
    expect(fs.readFileSync(t.path, 'utf8')).toBe('someone else');
    expect(listFiles(fx.evidence)).toEqual(['x.png']); // the sidecar placed first was removed again
  });

  test('commit(false): a file created in the window after the existence check is still not replaced', () => {
    // The writer's own lstat sees nothing, then the other actor creates the file before the final step.
    const t = target('evidence/x.png');
    const writer = ArtifactWriter.open(t);
    writer.stage(t.leaf, 'ours');
    const nodeFs: typeof fs = require('fs'); // the module object itself: the namespace import is not spy-able
    const realLstat = nodeFs.lstatSync;
    const spy = jest.spyOn(nodeFs, 'lstatSync').mockImplementation(((p: fs.PathLike, ...rest: unknown[]) => {
      if (String(p).endsWith('/x.png') && !fs.existsSync(t.path)) {
        fs.writeFileSync(t.path, 'theirs');
        throw Object.assign(new Error(`ENOENT: no such file or directory, lstat '${String(p)}'`), { code: 'ENOENT' });
      }
      return (realLstat as (...a: unknown[]) => fs.Stats)(p, ...rest);
    }) as typeof fs.lstatSync);
    try {
      expectRefusal(() => writer.commit(false), 'exists', existsMessage(t.path));
    } finally {
      spy.mockRestore();
    }
    expect(fs.readFileSync(t.path, 'utf8')).toBe('theirs');
    expect(partialFiles(fx.evidence)).toEqual([]);
  });

  test('commit(false) does not follow a link that appeared at the target name', () => {
    const t = target('evidence/x.png');
    const writer = ArtifactWriter.open(t);
    writer.stage(t.leaf, 'new');
    fs.symlinkSync(path.join(fx.outside, 'victim.png'), t.path);
    expectRefusal(() => writer.commit(false), 'exists');
    expect(fs.readdirSync(fx.outside)).toEqual([]);
  });

  test('commit(true) replaces the file; a link at the name is replaced, not followed', () => {
    const t = target('evidence/x.png');
    fs.writeFileSync(path.join(fx.outside, 'victim.png'), 'victim');
    fs.symlinkSync(path.join(fx.outside, 'victim.png'), t.path);
    const writer = ArtifactWriter.open(t);
    writer.stage(t.leaf, 'new');
    writer.commit(true);
    expect(fs.lstatSync(t.path).isFile()).toBe(true);
    expect(fs.readFileSync(t.path, 'utf8')).toBe('new');
    expect(fs.readFileSync(path.join(fx.outside, 'victim.png'), 'utf8')).toBe('victim');
  });

  test('commit(true) refuses to replace a folder', () => {
    const t = target('evidence/x.png');
    const writer = ArtifactWriter.open(t);
    writer.stage(t.leaf, 'new');
    fs.mkdirSync(t.path);
    expectRefusal(() => writer.commit(true), 'not_a_file');
    expect(partialFiles(fx.evidence)).toEqual([]);
  });

  test('a temporary name already taken by a link is not followed', () => {
    // Exclusive, no-follow creation: staging fails rather than writing through a planted link.
    const t = target('evidence/x.png');
    const writer = ArtifactWriter.open(t);
    const spy = jest.spyOn(require('crypto'), 'randomBytes').mockImplementation(() => Buffer.from('000000000000', 'hex'));
    try {
      fs.symlinkSync(path.join(fx.outside, 'planted'), path.join(fx.evidence, '.x.png.000000000000.partial'));
      expect(() => writer.stage(t.leaf, 'bytes')).toThrow();
      expect(fs.readdirSync(fx.outside)).toEqual([]);
    } finally {
      spy.mockRestore();
      writer.discard();
    }
  });
});

describe('a folder swapped for a link between check and write', () => {
  beforeEach(() => {
    fs.mkdirSync(path.join(fx.evidence, 'sub'));
  });

  test('swap after writeTarget, before open: open refuses, nothing outside', () => {
    const t = target('evidence/sub/x.png');
    swapForLink(path.join(fx.evidence, 'sub'), fx.outside);
    expectRefusal(
      () => {
        const writer = ArtifactWriter.open(t);
        writer.stage(t.leaf, 'bytes');
        writer.commit(false);
      },
      'symlink_escape',
      'artifact_path symlink escapes the evidence/ subtree',
    );
    expect(fs.readdirSync(fx.outside)).toEqual([]);
  });

  test('swap of a deeper folder on the path (evidence/a/b with a swapped)', () => {
    fs.mkdirSync(path.join(fx.evidence, 'a', 'b'), { recursive: true });
    const t = target('evidence/a/b/x.png');
    fs.mkdirSync(path.join(fx.outside, 'b'));
    swapForLink(path.join(fx.evidence, 'a'), fx.outside);
    expectRefusal(() => ArtifactWriter.open(t), 'symlink_escape');
    expect(listFiles(fx.outside)).toEqual([]);
  });

  test('a swapped folder whose link target lacks the rest of the path: no folder is created outside', () => {
    fs.mkdirSync(path.join(fx.evidence, 'a', 'b'), { recursive: true });
    const t = target('evidence/a/b/c/x.png');
    swapForLink(path.join(fx.evidence, 'a'), fx.outside);
    const before = snapshotTree(fx.outside);
    expectRefusal(() => ArtifactWriter.open(t), 'symlink_escape');
    expect(snapshotTree(fx.outside)).toEqual(before);
  });

  test('a missing folder created as a link before open: open refuses', () => {
    const t = target('evidence/later/x.png');
    fs.symlinkSync(fx.outside, path.join(fx.evidence, 'later'));
    expectRefusal(() => ArtifactWriter.open(t), 'symlink_escape');
    expect(fs.readdirSync(fx.outside)).toEqual([]);
  });

  test('swap after open, before stage: bytes stay in the pinned folder (inside evidence/), nothing outside', () => {
    const t = target('evidence/sub/x.png');
    const writer = ArtifactWriter.open(t);
    swapForLink(path.join(fx.evidence, 'sub'), fx.outside);
    try {
      writer.stage(t.leaf, 'bytes');
      writer.commit(false);
    } catch (err) {
      expect(err).toBeInstanceOf(WriteRefusal);
    }
    expect(fs.readdirSync(fx.outside)).toEqual([]);
    const placed = listFiles(fx.evidence);
    expect(placed.every((f) => f.startsWith('sub-moved-aside/'))).toBe(true);
    expect(partialFiles(fx.evidence)).toEqual([]);
  });

  test('swap after stage, before commit: nothing reaches the link target', () => {
    const t = target('evidence/sub/x.png');
    const writer = ArtifactWriter.open(t);
    writer.stage(t.leaf, 'bytes');
    swapForLink(path.join(fx.evidence, 'sub'), fx.outside);
    try {
      writer.commit(false);
    } catch (err) {
      expect(err).toBeInstanceOf(WriteRefusal);
    }
    expect(fs.readdirSync(fx.outside)).toEqual([]);
    expect(partialFiles(fx.evidence)).toEqual([]);
  });

  test('the pinned folder itself moved outside evidence/ before commit: commit refuses and cleans up', () => {
    const t = target('evidence/sub/x.png');
    const writer = ArtifactWriter.open(t);
    writer.stage(t.leaf, 'bytes');
    const before = snapshotTree(fx.outside);
    fs.renameSync(path.join(fx.evidence, 'sub'), path.join(fx.outside, 'sub'));
    expectRefusal(() => writer.commit(false), 'symlink_escape');
    // The moved folder arrived empty-handed: neither the artifact nor its temporary file.
    expect(listFiles(fx.outside)).toEqual([]);
    expect(snapshotTree(fx.outside).size).toBe(before.size + 1);
  });

  test('the run root itself swapped for a link after the check: nothing is created at the link target', () => {
    fs.rmSync(fx.evidence, { recursive: true });
    const t = target('evidence/x.png');
    swapForLink(fx.root, fx.outside);
    expect(() => {
      const writer = ArtifactWriter.open(t);
      writer.stage(t.leaf, 'bytes');
      writer.commit(false);
    }).toThrow(WriteRefusal);
    expect(fs.readdirSync(fx.outside)).toEqual([]);
  });

  test('an ancestor of the run root swapped for a link after the check: nothing is created at the link target', () => {
    const ancestor = path.join(fx.base, 'ancestor');
    const root = path.join(ancestor, 'run');
    fs.mkdirSync(root, { recursive: true });
    fs.writeFileSync(path.join(root, 'plan.md'), '');
    const resolved = writeTarget(root, 'evidence/x.png');
    if (!resolved.ok) throw new Error(resolved.code);
    fs.mkdirSync(path.join(fx.outside, 'run'));
    swapForLink(ancestor, fx.outside);
    expect(() => ArtifactWriter.open(resolved)).toThrow(WriteRefusal);
    expect(fs.readdirSync(path.join(fx.outside, 'run'))).toEqual([]);
  });

  test('evidence/ itself swapped for a link after the check: open refuses', () => {
    const t = target('evidence/x.png');
    swapForLink(fx.evidence, fx.outside);
    expectRefusal(() => ArtifactWriter.open(t), 'symlink_escape');
    expect(fs.readdirSync(fx.outside)).toEqual([]);
  });
});
