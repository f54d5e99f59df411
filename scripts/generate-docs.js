#!/usr/bin/env node
// Rewrites the README's reference tables (arguments, actions, environment,
// CLI flags) between their `<!-- generated:NAME -->` … `<!-- /generated:NAME -->`
// markers, from the built program (dist/src/docs/readmeTables.js, which reads
// the tool's input schema, the action vocabulary and src/common/settings.ts; run
// `npm run build` first). The prose around the tables is left as it is.
// With --check it writes nothing and exits 1 when the README differs.
const fs = require('fs');
const path = require('path');

const { README_TABLES } = require('../dist/src/docs/readmeTables.js');

const README = path.join(__dirname, '..', 'README.md');
const COMMAND = 'npm run generate:docs';

function rewrite(text) {
  let out = text;
  for (const [name, render] of Object.entries(README_TABLES)) {
    const open = `<!-- generated:${name} -->`;
    const close = `<!-- /generated:${name} -->`;
    const start = out.indexOf(open);
    const end = out.indexOf(close);
    if (start < 0 || end < start) throw new Error(`README.md has no ${open} … ${close} section; add the two markers where the table goes`);
    out = `${out.slice(0, start + open.length)}\n${render()}\n${out.slice(end)}`;
  }
  return out;
}

const current = fs.readFileSync(README, 'utf8');
let generated;
try {
  generated = rewrite(current);
} catch (err) {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
}
if (process.argv.includes('--check')) {
  if (generated !== current) {
    process.stderr.write(`README.md's generated tables are out of date: run ${COMMAND} and commit README.md\n`);
    process.exit(1);
  }
  process.stdout.write('README.md tables are up to date\n');
} else if (generated !== current) {
  fs.writeFileSync(README, generated);
  process.stdout.write('wrote README.md tables\n');
} else {
  process.stdout.write('README.md tables are up to date\n');
}
