#!/usr/bin/env node
// Rewrites the tables of docs/benchmarks.md from the benches' figures: each
// bench run with `--json bench/results/NAME.json` writes its tables (the
// format is bench/lib/results.js's), and every `<!-- bench:TABLE -->` …
// `<!-- /bench:TABLE -->` section of the page is replaced by that table and a
// line saying which command made it, when, on which engine and machine. A
// marker may name several tables with the same columns (`bench:A,B`): their
// rows are shown as one table. The prose around the sections is left as it
// is. A marker naming a table no file holds, or a table no marker shows, is
// an error. With --check it writes nothing and exits 1 when the page differs.
//
//   node scripts/benchmark-tables.js [--check] [--results DIR] [--page FILE]
const fs = require('fs');
const path = require('path');

const REPO = path.join(__dirname, '..');
const FORMAT = 1;

/** A table cell's text: pipes escaped, one line. */
function text(value) {
  return String(value)
    .replace(/\|/g, '\\|')
    .replace(/\s*\n\s*/g, ' ');
}

const ratio = (x) => `${x.toFixed(2)}×`;

/** A measured number: an integer as it is, anything else to the hundredth (6.4 captures/s reads 6.40). */
const figure = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(2));

/** One cell, as bench/lib/results.js defines cells. */
function renderCell(cell) {
  if (typeof cell === 'string') return text(cell);
  if (typeof cell === 'number') return figure(cell);
  if (cell && typeof cell === 'object') {
    if (typeof cell.ours === 'number' && typeof cell.peer === 'number') {
      // A ratio the run printed from unrounded figures wins over one computed from the rounded pair.
      const r = typeof cell.ratio === 'number' ? cell.ratio : cell.ours / cell.peer;
      return `${figure(cell.ours)} / ${figure(cell.peer)}${cell.unit ? ` ${text(cell.unit)}` : ''} = **${ratio(r)}**`;
    }
    if (typeof cell.ratio === 'number') return ratio(cell.ratio);
    if (typeof cell.value === 'number') return `${figure(cell.value)}${cell.unit ? ` ${text(cell.unit)}` : ''}`;
  }
  throw new Error(`not a cell: ${JSON.stringify(cell)} (a string, a number, {ours, peer, unit}, {ratio} or {value, unit})`);
}

/** `2026-12-03T18:40:00.000Z` as `2026-12-03 18:40 UTC`; a date alone (`2026-12-02`) as it is. */
function when(date) {
  if (/^\d{4}-\d{2}-\d{2}$/.test(date)) return date;
  const d = new Date(date);
  if (Number.isNaN(d.getTime())) throw new Error(`not a date: ${JSON.stringify(date)}`);
  return `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 16)} UTC`;
}

/** Which run made a table: its command, date, engine, machine and, unless it was a run, where its figures came from. */
function provenance(run) {
  const parts = [`\`${run.command}\``, when(run.date), run.engine, run.machine].filter(Boolean);
  if (run.source && run.source !== 'run') parts.push(run.source);
  return parts.join('; ');
}

/** Every table of the results folder, by name, with the run that made it. */
function loadResults(dir) {
  const tables = new Map();
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.json')) : [];
  for (const file of files.sort()) {
    const where = path.relative(REPO, path.join(dir, file));
    let run;
    try {
      run = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    } catch (err) {
      throw new Error(`${where} is not JSON: ${err.message}`);
    }
    if (run.format !== FORMAT) throw new Error(`${where}: format must be ${FORMAT} (bench/lib/results.js), got ${JSON.stringify(run.format)}`);
    for (const key of ['bench', 'command', 'date']) {
      if (typeof run[key] !== 'string' || !run[key]) throw new Error(`${where}: ${key} must be a non-empty string`);
    }
    if (!run.tables || typeof run.tables !== 'object') throw new Error(`${where}: tables must be an object of named tables`);
    for (const [name, table] of Object.entries(run.tables)) {
      if (tables.has(name))
        throw new Error(`${where}: table ${name} is also in ${tables.get(name).file}; table names are unique across ${path.relative(REPO, dir)}/`);
      if (!Array.isArray(table.columns) || !Array.isArray(table.rows)) throw new Error(`${where}: table ${name} needs columns and rows`);
      for (const row of table.rows) {
        if (!Array.isArray(row) || row.length !== table.columns.length) {
          throw new Error(`${where}: table ${name} has a row of ${Array.isArray(row) ? row.length : 'no'} cells for ${table.columns.length} columns`);
        }
      }
      tables.set(name, { ...table, run, file: where });
    }
  }
  return tables;
}

