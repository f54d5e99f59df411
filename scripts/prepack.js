// What `npm pack` and `npm publish` run first (the `prepack` script):
//
// 1. The package holds a finished build of the sources as they are: `npm run
//    build` runs unless dist/ already is one (scripts/build-stamp.js; a
//    checkout installed with `npm ci` was built by it).
// 2. The dependencies the tarball carries (`bundleDependencies`) are packed
//    from node_modules/ as they are installed, each with the files its own
//    package.json lists, which include much that nothing reads at run time.
//    Those files are deleted from the bundled packages' folders here:
//    source maps, TypeScript sources (declarations stay: a TypeScript
//    consumer's compile reads them), prebuilt addons for the Bare runtime
//    (bare-* packages; Node never loads them) and C sources (nothing builds
//    them: no package in the tarball has an install script), the
//    DevTools protocol's .pdl sources (its JSON and types stay), and the
//    Markdown documents of a package whose licence is in a file of its own
//    (licence files always stay). `npm ci` puts them back; development uses
//    none of them.
//
//   node scripts/prepack.js            build if needed, then prune
//   node scripts/prepack.js --dry-run  say what would be pruned, change nothing
//
// It writes to stderr only: `npm pack --json` prints its report on stdout,
// after what this script prints there.
const fs = require('fs');
const path = require('path');
const { execSync } = require('child_process');
const { staleness } = require('./build-stamp');

const ROOT = path.join(__dirname, '..');
const DRY_RUN = process.argv.includes('--dry-run');

/** A licence or notice file: kept whatever its extension. */
const LICENCE = /^(licen[cs]e|copying|notice|third[-_ ]party[-_ ]notices|authors)(\b|[-_.])/i;

/** Why a file of a bundled package is dead weight, or null when it stays. */
function deadWeight(name, licenceFileInPackage) {
  if (name === 'package.json' || LICENCE.test(name)) return null;
  if (name.endsWith('.map')) return 'source map';
  if (/\.[cm]?ts$/.test(name) && !/\.d\.[cm]?ts$/.test(name)) return 'TypeScript source';
  if (/\.(bare|c|h)$/.test(name) || name === 'CMakeLists.txt') return 'Bare runtime addon or C source';
  if (name.endsWith('.pdl')) return 'protocol definition source';
  if (/\.(md|markdown)$/i.test(name) && licenceFileInPackage) return 'Markdown document';
  return null;
}

/** Where `name` resolves from the package folder `from`, as Node's require looks it up (nearest node_modules first). */
function resolvePackage(name, from) {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (dir === ROOT || path.dirname(dir) === dir) return null;
  }
}

/** The folders of every package the tarball carries: the bundleDependencies and, under them, their dependencies and optional dependencies. */
function bundledPackages() {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const found = new Set();
  const visit = (name, from) => {
    const dir = resolvePackage(name, from);
    if (!dir || found.has(dir)) return;
    found.add(dir);
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) visit(dep, dir);
  };
  for (const name of manifest.bundleDependencies ?? []) visit(name, ROOT);
  return [...found].sort();
}

/** The files of one package's folder (not of the packages nested under its node_modules/, which are visited as packages of their own). */
function packageFiles(dir) {
  const files = [];
  const walk = (folder) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) {
        if (!(folder === dir && entry.name === 'node_modules')) walk(full);
      } else if (entry.isFile()) files.push(full);
    }
  };
  walk(dir);
  return files;
}

function prune() {
  const removed = new Map();
  for (const dir of bundledPackages()) {
    // A linked package (a workspace, `npm link`) is someone's checkout: left alone.
    if (fs.lstatSync(dir).isSymbolicLink()) continue;
    const files = packageFiles(dir);
    const licenceFile = files.some((file) => path.dirname(file) === dir && LICENCE.test(path.basename(file)));
    for (const file of files) {
      const why = deadWeight(path.basename(file), licenceFile);
      if (!why) continue;
      const size = fs.statSync(file).size;
      if (!DRY_RUN) fs.rmSync(file);
      const sum = removed.get(why) ?? { files: 0, bytes: 0 };
      removed.set(why, { files: sum.files + 1, bytes: sum.bytes + size });
    }
  }
  const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;
  const parts = [...removed].map(([why, { files, bytes }]) => `${files} ${why}${files === 1 ? '' : 's'} (${mb(bytes)})`);
  process.stderr.write(`prepack: ${DRY_RUN ? 'would remove' : 'removed'} from the bundled dependencies ${parts.length ? parts.join(', ') : 'nothing'}\n`);
}

if (!DRY_RUN) {
  const stale = staleness('dist') ?? staleness('bundles');
  if (stale) {
    process.stderr.write(`prepack: ${stale}: building\n`);
    execSync('npm run build', { cwd: ROOT, stdio: ['ignore', 2, 2] });
  }
}
prune();
