#!/usr/bin/env node
/**
 * Aria snapshot speed: our CDP snapshot (dist/cdp/ariaSnapshot.js, Puppeteer
 * session) against Playwright's page.ariaSnapshot() on the same corpus pages,
 * same system Chromium, same run. Both browsers are warm; each page is loaded
 * once per round in both, then each snapshot is taken REPS times, interleaved.
 * Prints per-round totals and the median ratio ours/playwright (< 1 = faster),
 * then the same for one large generated page (about 10,000 elements), where
 * both sides do the same in-page work (DOM walk and name computation) and
 * the cost of returning the result dominates the difference.
 *
 * Run after `npm run build`: node bench/aria-snapshot.js [rounds]
 */
const fs = require('fs');
const path = require('path');
const http = require('http');
const puppeteer = require('puppeteer-core');
const { chromium } = require('playwright-core');
const { ariaSnapshotText } = require('../dist/cdp/ariaSnapshot.js');
const engines = require('./lib/engines');

/** Both sides on one executable: DESIGN_PLAYBOOK_CHROME_PATH, else the one the runtime launches (the headless shell when installed). */
const CHROMIUM = process.env.DESIGN_PLAYBOOK_CHROME_PATH || engines.runtimeDefault();
console.log(`executable (both sides): ${engines.label(CHROMIUM)}`);
const ARGS = engines.BENCH_ARGS;
const CORPUS = path.join(__dirname, '..', 'test', 'aria', 'corpus');
const ROUNDS = Number(process.argv[2] || 5);
const REPS = 3;

/** A long listing page: navigation of 800 links, a 600-row table with controls, 400 cards. */
function largePage() {
  let h = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Large</title></head><body><nav aria-label="Side"><ul>';
  for (let i = 0; i < 800; i++) h += `<li><a href="/p/${i}">Page <b>${i}</b></a>${i % 7 ? '' : `<img src="x.png" alt="icon ${i}">`}</li>`;
  h += '</ul></nav><main><table><thead><tr><th>#</th><th>Name</th><th>Action</th></tr></thead><tbody>';
  for (let i = 0; i < 600; i++)
    h += `<tr><td>${i}</td><td><div><span>Item ${i}</span></div></td><td><button aria-label="Edit ${i}"><svg width="8" height="8" aria-hidden="true"></svg></button><input type="checkbox" aria-label="Select ${i}"${i % 3 ? '' : ' checked'}></td></tr>`;
  h += '</tbody></table>';
  for (let i = 0; i < 400; i++) h += `<div class="card"><h3>Card ${i}</h3><p>Some <em>descriptive</em> text for card ${i}.</p></div>`;
  return h + '</main></body></html>';
}

function serve(dir) {
  const server = http.createServer((req, res) => {
    if (req.url === '/__large.html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(largePage());
      return;
    }
    const file = path.join(dir, path.normalize(decodeURIComponent(req.url.split('?')[0])));
    if (!file.startsWith(dir) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': file.endsWith('.html') ? 'text/html; charset=utf-8' : 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

(async () => {
  const server = await serve(CORPUS);
  const origin = `http://127.0.0.1:${server.address().port}`;
  const pages = fs
    .readdirSync(CORPUS)
    .filter((f) => f.endsWith('.html'))
    .sort();
  const [browser, pwBrowser] = await Promise.all([
    puppeteer.launch({ executablePath: CHROMIUM, headless: engines.headlessMode(CHROMIUM), args: ARGS }),
    chromium.launch({ executablePath: CHROMIUM, args: ARGS }),
  ]);
  try {
    const page = await browser.newPage();
    const pwPage = await pwBrowser.newPage();
    const session = await page.createCDPSession();
    const ratios = [];
    let identical = 0;
    for (let round = 0; round <= ROUNDS; round++) {
      let ours = 0;
      let theirs = 0;
      identical = 0;
      for (const name of pages) {
        const url = `${origin}/${name}`;
        await Promise.all([page.goto(url, { waitUntil: 'load' }), pwPage.goto(url, { waitUntil: 'load' })]);
        let a = '';
        let b = '';
        for (let rep = 0; rep < REPS; rep++) {
          // Alternate who goes first so neither always runs on a quieter machine.
          const first = (rep + round) % 2 === 0;
          const timeOurs = async () => {
            const t = process.hrtime.bigint();
            a = await ariaSnapshotText(session);
            ours += Number(process.hrtime.bigint() - t) / 1e6;
          };
          const timeTheirs = async () => {
            const t = process.hrtime.bigint();
            b = await pwPage.ariaSnapshot();
            theirs += Number(process.hrtime.bigint() - t) / 1e6;
          };
          if (first) {
            await timeOurs();
            await timeTheirs();
          } else {
            await timeTheirs();
            await timeOurs();
          }
        }
        if (a === b) identical++;
      }
      if (round === 0) {
        console.log(`warm-up round done (${pages.length} pages)`);
        continue;
      }
      const ratio = ours / theirs;
      ratios.push(ratio);
      console.log(`round ${round}: ours ${ours.toFixed(1)} ms, playwright ${theirs.toFixed(1)} ms, ratio ${ratio.toFixed(3)}`);
    }
    console.log(`pages byte-identical: ${identical}/${pages.length}`);
    console.log(`aria snapshot time ratio ours/playwright (median of ${ROUNDS} rounds, ${pages.length} pages x ${REPS}): ${median(ratios).toFixed(3)}`);

    // One large page, loaded once, snapshots interleaved; the first (cold) pair is reported apart.
    const url = `${origin}/__large.html`;
    await Promise.all([page.goto(url, { waitUntil: 'load' }), pwPage.goto(url, { waitUntil: 'load' })]);
    const large = [];
    let same = false;
    for (let i = 0; i <= ROUNDS; i++) {
      let t = process.hrtime.bigint();
      const a = await ariaSnapshotText(session);
      const ours = Number(process.hrtime.bigint() - t) / 1e6;
      t = process.hrtime.bigint();
      const b = await pwPage.ariaSnapshot();
      const theirs = Number(process.hrtime.bigint() - t) / 1e6;
      same = a === b;
      if (i === 0) console.log(`large page, first snapshot: ours ${ours.toFixed(0)} ms, playwright ${theirs.toFixed(0)} ms`);
      else large.push(ours / theirs);
    }
    console.log(`large page byte-identical: ${same}`);
    console.log(`large page time ratio ours/playwright (median of ${ROUNDS}, warm): ${median(large).toFixed(3)}`);
  } finally {
    await Promise.all([browser.close(), pwBrowser.close()]);
    server.close();
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
