#!/usr/bin/env node
// Writes the versioned JSON Schemas in schemas/ from the compiled generators
// (run `npm run build` first): the manifest line (dist/src/manifest/schema.js)
// and the comparison's result, compare.json (dist/src/compare/schema.js).
// With --check it writes nothing and exits 1 when a committed file differs.
const fs = require('fs');
const path = require('path');

const { serializeManifestSchema, MANIFEST_SCHEMA_FILE } = require('../dist/src/manifest/schema.js');
const { serializeCompareSchema, COMPARE_SCHEMA_FILE } = require('../dist/src/compare/schema.js');

const schemas = [
  [MANIFEST_SCHEMA_FILE, serializeManifestSchema()],
  [COMPARE_SCHEMA_FILE, serializeCompareSchema()],
];
let stale = 0;
for (const [file, text] of schemas) {
  const target = path.join(__dirname, '..', 'schemas', file);
  const shown = path.relative(process.cwd(), target);
  if (process.argv.includes('--check')) {
    const current = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : null;
    if (current !== text) {
      process.stderr.write(`${shown} is out of date: run npm run generate:schemas\n`);
      stale++;
    } else process.stdout.write(`${shown} is up to date\n`);
  } else {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, text);
    process.stdout.write(`wrote ${shown}\n`);
  }
}
process.exit(stale ? 1 : 0);
