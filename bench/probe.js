#!/usr/bin/env node
/**
 * Render-token probe cost on a 10,000-element page, next to a plain full-page
 * PNG screenshot of the same page in the same run (the peer the probe rides
 * along with). Prints medians and the ratio probe / screenshot (aim: < 1).
 *
 *   npm run build && node bench/probe.js [iterations]
 */
const http = require('http');
const puppeteer = require('puppeteer-core');
const { walkRenderedStyles } = require('../dist/cdp/styleWalker');
const { compareRenderTokens } = require('../dist/src/probe/comparator');
const engines = require('./lib/engines');

const ITERATIONS = Number(process.argv[2] || 7);
const CARDS = Number(process.env.CARDS || 2500); // 4 elements each: card, heading, text, button -> 10,000 elements

function pageHtml() {
  const sizes = [12, 14, 16, 20];
  const colors = ['#1a1a1a', '#0b6bcb', '#555555', 'rgb(12.5 0 0)'];
  const cards = [];
  for (let i = 0; i < CARDS; i++) {
    const outer = [8, 12, 16][i % 3];
    const inner = [4, 8, 6][i % 3];
    cards.push(
      `<div class="card" style="border-radius:${outer}px"><b style="font-size:${sizes[i % 4]}px">Card ${i}</b>` +
        `<span style="color:${colors[i % 4]}">t${i}</span><i class="btn" style="border-radius:${inner}px">Go</i></div>`,
    );
  }
  return `<!doctype html><html><head><meta charset="utf-8"><style>
    body { margin: 0; font: 14px sans-serif; background: #ffffff; color: #1a1a1a; display: flex; flex-wrap: wrap; }
    .card { box-sizing: border-box; width: 80px; height: 64px; padding: 4px; margin: 2px; background: #f5f5f5; border: 1px solid #dddddd; overflow: hidden; }
    .card b, .card span { display: block; line-height: 16px; }
    .btn { display: block; height: 14px; background: #0b6bcb; color: #ffffff; font-style: normal; font-size: 10px; }
  </style></head><body>${cards.join('')}</body></html>`;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function main() {
  const html = pageHtml();
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const ENGINE = process.env.DESIGN_PLAYBOOK_CHROME_PATH || engines.runtimeDefault();
  console.log(`executable: ${engines.label(ENGINE)}`);
  const browser = await puppeteer.launch({
    executablePath: ENGINE,
    headless: engines.headlessMode(ENGINE),
    args: engines.BENCH_ARGS,
  });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    await page.goto(`http://127.0.0.1:${server.address().port}/`, { waitUntil: 'load' });
    const session = await page.createCDPSession();
    const design = { fontSizes: [12, 14, 16], colors: ['#ffffff', '#1a1a1a', '#0b6bcb', '#f5f5f5'], radii: [4, 8, 12] };

    const probe = async () => {
      const t0 = process.hrtime.bigint();
      const elements = await walkRenderedStyles(session);
      const t1 = process.hrtime.bigint();
      const face = compareRenderTokens(elements, design);
      const t2 = process.hrtime.bigint();
      return { walk: Number(t1 - t0) / 1e6, compare: Number(t2 - t1) / 1e6, elements: elements.length, face };
    };
    const screenshot = async () => {
      const t0 = process.hrtime.bigint();
      const png = await page.screenshot({ fullPage: true, type: 'png' });
      return { ms: Number(process.hrtime.bigint() - t0) / 1e6, bytes: png.length };
    };

    // Warm-up both paths once, then alternate so neither gets a systematically warmer browser.
    const first = await probe();
    await screenshot();
    const walks = [];
    const compares = [];
    const probes = [];
    const shots = [];
    let bytes = 0;
    for (let i = 0; i < ITERATIONS; i++) {
      const order = i % 2 === 0 ? ['probe', 'shot'] : ['shot', 'probe'];
      for (const which of order) {
        if (which === 'probe') {
          const r = await probe();
          walks.push(r.walk);
          compares.push(r.compare);
          probes.push(r.walk + r.compare);
        } else {
          const r = await screenshot();
          shots.push(r.ms);
          bytes = r.bytes;
        }
      }
    }
    const docSize = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]);
    const probeMs = median(probes);
    const shotMs = median(shots);
    console.log(`page: ${first.elements} rendered elements (${CARDS * 4} authored + html/body), document ${docSize[0]}x${docSize[1]} CSS px`);
    console.log(
      `face: ${first.face.findings.length} findings (${first.face.findings.filter((f) => f.rule === 'concentric-radius').length} concentric), ${first.face.undecidable.length} undecidable, distinctFontSizes ${JSON.stringify(first.face.distinctFontSizes)}`,
    );
    console.log(`iterations: ${ITERATIONS} (medians)`);
    console.log(`  walker (DOMSnapshot + read):   ${median(walks).toFixed(1)} ms`);
    console.log(`  comparator:                    ${median(compares).toFixed(1)} ms`);
    console.log(`  probe total:                   ${probeMs.toFixed(1)} ms`);
    console.log(`  full-page PNG screenshot:      ${shotMs.toFixed(1)} ms (${(bytes / 1024).toFixed(0)} KiB)`);
    console.log(`ratio probe / screenshot: ${(probeMs / shotMs).toFixed(3)} (aim < 1)`);
  } finally {
    await browser.close();
    server.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
