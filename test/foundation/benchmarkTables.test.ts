/**
 * docs/benchmarks.md's tables are generated (scripts/benchmark-tables.js)
 * from the benches' figures in bench/results/, in the format a bench writes
 * with --json (bench/lib/results.js): the page holds what they say, a cell
 * prints as the page's tables print figures, and a marker or a table the
 * other side lacks is refused by name.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const REPO = path.resolve(__dirname, '..', '..');
const tablesScript = require('../../scripts/benchmark-tables.js');
const results = require('../../bench/lib/results.js');

const made: string[] = [];
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

/** A temporary results folder. */
function tempFolder(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-results-'));
  made.push(dir);
  return dir;
}

type Run = { format: number; bench: string; command: string; date: string; tables: Record<string, { columns: string[]; rows: unknown[][] }> };

function folderOf(runs: Record<string, Run>): string {
  const dir = tempFolder();
  for (const [file, run] of Object.entries(runs)) fs.writeFileSync(path.join(dir, file), JSON.stringify(run));
  return dir;
}

const run = (tables: Run['tables'], extra: Partial<Run> = {}): Run => ({
  format: 1,
  bench: 'speed',
  command: 'node bench/speed.js',
  date: '2026-12-03T18:40:00Z',
  tables,
  ...extra,
});
const table = (rows: unknown[][]) => ({ columns: ['page', 'screenshot'], rows });

test('docs/benchmarks.md holds the tables bench/results/ gives (else: npm run benchmark:tables)', () => {
  const page = fs.readFileSync(path.join(REPO, 'docs', 'benchmarks.md'), 'utf8');
  const tables = tablesScript.loadResults(path.join(REPO, 'bench', 'results'));
  expect(tables.size).toBeGreaterThan(0);
  expect(tablesScript.rewrite(page, tables)).toBe(page);
});

test('a cell prints as a figure: a pair with its ratio, a ratio, a value with its unit', () => {
  expect(tablesScript.renderCell({ ours: 162, peer: 293, unit: 'ms' })).toBe('162 / 293 ms = **0.55×**');
  expect(tablesScript.renderCell({ ours: 6.4, peer: 4.69, unit: 'captures/s', ratio: 1.37 })).toBe('6.40 / 4.69 captures/s = **1.37×**');
  expect(tablesScript.renderCell({ ratio: 0.4 })).toBe('0.40×');
  expect(tablesScript.renderCell({ value: 241, unit: 'ms' })).toBe('241 ms');
  expect(tablesScript.renderCell('a | b')).toBe('a \\| b');
  expect(() => tablesScript.renderCell({ ours: 1 })).toThrow(/not a cell/);
});

test("what a bench writes with --json is what the script reads, and its section says the run's command and date", () => {
  const dir = tempFolder();
  const file = path.join(dir, 'speed.json');
  jest.spyOn(console, 'error').mockImplementation(() => undefined); // its "figures written to …" line
  results.writeResults(file, '/repo/bench/speed.js', ['--rounds', '2', '--json', file], {
    bench: 'speed',
    engine: 'headless shell',
    tables: { 'speed-warm': { columns: ['page', 'screenshot'], rows: [['cards', results.pair(162.4, 292.6, 'ms')]] } },
  });
  const written = JSON.parse(fs.readFileSync(file, 'utf8'));
  expect(written).toMatchObject({ format: 1, bench: 'speed', command: 'node bench/speed.js --rounds 2', source: 'run' });
  const page = tablesScript.rewrite('# Figures\n\n<!-- bench:speed-warm -->\nold\n<!-- /bench:speed-warm -->\n', tablesScript.loadResults(dir));
  expect(page).toContain('| cards | 162 / 293 ms = **0.56×** |');
  expect(page).toContain(`Figures: \`node bench/speed.js --rounds 2\`; ${tablesScript.when(written.date)}; headless shell;`);
  expect(page.startsWith('# Figures\n\n<!-- bench:speed-warm -->\n| page | screenshot |')).toBe(true);
});

test('a marker may show several tables of the same columns as one, each run named under it', () => {
  const dir = folderOf({
    'a.json': run({ 'fid-a': table([['corpus a', '100%']]) }),
    'b.json': run({ 'fid-b': table([['corpus b', '98.1%']]) }, { command: 'node bench/pixel-fidelity.js b', date: '2026-12-02' }),
  });
  const page = tablesScript.rewrite('<!-- bench:fid-a,fid-b -->\n<!-- /bench:fid-a,fid-b -->', tablesScript.loadResults(dir));
  expect(page).toContain('| corpus a | 100% |\n| corpus b | 98.1% |');
  expect(page).toContain('- corpus b: `node bench/pixel-fidelity.js b`; 2026-12-02');
});

test('a marker without a table, a table without a marker, a name used twice and a short row are refused by name', () => {
  const one = folderOf({ 'a.json': run({ 'speed-warm': table([['cards', 1]]) }) });
  expect(() => tablesScript.rewrite('<!-- bench:speed-x -->\n<!-- /bench:speed-x -->', tablesScript.loadResults(one))).toThrow(
    /no file of bench\/results\/ holds the table speed-x/,
  );
  expect(() => tablesScript.rewrite('no markers', tablesScript.loadResults(one))).toThrow(/tables no marker shows: speed-warm/);
  const twice = folderOf({ 'a.json': run({ t: table([]) }), 'b.json': run({ t: table([]) }) });
  expect(() => tablesScript.loadResults(twice)).toThrow(/table t is also in/);
  const short = folderOf({ 'a.json': run({ t: table([['cards']]) }) });
  expect(() => tablesScript.loadResults(short)).toThrow(/table t has a row of 1 cells for 2 columns/);
  const old = folderOf({ 'a.json': { ...run({}), format: 2 } });
  expect(() => tablesScript.loadResults(old)).toThrow(/format must be 1/);
});
