/**
 * The pixel comparison of two rasters, aligned at the top left: which rows
 * differ, then pixelmatch's rules on those rows only, the changed pixels
 * marked for the diff image and gathered into cells for the regions.
 *
 * Rows that are equal need no work. When both sides keep Chromium's filtered
 * rows at the same width, a row whose filter type and filtered bytes are
 * equal, under a row that is equal, is itself equal (every PNG filter reads
 * only the row and the one above), so it is neither unfiltered on B's side
 * nor compared pixel by pixel. Pixels of B's equal rows are copied from A
 * only where the anti-aliasing rule or a tile needs them.
 */
import { RowCache, colourDelta, isAntialiased, maxDeltaFor } from './pixelRules';
import { rowsEqual, unfilterAll, unfilterInPlace, type Raster } from './raster';
import { markCell, newCellGrid, type CellGrid } from './regions';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A mark in the mark map: a changed pixel, an anti-aliased one. */
export const CHANGED = 1;
export const ANTIALIASED = 2;

export interface EngineOptions {
  threshold: number;
  includeAA: boolean;
  /** Rectangles left out of the comparison, already clipped to the compared area. */
  ignore: Rect[];
}

export interface EngineResult {
  /** The compared area: the overlap of the two images. */
  width: number;
  height: number;
  changedPixels: number;
  antiAliasedPixels: number;
  /** Per row of the compared area: its marks (CHANGED, ANTIALIASED per pixel), or undefined when it has none. */
  marks: Array<Uint8Array | undefined>;
  cells: CellGrid;
}

export class PixelSides {
  readonly width: number;
  readonly height: number;
  /** B's rows may be taken from A where the rows are equal (same width, the filtered shortcut). */
  private readonly shared: boolean;
  /** Per row of the overlap: 1 equal, 0 differing. */
  readonly equalRows: Uint8Array;

  constructor(
    readonly a: Raster,
    readonly b: Raster,
  ) {
    this.width = Math.min(a.width, b.width);
    this.height = Math.min(a.height, b.height);
    this.shared = !!a.filtered && !!b.filtered && a.width === b.width && a.channels === b.channels;
    this.equalRows = new Uint8Array(this.height);
  }

  /**
   * Finds the equal rows. Both sides are unfiltered in place as it goes (a
   * row's filtered bytes are compared before its own unfiltering); A ends
   * fully unfiltered, B where needed (all of it when the widths differ).
   */
  classifyRows(): number[] {
    const { a, b, width, height } = this;
    const bytes = width * a.channels;
    const differing: number[] = [];
    if (!this.shared) {
      unfilterAll(a);
      unfilterAll(b);
      for (let y = 0; y < height; y++) {
        if (rowsEqual(a, y, b, y, bytes)) this.equalRows[y] = 1;
        else differing.push(y);
      }
      return differing;
    }
    const fa = a.filtered!;
    const fb = b.filtered!;
    const span = a.stride;
    let aboveEqual = true;
    for (let y = 0; y < height; y++) {
      const start = y * span;
      const type = fa[start];
      const same = type === fb[start] && (aboveEqual || type <= 1) && fa.compare(fb, start + 1, start + span, start + 1, start + span) === 0;
      unfilterInPlace(a, y);
      if (same) {
        this.equalRows[y] = 1;
        aboveEqual = true;
        continue;
      }
      this.bRow(y);
      aboveEqual = rowsEqual(a, y, b, y, bytes);
      if (aboveEqual) this.equalRows[y] = 1;
      else differing.push(y);
    }
    unfilterAll(a, height);
    // Rows only B has are unfiltered in order, from the last row of the overlap.
    for (let y = height; y < b.height; y++) this.bRow(y);
    return differing;
  }

  /**
   * Makes row y of B ready: unfiltered, or copied from A when the rows are
   * equal (over B's filtered bytes of that row, which nothing reads again once
   * the rows are classified).
   */
  bRow(y: number): void {
    const { a, b } = this;
    if (b.ready[y]) return;
    if (y < this.height && this.equalRows[y]) {
      a.data.copy(b.data, y * b.stride, y * a.stride, y * a.stride + a.rowBytes);
      b.ready[y] = 1;
      return;
    }
    if (y > 0 && !b.ready[y - 1]) this.bRow(y - 1);
    unfilterInPlace(b, y);
  }

  /** Makes rows y0..y1 (inclusive, clamped) of B ready. */
  bRows(y0: number, y1: number): void {
    const last = Math.min(y1, this.b.height - 1);
    for (let y = Math.max(0, y0); y <= last; y++) if (!this.b.ready[y]) this.bRow(y);
  }

  compare(differing: number[], options: EngineOptions): EngineResult {
    const { a, b, width, height } = this;
    const c = a.channels;
    const maxDelta = maxDeltaFor(options.threshold);
    const cacheA = new RowCache({ data: a.data, stride: a.stride, channels: c }, width);
    const cacheB = new RowCache({ data: b.data, stride: b.stride, channels: c }, width);
    const colourA = cacheA.colour;
    const colourB = cacheB.colour;
    const marks: Array<Uint8Array | undefined> = new Array(height);
    const cells = newCellGrid(width, height);
    let changed = 0;
    let antialiased = 0;
    const da = a.data;
    const db = b.data;
    for (const y of differing) {
      this.bRows(y - 2, y + 2);
      const ignored = ignoredSpans(options.ignore, y);
      const ra = cacheA.colours(y);
      const rb = cacheB.colours(y);
      let rowMarks: Uint8Array | undefined;
      for (let x = 0; x < width; x++) {
        if (colourA[ra + x] === colourB[rb + x]) continue;
        if (ignored && inSpans(ignored, x)) continue;
        const delta = colourDelta(da, y * a.stride + x * c, db, y * b.stride + x * c, c);
        if (delta <= maxDelta && delta >= -maxDelta) continue;
        if (!options.includeAA && (isAntialiased(cacheA, cacheB, x, y, width, height) || isAntialiased(cacheB, cacheA, x, y, width, height))) {
          (rowMarks ??= marks[y] = new Uint8Array(width))[x] = ANTIALIASED;
          antialiased++;
        } else {
          (rowMarks ??= marks[y] = new Uint8Array(width))[x] = CHANGED;
          changed++;
          markCell(cells, x, y);
        }
      }
    }
    return { width, height, changedPixels: changed, antiAliasedPixels: antialiased, marks, cells };
  }
}

/** The x spans [from, to) of the ignored rectangles crossing row y, or null. */
function ignoredSpans(ignore: Rect[], y: number): number[] | null {
  let spans: number[] | null = null;
  for (const r of ignore) {
    if (y < r.y || y >= r.y + r.height) continue;
    (spans ??= []).push(r.x, r.x + r.width);
  }
  return spans;
}

function inSpans(spans: number[], x: number): boolean {
  for (let i = 0; i < spans.length; i += 2) if (x >= spans[i] && x < spans[i + 1]) return true;
  return false;
}
