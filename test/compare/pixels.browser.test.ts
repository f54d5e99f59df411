/**
 * The pixel comparison on real captures: pages served from 127.0.0.1 are
 * captured through the library (executeCapturePlan) as they are and with one
 * injected change each; the comparison finds each change, its region lands
 * on the changed element's box (read from the page with Puppeteer), and its
 * changed-pixel count is pixelmatch's at the same threshold. Two captures of
 * an unchanged page are byte-identical and reported unchanged.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import pixelmatch from 'pixelmatch';
import type { Browser } from 'puppeteer-core';
import { executeCapturePlan, closeBundledBrowser } from '../../src/index';
import { comparePngFiles, DEFAULT_PIXEL_THRESHOLD, type PixelRegion } from '../../src/compare/pixels';
import { decodePng } from '../../src/png/decode';
import { launchTestBrowser, servePages, type PageServer } from '../helpers/browser';

jest.setTimeout(180_000);

const WIDTH = 1280;

/** Changes by name: extra CSS for the changed page, or a rewrite of its markup. */
interface Change {
  css?: string;
  edit?: (html: string) => string;
  /** The element the change is in (on either side). */
  element: string;
  /** Pixels the change draws outside the element's box (an outline). */
  expand?: number;
  /** A move to the right, in px. */
  shift?: number;
}

const CHANGES: Record<string, Change> = {
  colour: { css: '#buy{background:#1976d2}', element: '#buy' },
  'font-size': { css: 'h1{font-size:34px}', element: 'h1' },
  border: { css: '#plan2{outline:1px solid #444}', element: '#plan2', expand: 1 },
  moved: { css: '#promo{transform:translateX(12px)}', element: '#promo', shift: 12 },
  'removed-button': { edit: (html) => html.replace('<button id="later">Later</button>', ''), element: '#later' },
  text: { edit: (html) => html.replace('>Subscribe<', '>Sign up<'), element: '#subscribe' },
  'new-item': { edit: (html) => html.replace('<li id="last">Third</li>', '<li id="last">Third</li><li>Fourth</li>'), element: '#list > li:nth-child(4)' },
  'bottom-change': { css: '#footer-note{color:#b71c1c}', element: '#footer-note' },
};

/** A page whose changed elements have fixed boxes (absolutely placed, fixed sizes), so the boxes do not depend on fonts. */
function pageHtml(height: number, change: string | null): string {
  const spec: Partial<Change> = change ? CHANGES[change] : {};
  let html = `<!doctype html><html><head><meta charset="utf-8"><style>
body{margin:0;font:16px/1.4 sans-serif;color:#1a1a1a;background:#f5f5f5}
#page{position:relative;height:${height}px;overflow:hidden}
header{position:absolute;left:0;top:0;width:100%;height:56px;background:#0d47a1}
h1{position:absolute;left:32px;top:80px;width:600px;height:48px;margin:0;font-size:32px}
#promo{position:absolute;left:32px;top:150px;width:320px;height:40px;padding:8px;background:#fff3e0;border:1px solid #ffb74d;border-radius:8px}
.card{position:absolute;top:220px;width:360px;height:180px;background:#fff;border-radius:12px;box-shadow:0 1px 3px rgba(0,0,0,.2)}
#plan1{left:32px} #plan2{left:424px} #plan3{left:816px}
button{position:absolute;height:40px;border:0;border-radius:8px;font:inherit;color:#fff;background:#1565c0}
#buy{left:56px;top:340px;width:120px} #later{left:192px;top:340px;width:100px;background:#757575}
#subscribe{left:32px;top:440px;width:140px}
#list{position:absolute;left:32px;top:520px;width:400px;margin:0;padding-left:20px;list-style-position:inside}
#footer-note{position:absolute;left:32px;bottom:16px;width:600px;height:32px;margin:0}
${spec.css ?? ''}
</style></head><body data-state="ready"><div id="page">
<header></header><h1>Plans for every team</h1><div id="promo">Save 20% with yearly billing</div>
<div class="card" id="plan1"></div><div class="card" id="plan2"></div><div class="card" id="plan3"></div>
<button id="buy">Buy now</button><button id="later">Later</button><button id="subscribe">Subscribe</button>
<ul id="list"><li>First</li><li>Second</li><li id="last">Third</li></ul>
<p id="footer-note">Prices shown exclude tax.</p>
</div></body></html>`;
  if (spec.edit) html = spec.edit(html);
  return html;
}

let server: PageServer;
let browser: Browser;
let runRoot: string;
const url = (height: number, change: string | null) => server.url(`/page/${height}/${change ?? 'none'}`);

beforeAll(async () => {
  runRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-compare-browser-'));
  fs.writeFileSync(path.join(runRoot, 'plan.md'), '# compare\n');
  server = await servePagesWithRoutes();
  browser = await launchTestBrowser();
});

afterAll(async () => {
  await closeBundledBrowser();
  await browser?.close();
  await server?.close();
  if (runRoot) fs.rmSync(runRoot, { recursive: true, force: true });
});

/** The generated pages, one route each. */
async function servePagesWithRoutes(): Promise<PageServer> {
  const routes: Parameters<typeof servePages>[1] = {};
  for (const height of [1200, 8000]) {
    for (const change of [null, ...Object.keys(CHANGES)]) {
      routes[`/page/${height}/${change ?? 'none'}`] = (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(pageHtml(height, change));
      };
    }
  }
  // Only the routes answer: the folder served is an empty one (inside the run root, removed with it).
  const empty = path.join(runRoot, 'no-pages');
  fs.mkdirSync(empty);
  return servePages(empty, routes);
}

