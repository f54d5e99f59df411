/**
 * A small PNG reader for the images Chromium's screenshots produce: 8-bit
 * (or 16-bit) greyscale, RGB, grey+alpha or RGBA, not interlaced. It reads
 * the chunks, inflates the image data and can undo the row filters; it does
 * not interpret colour (the screenshot tiles are assembled byte for byte).
 */
import * as zlib from 'zlib';
import { EvidenceError } from '../common/errors';

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Channels per pixel for each colour type this reader accepts. */
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 4: 2, 6: 4 };

export interface PngHeader {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  /** Bytes per complete pixel (at least 1): the distance the Sub, Average and Paeth filters look back. */
  pixelBytes: number;
  /** Bytes of one row of pixels, without its filter byte. */
  rowBytes: number;
}

export class PngFormatError extends EvidenceError<'png-format'> {
  constructor(message: string) {
    super('png-format', `not a PNG this reader handles: ${message}`);
    this.name = 'PngFormatError';
  }
}

export interface PngChunk {
  type: string;
  data: Buffer;
}

/** The chunks of a PNG, in order (CRCs are checked). */
export function readChunks(png: Buffer): PngChunk[] {
  if (png.length < 8 || !png.subarray(0, 8).equals(PNG_SIGNATURE)) throw new PngFormatError('no PNG signature');
  const chunks: PngChunk[] = [];
  let at = 8;
  while (at + 12 <= png.length) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const end = at + 12 + length;
    if (end > png.length) throw new PngFormatError(`chunk ${type} runs past the end of the file`);
    const crc = png.readUInt32BE(at + 8 + length);
    if (zlib.crc32(png.subarray(at + 4, at + 8 + length)) !== crc) throw new PngFormatError(`chunk ${type} fails its CRC`);
    chunks.push({ type, data: png.subarray(at + 8, at + 8 + length) });
    at = end;
    if (type === 'IEND') return chunks;
  }
  throw new PngFormatError('the file ends before its IEND chunk');
}

export function parseHeader(ihdr: Buffer): PngHeader {
  if (ihdr.length !== 13) throw new PngFormatError('bad IHDR');
  const width = ihdr.readUInt32BE(0);
  const height = ihdr.readUInt32BE(4);
  const bitDepth = ihdr[8];
  const colorType = ihdr[9];
  const interlace = ihdr[12];
  const channels = CHANNELS[colorType];
  if (!channels) throw new PngFormatError(`colour type ${colorType}`);
  if (bitDepth !== 8 && bitDepth !== 16) throw new PngFormatError(`bit depth ${bitDepth}`);
  if (interlace !== 0) throw new PngFormatError('interlaced');
  if (width < 1 || height < 1) throw new PngFormatError('empty image');
  const pixelBytes = (channels * bitDepth) / 8;
  return { width, height, bitDepth, colorType, pixelBytes, rowBytes: width * pixelBytes };
}

export interface FilteredImage {
  header: PngHeader;
  /** height × (1 + rowBytes): each row's filter type byte, then its filtered bytes — as stored. */
  filtered: Buffer;
  /** Ancillary chunks between IHDR and the image data (colour space, gamma, pixel size…). */
  before: PngChunk[];
}

/** Header and the inflated, still filtered rows. */
export function inflateImage(png: Buffer): FilteredImage {
  const chunks = readChunks(png);
  const ihdr = chunks[0];
  if (!ihdr || ihdr.type !== 'IHDR') throw new PngFormatError('IHDR is not the first chunk');
  const header = parseHeader(ihdr.data);
  const idat = chunks.filter((c) => c.type === 'IDAT').map((c) => c.data);
  if (!idat.length) throw new PngFormatError('no image data');
  let filtered: Buffer;
  try {
    filtered = zlib.inflateSync(idat.length === 1 ? idat[0] : Buffer.concat(idat));
  } catch (err) {
    throw new PngFormatError(`the image data does not inflate (${(err as Error).message})`);
  }
  const expected = header.height * (header.rowBytes + 1);
  if (filtered.length !== expected) throw new PngFormatError(`image data holds ${filtered.length} bytes, ${expected} expected`);
  for (let y = 0; y < header.height; y++) {
    if (filtered[y * (header.rowBytes + 1)] > 4) throw new PngFormatError(`row ${y} has unknown filter type ${filtered[y * (header.rowBytes + 1)]}`);
  }
  const firstData = chunks.findIndex((c) => c.type === 'IDAT');
  const before = chunks.slice(1, firstData).filter((c) => c.type !== 'PLTE');
  return { header, filtered, before };
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

/**
 * Undoes one row's filter: `row` holds the filtered bytes and receives the
 * pixel bytes; `previous` is the row above, already unfiltered (null above
 * the first row, where the PNG rules read zeros).
 */
export function unfilterRow(type: number, row: Uint8Array, previous: Uint8Array | null, pixelBytes: number): void {
  const n = row.length;
  switch (type) {
    case 0:
      return;
    case 1:
      for (let i = pixelBytes; i < n; i++) row[i] = (row[i] + row[i - pixelBytes]) & 0xff;
      return;
    case 2:
      if (previous) for (let i = 0; i < n; i++) row[i] = (row[i] + previous[i]) & 0xff;
      return;
    case 3:
      for (let i = 0; i < n; i++) {
        const left = i >= pixelBytes ? row[i - pixelBytes] : 0;
        const up = previous ? previous[i] : 0;
        row[i] = (row[i] + ((left + up) >> 1)) & 0xff;
      }
      return;
    case 4:
      for (let i = 0; i < n; i++) {
        const left = i >= pixelBytes ? row[i - pixelBytes] : 0;
        const up = previous ? previous[i] : 0;
        const upLeft = previous && i >= pixelBytes ? previous[i - pixelBytes] : 0;
        row[i] = (row[i] + paeth(left, up, upLeft)) & 0xff;
      }
      return;
    default:
      throw new PngFormatError(`unknown filter type ${type}`);
  }
}

export interface DecodedImage {
  header: PngHeader;
  /** height × rowBytes pixel bytes, rows top to bottom. */
  pixels: Buffer;
}

/** Every pixel byte of a PNG (used to compare images and by tests). */
export function decodePng(png: Buffer): DecodedImage {
  const { header, filtered } = inflateImage(png);
  const { height, rowBytes, pixelBytes } = header;
  const pixels = Buffer.allocUnsafe(height * rowBytes);
  let previous: Buffer | null = null;
  for (let y = 0; y < height; y++) {
    const from = y * (rowBytes + 1);
    const row = pixels.subarray(y * rowBytes, (y + 1) * rowBytes);
    filtered.copy(row, 0, from + 1, from + 1 + rowBytes);
    unfilterRow(filtered[from], row, previous, pixelBytes);
    previous = row;
  }
  return { header, pixels };
}
