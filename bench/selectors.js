#!/usr/bin/env node
/**
 * Selector resolution speed: our engine (dist/cdp/selectorEngine.js, one
 * Runtime.evaluate in its isolated world, returning the first match as a
 * remote object) against Playwright's page.$() (its injected engine, returning
 * the first match as an ElementHandle) — the same selectors, of every form,
 * on the same generated page of about 10,000 elements, same system Chromium,
 * same run. Each side releases its handle after every resolution. Selectors
 * are resolved REPS times per round, alternating who goes first; prints the
 * total time per round, the median ratio ours/playwright (< 1 = faster) and
 * per-selector medians. Both sides must resolve the same element (checked
 * by a stamp attribute), or the run fails.
 *
 * Run after `npm run build`: node bench/selectors.js [rounds]
 */
const http = require('http');
const puppeteer = require('puppeteer-core');
const { chromium } = require('playwright-core');
const { resolveSelector } = require('../dist/cdp/selectorEngine.js');
const { utilityContext } = require('../dist/cdp/utilityWorld.js');
const engines = require('./lib/engines');

/** Both sides on one executable: DESIGN_PLAYBOOK_CHROME_PATH, else the one the runtime launches (the headless shell when installed). */
const CHROMIUM = process.env.DESIGN_PLAYBOOK_CHROME_PATH || engines.runtimeDefault();
console.log(`executable (both sides): ${engines.label(CHROMIUM)}`);
const ARGS = engines.BENCH_ARGS;
const ROUNDS = Number(process.argv[2] || 5);
const REPS = 3;

/** About 10,000 elements: a navigation list, a table of rows with controls, cards, and shadow-DOM widgets. */
function largePage() {
  let h = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Large</title></head><body><nav aria-label="Side"><ul>';
  for (let i = 0; i < 800; i++) h += `<li><a href="/p/${i}">Page <b>${i}</b></a></li>`;
  h += '</ul></nav><main><table><thead><tr><th>#</th><th>Name</th><th>Action</th></tr></thead><tbody>';
  for (let i = 0; i < 900; i++) {
    h +=
      `<tr id="row-${i}"><td>${i}</td><td><div><span>Item ${i}</span></div></td><td><button aria-label="Edit ${i}">Edit</button>` +
      `<label><input type="checkbox"${i % 3 ? '' : ' checked'}> Select ${i}</label></td></tr>`;
  }
  h += '</tbody></table>';
  for (let i = 0; i < 400; i++) h += `<div class="card" data-testid="card-${i}"><h3>Card ${i}</h3><p>Some <em>descriptive</em> text for card ${i}.</p></div>`;
  for (let i = 0; i < 50; i++) h += `<x-widget data-n="${i}"></x-widget>`;
  h += `</main><footer><button id="last">Last button</button></footer><script>
    customElements.define('x-widget', class extends HTMLElement { constructor() { super();
      this.attachShadow({ mode: 'open' }).innerHTML = '<div class="w"><span>Widget ' + this.dataset.n + '</span><button>Open ' + this.dataset.n + '</button></div>'; } });
    let n = 0; for (const e of document.querySelectorAll('*')) e.setAttribute('data-stamp', String(n++));
    for (const w of document.querySelectorAll('x-widget')) for (const e of w.shadowRoot.querySelectorAll('*')) e.setAttribute('data-stamp', String(n++));
  </script></body></html>`;
  return h;
}

const SELECTORS = [
  '#row-777 button',
  'tr:nth-child(450) input',
  'text=Item 777',
  'text="Item 777"',
  'text=/Card 39\\d/',
  '"Last button"',
  'role=button[name="Edit 612"]',
  'role=checkbox[name="Select 42"]',
  'internal:role=link[name="Page 700"i]',
  'role=heading[level=3][name="Card 250"]',
  'button:has-text("Open 49")',
  'h3:text-is("Card 251")',
  'span:text("Widget 30")',
  'xpath=//tr[500]/td[2]',
  '//a[@href="/p/700"]',
  'data-testid=card-300',
  'internal:testid=[data-testid="card-399"s]',
  'id=last',
  'css=.card >> nth=399',
  'tr >> nth=-1',
  'li:visible >> nth=600',
  'internal:label="Select 123"i',
  ':nth-match(.card, 200)',
  'internal:text="Card 123"s',
  'main >> internal:has-text="card 399"i >> h3',
  '.card:has(em) >> nth=5',
  'x-widget >> text=Open 25',
  '.w button >> visible=true',
  'div.card:not(:has-text("Card 1")) >> nth=0',
  'button:right-of(#last)',
];

