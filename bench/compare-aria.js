#!/usr/bin/env node
/**
 * Aria diff speed: diffAriaSnapshots (dist/src/compare/ariaDiff.js) on two
 * snapshots of about 10,000 lines each (the target: at most 100 ms), with a
 * line diff run in the same process on the same texts for scale: GNU diff
 * (`diff -u`, spawned, reading the two texts from files), which answers the
 * question the structural diff replaces.
 *
 * The snapshots are written by the project's own writer (cdp/aria/yaml.ts)
 * from a generated page model like bench/aria-snapshot.js's large page: a
 * navigation of links, a table of rows with buttons and checkboxes, cards
 * with headings and paragraphs. Pairs:
 *   identical   the same text twice (answered without parsing);
 *   few         a handful of edits: a label, a state, an inserted and a
 *               removed row, a moved card, a changed link target;
 *   many        one row in ten changed, one card in five moved, the
 *               navigation's order reversed in its second half;
 *   unrelated   two different pages of the same size (the worst case: every
 *               node is added or removed).
 * Each pair is diffed REPS times after a warm-up; medians are printed.
 *
 * Run after `npm run build`: node bench/compare-aria.js [reps]
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { diffAriaSnapshots } = require('../dist/src/compare/ariaDiff.js');
const { renderAriaYaml } = require('../dist/cdp/aria/yaml.js');

const REPS = Number(process.argv[2] || 15);

function node(role, name, children = [], extra = {}) {
  return { role, name, children, ...extra };
}

/** A page model of about 10,000 snapshot lines; `variant` edits it. */
function page(variant, seed = 0) {
  const nav = [];
  for (let i = 0; i < 800; i++) {
    nav.push(node('listitem', '', [node('link', `Page ${i + seed}`, [], { url: `/p/${i + seed}` })]));
  }
  if (variant === 'many') nav.splice(400, 400, ...nav.slice(400).reverse());
  const rows = [];
  for (let i = 0; i < 1000; i++) {
    let label = `Item ${i + seed}`;
    let checked = i % 3 === 0;
    if (variant === 'few' && i === 700) label = 'Item renamed';
    if (variant === 'few' && i === 701) checked = !checked;
    if (variant === 'many' && i % 10 === 5) label = `Item ${i} (edited)`;
    rows.push(
      node('row', `${i + seed} ${label} Edit ${i + seed}`, [
        node('cell', String(i + seed)),
        node('cell', label),
        node('cell', `Edit ${i + seed}`, [node('button', `Edit ${i + seed}`), node('checkbox', `Select ${i + seed}`, [], { checked })]),
      ]),
    );
  }
  if (variant === 'few') {
    rows.splice(800, 1);
    rows.splice(300, 0, node('row', 'new row', [node('cell', 'new'), node('cell', 'row')]));
  }
  let cards = [];
  for (let i = 0; i < 800; i++) {
    cards.push(node('heading', `Card ${i + seed}`, [], { level: 3 }));
    cards.push(node('paragraph', '', [`Some descriptive text for card ${i + seed}.`]));
  }
  if (variant === 'few') cards.splice(20, 0, ...cards.splice(700, 2));
  if (variant === 'many') {
    const moved = [];
    cards = cards.filter((c, k) => (Math.floor(k / 2) % 5 === 0 ? (moved.push(c), false) : true));
    cards.push(...moved);
  }
  const main = node('main', '', [
    node('table', '', [node('rowgroup', '', [node('row', '# Name Action', [node('columnheader', '#')])]), node('rowgroup', '', rows)]),
    ...cards,
  ]);
  if (variant === 'few') nav[10].children[0].url = '/moved';
  return renderAriaYaml([node('navigation', 'Side', [node('list', '', nav)]), main]);
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Wall time, and this process's CPU time (user + system), which a machine shared with other work inflates less. */
function time(fn) {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  const result = fn();
  const used = process.cpuUsage(cpu);
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, cpuMs: (used.user + used.system) / 1000, result };
}

const base = page('base');
const pairs = [
  ['identical', base, page('base')],
  ['few', base, page('few')],
  ['many', base, page('many')],
  ['unrelated', base, page('base', 100000).replace(/Card/g, 'Tile').replace(/row "/g, 'row "x')],
];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compare-aria-'));
console.log(`lines: before ${base.split('\n').length}; node ${process.version}; ${os.cpus().length} cores; load ${os.loadavg()[0].toFixed(2)}`);
console.log('pair        lines(after)  ours: wall median (min)  CPU median   GNU diff -u wall median   entries: added/removed/changed/moved');
for (const [name, a, b] of pairs) {
  const fa = path.join(dir, 'a.txt');
  const fb = path.join(dir, 'b.txt');
  fs.writeFileSync(fa, a);
  fs.writeFileSync(fb, b);
  diffAriaSnapshots(a, b);
  const ours = [];
  const oursCpu = [];
  const line = [];
  let last;
  for (let r = 0; r < REPS; r++) {
    const t = time(() => diffAriaSnapshots(a, b));
    ours.push(t.ms);
    oursCpu.push(t.cpuMs);
    last = t.result;
    line.push(
      time(() => {
        try {
          execFileSync('diff', ['-u', fa, fb], { maxBuffer: 1 << 28 });
        } catch {
          // exit 1: the files differ
        }
      }).ms,
    );
  }
  const c = last.counts;
  console.log(
    `${name.padEnd(12)}${String(b.split('\n').length).padEnd(14)}${`${median(ours).toFixed(1)} ms (${Math.min(...ours).toFixed(1)})`.padEnd(25)}${`${median(oursCpu).toFixed(1)} ms`.padEnd(13)}${`${median(line).toFixed(1)} ms`.padEnd(26)}${c.added}/${c.removed}/${c.changed}/${c.moved}`,
  );
}
fs.rmSync(dir, { recursive: true, force: true });
