/**
 * Test images for the pixel comparison: RGBA drawings (rectangles, discs
 * with anti-aliased edges, noise, text-like strokes), written as PNGs by the
 * test's own writer (independent of src/): 8-bit RGB or RGBA with the five
 * filter types in turn row by row, and any other format (palettes, 1/2/4/16
 * bits, greys, tRNS, Adam7 interlacing). pngjs reads them back as the
 * oracle's decoder (pngjs writes too, but is slow under jest).
 */
import * as zlib from 'zlib';
import { PNG } from 'pngjs';
import pixelmatch from 'pixelmatch';

export interface Rgba {
  width: number;
  height: number;
  data: Buffer;
}

export function blank(width: number, height: number, rgb: [number, number, number] = [255, 255, 255], alpha = 255): Rgba {
  const data = Buffer.alloc(width * height * 4);
  for (let i = 0; i < width * height; i++) data.set([rgb[0], rgb[1], rgb[2], alpha], i * 4);
  return { width, height, data };
}

export function clone(img: Rgba): Rgba {
  return { width: img.width, height: img.height, data: Buffer.from(img.data) };
}

export function hex(colour: string): [number, number, number] {
  const v = parseInt(colour.replace('#', ''), 16);
  return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
}

export function fillRect(img: Rgba, x: number, y: number, w: number, h: number, rgb: [number, number, number], alpha = 255): Rgba {
  for (let yy = Math.max(0, y); yy < Math.min(img.height, y + h); yy++) {
    for (let xx = Math.max(0, x); xx < Math.min(img.width, x + w); xx++) img.data.set([rgb[0], rgb[1], rgb[2], alpha], (yy * img.width + xx) * 4);
  }
  return img;
}

/** A dark disc with anti-aliased edges (coverage sampled 4 × 4 per pixel) over what is there. */
export function disc(img: Rgba, cx: number, cy: number, r: number, rgb: [number, number, number] = [0, 0, 0]): Rgba {
  for (let y = Math.floor(cy - r - 1); y <= Math.ceil(cy + r + 1); y++) {
    for (let x = Math.floor(cx - r - 1); x <= Math.ceil(cx + r + 1); x++) {
      if (x < 0 || y < 0 || x >= img.width || y >= img.height) continue;
      let cover = 0;
      for (let sy = 0; sy < 4; sy++) for (let sx = 0; sx < 4; sx++) if ((x + (sx + 0.5) / 4 - cx) ** 2 + (y + (sy + 0.5) / 4 - cy) ** 2 <= r * r) cover++;
      if (!cover) continue;
      const o = (y * img.width + x) * 4;
      for (let c = 0; c < 3; c++) img.data[o + c] = Math.round(img.data[o + c] + ((rgb[c] - img.data[o + c]) * cover) / 16);
    }
  }
  return img;
}

/** Deterministic noise (a linear congruential generator), in a rectangle. */
export function noise(img: Rgba, x: number, y: number, w: number, h: number, seed: number, alpha = false): Rgba {
  let s = seed;
  const next = () => (s = (s * 1103515245 + 12345) & 0x7fffffff) >> 16;
  for (let yy = y; yy < y + h; yy++) {
    for (let xx = x; xx < x + w; xx++) {
      const o = (yy * img.width + xx) * 4;
      img.data[o] = next() & 255;
      img.data[o + 1] = next() & 255;
      img.data[o + 2] = next() & 255;
      if (alpha) img.data[o + 3] = next() & 255;
    }
  }
  return img;
}

/** Strokes like text: short runs of dark pixels with grey ends, in lines. */
export function strokes(img: Rgba, x: number, y: number, w: number, lines: number, seed: number): Rgba {
  let s = seed;
  const next = () => (s = (s * 1103515245 + 12345) & 0x7fffffff) >> 16;
  for (let l = 0; l < lines; l++) {
    let xx = x;
    const yy = y + l * 14;
    while (xx < x + w - 8) {
      const len = 2 + (next() % 6);
      const h = 6 + (next() % 4);
      fillRect(img, xx, yy + (10 - h), len, h, [30, 30, 30]);
      fillRect(img, xx + len, yy + (10 - h), 1, h, [150, 150, 150]);
      xx += len + 2 + (next() % 3);
    }
  }
  return img;
}

/** 8-bit RGBA (colour type 6) or RGB (2, alpha dropped), the row filters 0–4 in turn (or `filters`). */
export function pngOf(img: Rgba, colorType: 2 | 6 = 6, filters: number[] = [0, 1, 2, 3, 4]): Buffer {
  const channels = colorType === 6 ? 4 : 3;
  const rowBytes = img.width * channels;
  const out = Buffer.alloc(img.height * (rowBytes + 1));
  let prior = new Uint8Array(rowBytes);
  for (let y = 0; y < img.height; y++) {
    const raw = new Uint8Array(rowBytes);
    for (let x = 0; x < img.width; x++) for (let c = 0; c < channels; c++) raw[x * channels + c] = img.data[(y * img.width + x) * 4 + c];
    filterRow(raw, prior, channels, filters[y % filters.length], out, y * (rowBytes + 1));
    prior = raw;
  }
  return framed(img.width, img.height, 8, colorType, false, [], [zlib.deflateSync(out)]);
}