async function capture(pageUrl: string, leaf: string): Promise<string> {
  const result = await executeCapturePlan({
    schemaVersion: 1,
    url: pageUrl,
    type: 'screenshot',
    state: 'ready',
    artifact_path: `evidence/${leaf}`,
    viewport: { width: WIDTH, height: 800, devicePixelRatio: 1, colorScheme: 'light' },
    run_root: runRoot,
  });
  expect(result).toMatchObject({ result: 'captured', error: '' });
  return result.written_path;
}

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The element's box on the page (device px at DPR 1; the page is not scrolled). */
async function boxOf(pageUrl: string, selector: string): Promise<Box | null> {
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    await page.setViewport({ width: WIDTH, height: 800, deviceScaleFactor: 1 });
    await page.goto(pageUrl, { waitUntil: 'load' });
    const handle = await page.$(selector);
    return handle ? await handle.boundingBox() : null;
  } finally {
    await context.close();
  }
}

/** pixelmatch's count on the two captures (decoded by the project's PNG reader, RGB made RGBA). */
function pixelmatchOnFiles(a: string, b: string): number {
  const rgba = (file: string) => {
    const { header, pixels } = decodePng(fs.readFileSync(file));
    expect([header.bitDepth, header.colorType]).toEqual([8, 2]);
    const out = Buffer.alloc(header.width * header.height * 4);
    for (let i = 0, o = 0; i < pixels.length; i += 3, o += 4) {
      out[o] = pixels[i];
      out[o + 1] = pixels[i + 1];
      out[o + 2] = pixels[i + 2];
      out[o + 3] = 255;
    }
    return { width: header.width, height: header.height, data: out };
  };
  const one = rgba(a);
  const two = rgba(b);
  expect([two.width, two.height]).toEqual([one.width, one.height]);
  return pixelmatch(one.data, two.data, null, one.width, one.height, { threshold: DEFAULT_PIXEL_THRESHOLD });
}

const union = (p: Box, q: Box): Box => {
  const x = Math.min(p.x, q.x);
  const y = Math.min(p.y, q.y);
  return { x, y, width: Math.max(p.x + p.width, q.x + q.width) - x, height: Math.max(p.y + p.height, q.y + q.height) - y };
};
const grow = (b: Box, by: number): Box => ({ x: b.x - by, y: b.y - by, width: b.width + 2 * by, height: b.height + 2 * by });
const inside = (r: PixelRegion, b: Box) => r.x >= b.x && r.y >= b.y && r.x + r.width <= b.x + b.width && r.y + r.height <= b.y + b.height;

test('two captures of an unchanged page are byte-identical: unchanged, nothing decoded', async () => {
  const a = await capture(url(1200, null), 'same-a.png');
  const b = await capture(url(1200, null), 'same-b.png');
  const { result } = await comparePngFiles(a, b, { diffImage: path.join(runRoot, 'same-diff.png') });
  expect(result).toMatchObject({ status: 'unchanged', identicalBytes: true, changedPixels: 0, regions: [], diffImage: null });
  expect(result.a).toMatchObject({ width: WIDTH, height: 1200 });
});

describe('one injected change each: found, located on the changed element, counted as pixelmatch counts', () => {
  let before1200: string;
  let before8000: string;
  beforeAll(async () => {
    before1200 = await capture(url(1200, null), 'before-1200.png');
    before8000 = await capture(url(8000, null), 'before-8000.png');
  });

  test.each(Object.keys(CHANGES))('%s', async (change) => {
    const spec = CHANGES[change];
    const height = change === 'bottom-change' ? 8000 : 1200;
    const before = height === 8000 ? before8000 : before1200;
    const after = await capture(url(height, change), `${change}.png`);
    const diffPath = path.join(runRoot, `${change}-diff.png`);
    const { result, tiles } = await comparePngFiles(before, after, { diffImage: diffPath, tiles: true });

    expect(result).toMatchObject({ status: 'changed', identicalBytes: false, extension: null, threshold: DEFAULT_PIXEL_THRESHOLD });
    expect(result.changedPixels).toBe(pixelmatchOnFiles(before, after));
    expect(fs.statSync(diffPath).size).toBeGreaterThan(0);
    expect(tiles).toHaveLength(result.regions.length);

    // Where the change is: the element's box before (and after: moved, or with its new text), grown by what the change draws outside it.
    const boxes = [await boxOf(url(height, null), spec.element), await boxOf(url(height, change), spec.element)].filter((b): b is Box => b !== null);
    expect(boxes.length).toBeGreaterThan(0);
    const element = boxes[0];
    let expected = boxes.map((b) => grow(b, (spec.expand ?? 0) + 1)).reduce(union);
    if (spec.shift) expected = union(expected, { ...expected, x: expected.x + spec.shift });
    const pixels = result.regions.filter((r) => r.kind === 'pixels');
    expect(pixels.length).toBeGreaterThan(0);
    for (const region of pixels) expect({ change, region, inside: inside(region, expected) }).toEqual({ change, region, inside: true });
    // And not a speck in it: the regions together span most of the changed element's width or height.
    const spanX = Math.max(...pixels.map((r) => r.x + r.width)) - Math.min(...pixels.map((r) => r.x));
    const spanY = Math.max(...pixels.map((r) => r.y + r.height)) - Math.min(...pixels.map((r) => r.y));
    expect(Math.max(spanX / element.width, spanY / element.height)).toBeGreaterThan(0.3);
  });
});
