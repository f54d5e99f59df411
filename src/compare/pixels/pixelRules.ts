/**
 * The two per-pixel rules of pixelmatch (5.x), restated for rows `stride`
 * bytes apart of 3 (opaque RGB) or 4 (RGBA) bytes per pixel, so that a
 * count here equals pixelmatch's on the same pixels:
 *
 *  - colour delta: the squared distance in YIQ (Kotsarenko & Ramos, "Measuring
 *    perceived color difference using YIQ NTSC transmission color space in
 *    mobile applications"), weights 0.5053 / 0.299 / 0.1957, each colour
 *    first blended onto white by its alpha; a pixel differs when the delta
 *    exceeds 35215 × threshold² (35215 being the largest delta there is);
 *  - anti-aliasing (after Vyšniauskas, "Anti-aliased pixel and intensity
 *    slope detector", 2009): a differing pixel is anti-aliasing when, among
 *    its 8 neighbours in one image, at most 2 share its brightness (3 with
 *    the image edge counting as one), some are darker and some brighter, and
 *    the darkest or the brightest of them sits in a flat area (3 or more
 *    identical neighbours) in both images.
 *
 * Floating-point steps are taken in the same order as pixelmatch takes them,
 * so ties (equal brightness, the first darkest neighbour in column order)
 * fall the same way.
 */

/** The largest YIQ delta (black against white). */
export const MAX_YIQ_DELTA = 35215;

export function maxDeltaFor(threshold: number): number {
  return MAX_YIQ_DELTA * threshold * threshold;
}

const Y_R = 0.29889531;
const Y_G = 0.58662247;
const Y_B = 0.11448223;
const I_R = 0.59597799;
const I_G = 0.2741761;
const I_B = 0.32180189;
const Q_R = 0.21147017;
const Q_G = 0.52261711;
const Q_B = 0.31114694;

/** A channel blended onto white by alpha (0–1). */
function onWhite(c: number, alpha: number): number {
  return 255 + (c - 255) * alpha;
}

/**
 * The signed YIQ delta between pixel `pa` of a and `pb` of b (negative when
 * b's pixel is the lighter one, as pixelmatch signs it); 0 when equal.
 */
export function colourDelta(a: Uint8Array, pa: number, b: Uint8Array, pb: number, channels: number): number {
  let r1 = a[pa];
  let g1 = a[pa + 1];
  let b1 = a[pa + 2];
  let r2 = b[pb];
  let g2 = b[pb + 1];
  let b2 = b[pb + 2];
  if (channels === 4) {
    const a1 = a[pa + 3];
    const a2 = b[pb + 3];
    if (a1 === a2 && r1 === r2 && g1 === g2 && b1 === b2) return 0;
    if (a1 < 255) {
      const f = a1 / 255;
      r1 = onWhite(r1, f);
      g1 = onWhite(g1, f);
      b1 = onWhite(b1, f);
    }
    if (a2 < 255) {
      const f = a2 / 255;
      r2 = onWhite(r2, f);
      g2 = onWhite(g2, f);
      b2 = onWhite(b2, f);
    }
  } else if (r1 === r2 && g1 === g2 && b1 === b2) return 0;
  const y1 = r1 * Y_R + g1 * Y_G + b1 * Y_B;
  const y2 = r2 * Y_R + g2 * Y_G + b2 * Y_B;
  const y = y1 - y2;
  const i = r1 * I_R - g1 * I_G - b1 * I_B - (r2 * I_R - g2 * I_G - b2 * I_B);
  const q = r1 * Q_R - g1 * Q_G + b1 * Q_B - (r2 * Q_R - g2 * Q_G + b2 * Q_B);
  const delta = 0.5053 * y * y + 0.299 * i * i + 0.1957 * q * q;
  return y1 > y2 ? -delta : delta;
}

/**
 * An image as the rules read it: pixels `channels` bytes wide, rows `stride`
 * apart, row y at (y - top) × stride (`top` 0 for a whole image; a band of
 * rows handed to the rules worker starts at its first row).
 */
export interface PixelView {
  data: Uint8Array;
  stride: number;
  channels: number;
  top?: number;
}

/** Rows kept at once (a power of two above the 5 rows the anti-aliasing rule reads). */
const SLOTS = 8;

/**
 * Rows of one image around the row being compared, each pixel packed into
 * one integer (for equality) and its brightness Y blended onto white (for the
 * anti-aliasing rule): computed once per row, not once per neighbour visit.
 * Rows are asked for in increasing order, give or take two.
 */
export class RowCache {
  readonly colour: Int32Array;
  readonly luma: Float64Array;
  private readonly colourRow = new Int32Array(SLOTS).fill(-1);
  private readonly lumaRow = new Int32Array(SLOTS).fill(-1);
  private readonly top: number;

  constructor(
    private readonly view: PixelView,
    readonly width: number,
  ) {
    this.colour = new Int32Array(SLOTS * width);
    this.luma = new Float64Array(SLOTS * width);
    this.top = view.top ?? 0;
  }

