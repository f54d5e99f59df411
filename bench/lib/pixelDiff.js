/**
 * The pixel differential's shared parts (bench/pixel-fidelity.js and
 * test/render/): Playwright's screenshot as the original adapter took it,
 * the comparison of two PNGs, and the static server the corpus is read from.
 *
 * Verdicts, from the issue: identical (every RGBA byte equal), near (at most
 * 0.5% of the pixels differ at pixelmatch threshold 0.1), different
 * (more, or the two images are not the same size).
 *
 * Dev-only: pixelmatch and pngjs are devDependencies; the runtime never loads this.
 */
const fs = require('fs');
const path = require('path');
const http = require('http');
const { PNG } = require('pngjs');
const pixelmatch = require('pixelmatch');

const FREEZE_CSS = '*, *::before, *::after { animation: none !important; transition: none !important; caret-color: transparent !important; }';
const PIXELMATCH_THRESHOLD = 0.1;
const NEAR_RATIO = 0.005;
const DEFAULT_VIEWPORT = { width: 1280, height: 800, devicePixelRatio: 1, colorScheme: 'light' };

/**
 * Per-page settings a corpus page can carry:
 * <meta name="pixel-fidelity" content="width=390 height=844 dpr=3 scheme=dark">
 */
function pageViewport(html, base = DEFAULT_VIEWPORT) {
  const viewport = { ...base };
  const meta = /<meta\s+name=["']pixel-fidelity["']\s+content=["']([^"']*)["']/i.exec(html);
  if (!meta) return viewport;
  for (const [, key, value] of meta[1].matchAll(/(\w+)\s*=\s*([\w.-]+)/g)) {
    if (key === 'width' || key === 'height') viewport[key] = Number(value);
    else if (key === 'dpr') viewport.devicePixelRatio = Number(value);
    else if (key === 'scheme') viewport.colorScheme = value;
  }
  return viewport;
}

/**
 * How long Playwright waits after load before its shot, ms: a page that renders
 * fetched data later (bench/fetch-corpus) says `wait=1500` in the same meta;
 * 0 when it says nothing.
 */
function pageWait(html) {
  const meta = /<meta\s+name=["']pixel-fidelity["']\s+content=["']([^"']*)["']/i.exec(html);
  const wait = meta && /\bwait\s*=\s*(\d+)/.exec(meta[1]);
  return wait ? Number(wait[1]) : 0;
}

/**
 * What the original adapter did with Playwright, on a launched playwright-core
 * browser; `networkIdle` (freeze.networkIdle) also waits for the network to go idle;
 * `waitMs` waits that long after the load event before the shot (the oracle for pages
 * that render what they fetch later, given the time to do it).
 */
async function playwrightShot(browser, url, viewport, { networkIdle = false, waitMs = 0 } = {}) {
  const context = await browser.newContext({
    viewport: { width: viewport.width, height: viewport.height },
    deviceScaleFactor: viewport.devicePixelRatio,
    colorScheme: viewport.colorScheme,
  });
  try {
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 30_000 });
    await page.addStyleTag({ content: FREEZE_CSS });
    await page.evaluate(() => document.fonts.ready.then(() => undefined));
    if (networkIdle) await page.waitForLoadState('networkidle', { timeout: 30_000 });
    if (waitMs) {
      await page.waitForLoadState('load', { timeout: 30_000 });
      await page.waitForTimeout(waitMs);
    }
    return await page.screenshot({ fullPage: true, timeout: 60_000 });
  } finally {
    await context.close().catch(() => undefined);
  }
}

function decode(png) {
  return PNG.sync.read(Buffer.isBuffer(png) ? png : Buffer.from(png));
}

/**
 * Compares two PNGs. Returns { verdict, diffPixels, ratio, sizes, diffPng? };
 * `withDiff` adds a PNG marking the differing pixels.
 */
function comparePngs(a, b, { withDiff = false } = {}) {
  const one = decode(a);
  const two = decode(b);
  const sizes = [`${one.width}x${one.height}`, `${two.width}x${two.height}`];
  if (one.width !== two.width || one.height !== two.height) {
    return { verdict: 'different', reason: 'size', diffPixels: null, ratio: null, sizes };
  }
  if (one.data.equals(two.data)) return { verdict: 'identical', diffPixels: 0, ratio: 0, sizes };
  const diff = withDiff ? new PNG({ width: one.width, height: one.height }) : null;
  const diffPixels = pixelmatch(one.data, two.data, diff ? diff.data : null, one.width, one.height, { threshold: PIXELMATCH_THRESHOLD });
  const ratio = diffPixels / (one.width * one.height);
  const verdict = ratio <= NEAR_RATIO ? 'near' : 'different';
  const out = { verdict, reason: diffPixels === 0 ? 'anti-aliasing only' : 'pixels', diffPixels, ratio, sizes };
  if (diff) out.diffPng = PNG.sync.write(diff);
  return out;
}

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
  '.mp3': 'audio/mpeg',
  '.txt': 'text/plain; charset=utf-8',
};

/** Font files on this machine by file name, for /_system-fonts/<name> (web fonts without committing a font). */
function systemFonts(dirs = ['/usr/share/fonts', '/usr/local/share/fonts']) {
  const found = new Map();
  const walk = (dir) => {
    let entries = [];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(ttf|otf|woff2?)$/i.test(e.name) && !found.has(e.name)) found.set(e.name, p);
    }
  };
  dirs.forEach(walk);
  return found;
}

/**
 * Serves `roots` (first match wins) and /_system-fonts/ from 127.0.0.1; resolves
 * { url(p), close() }. `delayMs` holds every response back that long (a slower
 * server: what a capture shows must not depend on it).
 */
function serveStatic(roots, { delayMs = 0 } = {}) {
  const fonts = systemFonts();
  const server = http.createServer((req, res) => {
    if (delayMs > 0) {
      const timer = setTimeout(() => respond(req, res), delayMs);
      res.on('close', () => clearTimeout(timer));
    } else respond(req, res);
  });
  const respond = (req, res) => {
    const pathname = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    let file = null;
    if (pathname.startsWith('/_system-fonts/')) file = fonts.get(path.basename(pathname)) || null;
    else {
      for (const root of roots) {
        const candidate = path.join(root, path.normalize(pathname));
        if (!candidate.startsWith(root)) continue;
        const index = path.join(candidate, 'index.html');
        if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) file = candidate;
        else if (fs.existsSync(index)) file = index;
        if (file) break;
      }
    }
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': MIME[path.extname(file).toLowerCase()] || 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  };
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: (p) => `http://127.0.0.1:${server.address().port}/${p.split(path.sep).map(encodeURIComponent).join('/')}`,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      }),
    ),
  );
}

module.exports = {
  FREEZE_CSS,
  PIXELMATCH_THRESHOLD,
  NEAR_RATIO,
  DEFAULT_VIEWPORT,
  pageViewport,
  pageWait,
  playwrightShot,
  comparePngs,
  serveStatic,
  systemFonts,
};
