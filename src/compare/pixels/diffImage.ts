/**
 * The diff image: A dimmed to greyscale, changed pixels in red, anti-aliased
 * ones in yellow, and what only one side has (the extension, when the sizes
 * differ) in blue-tinted grey; the canvas is the larger width by the larger
 * height, and pixels neither side has are white.
 *
 * It is a palette PNG (one byte a pixel instead of four); a row like the one
 * above (most rows of a page) is copied without looking at its pixels again.
 * When A and the scanlines lie in kernel memory (kernels.ts), the grey
 * levels are drawn 16 pixels at a time.
 */
import type { EngineResult, PixelSides } from './engine';
import { ANTIALIASED, CHANGED } from './rowRules';
import { bandDeflater, deflateNow, framePng } from './encodePng';
import { rowsEqual, type Raster } from './raster';

/** Grey levels of A's brightness. */
const LEVELS = 64;
const GREY = 0;
const EXTENSION = LEVELS;
export const DIFF_PALETTE_INDEX = { changed: 2 * LEVELS, antialiased: 2 * LEVELS + 1, empty: 2 * LEVELS + 2 } as const;
/** Rows handed to the deflater at a time: it compresses one band while the next is drawn. */
const BAND_ROWS = 512;
/**
 * Canvas pixels from which the diff image is deflated in bands on the thread
 * pool, overlapping its drawing; a smaller one is drawn, then deflated here,
 * at once (each hand-over to the pool costs more than it saves there).
 */
const BANDED_PIXELS = 6_000_000;
/** How much of A's contrast stays: 0.25 keeps the page readable under the marks. */
const DIM = 0.25;
export const DIFF_COLOURS = { changed: [230, 0, 0], antialiased: [255, 200, 0], empty: [255, 255, 255] } as const;

function buildPalette(): Buffer {
  const palette = Buffer.alloc((2 * LEVELS + 3) * 3);
  for (let k = 0; k < LEVELS; k++) {
    const v = Math.round(255 - (255 - (k * 255) / (LEVELS - 1)) * DIM);
    palette.set([v, v, v], (GREY + k) * 3);
    palette.set([Math.round(v * 0.8), Math.round(v * 0.88), 255], (EXTENSION + k) * 3);
  }
  palette.set(DIFF_COLOURS.changed, DIFF_PALETTE_INDEX.changed * 3);
  palette.set(DIFF_COLOURS.antialiased, DIFF_PALETTE_INDEX.antialiased * 3);
  palette.set(DIFF_COLOURS.empty, DIFF_PALETTE_INDEX.empty * 3);
  return palette;
}

/**
 * Writes palette indices base + level for pixels x0..x1-1 of row y into out,
 * from `at` on. The level is the brightness in 64 steps, (77 R + 150 G + 29 B) / 1024:
 * integer weights of BT.601's luma, close enough for a background.
 */
function levelsInto(r: Raster, y: number, x0: number, x1: number, out: Uint8Array, at: number, base: number): void {
  if (r.kernels?.owns(out)) return r.kernels.levels(r.data, y * r.stride + x0 * r.channels, x1 - x0, r.channels, out, at, base);
  const d = r.data;
  let p = y * r.stride + x0 * r.channels;
  let o = at;
  if (r.channels === 3) {
    for (let x = x0; x < x1; x++, p += 3) out[o++] = base + ((77 * d[p] + 150 * d[p + 1] + 29 * d[p + 2]) >> 10);
    return;
  }
  for (let x = x0; x < x1; x++, p += 4) {
    const a = d[p + 3];
    const luma = 77 * d[p] + 150 * d[p + 1] + 29 * d[p + 2];
    // A translucent pixel is seen on white, as the comparison sees it.
    out[o++] = base + ((a === 255 ? luma : (65280 - ((65280 - luma) * a) / 255) | 0) >> 10);
  }
}

export interface DiffImage {
  png: Buffer;
  width: number;
  height: number;
}

