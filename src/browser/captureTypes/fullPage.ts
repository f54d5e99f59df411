/**
 * The full-page PNG, with memory bounded by the tile size rather than the
 * page size.
 *
 * A page of at most SINGLE_SHOT_MAX_PIXELS device pixels is captured in one
 * Page.captureScreenshot beyond the viewport, as Puppeteer's fullPage does
 * (fast; the browser holds the bitmap once). A taller page would make the
 * browser hold the whole bitmap several times over (raster, copy, encode) and
 * this process its base64 and bytes: a 1280 × 60,000 page peaked near 1.5 GB
 * of browser memory. So it is captured in horizontal strips of the same
 * capture beyond the viewport, each clipped to its rows, and the strips are
 * joined into one PNG as they arrive (src/png/assemble.ts) — the pixels are
 * those of the single capture, only the memory differs.
 *
 * Beyond MAX_PAGE_PIXELS the capture fails with a clear error instead of
 * trying (see failures.pageTooLarge); so does a page above the one-capture
 * size at a device pixel ratio that allows no strip of whole device rows
 * (failures.pageNeedsTiling) — never one unbounded capture.
 */
import type { CDPSession, Page } from 'puppeteer-core';
import { PngAssembler } from '../../png/assemble';
import { pageNeedsTiling, pageTooLarge } from '../../failures';

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

/** The document's full size, as a capture beyond the viewport sees it. */
export async function measurePage(cdp: CDPSession, devicePixelRatio: number): Promise<PageSize> {
  const metrics = await cdp.send('Page.getLayoutMetrics');
  const size = metrics.cssContentSize ?? metrics.contentSize;
  return { width: Math.ceil(size.width), height: Math.ceil(size.height), devicePixelRatio };
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

/**
 * One capture beyond the viewport, through the page's own session: the
 * page's emulation (viewport, device pixel ratio) lives there, and a capture
 * through another session would draw at ratio 1 and then reset it.
 */
async function capture(page: Page, clip?: { x: number; y: number; width: number; height: number }): Promise<Buffer> {
  const data = clip
    ? await page.screenshot({ type: 'png', clip, captureBeyondViewport: true, optimizeForSpeed: true })
    : await page.screenshot({ type: 'png', fullPage: true, captureBeyondViewport: true, optimizeForSpeed: true });
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/** The full-page PNG of the capture's page at its device pixel ratio. */
export async function fullPagePng(page: Page, size: PageSize, limits: FullPageLimits = DEFAULT_LIMITS): Promise<Buffer> {
  const { width, height, devicePixelRatio: dpr } = size;
  const deviceWidth = Math.ceil(width * dpr);
  const deviceHeight = Math.ceil(height * dpr);
  const pixels = deviceWidth * deviceHeight;
  if (pixels > limits.maxPagePixels) throw new Error(pageTooLarge(deviceWidth, deviceHeight, limits.maxPagePixels));
  if (pixels <= limits.singleShotMaxPixels) return capture(page);
  const strip = stripHeight(dpr, Math.max(1, Math.floor(limits.tilePixels / deviceWidth)));
  // No seamless strip at this ratio: one capture of the whole page would be unbounded, so it is refused.
  if (strip === null) throw new Error(pageNeedsTiling(deviceWidth, deviceHeight, dpr, limits.singleShotMaxPixels));
  if (strip >= height) return capture(page);

  const assembler = new PngAssembler();
  try {
    for (let y = 0; y < height; y += strip) {
      const rows = Math.min(strip, height - y);
      const tile = await capture(page, { x: 0, y, width, height: rows });
      const last = y + rows >= height;
      await assembler.append(tile, last ? undefined : Math.round(rows * dpr));
    }
    return await assembler.finish();
  } catch (err) {
    assembler.abandon();
    throw err;
  }
}
