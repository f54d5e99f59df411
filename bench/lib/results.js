/**
 * What a bench run writes with `--json OUT`: its figures as tables, which
 * scripts/benchmark-tables.js reads (from bench/results/*.json) to rewrite the
 * tables of docs/benchmarks.md between `<!-- bench:NAME -->` markers.
 *
 * Format 1:
 *   {
 *     "format": 1,
 *     "bench": "speed",                       // bench/speed.js wrote it
 *     "command": "node bench/speed.js …",     // as run, --json left out
 *     "date": "2026-12-03T18:40:00.000Z",     // when the run ended
 *     "engine": "headless shell (…), Chromium 156…",
 *     "machine": "2 cores, load 3.1 2.8 2.5, Node 20.20.2",
 *     "source": "run",                        // or how the figures got here
 *     "tables": {
 *       "speed-warm": {
 *         "caption": "median of 12 rounds, …",  // optional, printed under the table
 *         "columns": ["page", "screenshot", …],
 *         "rows": [["cards", {"ours": 162, "peer": 293, "unit": "ms"}, …]]
 *       }
 *     }
 *   }
 *
 * A cell is a string, a number, a measured pair `{ours, peer, unit}` (printed
 * `162 / 293 ms = **0.55×**`: ours over the peer's; a `ratio` beside them,
 * computed before rounding, is printed instead), a ratio alone `{ratio}`
 * (`0.39×`) or a value with its unit `{value, unit}` (`4.69 captures/s`).
 * Table names are unique across the files of bench/results/.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');

const FORMAT = 1;

/** The path after `--json` in argv, resolved, or null when the flag is absent. */
function jsonOutPath(argv) {
  const i = argv.indexOf('--json');
  if (i < 0) return null;
  const file = argv[i + 1];
  if (!file || file.startsWith('--')) throw new Error('--json takes the file to write, e.g. --json bench/results/speed.json');
  return path.resolve(file);
}

/** The command as run, without `--json FILE` (the file is where the figures went, not how they were made). */
function commandOf(script, argv) {
  const kept = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--json') i++;
    else kept.push(/^[\w./=:,@+-]+$/.test(argv[i]) ? argv[i] : `'${argv[i].replace(/'/g, "'\\''")}'`);
  }
  return ['node', `bench/${path.basename(script)}`, ...kept].join(' ');
}

function machine() {
  const load = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  return `${os.cpus().length} cores, load ${load}, Node ${process.versions.node}`;
}

/** A measured pair, rounded as the docs print it (ms to the unit, rates to the hundredth). */
function pair(ours, peer, unit) {
  const round = (x) => (unit === 'ms' ? Math.round(x) : Math.round(x * 100) / 100);
  return { ours: round(ours), peer: round(peer), unit, ratio: Math.round((ours / peer) * 100) / 100 };
}

/**
 * Writes the run's figures to `file` (format 1) when `--json` asked for it.
 * `run`: {bench, engine, tables}; the command, date, machine and source are filled in.
 */
function writeResults(file, script, argv, run) {
  if (!file) return;
  const out = {
    format: FORMAT,
    bench: run.bench,
    command: commandOf(script, argv),
    date: new Date().toISOString(),
    engine: run.engine,
    machine: machine(),
    source: 'run',
    tables: run.tables,
  };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  console.error(`figures written to ${file}`);
}

module.exports = { FORMAT, jsonOutPath, commandOf, writeResults, pair };
