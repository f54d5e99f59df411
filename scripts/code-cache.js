// Makes V8's code cache for dist/server.cjs (the program as one file,
// scripts/bundle.js --dist) and records what it was made from, for the built
// bin's fast start (src/app/bundledProgram.ts, which owns the compile options and
// the record's rules). The bundle is compiled, its modules are set up — every
// one a capture or a CLI run loads on first use (src/app/bundleEntry.ts's
// warmModules) — and the cache is taken then, so it holds their compiled code
// too. Nothing is served and no browser starts. Run by `npm run build`.
const fs = require('fs');
const path = require('path');

const dist = path.join(__dirname, '..', 'dist');
const { bundleFiles, cacheRecordFor, compileBundle } = require(path.join(dist, 'src', 'app', 'bundledProgram.js'));

async function main() {
  const files = bundleFiles(dist);
  const bytes = fs.readFileSync(files.bundle);
  const compiled = compileBundle(files.bundle, bytes.toString('utf8'));
  await compiled.run().warmModules();
  const cache = compiled.script.createCachedData();
  // The record last: a cache without its record is never used.
  fs.rmSync(files.record, { force: true });
  fs.writeFileSync(files.cache, cache);
  fs.writeFileSync(files.record, JSON.stringify(cacheRecordFor(bytes), null, 2) + '\n');
  process.stdout.write(`wrote ${path.relative(process.cwd(), files.cache)} (${(cache.length / 1024 / 1024).toFixed(2)} MB)\n`);
}

main().catch((err) => {
  process.stderr.write(`code cache failed: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