/** Draws rows y0..y1-1 of the diff image's scanlines (filter byte None, then palette indices). */
function drawRows(sides: PixelSides, engine: EngineResult, out: Buffer, y0: number, y1: number): void {
  const { a, b } = sides;
  const { width: w, height: h, marks } = engine;
  const span = Math.max(a.width, b.width) + 1;
  // What a row is made of: 0 both sides, 1 A only, 2 B only, 3 neither.
  const kindOf = (y: number) => (y < h ? 0 : y < a.height ? 1 : y < b.height ? 2 : 3);
  for (let y = y0; y < y1; y++) {
    const o = y * span;
    out[o] = 0;
    const kind = kindOf(y);
    if (y > 0 && kind === kindOf(y - 1)) {
      const same =
        kind === 0
          ? !marks[y] && !marks[y - 1] && rowsEqual(a, y, a, y - 1, a.rowBytes) && (b.width <= a.width || rowsEqual(b, y, b, y - 1, b.rowBytes))
          : kind === 1
            ? rowsEqual(a, y, a, y - 1, a.rowBytes)
            : kind === 2
              ? rowsEqual(b, y, b, y - 1, b.rowBytes)
              : true;
      if (same) {
        out.copyWithin(o + 1, o + 1 - span, o);
        continue;
      }
    }
    if (kind === 0) {
      levelsInto(a, y, 0, w, out, o + 1, GREY);
      if (a.width > w) levelsInto(a, y, w, a.width, out, o + 1 + w, EXTENSION);
      else if (b.width > w) levelsInto(b, y, w, b.width, out, o + 1 + w, EXTENSION);
      const rowMarks = marks[y];
      if (rowMarks && a.kernels?.owns(rowMarks) && a.kernels.owns(out)) {
        a.kernels.overlayMarks(rowMarks, out, o + 1, w, DIFF_PALETTE_INDEX.changed, DIFF_PALETTE_INDEX.antialiased);
      } else if (rowMarks) {
        for (let x = 0; x < w; x++) {
          const m = rowMarks[x];
          if (m === CHANGED) out[o + 1 + x] = DIFF_PALETTE_INDEX.changed;
          else if (m === ANTIALIASED) out[o + 1 + x] = DIFF_PALETTE_INDEX.antialiased;
        }
      }
    } else {
      const side = kind === 1 ? a : kind === 2 ? b : null;
      const filled = side ? side.width : 0;
      if (side) levelsInto(side, y, 0, filled, out, o + 1, EXTENSION);
      out.fill(DIFF_PALETTE_INDEX.empty, o + 1 + filled, o + span);
    }
  }
}

type Size = { width: number; height: number };

/** The bytes of the scanlines of the diff image of a and b: a scratch buffer of this size may be handed to renderDiffImage. */
export function diffScanlineBytes(a: Size, b: Size): number {
  return Math.max(a.height, b.height) * (Math.max(a.width, b.width) + 1);
}

/**
 * The diff image of a comparison (B's rows beyond the overlap must be
 * ready); `scratch`, of diffScanlineBytes, holds its scanlines (else a new
 * buffer does).
 */
export async function renderDiffImage(sides: PixelSides, engine: EngineResult, level = 1, scratch: Buffer | null = null): Promise<DiffImage> {
  const cw = Math.max(sides.a.width, sides.b.width);
  const ch = Math.max(sides.a.height, sides.b.height);
  const out = scratch ?? Buffer.allocUnsafe(ch * (cw + 1));
  const layout = { width: cw, height: ch, colorType: 3 as const, palette: buildPalette() };
  if (cw * ch < BANDED_PIXELS) {
    drawRows(sides, engine, out, 0, ch);
    return { png: framePng(layout, deflateNow(out, level)), width: cw, height: ch };
  }
  const deflater = bandDeflater(level);
  for (let y = 0; y < ch; y += BAND_ROWS) {
    const end = Math.min(ch, y + BAND_ROWS);
    drawRows(sides, engine, out, y, end);
    await deflater.write(out.subarray(y * (cw + 1), end * (cw + 1)));
  }
  const png = framePng(layout, await deflater.end());
  return { png, width: cw, height: ch };
}
