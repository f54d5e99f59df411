/**
 * The screenshot pairs bench/compare.js compares: a generated page (header,
 * navigation, cards with buttons, a form, a list, paragraphs) of a fixed
 * height, captured by the project's own library (dist/, executeCapturePlan)
 * twice — as it is, and with one injected change — at 1280 px wide, DPR 1,
 * served from 127.0.0.1. The page's height is fixed (the content sits in a
 * box of that height), so a change that moves content keeps both PNGs the
 * same size: every peer then compares pixels (odiff and blazediff stop at a
 * size difference without comparing).
 *
 * Dev-only: the runtime never loads this.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');

const WIDTH = 1280;

/** One change each; `css` is added to the changed page's style sheet, `edit` rewrites its markup. */
const CHANGES = {
  none: { css: '' },
  colour: { css: '#buy{background:#1976d2}' },
  'font-size': { css: '.hero h1{font-size:34px}' },
  border: { css: '.card:nth-child(2){outline:1px solid #444}' },
  moved: { css: '#promo{transform:translateX(12px)}' },
  'removed-button': { edit: (html) => html.replace('<button class="secondary" id="later">Later</button>', '') },
  text: { edit: (html) => html.replace('>Subscribe<', '>Sign up now<') },
  'bottom-change': { css: '#footer-note{color:#b71c1c}' },
};

function paragraphs(count, seed) {
  const words =
    'design token palette spacing radius contrast layout grid column baseline rhythm scale heading caption label button input focus hover state surface elevation shadow border outline icon'.split(
      ' ',
    );
  let s = seed;
  const next = () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s;
  };
  const out = [];
  for (let p = 0; p < count; p++) {
    const n = 40 + (next() % 40);
    const text = [];
    for (let w = 0; w < n; w++) text.push(words[next() % words.length]);
    out.push(`<p>${text.join(' ')}.</p>`);
  }
  return out.join('\n');
}

/** The page: `height` CSS px tall, with `change` applied (a key of CHANGES). */
function pageHtml(height, change = 'none') {
  const spec = CHANGES[change];
  if (!spec) throw new Error(`unknown change ${change}`);
  const cards = [];
  for (let i = 0; i < 6; i++) {
    cards.push(
      `<div class="card"><h3>Plan ${i + 1}</h3><p>Everything in the plan, with ${i + 2} seats and priority support.</p>` +
        (i === 0
          ? '<div class="actions"><button id="buy">Buy now</button><button class="secondary" id="later">Later</button></div>'
          : `<div class="actions"><button>Choose</button></div>`) +
        '</div>',
    );
  }
  const items = Array.from(
    { length: 12 },
    (_, i) => `<li>Release note ${i + 1}: fixed the ${i % 2 ? 'focus ring' : 'contrast'} of the ${i % 3 ? 'menu' : 'dialog'}</li>`,
  ).join('');
  // Enough text to fill the tallest page; the box clips what does not fit.
  const text = paragraphs(Math.ceil(height / 60), 7);
  let html = `<!doctype html><html><head><meta charset="utf-8"><title>compare bench</title><style>
*{box-sizing:border-box} body{margin:0;font:16px/1.5 sans-serif;color:#1a1a1a;background:#f5f5f5}
#page{height:${height}px;overflow:hidden;position:relative}
header{height:64px;background:#0d47a1;color:#fff;display:flex;align-items:center;gap:24px;padding:0 32px}
header nav a{color:#e3f2fd;text-decoration:none;margin-right:16px}
.hero{padding:48px 32px;background:linear-gradient(180deg,#e3f2fd,#f5f5f5)} .hero h1{font-size:32px;margin:0 0 8px}
#promo{display:inline-block;padding:12px 20px;border-radius:8px;background:#fff3e0;border:1px solid #ffb74d}
.grid{display:grid;grid-template-columns:repeat(3,1fr);gap:24px;padding:32px}
.card{background:#fff;border-radius:12px;padding:20px;box-shadow:0 1px 3px rgba(0,0,0,.2)}
.actions{display:flex;gap:12px} button{font:inherit;padding:8px 16px;border:0;border-radius:8px;background:#1565c0;color:#fff}
button.secondary{background:#e0e0e0;color:#1a1a1a}
form{margin:0 32px;padding:20px;background:#fff;border-radius:12px;display:flex;gap:12px;align-items:center}
input{font:inherit;padding:8px;border:1px solid #9e9e9e;border-radius:6px;width:320px}
ul{margin:24px 32px} .text{padding:0 32px;columns:2;column-gap:32px}
#footer-note{position:absolute;left:32px;right:32px;bottom:0;height:48px;background:#fff;border-top:1px solid #ccc;margin:0;padding:12px;color:#333}
${spec.css || ''}
</style></head><body data-state="ready"><div id="page">
<header><strong>Acme</strong><nav><a href="#">Pricing</a><a href="#">Docs</a><a href="#">Blog</a></nav></header>
<section class="hero"><h1>Plans for every team</h1><div id="promo">Save 20% with yearly billing</div></section>
<section class="grid">${cards.join('')}</section>
<form><label for="email">Email</label><input id="email" placeholder="you@example.com"><button type="button">Subscribe</button></form>
<ul>${items}</ul>
<section class="text">${text}</section>
<p id="footer-note">Prices shown exclude tax. Last updated 1 December.</p>
</div></body></html>`;
  if (spec.edit) html = spec.edit(html);
  return html;
}

