#!/usr/bin/env node
// Makes docs/report.png, the README's picture of a run report, with the
// report itself: runs the demo (which ends by building its report), captures
// that report through this package's own capture path bound to the report's
// declared tokens (it prints the probe's finding count, expected 0), and
// keeps the top of the page so the committed PNG stays small.
//
//   npm run build && node scripts/report-screenshot.js [--width 1100] [--height 1000]
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { pathToFileURL } = require('url');
const puppeteer = require('puppeteer-core');
const { executeCapturePlan, closeBundledBrowser } = require('../dist/src/index');
const { REPORT_DESIGN } = require('../dist/src/report');

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const WIDTH = arg('width', 1100);
const HEIGHT = arg('height', 1000);
const CHROME = process.env.DESIGN_PLAYBOOK_CHROME_PATH || '/usr/bin/chromium';
const OUT = path.join(__dirname, '..', 'docs', 'report.png');

async function keepTop(png, height) {
  const browser = await puppeteer.launch({ executablePath: CHROME, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage();
    const data = await page.evaluate(
      async (b64, h) => {
        const img = new Image();
        img.src = `data:image/png;base64,${b64}`;
        await img.decode();
        const canvas = document.createElement('canvas');
        canvas.width = img.naturalWidth;
        canvas.height = Math.min(h, img.naturalHeight);
        canvas.getContext('2d').drawImage(img, 0, 0);
        return canvas.toDataURL('image/png').split(',')[1];
      },
      png.toString('base64'),
      height,
    );
    return Buffer.from(data, 'base64');
  } finally {
    await browser.close();
  }
}

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-report-shot-'));
  try {
    const demo = path.join(tmp, 'demo-run');
    execFileSync(process.execPath, [path.join(__dirname, '..', 'dist', 'src', 'bin.js'), 'demo', '--out', demo], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, DESIGN_PLAYBOOK_CHROME_PATH: CHROME },
    });
    const index = path.join(demo, 'report', 'index.html');
    const result = await executeCapturePlan({
      schemaVersion: 1,
      url: pathToFileURL(index).href,
      type: 'screenshot',
      state: 'report',
      artifact_path: 'evidence/report.png',
      run_root: demo,
      viewport: { width: WIDTH, height: HEIGHT, devicePixelRatio: 1, colorScheme: 'light' },
      design: REPORT_DESIGN,
    });
    if (result.result !== 'captured') throw new Error(result.error);
    const sidecar = JSON.parse(fs.readFileSync(result.written_path.replace(/\.png$/, '.probe.json'), 'utf8'));
    console.error(`report captured: measurement_status ${sidecar.renderTokens.measurement_status}, ${sidecar.renderTokens.findings.length} findings`);
    fs.writeFileSync(OUT, await keepTop(fs.readFileSync(result.written_path), HEIGHT));
    console.error(`wrote ${OUT} (${Math.round(fs.statSync(OUT).size / 1024)} KiB)`);
  } finally {
    await closeBundledBrowser();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
