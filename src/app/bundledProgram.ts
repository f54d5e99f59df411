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
 * The bin (src/bin.ts) loads the bundle only when it belongs to this build:
 * no compiled file in dist/ is newer than it (a `tsc` run after the build
 * leaves the bundle out of date, and the modules run instead). The cache is
 * used only when it was made from exactly these bytes, by this Node (the
 * bundle's SHA-256, Node's and V8's versions and the architecture, recorded
 * beside it); otherwise the bundle is compiled without it. V8 rejects a cache
 * it cannot use on its own, but it checks the source's length, not its bytes.
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

/** Where the bundle, its code cache and the cache's record live in a dist/ folder. */
export function bundleFiles(distDir: string): { bundle: string; cache: string; record: string } {
  const bundle = path.join(distDir, 'server.cjs');
  return { bundle, cache: `${bundle}.cache`, record: `${bundle}.cache.json` };
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

/** The newest modification time of the compiled files under `dir` (the bundle and its cache aside). */
function newestCompiled(dir: string, skip: Set<string>): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (skip.has(full)) continue;
    if (entry.isDirectory()) newest = Math.max(newest, newestCompiled(full, skip));
    else if (entry.name.endsWith('.js')) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

export type BundleUse = { program: BundledProgram; cache: 'used' | 'rejected' | 'none' } | { program: null; why: string };

/** The program from dist/'s bundle, with its code cache when that fits; `program: null` (and why) when the modules must run. */
export function loadBundledProgram(distDir: string): BundleUse {
  const files = bundleFiles(distDir);
  let bundleBytes: Buffer;
  let bundleTime: number;
  try {
    bundleTime = fs.statSync(files.bundle).mtimeMs;
    if (newestCompiled(distDir, new Set(Object.values(files))) > bundleTime) return { program: null, why: 'a compiled file is newer than the bundle' };
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
