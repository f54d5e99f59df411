/**
 * The built server's fast start. Loading the program as some 400 modules
 * costs a fresh process about 200 ms of compiling and module set-up before
 * it answers `initialize` (and as much again for Puppeteer at the first
 * capture). So `npm run build` also bundles the program into one file,
 * dist/server.cjs (scripts/bundle.js --dist, entry src/app/bundleEntry.ts), and
 * stores V8's code cache for it, made after every module of a capture was
 * set up (scripts/code-cache.js): from the cache, reading the bundle,
 * deserializing its code and setting its modules up takes about 100 ms.
 *
 * The bin (src/bin.ts) loads the bundle only when it stands for the compiled
 * modules beside it: the build records, next to the bundle, the compiled
 * files it was built with and a SHA-256 of their bytes (dist/server.cjs.modules.json),
 * and the bin checks that digest against the files as they are. A `tsc` run
 * after the build that changes a compiled file, or a hand-patched one, makes
 * the modules run instead. Contents, not file times: a package manager
 * unpacks files with times of its own (npm gave dist/src/bin.js a later one
 * than the bundle), so an installed copy is judged as the checkout is. The
 * cache is used only when it was made from exactly these bytes, by this Node
 * (the bundle's SHA-256, Node's and V8's versions and the architecture,
 * recorded beside it); otherwise the bundle is compiled without it. V8
 * rejects a cache it cannot use on its own, but it checks the source's
 * length, not its bytes.
 *
 * Node built-ins only: this runs before anything else of the program loads.
 */
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import * as vm from 'vm';
import Module from 'module';
import type * as BundleEntry from './bundleEntry';

export type BundledProgram = typeof BundleEntry;

/** Where the bundle, the record of the compiled modules it stands for, its code cache and the cache's record live in a dist/ folder. */
export function bundleFiles(distDir: string): { bundle: string; modules: string; cache: string; record: string } {
  const bundle = path.join(distDir, 'server.cjs');
  return { bundle, modules: `${bundle}.modules.json`, cache: `${bundle}.cache`, record: `${bundle}.cache.json` };
}

/** The compiled modules a bundle was built with: their paths under dist/ (`/`-separated, sorted) and a SHA-256 over paths and bytes. */
export interface ModulesRecord {
  sha256: string;
  files: string[];
}

/** The digest of `files` (paths under `distDir`) as they are; throws when one cannot be read. */
function modulesDigest(distDir: string, files: readonly string[]): string {
  const hash = crypto.createHash('sha256');
  for (const file of files) {
    const bytes = fs.readFileSync(path.join(distDir, ...file.split('/')));
    // Each file's path and length before its bytes: no two trees hash alike by shifting bytes between files.
    hash.update(`${file}\0${bytes.length}\0`);
    hash.update(bytes);
  }
  return hash.digest('hex');
}

/** Every compiled module under `distDir` (the .js files; the bundle and its records aside), for the build's record. */
function compiledModules(distDir: string, dir = distDir, skip = new Set(Object.values(bundleFiles(distDir)))): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (skip.has(full)) continue;
    if (entry.isDirectory()) found.push(...compiledModules(distDir, full, skip));
    else if (entry.name.endsWith('.js')) found.push(path.relative(distDir, full).split(path.sep).join('/'));
  }
  return found;
}

/** The record the build writes beside the bundle (scripts/bundle.js --dist, right after tsc): the compiled modules as they are now. */
export function modulesRecordFor(distDir: string): ModulesRecord {
  const files = compiledModules(distDir).sort();
  return { sha256: modulesDigest(distDir, files), files };
}

/** Why the bundle does not stand for the compiled modules in `distDir` (null when it does). */
function modulesMismatch(distDir: string, recordFile: string): string | null {
  let record: ModulesRecord;
  try {
    record = JSON.parse(fs.readFileSync(recordFile, 'utf8')) as ModulesRecord;
    if (typeof record.sha256 !== 'string' || !Array.isArray(record.files)) throw new Error('not a record');
  } catch {
    return 'no record of the compiled modules the bundle was built with';
  }
  let digest: string;
  try {
    digest = modulesDigest(distDir, record.files);
  } catch {
    return 'a compiled module the bundle was built with is missing';
  }
  // A compiled file the build did not list changes nothing by itself: only a listed module loads it.
  return digest === record.sha256 ? null : 'the compiled modules differ from the ones the bundle was built with';
}

/** What a code cache must have been made from to be used: the bundle's bytes and this Node. */
export interface CacheRecord {
  sha256: string;
  node: string;
  v8: string;
  arch: string;
}

export function cacheRecordFor(bundleBytes: Buffer): CacheRecord {
  return { sha256: crypto.createHash('sha256').update(bundleBytes).digest('hex'), node: process.version, v8: process.versions.v8, arch: process.arch };
}

const sameRecord = (a: CacheRecord, b: CacheRecord) => a.sha256 === b.sha256 && a.node === b.node && a.v8 === b.v8 && a.arch === b.arch;

/** The bundle compiled as Node compiles a CommonJS file (the cache is made and used through this one function). */
export function compileBundle(bundlePath: string, source: string, cachedData?: Buffer): { script: vm.Script; run(): BundledProgram } {
  const script = new vm.Script(Module.wrap(source), { filename: bundlePath, cachedData });
  return {
    script,
    run() {
      const module = { exports: {} as BundledProgram };
      const wrapper = script.runInThisContext() as (exports: unknown, require: NodeRequire, module: unknown, filename: string, dirname: string) => void;
      wrapper.call(module.exports, module.exports, Module.createRequire(bundlePath), module, bundlePath, path.dirname(bundlePath));
      return module.exports;
    },
  };
}

export type BundleUse = { program: BundledProgram; cache: 'used' | 'rejected' | 'none' } | { program: null; why: string };

/** The program from dist/'s bundle, with its code cache when that fits; `program: null` (and why) when the modules must run. */
export function loadBundledProgram(distDir: string): BundleUse {
  const files = bundleFiles(distDir);
  if (!fs.existsSync(files.bundle)) return { program: null, why: 'no bundle' };
  const mismatch = modulesMismatch(distDir, files.modules);
  if (mismatch) return { program: null, why: mismatch };
  let bundleBytes: Buffer;
  try {
    bundleBytes = fs.readFileSync(files.bundle);
  } catch {
    return { program: null, why: 'no bundle' };
  }
  let cachedData: Buffer | undefined;
  try {
    const record = JSON.parse(fs.readFileSync(files.record, 'utf8')) as CacheRecord;
    if (sameRecord(record, cacheRecordFor(bundleBytes))) cachedData = fs.readFileSync(files.cache);
  } catch {
    // No cache, or an unreadable one: compiled from source.
  }
  const compiled = compileBundle(files.bundle, bundleBytes.toString('utf8'), cachedData);
  const cache = !cachedData ? 'none' : compiled.script.cachedDataRejected ? 'rejected' : 'used';
  return { program: compiled.run(), cache };
}
