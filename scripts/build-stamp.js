// What a build was built from: a content hash of each source file, written
// by the build (`npm run build`: begun by clean-dist.js, sealed by
// postbuild.js once every step passed) to dist/build-stamp.json. The test
// projects that run the in-page bundles or dist/ compare it with the
// sources as they are (test/projects/staleBuild.ts) and stop at once,
// naming `npm run build`, when a source changed since — content hashes, so
// a fresh checkout's file times do not fool it.
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const ROOT = path.join(__dirname, '..');
const stampFile = (root) => path.join(root, 'dist', 'build-stamp.json');
const pendingFile = (root) => path.join(root, 'dist', 'build-stamp.pending.json');

/**
 * The inputs of each output. `bundles`: the generated bundles (the in-page
 * ones in cdp/generated/ and src/report/generated/, the rules worker's and the pixel
 * kernels' in src/compare/pixels/generated/), which the browser tests load
 * from the sources; `dist`: everything tsc compiles (the bundles included),
 * and what dist/server.cjs is made of besides (the package's version, the
 * dependencies the lock file pins).
 */
const GROUPS = {
  bundles: [
    'cdp/injected',
    'src/report/page',
    // The rules worker's program and what it imports (scripts/build-workers.js).
    'src/compare/pixels/rulesWorker.ts',
    'src/compare/pixels/rowRules.ts',
    'src/compare/pixels/pixelRules.ts',
    'src/compare/pixels/regions.ts',
    // The pixel kernels' WebAssembly text (assembled by the same script) and their loader, which the worker imports.
    'src/compare/pixels/kernels.wat',
    'src/compare/pixels/kernels.ts',
    'scripts/build-injected.js',
    'scripts/build-report-page.js',
    'scripts/build-workers.js',
  ],
  dist: [
    'src',
    'cdp',
    'tsconfig.json',
    'scripts/build-injected.js',
    'scripts/build-report-page.js',
    'scripts/build-workers.js',
    'scripts/bundle.js',
    'package.json',
    'package-lock.json',
  ],
};

/** Generated files are outputs, not inputs (each group's hash covers their sources). */
function isGenerated(rel) {
  return rel.startsWith('cdp/generated/') || rel.startsWith('src/report/generated/') || rel.startsWith('src/compare/pixels/generated/');
}

function filesUnder(root, rel) {
  const abs = path.join(root, rel);
  if (!fs.existsSync(abs)) return [];
  if (fs.statSync(abs).isFile()) return [rel];
  return fs
    .readdirSync(abs, { withFileTypes: true })
    .flatMap((entry) => filesUnder(root, path.posix.join(rel, entry.name)))
    .filter((file) => !isGenerated(file));
}

/** group -> file -> sha256 of its bytes, as the sources are now. */
function currentHashes(root = ROOT) {
  const out = {};
  for (const [group, roots] of Object.entries(GROUPS)) {
    out[group] = {};
    for (const file of [...new Set(roots.flatMap((rel) => filesUnder(root, rel)))].sort()) {
      out[group][file] = crypto
        .createHash('sha256')
        .update(fs.readFileSync(path.join(root, file)))
        .digest('hex');
    }
  }
  return out;
}

/** The build's start: what it is built from (sealed only if the build gets to its end). */
function beginStamp(root = ROOT) {
  fs.mkdirSync(path.dirname(pendingFile(root)), { recursive: true });
  fs.writeFileSync(pendingFile(root), JSON.stringify({ hashes: currentHashes(root) }) + '\n');
}

function sealStamp(root = ROOT) {
  fs.renameSync(pendingFile(root), stampFile(root));
}

/**
 * Why `group`'s output is stale, or null when it is built from the sources
 * as they are. The message names what changed and the command to run.
 */
function staleness(group, root = ROOT) {
  const fix = 'run `npm run build`';
  if (!fs.existsSync(stampFile(root))) return `no finished build (dist/build-stamp.json is missing): ${fix}`;
  let recorded;
  try {
    recorded = JSON.parse(fs.readFileSync(stampFile(root), 'utf8')).hashes[group];
  } catch (err) {
    return `dist/build-stamp.json cannot be read (${err.message}): ${fix}`;
  }
  if (!recorded) return `dist/build-stamp.json has no ${group} entry (an older build): ${fix}`;
  const now = currentHashes(root)[group];
  const changed = [...new Set([...Object.keys(recorded), ...Object.keys(now)])].filter((file) => recorded[file] !== now[file]).sort();
  if (!changed.length) return null;
  const shown = changed.slice(0, 5).map((file) => (file in now ? (file in recorded ? file : `${file} (new)`) : `${file} (deleted)`));
  const what = group === 'bundles' ? 'the generated bundles (cdp/generated/, src/report/generated/, src/compare/pixels/generated/) are' : 'dist/ is';
  return `${what} older than the sources: ${shown.join(', ')}${changed.length > 5 ? ` and ${changed.length - 5} more` : ''} changed since the last build; ${fix}`;
}

module.exports = { GROUPS, beginStamp, sealStamp, staleness, currentHashes };
