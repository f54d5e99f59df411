/**
 * Pixels of one side of a comparison. A Chromium capture is unfiltered in
 * place, row by row on demand, in the buffer it was inflated into — for A,
 * the kernel memory it was copied to (kernels.ts: reused from comparison to
 * comparison, so its pages are not faulted in again; a fresh 30 MB buffer
 * costs more in page faults than the unfiltering itself): row y's pixel bytes
 * start at y × stride, stride being the stored row (its filter byte, then its
 * bytes), and the filter byte of row y sits just before them. The Up filter —
 * the one Chromium's encoder picks for nearly every row — is undone 16 bytes
 * at a time by the kernel, or four at a time here.
 */
import { unfilterRow } from '../../png/decode';
import type { KernelLease } from './kernels';
import type { PngForCompare } from './readPng';

export interface Raster {
  file: string;
  width: number;
  height: number;
  channels: 3 | 4;
  rowBytes: number;
  stride: number;
  /** Row y's pixel bytes at y × stride; valid once `ready[y]` is 1 (until then, still filtered). */
  data: Buffer;
  ready: Uint8Array;
  /** The inflated rows as stored (filter byte first), the same memory as `data`; null when decoded whole. */
  filtered: Buffer | null;
  /** The kernels, when `data` lies in their memory (kernels.ts): rows are then unfiltered and greyed 16 bytes at a time. */
  kernels: KernelLease | null;
}

/** The raster of a read PNG; `kernels`: the lease whose memory holds its bytes, if one does. */
export function rasterOf(png: PngForCompare, kernels: KernelLease | null = null): Raster {
  const base = { file: png.file, width: png.width, height: png.height, channels: png.channels, rowBytes: png.rowBytes };
  const data = png.pixels ?? png.filtered!;
  const leased = kernels && kernels.owns(data) ? kernels : null;
  if (png.pixels) return { ...base, stride: png.rowBytes, data: png.pixels, ready: new Uint8Array(png.height).fill(1), filtered: null, kernels: leased };
  const filtered = png.filtered!;
  return { ...base, stride: png.rowBytes + 1, data: filtered.subarray(1), ready: new Uint8Array(png.height), filtered, kernels: leased };
}

/** Unfilters row y in place; the row above must be ready (or y is 0). */
export function unfilterInPlace(r: Raster, y: number): void {
  const type = r.filtered![y * r.stride];
  const at = y * r.stride;
  if (type === 2) {
    if (y > 0 && r.kernels && r.stride >= 16) r.kernels.unfilterUp(r.data, at, r.stride, r.rowBytes);
    else if (y > 0) addRowAbove(r.data, at, r.stride, r.rowBytes);
  } else if (type !== 0) {
    const row = r.data.subarray(at, at + r.rowBytes);
    const above = y > 0 ? r.data.subarray(at - r.stride, at - r.stride + r.rowBytes) : null;
    unfilterRow(type, row, above, r.channels);
  }
  r.ready[y] = 1;
}

/**
 * Adds the row above into the row at `at`, bytewise mod 256, four bytes at a
 * time: the low 7 bits of each byte are added without carries crossing bytes,
 * then each byte's top bit is set from the two top bits.
 */
function addRowAbove(data: Buffer, at: number, stride: number, n: number): void {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const end = at + n;
  let i = at;
  for (; i + 4 <= end; i += 4) {
    const x = view.getUint32(i, true);
    const y = view.getUint32(i - stride, true);
    view.setUint32(i, ((x & 0x7f7f7f7f) + (y & 0x7f7f7f7f)) ^ ((x ^ y) & 0x80808080), true);
  }
  for (; i < end; i++) data[i] = (data[i] + data[i - stride]) & 0xff;
}

/** Unfilters every row not yet ready (each needs the one above), from `from` on. */
export function unfilterAll(r: Raster, from = 0): void {
  if (!r.filtered) return;
  for (let y = from; y < r.height; y++) if (!r.ready[y]) unfilterInPlace(r, y);
}

/** Whether rows ya of a and yb of b hold the same first `bytes` bytes. */
export function rowsEqual(a: Raster, ya: number, b: Raster, yb: number, bytes: number): boolean {
  const pa = ya * a.stride;
  const pb = yb * b.stride;
  return a.data.compare(b.data, pb, pb + bytes, pa, pa + bytes) === 0;
}
