#!/usr/bin/env node
/**
 * Run report speed on a 500-file run: report generation (read the manifest
 * and every evidence file, read trace ZIPs, copy images, render, swap the
 * folder in) and first render of index.html from file:// in Chromium (load
 * event, first contentful paint), next to a reference page in the same run:
 * a bare HTML list of the same lazily loaded images with no report around
 * them. Budget from the issue: 500 files render in under 2 s.
 *
 * The run is made from one real demo run (`design-playbook-evidence demo`):
 * its screenshot pairs (PNG + sidecar), aria snapshot and trace are copied
 * under new names until evidence/ holds 500 files, each bound by a line.
 *
 *   npm run build && node bench/report.js [iterations]
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { pathToFileURL } = require('url');
const puppeteer = require('puppeteer-core');
const { buildReport } = require('../dist/src/report');
const engines = require('./lib/engines');

const ITERATIONS = Number(process.argv[2] || 5);
const FILES = Number(process.env.FILES || 500);
const CHROME = process.env.DESIGN_PLAYBOOK_CHROME_PATH || '/usr/bin/chromium';

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function makeDemoRun(dir) {
  execFileSync(process.execPath, [path.join(__dirname, '..', 'dist', 'src', 'bin.js'), 'demo', '--out', dir], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DESIGN_PLAYBOOK_CHROME_PATH: CHROME },
  });
}

/** Copies the demo's artifacts under new names until evidence/ holds FILES files; one manifest line per artifact. */
function makeLargeRun(demo, root) {
  const from = path.join(demo, 'evidence');
  const evidence = path.join(root, 'evidence');
  fs.mkdirSync(evidence, { recursive: true });
  fs.writeFileSync(path.join(root, 'plan.md'), '# bench run\n');
  const demoLines = fs
    .readFileSync(path.join(from, 'manifest.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const lines = [];
  let files = 0;
  for (let i = 0; files < FILES; i++) {
    const template = demoLines[i % demoLines.length];
    const ext = template.artifact.match(/(\.a11y\.json|\.trace\.zip|\.png)$/)[1];
    const leaf = `run-${String(i).padStart(4, '0')}${ext}`;
    fs.copyFileSync(path.join(from, template.artifact), path.join(evidence, leaf));
    files++;
    if (ext === '.png' && files < FILES) {
      fs.copyFileSync(path.join(from, template.artifact.replace(/\.png$/, '.probe.json')), path.join(evidence, leaf.replace(/\.png$/, '.probe.json')));
      files++;
    }
    lines.push(JSON.stringify({ ...template, criterion: `L6.${i + 1}`, artifact: leaf, capture: { ...template.capture, artifact_path: `evidence/${leaf}` } }));
  }
  fs.writeFileSync(path.join(evidence, 'manifest.jsonl'), lines.join('\n') + '\n');
  return { files, lines: lines.length };
}

function referencePage(reportDir) {
  const html = fs.readFileSync(path.join(reportDir, 'index.html'), 'utf8');
  const imgs = html.match(/<img [^>]*src="(files|frames)\/[^"]+"[^>]*>/g) || [];
  const file = path.join(reportDir, 'reference.html');
  fs.writeFileSync(
    file,
    `<!doctype html><html><head><meta charset="utf-8"><title>reference</title></head><body><ul>${imgs.map((t) => `<li>${t}</li>`).join('')}</ul></body></html>`,
  );
  return file;
}

async function firstRender(browser, file) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  const started = Date.now();
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  const loadMs = Date.now() - started;
  const fcp = await page.evaluate(() => {
    const entry = performance.getEntriesByName('first-contentful-paint')[0];
    return entry ? entry.startTime : NaN;
  });
  const images = await page.evaluate(() => document.images.length);
  await page.close();
  return { loadMs, fcp, images };
}

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-bench-report-'));
  try {
    const demo = path.join(tmp, 'demo');
    makeDemoRun(demo);
    const root = path.join(tmp, 'run');
    const made = makeLargeRun(demo, root);
    const generation = [];
    let built;
    for (let i = 0; i < ITERATIONS; i++) {
      const started = process.hrtime.bigint();
      built = await buildReport({ runRoot: root });
      generation.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    const html = fs.statSync(built.indexPath).size;
    const reference = referencePage(built.outDir);
    const browser = await puppeteer.launch({
      executablePath: CHROME,
      headless: true,
      args: engines.BENCH_ARGS,
    });
    const report = [];
    const bare = [];
    try {
      for (let i = 0; i < ITERATIONS; i++) {
        report.push(await firstRender(browser, built.indexPath));
        bare.push(await firstRender(browser, reference));
      }
    } finally {
      await browser.close();
    }
    const m = built.model;
    const load = median(report.map((r) => r.loadMs));
    const fcp = median(report.map((r) => r.fcp));
    const refLoad = median(bare.map((r) => r.loadMs));
    const refFcp = median(bare.map((r) => r.fcp));
    console.log(
      `run: ${made.files} evidence files, ${made.lines} manifest lines; report: ${m.items.length} artifacts, ${report[0].images} images, index.html ${(html / 1024).toFixed(0)} KiB`,
    );
    console.log(
      `generation: median ${median(generation).toFixed(0)} ms over ${ITERATIONS} builds (min ${Math.min(...generation).toFixed(0)}, max ${Math.max(...generation).toFixed(0)})`,
    );
    console.log(`first render, report:    load ${load} ms, first contentful paint ${fcp.toFixed(0)} ms (median of ${ITERATIONS})`);
    // A list of lazy images out of view paints nothing contentful, so the reference may have no FCP.
    const refPaint = Number.isFinite(refFcp) ? `${refFcp.toFixed(0)} ms` : 'none (nothing contentful in view)';
    console.log(`first render, reference: load ${refLoad} ms, first contentful paint ${refPaint} (the same images in a bare list)`);
    console.log(`ratio report / reference (load): ${(load / refLoad).toFixed(2)}; budget 2000 ms: ${load < 2000 ? 'met' : 'NOT met'}`);
  } finally {
    if (process.env.KEEP) console.log(`kept ${tmp}`);
    else fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
