/**
 * The built bin's fast start (src/app/bundledProgram.ts): dist/server.cjs and
 * its code cache are used when they belong to this build and this Node —
 * judged by the compiled modules' contents, never by file times — and the
 * compiled modules run otherwise. Checked on the real build, and on a copy of
 * it whose bundle announces itself on stderr, so the test sees which program
 * the bin ran.
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

/** Every compiled module under dist/ (the .js files but the bundle), '/'-separated and sorted. */
function compiledFiles(dist: string, dir = dist): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return compiledFiles(dist, full);
      return entry.name.endsWith('.js') ? [path.relative(dist, full).split(path.sep).join('/')] : [];
    })
    .sort();
}

test('the build records the compiled modules the bundle stands for: every one of them, by their bytes', () => {
  const record = JSON.parse(fs.readFileSync(path.join(DIST, 'server.cjs.modules.json'), 'utf8'));
  expect(record.files).toEqual(compiledFiles(DIST));
  expect(record.files).toEqual(expect.arrayContaining(['src/bin.js', 'src/main.js', 'cdp/generated/runtime.js']));
  const hash = crypto.createHash('sha256');
  for (const file of record.files) {
    const bytes = fs.readFileSync(path.join(DIST, file));
    hash.update(`${file}\0${bytes.length}\0`).update(bytes);
  }
  expect(record.sha256).toBe(hash.digest('hex'));
});

test('the build carries the bundle and a cache recorded for its bytes and this Node, and the bin loads both', () => {
  const record = JSON.parse(fs.readFileSync(path.join(DIST, 'server.cjs.cache.json'), 'utf8'));
  const sha256 = crypto
    .createHash('sha256')
    .update(fs.readFileSync(path.join(DIST, 'server.cjs')))
    .digest('hex');
  expect(record).toEqual({ sha256, node: process.version, v8: process.versions.v8, arch: process.arch });
  expect(loadIn(DIST)).toEqual({ program: true, cache: 'used' });
});

/** `doctor --json` of the bin in `dist`: its report. */
function doctorOf(dist: string): { start?: unknown } {
  const run = spawnSync(process.execPath, [path.join(dist, 'src', 'bin.js'), 'doctor', '--json'], { encoding: 'utf8', timeout: 60_000 });
  return JSON.parse(run.stdout);
}

test('doctor says how the bin loaded the program: the bundle, with its code cache', () => {
  expect(doctorOf(DIST).start).toEqual({ from: 'bundle', file: path.join(DIST, 'server.cjs'), cache: 'used' });
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

  test('compiled files newer than the bundle (as a package manager unpacks them): the bundle still runs', () => {
    const later = new Date(Date.now() + 60_000);
    for (const file of compiledFiles(dist)) fs.utimesSync(path.join(dist, file), later, later);
    expect(loadIn(dist)).toEqual({ program: true, cache: 'none' });
    const run = runBin();
    expect(run.status).toBe(0);
    expect(run.stderr).toContain(MARK);
  });

  test('a compiled module changed after the build (a tsc run, a patch): the compiled modules run', () => {
    const main = path.join(dist, 'src', 'app', 'main.js');
    const times = fs.statSync(main);
    // Same length, other bytes, an older time: only the contents tell.
    const text = fs.readFileSync(main, 'utf8');
    fs.writeFileSync(main, text.replace('serving ', 'Serving '));
    expect(fs.readFileSync(main, 'utf8')).not.toBe(text);
    fs.utimesSync(main, times.atime, new Date(0));
    expect(loadIn(dist)).toEqual({ program: false, why: 'the compiled modules differ from the ones the bundle was built with' });
    const run = runBin();
    expect(run.status).toBe(0);
    expect(run.stderr).not.toContain(MARK);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(doctorOf(dist).start).toEqual({ from: 'modules', why: 'the compiled modules differ from the ones the bundle was built with' });
  });

  test('a compiled module the bundle was built with is gone, or the record is: the compiled modules run', () => {
    fs.rmSync(path.join(dist, 'src', 'cli', 'report.js'));
    expect(loadIn(dist)).toEqual({ program: false, why: 'a compiled module the bundle was built with is missing' });
    fs.rmSync(path.join(dist, 'server.cjs.modules.json'));
    expect(loadIn(dist)).toEqual({ program: false, why: 'no record of the compiled modules the bundle was built with' });
  });

  test('no bundle: the compiled modules run', () => {
    fs.rmSync(path.join(dist, 'server.cjs'));
    expect(loadIn(dist)).toEqual({ program: false, why: 'no bundle' });
    const run = runBin();
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
