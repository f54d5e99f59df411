/**
 * The full-page PNG, taken as Playwright takes it in Chromium, with memory
 * bounded by the tile size rather than the page size.
 *
 * The page's size is read from the document as Playwright reads it (the
 * largest of the scroll, offset and client sizes of <html> and <body>, so a
 * body that scrolls inside a locked <html> is captured whole), and the shot
 * is one Page.captureScreenshot of that rectangle at the page's device pixel
 * ratio, through the capture's own session (its emulation lives there):
 * within the viewport when the page fits in it, beyond it otherwise (the
 * browser then lays the page out at its full height for the shot, so fixed
 * elements sit where the full-height viewport puts them, as in Playwright's
 * PNG).
 *
 * A page of at most SINGLE_SHOT_MAX_PIXELS device pixels is that one capture.
 * A taller page would make the browser hold the whole bitmap several times
 * over (raster, copy, encode) and this process its base64 and bytes: a
 * 1280 × 60,000 page peaked near 1.5 GB of browser memory. So it is captured
 * in horizontal strips of the same capture beyond the viewport, each clipped
 * to its rows, and the strips are joined into one PNG as they arrive
 * (src/png/assemble.ts) — the pixels are those of the single capture, only
 * the memory differs.
 *
 * The page is measured again after the shot and shot again when it grew or
 * shrank meanwhile (shootFullPage), so a page still filling in is never cut
 * at a stale height.
 *
 * Beyond MAX_PAGE_PIXELS the capture fails with a clear error instead of
 * trying (see failures.pageTooLarge); so does a page above the one-capture
 * size at a device pixel ratio that allows no strip of whole device rows
 * (failures.pageNeedsTiling) — never one unbounded capture.
 */
import type { CDPSession } from 'puppeteer-core';
import { PngAssembler } from '../../../png/assemble';
import { pageNeedsTiling, pageTooLarge } from '../../../common/failures';

/** At most this many device pixels: one capture, as before tiling existed. */
export const SINGLE_SHOT_MAX_PIXELS = 16 * 1024 * 1024;
/** Device pixels per strip when tiling (about 16 MB of RGB while a strip is rastered). */
export const TILE_PIXELS = 4 * 1024 * 1024;
/**
 * The largest page captured: 2^28 device pixels (1280 × 209,715 at DPR 1,
 * 2560 × 104,857 at DPR 2). The assembled PNG is held compressed in memory
 * and written once; this bounds it and the time the capture can take.
 */
export const MAX_PAGE_PIXELS = 2 ** 28;

export interface FullPageLimits {
  singleShotMaxPixels: number;
  tilePixels: number;
  maxPagePixels: number;
}

export const DEFAULT_LIMITS: FullPageLimits = { singleShotMaxPixels: SINGLE_SHOT_MAX_PIXELS, tilePixels: TILE_PIXELS, maxPagePixels: MAX_PAGE_PIXELS };

/** What the page measures, in CSS pixels, and its device pixel ratio. */
export interface PageSize {
  width: number;
  height: number;
  devicePixelRatio: number;
}

interface DocumentReading {
  width: number;
  height: number;
  devicePixelRatio: number;
  /** Whether the DOM changed since the previous reading (false on the first). */
  mutated: boolean;
}

/**
 * The document's full size, in CSS pixels (the largest scroll, offset and
 * client size of <html> and <body>), the page's device pixel ratio, and
 * whether the DOM changed since the previous reading: a MutationObserver is
 * armed at each reading (when `observeChanges`) and read at the next; it lets go of
 * the page at its first record, so one left armed after the shot costs nothing.
 */
const documentReading = (observeChanges: boolean) => `(() => {
  const key = '__designPlaybookShotWatch';
  const previous = window[key];
  const mutated = !!(previous && previous.mutated);
  if (previous) previous.observer.disconnect();
  if (${observeChanges}) {
    const next = { mutated: false, observer: null };
    next.observer = new MutationObserver(() => { next.mutated = true; next.observer.disconnect(); });
    next.observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    Object.defineProperty(window, key, { value: next, configurable: true, enumerable: false, writable: true });
  } else if (previous) {
    delete window[key];
  }
  const d = document.documentElement, b = document.body;
  if (!d || !b) return null;
  return {
    width: Math.max(b.scrollWidth, d.scrollWidth, b.offsetWidth, d.offsetWidth, b.clientWidth, d.clientWidth),
    height: Math.max(b.scrollHeight, d.scrollHeight, b.offsetHeight, d.offsetHeight, b.clientHeight, d.clientHeight),
    devicePixelRatio: window.devicePixelRatio,
    mutated,
  };
})()`;

/** What the document measures now, or null without both <html> and <body>. */
async function readDocument(cdp: CDPSession, observeChanges: boolean): Promise<DocumentReading | null> {
  const reply = await cdp.send('Runtime.evaluate', { expression: documentReading(observeChanges), returnByValue: true });
  const measured = reply.exceptionDetails ? null : (reply.result.value as DocumentReading | null);
  return measured && measured.width > 0 && measured.height > 0 ? measured : null;
}

/**
 * The page's size as a full-page capture takes it. A document without both
 * <html> and <body> (an SVG or XML document) is measured by its layout
 * instead (Playwright would wait for a body that never comes).
 */
