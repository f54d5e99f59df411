/**
 * Tall pages are captured in strips and joined: against real Chromium, the
 * joined PNG decodes to exactly the pixels of the single full-page capture
 * (fixed header, 100vh hero, sticky bar, horizontal overflow, a height that
 * is not a whole number of strips), at device pixel ratios 1, 2 and 1.5; the
 * page keeps its emulation afterwards; a page that grows during its shot is
 * shot again at its new height; a page over the size limit fails with
 * a clear error. The page is emulated and captured through one session of
 * its own, as the provider does (pageSetup.ts). The limits are lowered here
 * so a small page takes the strip path; the memory it saves on a real tall page is measured in
 * bench/tall-page.js.
 */
import type { Browser, CDPSession } from 'puppeteer-core';
import { launchTestBrowser, servePages, type PageServer } from '../helpers/browser';
import { fullPagePng, measurePage, shootFullPage, stripHeight, DEFAULT_LIMITS } from '../../src/browser/capture/types/fullPage';
import { decodePng } from '../../src/png/decode';

jest.setTimeout(120_000);

const TALL = `<!doctype html><html><head><style>
body { margin: 0; font: 16px sans-serif; }
header { position: fixed; top: 0; left: 0; right: 0; height: 40px; background: rgba(200, 0, 0, .7); }
.hero { height: 100vh; background: linear-gradient(#036, #fc0); }
.sticky { position: sticky; top: 50px; background: #0a0; height: 30px; }
.row { height: 97.5px; border-bottom: 3px solid #333; background: linear-gradient(90deg, #fff, #88f); }
.wide { width: 700px; height: 20px; background: repeating-linear-gradient(90deg, #000 0 10px, #fff 10px 20px); }
</style></head><body><header>fixed</header><div class="hero">hero</div><div class="sticky">sticky</div><div class="wide"></div>
<main id="rows"></main><script>
let html = '';
for (let i = 0; i < 10; i++) html += '<div class="row">row ' + i + ' — text αβγ <b>bold</b> <span style="border-radius:8px;background:#c0c;padding:2px">chip</span></div>';
document.getElementById('rows').innerHTML = html;
</script></body></html>`;

let browser: Browser;
let server: PageServer;

