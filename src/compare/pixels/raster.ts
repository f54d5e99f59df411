/**
 * Pixels of one side of a comparison, unfiltered row by row on demand.
 * Rows sit `stride` bytes apart (rowBytes rounded up to 4), so the Up filter
 * — the one Chromium's encoder picks for nearly every row — is undone four
 * bytes at a time.
 */
import { unfilterRow } from '../../png/decode';
import type { PngForCompare } from './readPng';

export interface Raster {
  file: string;
  width: number;
  height: number;
  channels: 3 | 4;
  rowBytes: number;
  stride: number;
  /** height × stride bytes; a row is valid once `ready[y]` is 1. */
  data: Buffer;
  /** `data` as 32-bit words (stride is a multiple of 4), for the Up filter. */
  words: Uint32Array;
  ready: Uint8Array;
  /** The inflated rows as stored (filter byte first), or null when `data` was decoded whole. */
  filtered: Buffer | null;
}

export function rasterOf(png: PngForCompare): Raster {
  const stride = (png.rowBytes + 3) & ~3;
  const ready = new Uint8Array(png.height);
  let data: Buffer;
  if (png.pixels) {
    if (stride === png.rowBytes) data = png.pixels;
    else {
      data = Buffer.allocUnsafe(png.height * stride);
      for (let y = 0; y < png.height; y++) png.pixels.copy(data, y * stride, y * png.rowBytes, (y + 1) * png.rowBytes);
    }
    ready.fill(1);
  } else data = Buffer.allocUnsafe(png.height * stride);
  // Node's pool hands out 8-byte-aligned slices, larger buffers start at 0; a copy if ever not.
  if (data.byteOffset % 4) data = Buffer.from(data);
  const words = new Uint32Array(data.buffer, data.byteOffset, data.length >> 2);
  return {
    file: png.file,
    width: png.width,
    height: png.height,
    channels: png.channels,
    rowBytes: png.rowBytes,
    stride,
    data,
    words,
    ready,
    filtered: png.filtered,
  };
}

/**
 * Unfilters row y; the row above must be ready (or y is 0). The filtered
 * bytes are copied into place, then the row above is added in.
 */
export function unfilterInPlace(r: Raster, y: number): void {
  const filtered = r.filtered!;
  const from = y * (r.rowBytes + 1);
  const type = filtered[from];
  const at = y * r.stride;
  r.data.set(filtered.subarray(from + 1, from + 1 + r.rowBytes), at);
  if (type === 2) {
    if (y > 0) addRowAbove(r.words, at >> 2, r.stride >> 2);
  } else if (type !== 0) {
    const row = r.data.subarray(at, at + r.rowBytes);
    const above = y > 0 ? r.data.subarray(at - r.stride, at - r.stride + r.rowBytes) : null;
    unfilterRow(type, row, above, r.channels);
  }
  r.ready[y] = 1;
}

/** Bytewise (mod 256) sum of the row starting at word `at` and the row above it, a 32-bit word at a time. */
function addRowAbove(words: Uint32Array, at: number, n: number): void {
  for (let i = at, end = at + n; i < end; i++) {
    const x = words[i];
    const y = words[i - n];
    // Adds the low 7 bits of each byte without carries crossing bytes, then sets each byte's top bit.
    words[i] = ((x & 0x7f7f7f7f) + (y & 0x7f7f7f7f)) ^ ((x ^ y) & 0x80808080);
  }
}

/** Unfilters every row not yet ready (each needs the one above). */
export function unfilterAll(r: Raster): void {
  if (!r.filtered) return;
  for (let y = 0; y < r.height; y++) if (!r.ready[y]) unfilterInPlace(r, y);
}

/** Whether rows ya of a and yb of b hold the same first `bytes` bytes. */
export function rowsEqual(a: Raster, ya: number, b: Raster, yb: number, bytes: number): boolean {
  const pa = ya * a.stride;
  const pb = yb * b.stride;
  return a.data.compare(b.data, pb, pb + bytes, pa, pa + bytes) === 0;
}