/** The section one marker shows: the table (several tables' rows, for `A,B`), its caption, and where its figures come from. */
function renderSection(names, tables) {
  const parts = names.map((name) => {
    const table = tables.get(name);
    if (!table) throw new Error(`no file of bench/results/ holds the table ${name}; run its bench with --json, or remove the marker`);
    return table;
  });
  const columns = parts[0].columns;
  for (const part of parts.slice(1)) {
    if (JSON.stringify(part.columns) !== JSON.stringify(columns))
      throw new Error(`tables ${names.join(', ')} have different columns and cannot be shown as one`);
  }
  const lines = [`| ${columns.map(text).join(' | ')} |`, `| ${columns.map(() => '---').join(' | ')} |`];
  for (const part of parts) for (const row of part.rows) lines.push(`| ${row.map(renderCell).join(' | ')} |`);
  const sentence = (t) => `${t.charAt(0).toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? '' : '.'}`;
  const out = [...lines, ''];
  for (const caption of new Set(parts.map((p) => p.caption).filter(Boolean))) out.push(text(sentence(caption)), '');
  if (parts.length === 1) out.push(`Figures: ${provenance(parts[0].run)}.`);
  else out.push('Figures:', ...parts.map((p) => `- ${p.rows.map((r) => renderCell(r[0])).join(', ')}: ${provenance(p.run)}`));
  return out.join('\n');
}

/** The page with every marked section rewritten; the names the page shows. */
function rewrite(page, tables) {
  const shown = new Set();
  const marker = /<!-- bench:([\w,-]+) -->\n[\s\S]*?<!-- \/bench:\1 -->/g;
  const out = page.replace(marker, (_whole, list) => {
    const names = list.split(',');
    for (const name of names) shown.add(name);
    return `<!-- bench:${list} -->\n${renderSection(names, tables)}\n<!-- /bench:${list} -->`;
  });
  const opened = (page.match(/<!-- bench:[\w,-]+ -->/g) ?? []).length;
  const closed = (page.match(/<!-- \/bench:[\w,-]+ -->/g) ?? []).length;
  if (opened !== closed || opened !== [...page.matchAll(marker)].length)
    throw new Error('a <!-- bench:NAME --> marker has no matching <!-- /bench:NAME --> after it');
  const unshown = [...tables.keys()].filter((name) => !shown.has(name));
  if (unshown.length) {
    throw new Error(
      `tables no marker shows: ${unshown.map((n) => `${n} (${tables.get(n).file})`).join(', ')}; add <!-- bench:NAME --> … <!-- /bench:NAME --> where it belongs`,
    );
  }
  return out;
}

function main(argv) {
  const option = (name, fallback) => (argv.includes(name) ? path.resolve(argv[argv.indexOf(name) + 1]) : fallback);
  const dir = option('--results', path.join(REPO, 'bench', 'results'));
  const file = option('--page', path.join(REPO, 'docs', 'benchmarks.md'));
  const pageName = path.relative(REPO, file);
  const current = fs.readFileSync(file, 'utf8');
  let generated;
  try {
    generated = rewrite(current, loadResults(dir));
  } catch (err) {
    process.stderr.write(`${pageName}: ${err.message}\n`);
    return 1;
  }
  if (argv.includes('--check')) {
    if (generated !== current) {
      process.stderr.write(`${pageName}'s tables differ from bench/results/: run npm run benchmark:tables and commit ${pageName}\n`);
      return 1;
    }
    process.stdout.write(`${pageName} tables are up to date\n`);
  } else if (generated !== current) {
    fs.writeFileSync(file, generated);
    process.stdout.write(`wrote ${pageName} tables\n`);
  } else {
    process.stdout.write(`${pageName} tables are up to date\n`);
  }
  return 0;
}

if (require.main === module) process.exit(main(process.argv.slice(2)));

module.exports = { renderCell, renderSection, loadResults, rewrite, when };
