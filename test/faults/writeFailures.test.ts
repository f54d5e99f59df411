/**
 * Write failures in one voice: whatever the file system refuses (no space,
 * read-only, permission), the caller reads `could not write the artifact:`
 * followed by the artifact path it gave — never the descriptor path the
 * writer works through (/proc/self/fd/N/...) — and no file is left behind.
 * Read-only and no-space run on real, small tmpfs mounts when this machine
 * lets the test mount one.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { execFileSync } from 'child_process';
import { executeCapturePlan } from '../../src/boundary';
import { WRITE_FAILURE_PREFIX, writeFailure } from '../../src/common/failures';
import { FakeProvider, writes } from '../helpers/fakeProvider';
import { validArgs } from '../foundation/fixtures';

/** Mounts a tmpfs of `size` at a fresh folder; null (with the reason) when this machine does not allow it. */
function mountTmpfs(size: string): { dir: string; unmount(): void } | { skip: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0755`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (err) {
    fs.rmdirSync(dir);
    return { skip: `cannot mount a tmpfs here (${String((err as Error).message).split('\n')[0]})` };
  }
  return {
    dir,
    unmount() {
      execFileSync('umount', [dir], { stdio: 'pipe' });
      fs.rmdirSync(dir);
    },
  };
}

function runRootOn(dir: string): string {
  fs.writeFileSync(path.join(dir, 'plan.md'), '# plan\n');
  fs.mkdirSync(path.join(dir, 'evidence'));
  return dir;
}

function everything(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const name of fs.readdirSync(path.join(dir, rel))) {
      const child = path.join(rel, name);
      out.push(child);
      if (fs.lstatSync(path.join(dir, child)).isDirectory()) walk(child);
    }
  };
  walk('');
  return out.sort();
}

const canMount = (() => {
  const probe = mountTmpfs('64k');
  if ('skip' in probe) return probe.skip;
  probe.unmount();
  return '';
})();
const onTmpfs = canMount ? test.skip : test;
if (canMount) console.warn(`write-failure tests on tmpfs skipped: ${canMount}`);

onTmpfs('a read-only evidence folder: the prefix, the caller\'s path, "read-only", no internal path, nothing written', async () => {
  const mount = mountTmpfs('1m') as { dir: string; unmount(): void };
  try {
    runRootOn(mount.dir);
    execFileSync('mount', ['-o', 'remount,ro', mount.dir]);
    for (const [type, artifact] of [
      ['screenshot', 'evidence/ro.png'],
      ['a11y tree', 'evidence/deeper/ro.json'],
    ]) {
      const result = await executeCapturePlan(validArgs(mount.dir, { type, artifact_path: artifact }), { provider: new FakeProvider(writes()), env: {} });
      expect(result.result).toBe('failed');
      expect(result.error.startsWith(`${WRITE_FAILURE_PREFIX} ${artifact}: `)).toBe(true);
      expect(result.error).toContain('read-only file system (EROFS)');
      expect(result.error).not.toContain('/proc/self/fd');
      expect(result.error).not.toContain('.partial');
    }
    expect(everything(mount.dir)).toEqual(['evidence', 'plan.md']);
  } finally {
    mount.unmount();
  }
});

onTmpfs('a full disk: the prefix, the caller\'s path, "no space", no partial file left', async () => {
  const mount = mountTmpfs('256k') as { dir: string; unmount(): void };
  try {
    runRootOn(mount.dir);
    const big = Buffer.alloc(1024 * 1024, 7);
    const result = await executeCapturePlan(validArgs(mount.dir, { artifact_path: 'evidence/full.png' }), { provider: new FakeProvider(writes(big)), env: {} });
    expect(result.result).toBe('failed');
    expect(result.error.startsWith(`${WRITE_FAILURE_PREFIX} evidence/full.png: no space left`)).toBe(true);
    expect(result.error).toContain('(ENOSPC)');
    expect(result.error).not.toContain('/proc/self/fd');
    expect(everything(mount.dir)).toEqual(['evidence', 'plan.md']);

    // The same disk takes a small artifact afterwards: the failed write released its space.
    const small = await executeCapturePlan(validArgs(mount.dir, { artifact_path: 'evidence/small.png' }), { provider: new FakeProvider(writes()), env: {} });
    expect(small.error).toBe('');
    expect(everything(mount.dir)).toEqual(['evidence', 'evidence/small.png', 'evidence/small.probe.json', 'plan.md']);
  } finally {
    mount.unmount();
  }
});

test("permission denied: the prefix, the caller's path and the cause (root ignores modes, so the refusal is injected)", async () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-perm-'));
  const nodeFs: typeof fs = require('fs');
  const realOpen = nodeFs.openSync;
  const spy = jest.spyOn(nodeFs, 'openSync').mockImplementation(((p: fs.PathLike, ...rest: unknown[]) => {
    if (String(p).endsWith('.partial')) throw Object.assign(new Error(`EACCES: permission denied, open '${String(p)}'`), { code: 'EACCES' });
    return (realOpen as (...a: unknown[]) => number)(p, ...rest);
  }) as typeof fs.openSync);
  try {
    runRootOn(base);
    const result = await executeCapturePlan(validArgs(base, { artifact_path: 'evidence/perm.png' }), { provider: new FakeProvider(writes()), env: {} });
    expect(result.error).toBe(`${WRITE_FAILURE_PREFIX} evidence/perm.png: permission denied (EACCES); let this process write to the evidence folder`);
    expect(everything(base)).toEqual(['evidence', 'plan.md']);
  } finally {
    spy.mockRestore();
    fs.rmSync(base, { recursive: true, force: true });
  }
});

test('an unlisted system error keeps its code but drops the path Node put in its message', () => {
  const err = Object.assign(new Error("EXDEV: cross-device link not permitted, link '/proc/self/fd/9/.x.partial' -> '/proc/self/fd/9/x'"), { code: 'EXDEV' });
  expect(writeFailure(err, 'evidence/x.png')).toBe(`${WRITE_FAILURE_PREFIX} evidence/x.png: EXDEV`);
  expect(writeFailure(new Error("something odd, open '/proc/self/fd/3/y'"), 'evidence/y.png')).toBe(`${WRITE_FAILURE_PREFIX} evidence/y.png: something odd`);
});
