#!/usr/bin/env node
// Writes schemas/manifest_v1.schema.json from the compiled generator
// (dist/src/manifest/schema.js; run `npm run build` first). With --check it
// writes nothing and exits 1 when the committed file differs.
const fs = require('fs');
const path = require('path');

const { serializeManifestSchema, MANIFEST_SCHEMA_FILE } = require('../dist/src/manifest/schema.js');

const target = path.join(__dirname, '..', 'schemas', MANIFEST_SCHEMA_FILE);
const text = serializeManifestSchema();
if (process.argv.includes('--check')) {
  const current = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : null;
  if (current !== text) {
    process.stderr.write(`${path.relative(process.cwd(), target)} is out of date: run npm run generate:schemas\n`);
    process.exit(1);
  }
  process.stdout.write(`${path.relative(process.cwd(), target)} is up to date\n`);
} else {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, text);
  process.stdout.write(`wrote ${path.relative(process.cwd(), target)}\n`);
}