/** Serves generated pages: /<height>/<change>.html. */
function servePagesOnLoopback() {
  const server = http.createServer((req, res) => {
    const m = /^\/(\d+)\/([\w-]+)\.html$/.exec(req.url || '');
    if (!m || !CHANGES[m[2]]) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(pageHtml(Number(m[1]), m[2]));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: (height, change) => `http://127.0.0.1:${server.address().port}/${height}/${change}.html`,
        close: () => new Promise((done) => server.close(() => done())),
      }),
    ),
  );
}

/**
 * Captures each pair into `dir` (<name>.a.png, <name>.b.png) with the built
 * library, skipping files already there; `pairs` is [{name, height, change}].
 * The `identical` pairs are two separate captures of the unchanged page
 * (byte-identical because captures are deterministic; checked).
 */
async function makePairs(dir, pairs, { log = () => undefined } = {}) {
  const dist = path.join(__dirname, '..', '..', 'dist', 'src', 'index.js');
  const { executeCapturePlan, closeBundledBrowser } = require(dist);
  fs.mkdirSync(dir, { recursive: true });
  const runRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-compare-bench-'));
  fs.writeFileSync(path.join(runRoot, 'plan.md'), '# compare bench\n');
  const server = await servePagesOnLoopback();
  const capture = async (url, height, leaf) => {
    const result = await executeCapturePlan({
      schemaVersion: 1,
      url,
      type: 'screenshot',
      state: 'ready',
      artifact_path: `evidence/${leaf}`,
      overwrite: true,
      viewport: { width: WIDTH, height: Math.min(height, 800), devicePixelRatio: 1, colorScheme: 'light' },
      run_root: runRoot,
    });
    if (result.result !== 'captured') throw new Error(`capture of ${url} failed: ${result.error}`);
    return result.written_path;
  };
  try {
    for (const pair of pairs) {
      const a = path.join(dir, `${pair.name}.a.png`);
      const b = path.join(dir, `${pair.name}.b.png`);
      if (fs.existsSync(a) && fs.existsSync(b)) continue;
      log(`capturing ${pair.name} (${pair.height} px, ${pair.change})`);
      fs.copyFileSync(await capture(server.url(pair.height, 'none'), pair.height, 'a.png'), a);
      fs.copyFileSync(await capture(server.url(pair.height, pair.change), pair.height, 'b.png'), b);
      const same = fs.readFileSync(a).equals(fs.readFileSync(b));
      if (pair.change === 'none' && !same) throw new Error(`${pair.name}: two captures of an unchanged page differ`);
      if (pair.change !== 'none' && same) throw new Error(`${pair.name}: the change ${pair.change} left the capture unchanged`);
    }
  } finally {
    await closeBundledBrowser();
    await server.close();
    fs.rmSync(runRoot, { recursive: true, force: true });
  }
}

module.exports = { CHANGES, WIDTH, pageHtml, servePagesOnLoopback, makePairs };
