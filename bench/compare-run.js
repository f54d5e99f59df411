#!/usr/bin/env node
/**
 * A run-sized comparison: one run root of 100 criteria of mixed types, each
 * captured twice (-r1 and -r2, half of them changed in round 2), compared
 * with `compareEvidence({ rounds })` as `design-playbook-evidence compare
 * --rounds` does, writing compare.json, the images and the page. The
 * captures are made once by the built library (a card page and a shop page,
 * screenshot, a11y tree and interaction trace, each unchanged and with one
 * change) and copied under each criterion's names, so the run holds real
 * captures of the sizes a review produces. Target: at most 5 s on 2 cores.
 *
 *   npm run build && node bench/compare-run.js [--criteria 100] [--rounds 5]
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');
const { performance } = require('perf_hooks');

const ROOT = path.join(__dirname, '..');
const lib = require(path.join(ROOT, 'dist', 'src', 'index.js'));
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const CRITERIA = arg('criteria', 100);
const ROUNDS = arg('rounds', 5);
const SHOP = fs.readFileSync(path.join(ROOT, 'test', 'compare', 'pages', 'shop.html'), 'utf8');

async function main() {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(SHOP);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = (change) => `http://127.0.0.1:${server.address().port}/shop.html${change ? `?change=${change}` : ''}`;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'compare-run-'));
  fs.writeFileSync(path.join(work, 'plan.md'), '# bench\n');
  fs.mkdirSync(path.join(work, 'evidence'));
  const viewport = { width: 1280, height: 800, devicePixelRatio: 1, colorScheme: 'light' };
  // The sources: each type unchanged (a) and changed (b).
  const kinds = [
    { type: 'screenshot', ext: 'png', change: 'color' },
    { type: 'a11y tree', ext: 'json', change: 'item' },
    { type: 'interaction trace', ext: 'trace.zip', change: 'label', actions: [{ do: 'click', selector: '#buy' }] },
  ];
  const sources = {};
  for (const kind of kinds) {
    for (const [side, change] of [
      ['a', ''],
      ['b', kind.change],
    ]) {
      const leaf = `src-${kind.ext}-${side}.${kind.ext}`;
      const result = await lib.executeCapturePlan({
        schemaVersion: 1,
        url: url(change),
        type: kind.type,
        state: 'ready',
        artifact_path: `evidence/${leaf}`,
        viewport,
        run_root: work,
        actions: kind.actions ?? [],
      });
      if (result.result !== 'captured') throw new Error(result.error);
      sources[`${kind.type}:${side}`] = result.written_path;
    }
  }
  await lib.closeBundledBrowser();
  server.close();

  // 100 criteria: screenshot, a11y tree and trace in turn; every other one changed in round 2.
  const lines = [];
  for (let i = 1; i <= CRITERIA; i++) {
    const kind = kinds[i % kinds.length];
    const criterion = `L6.${i}`;
    for (const [round, side] of [
      [1, 'a'],
      [2, i % 2 ? 'b' : 'a'],
    ]) {
      const artifact = `${criterion}-r${round}.${kind.ext}`;
      fs.copyFileSync(sources[`${kind.type}:${side}`], path.join(work, 'evidence', artifact));
      if (kind.type === 'screenshot') {
        fs.copyFileSync(
          sources[`${kind.type}:${side}`].replace(/\.png$/, '.probe.json'),
          path.join(work, 'evidence', artifact.replace(/\.png$/, '.probe.json')),
        );
      }
      lines.push(
        JSON.stringify({
          criterion,
          artifact,
          observed_state: 'unknown',
          result: 'captured',
          ts: new Date(Date.UTC(2026, 11, 4, 0, lines.length)).toISOString().replace('.000Z', 'Z'),
          capture: { provider: 'design-playbook-evidence', type: kind.type, state: 'ready', artifact_path: `evidence/${artifact}` },
          request: { schemaVersion: 1, viewport: { ...viewport, devicePixelRatio: 1.0 }, freeze: { enabled: true, waitFonts: true, networkIdle: false } },
        }),
      );
    }
  }
  fs.writeFileSync(path.join(work, 'evidence', 'manifest.jsonl'), lines.join('\n') + '\n');

  const times = [];
  let summary = null;
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    const result = await lib.compareEvidence({ rounds: work });
    times.push(performance.now() - t0);
    summary = result.summary;
  }
  times.sort((a, b) => a - b);
  console.log(
    `${new Date().toISOString()} · node ${process.version} · ${os.cpus().length} cores · load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log(`${CRITERIA} criteria (screenshot, a11y tree, interaction trace in turn), two rounds each; ${JSON.stringify(summary)}`);
  console.log(
    `compare --rounds, writing compare.json, images and the page: median ${times[times.length >> 1].toFixed(0)} ms of ${ROUNDS} (min ${times[0].toFixed(0)}, max ${times[times.length - 1].toFixed(0)}); target <= 5000 ms`,
  );
  fs.rmSync(work, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