/** What pngjs hands pixelmatch for pngOf(img, colorType): the pixels, opaque when written as RGB. */
export function asDecoded(img: Rgba, colorType: 2 | 6): Rgba {
  if (colorType === 6) return img;
  const out = clone(img);
  for (let i = 3; i < out.data.length; i += 4) out.data[i] = 255;
  return out;
}

/** pixelmatch's count for two images of one size. */
export function pixelmatchCount(a: Rgba, b: Rgba, options: { threshold: number; includeAA?: boolean }): number {
  return pixelmatch(a.data, b.data, null, a.width, a.height, { threshold: options.threshold, includeAA: options.includeAA ?? false });
}

export function decodeWithPngjs(bytes: Buffer): Rgba {
  const png = PNG.sync.read(bytes);
  return { width: png.width, height: png.height, data: png.data };
}

/** The top-left width × height of an image (pixelmatch compares equal sizes only). */
export function crop(img: Rgba, width: number, height: number): Rgba {
  const out = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) img.data.copy(out, y * width * 4, y * img.width * 4, (y * img.width + width) * 4);
  return { width, height, data: out };
}

// --- a PNG writer for every colour type, bit depth, filter and interlace ---

export interface RawPngSpec {
  width: number;
  height: number;
  colorType: 0 | 2 | 3 | 4 | 6;
  bitDepth: 1 | 2 | 4 | 8 | 16;
  /** Samples per pixel, row-major, in the target colour type at its bit depth (a palette index for type 3). */
  samples: number[][];
  palette?: Array<[number, number, number]>;
  /** tRNS: alphas per palette entry (type 3), or the transparent colour's samples (types 0 and 2). */
  transparency?: number[];
  interlace?: boolean;
  /** The filter of row i is filters[i % filters.length] (default: 0 to 4 in turn). */
  filters?: number[];
}

const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
];

function crcChunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(zlib.crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

function paethOf(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

function filterRow(raw: Uint8Array, prior: Uint8Array, bpp: number, type: number, out: Buffer, at: number): void {
  out[at] = type;
  for (let i = 0; i < raw.length; i++) {
    const left = i >= bpp ? raw[i - bpp] : 0;
    const up = prior[i];
    const upLeft = i >= bpp ? prior[i - bpp] : 0;
    const predictor = type === 0 ? 0 : type === 1 ? left : type === 2 ? up : type === 3 ? (left + up) >> 1 : paethOf(left, up, upLeft);
    out[at + 1 + i] = (raw[i] - predictor) & 255;
  }
}

function framed(width: number, height: number, bitDepth: number, colorType: number, interlace: boolean, extra: Buffer[], idat: Buffer[]): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = bitDepth;
  ihdr[9] = colorType;
  ihdr[12] = interlace ? 1 : 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    crcChunk('IHDR', ihdr),
    ...extra,
    ...idat.map((d) => crcChunk('IDAT', d)),
    crcChunk('IEND', Buffer.alloc(0)),
  ]);
}

export function writeRawPng(spec: RawPngSpec): Buffer {
  const channels = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[spec.colorType];
  const bits = channels * spec.bitDepth;
  const bpp = Math.max(1, bits >> 3);
  const filters = spec.filters ?? [0, 1, 2, 3, 4];
  const passes = spec.interlace ? ADAM7 : [[0, 0, 1, 1]];
  const rows: Buffer[] = [];
  let rowIndex = 0;
  for (const [x0, y0, dx, dy] of passes) {
    const pw = x0 >= spec.width ? 0 : Math.ceil((spec.width - x0) / dx);
    const ph = y0 >= spec.height ? 0 : Math.ceil((spec.height - y0) / dy);
    if (!pw || !ph) continue;
    const rowBytes = Math.ceil((pw * bits) / 8);
    let prior = new Uint8Array(rowBytes);
    for (let py = 0; py < ph; py++) {
      const raw = new Uint8Array(rowBytes);
      for (let px = 0; px < pw; px++) {
        const s = spec.samples[(y0 + py * dy) * spec.width + x0 + px * dx];
        for (let c = 0; c < channels; c++) {
          const v = s[c];
          if (spec.bitDepth === 16) {
            raw[(px * channels + c) * 2] = v >> 8;
            raw[(px * channels + c) * 2 + 1] = v & 255;
          } else if (spec.bitDepth === 8) raw[px * channels + c] = v;
          else {
            const bit = (px * channels + c) * spec.bitDepth;
            raw[bit >> 3] |= v << (8 - spec.bitDepth - (bit & 7));
          }
        }
      }
      const row = Buffer.alloc(rowBytes + 1);
      filterRow(raw, prior, bpp, filters[rowIndex++ % filters.length], row, 0);
      rows.push(row);
      prior = raw;
    }
  }
  const extra: Buffer[] = [];
  if (spec.palette) extra.push(crcChunk('PLTE', Buffer.from(spec.palette.flat())));
  if (spec.transparency) {
    const t = spec.colorType === 3 ? Buffer.from(spec.transparency) : Buffer.alloc(spec.transparency.length * 2);
    if (spec.colorType !== 3) spec.transparency.forEach((v, i) => t.writeUInt16BE(v, i * 2));
    extra.push(crcChunk('tRNS', t));
  }
  // Two IDAT chunks, to be read as one stream.
  const deflated = zlib.deflateSync(Buffer.concat(rows));
  const half = deflated.length >> 1;
  return framed(spec.width, spec.height, spec.bitDepth, spec.colorType, !!spec.interlace, extra, [deflated.subarray(0, half), deflated.subarray(half)]);
}