export async function measurePage(cdp: CDPSession, devicePixelRatio: number, observeChanges = false): Promise<PageSize> {
  const measured = await readDocument(cdp, observeChanges);
  if (measured) return { width: measured.width, height: measured.height, devicePixelRatio };
  const metrics = await cdp.send('Page.getLayoutMetrics');
  const size = metrics.cssContentSize ?? metrics.contentSize;
  return { width: Math.ceil(size.width), height: Math.ceil(size.height), devicePixelRatio };
}

/** How many times a page that changed size during its shot is shot again. */
export const RESHOTS = 2;

export interface FullPageShot {
  bytes: Buffer;
  /** The size the PNG was cut to, CSS pixels. */
  size: PageSize;
  /** window.devicePixelRatio as the page read it after the shot (null: not read). */
  pageDevicePixelRatio: number | null;
}

/**
 * Measures, shoots, and measures again: a page still filling in (content a
 * script inserts as a response arrives) can grow between the measurement
 * and the shot, and the PNG would then be cut at the old height, mid-page.
 * When the DOM changed and with it the size, the page is shot again at its
 * new size, at most RESHOTS times. A size change with no DOM change is the
 * shot's own doing (the browser lays the page out at full height for a
 * capture beyond the viewport, and a few layouts keep a pixel or two of it):
 * the first shot stands, as Playwright's does. The second reading also gives
 * the ratio the page reports, so the common case costs no extra round trip.
 */
export async function shootFullPage(
  cdp: CDPSession,
  viewport: { width: number; height: number; devicePixelRatio: number },
  limits: FullPageLimits = DEFAULT_LIMITS,
): Promise<FullPageShot> {
  let size = await measurePage(cdp, viewport.devicePixelRatio, true);
  for (let attempt = 0; ; attempt++) {
    const bytes = await fullPagePng(cdp, size, viewport, limits);
    const last = attempt >= RESHOTS;
    const after = await readDocument(cdp, !last);
    const grewWithContent = !!after && after.mutated && (after.width !== size.width || after.height !== size.height);
    if (!grewWithContent || last) {
      return { bytes, size, pageDevicePixelRatio: after ? after.devicePixelRatio : null };
    }
    size = { width: after.width, height: after.height, devicePixelRatio: viewport.devicePixelRatio };
  }
}

/**
 * A strip height in CSS pixels whose device height is a whole number of rows
 * (so strips meet without a seam), near `rows` device rows; null when the
 * ratio allows none.
 */
export function stripHeight(devicePixelRatio: number, rows: number): number | null {
  const target = Math.max(1, Math.floor(rows / devicePixelRatio));
  for (let css = target; css >= 1 && css > target - 1000; css--) {
    const device = css * devicePixelRatio;
    if (Math.abs(device - Math.round(device)) < 1e-6) return css;
  }
  return null;
}

interface Clip {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * One capture of `clip` (CSS pixels) at the page's ratio, through the
 * session that holds the page's emulation; beyond the viewport unless the
 * whole page fits in it, as Playwright decides. Fast PNG encoding: the same
 * pixels, less CPU.
 */
async function capture(cdp: CDPSession, clip: Clip, beyondViewport: boolean): Promise<Buffer> {
  const reply = await cdp.send('Page.captureScreenshot', {
    format: 'png',
    clip: { ...clip, scale: 1 },
    captureBeyondViewport: beyondViewport,
    optimizeForSpeed: true,
  });
  return Buffer.from(reply.data, 'base64');
}

/** The full-page PNG of the capture's page at its device pixel ratio (`viewport`: the page's CSS viewport). */
export async function fullPagePng(
  cdp: CDPSession,
  size: PageSize,
  viewport: { width: number; height: number },
  limits: FullPageLimits = DEFAULT_LIMITS,
): Promise<Buffer> {
  const { width, height, devicePixelRatio: dpr } = size;
  const deviceWidth = Math.ceil(width * dpr);
  const deviceHeight = Math.ceil(height * dpr);
  const pixels = deviceWidth * deviceHeight;
  if (pixels > limits.maxPagePixels) throw new Error(pageTooLarge(deviceWidth, deviceHeight, limits.maxPagePixels));
  const beyondViewport = !(width <= viewport.width && height <= viewport.height);
  const whole = { x: 0, y: 0, width, height };
  if (pixels <= limits.singleShotMaxPixels) return capture(cdp, whole, beyondViewport);
  const strip = stripHeight(dpr, Math.max(1, Math.floor(limits.tilePixels / deviceWidth)));
  // No seamless strip at this ratio: one capture of the whole page would be unbounded, so it is refused.
  if (strip === null) throw new Error(pageNeedsTiling(deviceWidth, deviceHeight, dpr, limits.singleShotMaxPixels));
  if (strip >= height) return capture(cdp, whole, beyondViewport);

  const assembler = new PngAssembler();
  try {
    for (let y = 0; y < height; y += strip) {
      const rows = Math.min(strip, height - y);
      const tile = await capture(cdp, { x: 0, y, width, height: rows }, true);
      const last = y + rows >= height;
      await assembler.append(tile, last ? undefined : Math.round(rows * dpr));
    }
    return await assembler.finish();
  } catch (err) {
    assembler.abandon();
    throw err;
  }
}