beforeAll(async () => {
  browser = await launchTestBrowser();
  server = await servePages(__dirname, {
    '/tall': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(TALL);
    },
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const VIEWPORT = { width: 500, height: 300 };

/** A page at the test viewport and `dpr`, emulated on its own session `cdp` (which also captures). */
async function openTall(dpr: number): Promise<{ cdp: CDPSession; screenshots: () => number; close(): Promise<void> }> {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  const cdp = await page.createCDPSession();
  await cdp.send('Emulation.setDeviceMetricsOverride', { ...VIEWPORT, deviceScaleFactor: dpr, mobile: false });
  await page.goto(server.url('/tall'));
  let shots = 0;
  const send = cdp.send.bind(cdp);
  (cdp as { send: unknown }).send = (method: string, params?: unknown) => {
    if (method === 'Page.captureScreenshot') shots++;
    return send(method as never, params as never);
  };
  return { cdp, screenshots: () => shots, close: () => context.close() };
}

async function evaluate(cdp: CDPSession, expression: string): Promise<unknown> {
  return (await cdp.send('Runtime.evaluate', { expression, returnByValue: true })).result.value;
}

test.each([1, 2, 1.5])('at device pixel ratio %p the strips join into exactly the single capture', async (dpr) => {
  const { cdp, screenshots, close } = await openTall(dpr);
  try {
    const size = await measurePage(cdp, dpr);
    expect(size.width).toBe(700);
    const single = decodePng(await fullPagePng(cdp, size, VIEWPORT));
    expect(screenshots()).toBe(1);
    expect(single.header.width).toBe(Math.ceil(700 * dpr));
    // Strips of about 250 device rows: the page is several strips tall and does not end on a strip boundary.
    const joined = decodePng(
      await fullPagePng(cdp, size, VIEWPORT, { ...DEFAULT_LIMITS, singleShotMaxPixels: 0, tilePixels: 250 * Math.ceil(size.width * dpr) }),
    );
    expect(screenshots()).toBeGreaterThan(4);
    expect(joined.header).toEqual(single.header);
    expect(joined.pixels.equals(single.pixels)).toBe(true);
    // The capture's own emulation is intact for what follows (the probe, observed_state).
    expect(await evaluate(cdp, '[innerWidth, devicePixelRatio]')).toEqual([500, dpr]);
  } finally {
    await close();
  }
});

test('below the single-shot limit the page is captured in one go, as tall as the document', async () => {
  const { cdp, screenshots, close } = await openTall(1);
  try {
    const size = await measurePage(cdp, 1);
    expect(size.height).toBe(await evaluate(cdp, 'document.documentElement.scrollHeight'));
    const png = decodePng(await fullPagePng(cdp, size, VIEWPORT));
    expect(screenshots()).toBe(1);
    expect(png.header.height).toBe(size.height);
  } finally {
    await close();
  }
});

test('a page over the size limit fails with what to do, before any capture', async () => {
  const { cdp, screenshots, close } = await openTall(2);
  try {
    const size = await measurePage(cdp, 2);
    const limit = 1_000_000;
    await expect(fullPagePng(cdp, size, VIEWPORT, { ...DEFAULT_LIMITS, maxPagePixels: limit })).rejects.toThrow(
      `the page is too large to capture as one PNG: 1400 × ${Math.ceil(size.height * 2)} device pixels is over the 1,000,000 pixel limit`,
    );
    expect(screenshots()).toBe(0);
  } finally {
    await close();
  }
});

test('strip heights meet on whole device rows', () => {
  expect(stripHeight(1, 4096)).toBe(4096);
  expect(stripHeight(2, 4096)).toBe(2048);
  expect(stripHeight(1.5, 4096)).toBe(2730); // 4095 device rows
  expect((stripHeight(1.1, 4096)! * 1.1) % 1).toBeCloseTo(0, 6);
  expect(stripHeight(1.1, 4096)! % 10).toBe(0);
});

test('a page above the one-capture size at a ratio with no whole-row strip fails clearly, never one unbounded capture', async () => {
  // 1.2345678 has no strip of whole device rows within 1000 CSS px.
  const dpr = 1.2345678;
  expect(stripHeight(dpr, 4096)).toBeNull();
  let shots = 0;
  const cdp = { send: async () => (shots++, { data: '' }) } as unknown as CDPSession;
  await expect(fullPagePng(cdp, { width: 1000, height: 20_000, devicePixelRatio: dpr }, VIEWPORT)).rejects.toThrow(
    /the page is too large to capture at devicePixelRatio 1\.2345678: 1235 × 24692 device pixels is over the 16,777,216 pixels captured in one piece, and at this ratio no strip height is a whole number of device rows/,
  );
  expect(shots).toBe(0);
  // Below the one-capture size the same ratio is captured as before, in one go.
  await fullPagePng(cdp, { width: 500, height: 300, devicePixelRatio: dpr }, VIEWPORT);
  expect(shots).toBe(1);
});

test('a page that grows during its shot is shot again at its new height, never cut at the old one', async () => {
  const { cdp, screenshots, close } = await openTall(1);
  try {
    const before = await measurePage(cdp, 1);
    // Content arrives while the first shot is taken (a response a script inserts).
    const send = cdp.send.bind(cdp);
    let grown = false;
    (cdp as { send: unknown }).send = async (method: string, params?: unknown) => {
      const reply = await send(method as never, params as never);
      if (method === 'Page.captureScreenshot' && !grown) {
        grown = true;
        await send('Runtime.evaluate', {
          expression: `document.body.insertAdjacentHTML('afterbegin', '<div style="height:250px;background:#f0f">late</div>')`,
        });
      }
      return reply;
    };
    const shot = await shootFullPage(cdp, { ...VIEWPORT, devicePixelRatio: 1 });
    expect(shot.size.height).toBe(before.height + 250);
    expect(decodePng(shot.bytes).header.height).toBe(before.height + 250);
    expect(shot.pageDevicePixelRatio).toBe(1);
    expect(screenshots()).toBe(2);
  } finally {
    await close();
  }
});

test("a size change the DOM did not make (the shot's own relayout) keeps the first shot, as Playwright's", async () => {
  const { cdp, screenshots, close } = await openTall(1);
  try {
    const before = await measurePage(cdp, 1);
    const send = cdp.send.bind(cdp);
    let changed = false;
    (cdp as { send: unknown }).send = async (method: string, params?: unknown) => {
      const reply = await send(method as never, params as never);
      if (method === 'Page.captureScreenshot' && !changed) {
        changed = true;
        // A style rule, not a DOM change: no MutationObserver record, yet the page is 7 px taller.
        await send('Runtime.evaluate', { expression: `document.styleSheets[0].insertRule('body { padding-bottom: 7px }')` });
      }
      return reply;
    };
    const shot = await shootFullPage(cdp, { ...VIEWPORT, devicePixelRatio: 1 });
    expect(await measurePage(cdp, 1)).toEqual({ ...before, height: before.height + 7 });
    expect(shot.size).toEqual(before);
    expect(screenshots()).toBe(1);
  } finally {
    await close();
  }
});