  /** Offset of row y in `colour`, filled if needed. */
  colours(y: number): number {
    const slot = y & (SLOTS - 1);
    const base = slot * this.width;
    if (this.colourRow[slot] === y) return base;
    this.colourRow[slot] = y;
    const { data, stride, channels } = this.view;
    const out = this.colour;
    let p = (y - this.top) * stride;
    if (channels === 3) {
      for (let x = 0; x < this.width; x++, p += 3) out[base + x] = (data[p] << 16) | (data[p + 1] << 8) | data[p + 2];
    } else {
      for (let x = 0; x < this.width; x++, p += 4) out[base + x] = (data[p] << 24) | (data[p + 1] << 16) | (data[p + 2] << 8) | data[p + 3];
    }
    return base;
  }

  /** Offset of row y in `luma`, filled if needed. */
  lumas(y: number): number {
    const slot = y & (SLOTS - 1);
    const base = slot * this.width;
    if (this.lumaRow[slot] === y) return base;
    this.lumaRow[slot] = y;
    const { data, stride, channels } = this.view;
    const out = this.luma;
    let p = (y - this.top) * stride;
    for (let x = 0; x < this.width; x++, p += channels) {
      let r = data[p];
      let g = data[p + 1];
      let b = data[p + 2];
      if (channels === 4 && data[p + 3] < 255) {
        const f = data[p + 3] / 255;
        r = onWhite(r, f);
        g = onWhite(g, f);
        b = onWhite(b, f);
      }
      out[base + x] = r * Y_R + g * Y_G + b * Y_B;
    }
    return base;
  }
}

/** Whether (x, y) has 3 or more neighbours identical to it (the image edge counting as one). */
function hasManySiblings(img: RowCache, x: number, y: number, width: number, height: number): boolean {
  const x0 = x > 0 ? x - 1 : 0;
  const y0 = y > 0 ? y - 1 : 0;
  const x2 = x < width - 1 ? x + 1 : width - 1;
  const y2 = y < height - 1 ? y + 1 : height - 1;
  const colour = img.colour;
  const r0 = img.colours(y0);
  const r1 = img.colours(y);
  const r2 = img.colours(y2);
  const centre = colour[r1 + x];
  let same = x === x0 || x === x2 || y === y0 || y === y2 ? 1 : 0;
  // The order does not matter here: only whether three match.
  for (let nx = x0; nx <= x2; nx++) {
    if (y0 !== y && colour[r0 + nx] === centre && ++same > 2) return true;
    if (nx !== x && colour[r1 + nx] === centre && ++same > 2) return true;
    if (y2 !== y && colour[r2 + nx] === centre && ++same > 2) return true;
  }
  return false;
}

/**
 * Whether pixel (x, y) of `img` looks like anti-aliasing, `other` being the
 * other image of the pair. A neighbour counts as equal when its brightness
 * is (identical pixels included), as pixelmatch's brightness delta is 0.
 */
export function isAntialiased(img: RowCache, other: RowCache, x: number, y: number, width: number, height: number): boolean {
  const x0 = x > 0 ? x - 1 : 0;
  const y0 = y > 0 ? y - 1 : 0;
  const x2 = x < width - 1 ? x + 1 : width - 1;
  const y2 = y < height - 1 ? y + 1 : height - 1;
  const luma = img.luma;
  const r0 = img.lumas(y0);
  const r1 = img.lumas(y);
  const r2 = img.lumas(y2);
  const centre = luma[r1 + x];
  const edge = x === x0 || x === x2 || y === y0 || y === y2;
  let zeroes = edge ? 1 : 0;
  let min = 0;
  let max = 0;
  let minX = 0;
  let minY = 0;
  let maxX = 0;
  let maxY = 0;
  if (!edge) {
    // Inside the image: the 8 neighbours in pixelmatch's order (column by column, top to bottom), unrolled.
    for (let nx = x0; nx <= x2; nx++) {
      let delta = centre - luma[r0 + nx];
      if (delta === 0) {
        if (++zeroes > 2) return false;
      } else if (delta < min) {
        min = delta;
        minX = nx;
        minY = y0;
      } else if (delta > max) {
        max = delta;
        maxX = nx;
        maxY = y0;
      }
      if (nx !== x) {
        delta = centre - luma[r1 + nx];
        if (delta === 0) {
          if (++zeroes > 2) return false;
        } else if (delta < min) {
          min = delta;
          minX = nx;
          minY = y;
        } else if (delta > max) {
          max = delta;
          maxX = nx;
          maxY = y;
        }
      }
      delta = centre - luma[r2 + nx];
      if (delta === 0) {
        if (++zeroes > 2) return false;
      } else if (delta < min) {
        min = delta;
        minX = nx;
        minY = y2;
      } else if (delta > max) {
        max = delta;
        maxX = nx;
        maxY = y2;
      }
    }
  } else {
    for (let nx = x0; nx <= x2; nx++) {
      for (let ny = y0; ny <= y2; ny++) {
        if (nx === x && ny === y) continue;
        const delta = centre - luma[(ny === y0 ? r0 : ny === y ? r1 : r2) + nx];
        if (delta === 0) {
          if (++zeroes > 2) return false;
        } else if (delta < min) {
          min = delta;
          minX = nx;
          minY = ny;
        } else if (delta > max) {
          max = delta;
          maxX = nx;
          maxY = ny;
        }
      }
    }
  }
  if (min === 0 || max === 0) return false;
  return (
    (hasManySiblings(img, minX, minY, width, height) && hasManySiblings(other, minX, minY, width, height)) ||
    (hasManySiblings(img, maxX, maxY, width, height) && hasManySiblings(other, maxX, maxY, width, height))
  );
}
