/**
 * The built bin's fast start (src/app/bundledProgram.ts): dist/server.cjs and
 * its code cache are used when they belong to this build and this Node, and
 * the compiled modules run otherwise. Checked on the real build, and on a
 * copy of it whose bundle announces itself on stderr, so the test sees which
 * program the bin ran.
 */
import { execFileSync, spawnSync } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.join(__dirname, '..', '..');
const DIST = path.join(ROOT, 'dist');

/** loadBundledProgram(dir) in a fresh Node: what it reports. */
function loadIn(dist: string): { program: boolean; cache?: string; why?: string } {
  const script = `const r = require(${JSON.stringify(path.join(dist, 'src', 'app', 'bundledProgram.js'))}).loadBundledProgram(${JSON.stringify(dist)});
    process.stdout.write(JSON.stringify({ program: !!r.program && typeof r.program.runMain === 'function', cache: r.cache, why: r.why }));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
}

test('the build carries the bundle and a cache recorded for its bytes and this Node, and the bin loads both', () => {
  const record = JSON.parse(fs.readFileSync(path.join(DIST, 'server.cjs.cache.json'), 'utf8'));
  const sha256 = crypto
    .createHash('sha256')
    .update(fs.readFileSync(path.join(DIST, 'server.cjs')))
    .digest('hex');
  expect(record).toEqual({ sha256, node: process.version, v8: process.versions.v8, arch: process.arch });
  expect(loadIn(DIST)).toEqual({ program: true, cache: 'used' });
});

describe('a copy of the build', () => {
  let pkg: string;
  let dist: string;
  const MARK = 'ran-from-the-bundle';

  beforeEach(() => {
    pkg = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-fast-start-'));
    dist = path.join(pkg, 'dist');
    fs.cpSync(DIST, dist, { recursive: true, preserveTimestamps: true });
    fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(pkg, 'package.json'));
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(pkg, 'node_modules'));
    // The bundle announces itself; its cache then no longer fits its bytes.
    const bundle = path.join(dist, 'server.cjs');
    const times = fs.statSync(bundle);
    fs.writeFileSync(bundle, `process.stderr.write(${JSON.stringify(MARK + '\n')});\n` + fs.readFileSync(bundle, 'utf8'));
    fs.utimesSync(bundle, times.atime, times.mtime);
  });

  afterEach(() => fs.rmSync(pkg, { recursive: true, force: true }));

  const runBin = () => spawnSync(process.execPath, [path.join(dist, 'src', 'bin.js'), '--version'], { encoding: 'utf8' });

  test('a cache made from other bytes is not used, and the bundle still runs', () => {
    expect(loadIn(dist)).toEqual({ program: true, cache: 'none' });
    const run = runBin();
    expect(run.status).toBe(0);
    expect(run.stderr).toContain(MARK);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  test('a cache recorded for another Node is not used', () => {
    const recordFile = path.join(dist, 'server.cjs.cache.json');
    const bundleBytes = fs.readFileSync(path.join(dist, 'server.cjs'));
    const record = { sha256: crypto.createHash('sha256').update(bundleBytes).digest('hex'), node: 'v0.0.0', v8: process.versions.v8, arch: process.arch };
    fs.writeFileSync(recordFile, JSON.stringify(record));
    expect(loadIn(dist)).toEqual({ program: true, cache: 'none' });
    fs.writeFileSync(recordFile, JSON.stringify({ ...record, node: process.version }));
    // Recorded for these bytes and this Node, the cache is offered; V8 itself rejects it (made from a source of another length).
    expect(loadIn(dist)).toEqual({ program: true, cache: 'rejected' });
  });

  test('a compiled file newer than the bundle (tsc after the build): the compiled modules run', () => {
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(dist, 'src', 'app', 'main.js'), later, later);
    expect(loadIn(dist)).toEqual({ program: false, why: 'a compiled file is newer than the bundle' });
    const run = runBin();
    expect(run.status).toBe(0);
    expect(run.stderr).not.toContain(MARK);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  test('no bundle: the compiled modules run', () => {
    fs.rmSync(path.join(dist, 'server.cjs'));
    expect(loadIn(dist)).toEqual({ program: false, why: 'no bundle' });
    const run = runBin();
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