function serve() {
  const html = largePage();
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const ms = (t) => Number(process.hrtime.bigint() - t) / 1e6;

(async () => {
  const server = await serve();
  const url = `http://127.0.0.1:${server.address().port}/`;
  const [browser, pwBrowser] = await Promise.all([
    puppeteer.launch({ executablePath: CHROMIUM, headless: engines.headlessMode(CHROMIUM), args: ARGS }),
    chromium.launch({ executablePath: CHROMIUM, args: ARGS }),
  ]);
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 720 });
    const pwPage = await pwBrowser.newPage({ viewport: { width: 1280, height: 720 } });
    const session = await page.createCDPSession();
    await Promise.all([page.goto(url, { waitUntil: 'load' }), pwPage.goto(url, { waitUntil: 'load' })]);
    const elements = await page.evaluate(() => document.querySelectorAll('*').length);
    console.log(`page: ${elements} elements in the light DOM (plus 50 shadow roots); ${SELECTORS.length} selectors`);
    await utilityContext(session);

    const ours = async (s) => {
      const id = await resolveSelector(session, s);
      if (!id) return null;
      const { result } = await session.send('Runtime.callFunctionOn', {
        objectId: id,
        functionDeclaration: 'function() { return this.getAttribute("data-stamp"); }',
        returnByValue: true,
      });
      await session.send('Runtime.releaseObject', { objectId: id });
      return result.value;
    };
    const theirs = async (s) => {
      const h = await pwPage.$(s);
      if (!h) return null;
      const v = await h.getAttribute('data-stamp');
      await h.dispose();
      return v;
    };
    // Agreement first: the comparison means nothing if the two resolve different elements.
    for (const s of SELECTORS) {
      const [a, b] = [await ours(s), await theirs(s)];
      if (a !== b || a === null) throw new Error(`${s}: ours ${a}, playwright ${b}`);
    }
    const perSelector = new Map(SELECTORS.map((s) => [s, []]));
    const ratios = [];
    for (let round = 0; round <= ROUNDS; round++) {
      let a = 0;
      let b = 0;
      for (const s of SELECTORS) {
        for (let rep = 0; rep < REPS; rep++) {
          const first = (rep + round) % 2 === 0;
          let t;
          let x;
          let y;
          if (first) {
            t = process.hrtime.bigint();
            await ours(s);
            x = ms(t);
            t = process.hrtime.bigint();
            await theirs(s);
            y = ms(t);
          } else {
            t = process.hrtime.bigint();
            await theirs(s);
            y = ms(t);
            t = process.hrtime.bigint();
            await ours(s);
            x = ms(t);
          }
          a += x;
          b += y;
          if (round > 0) perSelector.get(s).push(x / y);
        }
      }
      if (round === 0) {
        console.log('warm-up round done');
        continue;
      }
      ratios.push(a / b);
      console.log(`round ${round}: ours ${a.toFixed(1)} ms, playwright ${b.toFixed(1)} ms, ratio ${(a / b).toFixed(3)}`);
    }
    for (const [s, r] of perSelector) console.log(`  ${median(r).toFixed(2)}  ${s}`);
    console.log(
      `selector resolution time ratio ours/playwright (median of ${ROUNDS} rounds, ${SELECTORS.length} selectors x ${REPS}): ${median(ratios).toFixed(3)}`,
    );
  } finally {
    await Promise.all([browser.close(), pwBrowser.close()]);
    server.close();
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
