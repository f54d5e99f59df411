#!/usr/bin/env node
// Rewrites the reference tables of docs/reference.md (arguments, actions,
// environment, CLI flags) between their `<!-- generated:NAME -->` … `<!-- /generated:NAME -->`
// markers, from scripts/readmeTables.ts (which reads the tool's input schema,
// the action table and the settings registries from the sources; it is build
// tooling, so it sits here and not in the runtime's src/). It is compiled with
// its imports into one temporary file first (esbuild), so no build is needed.
// The prose around the tables is left as it is. With --check it writes
// nothing and exits 1 when the page differs.
const fs = require('fs');
const os = require('os');
const path = require('path');
const esbuild = require('esbuild');

/** scripts/readmeTables.ts's exports, compiled from the sources. */
function loadTables() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'readme-tables-'));
  const outfile = path.join(dir, 'readmeTables.js');
  try {
    esbuild.buildSync({
      entryPoints: [path.join(__dirname, 'readmeTables.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      outfile,
      logLevel: 'error',
    });
    return require(outfile);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const { README_TABLES } = loadTables();

const PAGE = 'docs/reference.md';
const FILE = path.join(__dirname, '..', PAGE);
const COMMAND = 'npm run generate:docs';

function rewrite(text) {
  let out = text;
  for (const [name, render] of Object.entries(README_TABLES)) {
    const open = `<!-- generated:${name} -->`;
    const close = `<!-- /generated:${name} -->`;
    const start = out.indexOf(open);
    const end = out.indexOf(close);
    if (start < 0 || end < start) throw new Error(`${PAGE} has no ${open} … ${close} section; add the two markers where the table goes`);
    out = `${out.slice(0, start + open.length)}\n${render()}\n${out.slice(end)}`;
  }
  return out;
}

const current = fs.readFileSync(FILE, 'utf8');
let generated;
try {
  generated = rewrite(current);
} catch (err) {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
}
if (process.argv.includes('--check')) {
  if (generated !== current) {
    process.stderr.write(`${PAGE}'s generated tables are out of date: run ${COMMAND} and commit ${PAGE}\n`);
    process.exit(1);
  }
  process.stdout.write(`${PAGE} tables are up to date\n`);
} else if (generated !== current) {
  fs.writeFileSync(FILE, generated);
  process.stdout.write(`wrote ${PAGE} tables\n`);
} else {
  process.stdout.write(`${PAGE} tables are up to date\n`);
}
