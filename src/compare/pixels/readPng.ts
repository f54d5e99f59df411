/**
 * Reading a PNG for the pixel comparison. Chromium's captures (8-bit RGB or
 * RGBA, not interlaced) keep their filtered rows as inflated, so rows the two
 * sides share can be recognised without unfiltering them (see engine.ts);
 * every other valid PNG (greyscale, palette, grey+alpha, 1–16 bits, Adam7
 * interlace, tRNS) is decoded in full to 8-bit RGBA, as pngjs hands its
 * pixels to pixelmatch. A file that breaks the format gets an error naming
 * the file and what is wrong.
 */
import * as zlib from 'zlib';
import { EvidenceError } from '../../common/errors';
import { promisify } from 'util';
import { PNG_SIGNATURE, unfilterRow } from '../../png/decode';

const inflateAsync = promisify(zlib.inflate);
/** The largest inflate output buffer taken at once (a 1280 × 16,000 RGB capture fits). */
const MAX_CHUNK = 64 * 1024 * 1024;

/** Why a file cannot be compared: `file` names it (the path, or the caller's label for bytes). */
export class PixelInputError extends EvidenceError<'pixel-input'> {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super('pixel-input', `${file}: ${reason}`);
    this.name = 'PixelInputError';
  }
}

/** A file that is not a PNG this comparison can read, and why. */
export class PngInputError extends PixelInputError {
  constructor(file: string, what: string) {
    super(file, `not a readable PNG: ${what}`);
    this.name = 'PngInputError';
  }
}

/** Samples per pixel by colour type (PNG 1.2, table 11.1). */
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
/** Bit depths each colour type allows. */
const DEPTHS: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };

export interface PngHeaderInfo {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  interlaced: boolean;
}

/** Width and height from the IHDR chunk alone (no inflating), or null when the start of the file is not a PNG header. */
export function peekDimensions(bytes: Uint8Array): { width: number; height: number } | null {
  if (bytes.length < 24) return null;
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!buf.subarray(0, 8).equals(PNG_SIGNATURE) || buf.toString('latin1', 12, 16) !== 'IHDR') return null;
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

/**
 * An image ready for comparison: `rowBytes`-wide rows of 8-bit samples,
 * `channels` 3 (RGB, opaque) or 4 (RGBA) per pixel.
 *  - `filtered` (Chromium's layout): the inflated stream as stored, each row
 *    its filter type byte then `rowBytes` filtered bytes; pixels come from
 *    unfiltering (engine.ts).
 *  - `pixels`: every other PNG, decoded, rows `rowBytes` apart, no filter bytes.
 */
export interface PngForCompare {
  file: string;
  width: number;
  height: number;
  channels: 3 | 4;
  rowBytes: number;
  filtered: Buffer | null;
  pixels: Buffer | null;
}

interface Parsed {
  header: PngHeaderInfo;
  idat: Buffer;
  palette: Buffer | null;
  transparency: Buffer | null;
}

function parse(bytes: Buffer, file: string): Parsed {
  const fail = (reason: string): never => {
    throw new PngInputError(file, reason);
  };
  if (bytes.length < 8 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE)) fail('it does not start with the PNG signature');
  let at = 8;
  let header: PngHeaderInfo | null = null;
  let palette: Buffer | null = null;
  let transparency: Buffer | null = null;
  const idat: Buffer[] = [];
  let ended = false;
  while (!ended) {
    if (at + 12 > bytes.length)
      fail(at === bytes.length ? 'the file ends before its IEND chunk' : `the file is cut short at byte ${at} (a truncated chunk header)`);
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    if (!/^[A-Za-z]{4}$/.test(type)) fail(`bad chunk type at byte ${at}`);
    const end = at + 12 + length;
    if (end > bytes.length) fail(`chunk ${type} at byte ${at} runs past the end of the file (truncated)`);
    const data = bytes.subarray(at + 8, at + 8 + length);
    if (zlib.crc32(bytes.subarray(at + 4, at + 8 + length)) !== bytes.readUInt32BE(at + 8 + length))
      fail(`chunk ${type} at byte ${at} fails its CRC (corrupt)`);
    if (!header && type !== 'IHDR') fail('IHDR is not the first chunk');
    if (type === 'IHDR') {
      if (header) fail('more than one IHDR chunk');
      header = parseHeader(data, fail);
    } else if (type === 'PLTE') {
      if (length % 3 !== 0 || length === 0 || length > 768) fail(`PLTE of ${length} bytes (a multiple of 3, at most 768, expected)`);
      palette = data;
    } else if (type === 'tRNS') transparency = data;
    else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') ended = true;
    else if ((type.charCodeAt(0) & 0x20) === 0) fail(`unknown critical chunk ${type}`);
    at = end;
  }
  if (!header) return fail('no IHDR chunk');
  if (!idat.length) fail('no IDAT chunk (no image data)');
  if (header.colorType === 3 && !palette) fail('a palette image without a PLTE chunk');
  return { header, idat: idat.length === 1 ? idat[0] : Buffer.concat(idat), palette, transparency };
}

function parseHeader(data: Buffer, fail: (reason: string) => never): PngHeaderInfo {
  if (data.length !== 13) fail(`IHDR of ${data.length} bytes (13 expected)`);
  const width = data.readUInt32BE(0);
  const height = data.readUInt32BE(4);
  const bitDepth = data[8];
  const colorType = data[9];
  if (width === 0 || height === 0) fail(`an empty image (${width}×${height})`);
  if (width > 0x7fffffff || height > 0x7fffffff) fail(`dimensions ${width}×${height} out of range`);
  if (!(colorType in CHANNELS)) fail(`colour type ${colorType} (0, 2, 3, 4 or 6 expected)`);
  if (!DEPTHS[colorType].includes(bitDepth)) fail(`bit depth ${bitDepth} with colour type ${colorType} (allowed: ${DEPTHS[colorType].join(', ')})`);
  if (data[10] !== 0) fail(`compression method ${data[10]} (0 expected)`);
  if (data[11] !== 0) fail(`filter method ${data[11]} (0 expected)`);
  if (data[12] > 1) fail(`interlace method ${data[12]} (0 or 1 expected)`);
  // The comparison holds whole images in memory (RGBA); refuse what cannot fit one buffer.
  if (width * height * 4 > 2 ** 31 - 1) fail(`${width}×${height} pixels is more than this comparison holds in memory`);
  return { width, height, bitDepth, colorType, interlaced: data[12] === 1 };
}

/** Whether rows can stay filtered: 8-bit RGBA, or RGB without a transparent colour, not interlaced (Chromium's captures). */
function keepsFilteredRows({ header, transparency }: Parsed): boolean {
  return header.bitDepth === 8 && !header.interlaced && (header.colorType === 6 || (header.colorType === 2 && !transparency));
}

/**
 * Reads and inflates one PNG: `onThisThread` false inflates on the thread
 * pool, true on the calling thread. comparePng* inflate one side each way at
 * once: two cores busy, and only one hand-over to wait for (on a busy machine
 * every wake-up of a waiting thread costs).
 */
export async function readPngForCompare(bytes: Buffer, file: string, onThisThread = false): Promise<PngForCompare> {
  const parsed = parse(bytes, file);
  const size = inflatedSize(parsed.header);
  // One output buffer of the size the header implies (a little more, so the end of the stream is seen in it): no chunks to join.
  // More output than the header implies is refused early (a corrupt header, or a deflate bomb).
  const options = { chunkSize: Math.min(MAX_CHUNK, Math.max(64 * 1024, size + 1024)), maxOutputLength: size + 64 * 1024 };
  let inflated: Buffer;
  try {
    inflated = onThisThread ? zlib.inflateSync(parsed.idat, options) : await inflateAsync(parsed.idat, options);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      throw new PngInputError(file, `its image data inflates to more than the ${size} bytes its header implies`);
    throw new PngInputError(file, `its image data does not inflate (${(err as Error).message})`);
  }
  return imageOf(parsed, inflated, file);
}

function imageOf(parsed: Parsed, inflated: Buffer, file: string): PngForCompare {
  const { header } = parsed;
  if (keepsFilteredRows(parsed)) {
    const channels = header.colorType === 6 ? 4 : 3;
    const rowBytes = header.width * channels;
    const expected = header.height * (rowBytes + 1);
    if (inflated.length < expected) throw new PngInputError(file, `its image data holds ${inflated.length} bytes, ${expected} expected (truncated)`);
    for (let y = 0, at = 0; y < header.height; y++, at += rowBytes + 1) {
      if (inflated[at] > 4) throw new PngInputError(file, `row ${y} has filter type ${inflated[at]} (0–4 expected)`);
    }
    return { file, width: header.width, height: header.height, channels, rowBytes, filtered: inflated, pixels: null };
  }
  const pixels = decodeToRgba(parsed, inflated, file);
  return { file, width: header.width, height: header.height, channels: 4, rowBytes: header.width * 4, filtered: null, pixels };
}

/** Bytes of the inflated image data: per pass, per row, its filter byte and its packed pixels. */
function inflatedSize(h: PngHeaderInfo): number {
  const bitsPerPixel = CHANNELS[h.colorType] * h.bitDepth;
  let total = 0;
  for (const [x0, y0, dx, dy] of h.interlaced ? ADAM7 : WHOLE) {
    const passWidth = x0 >= h.width ? 0 : Math.ceil((h.width - x0) / dx);
    const passHeight = y0 >= h.height ? 0 : Math.ceil((h.height - y0) / dy);
    if (passWidth && passHeight) total += passHeight * (1 + Math.ceil((passWidth * bitsPerPixel) / 8));
  }
  return total;
}

/** The seven Adam7 passes: [x start, y start, x step, y step]; a non-interlaced image is one pass of step 1. */
const ADAM7: ReadonlyArray<readonly [number, number, number, number]> = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
];
const WHOLE: ReadonlyArray<readonly [number, number, number, number]> = [[0, 0, 1, 1]];

/**
 * Every pixel as 8-bit RGBA, with pngjs's conversions (what pixelmatch sees
 * through it): samples of other depths scaled to 0–255 rounding half up,
 * palette entries with their tRNS alpha, and a tRNS colour key turning the
 * matching pixels (compared at the native depth) into transparent black.
 */
function decodeToRgba({ header, palette, transparency }: Parsed, inflated: Buffer, file: string): Buffer {
  const { width, height, bitDepth, colorType } = header;
  const channels = CHANNELS[colorType];
  const bitsPerPixel = channels * bitDepth;
  const pixelBytes = Math.max(1, bitsPerPixel >> 3);
  const out = Buffer.alloc(width * height * 4);
  const maxSample = (1 << bitDepth) - 1;
  const scale = (v: number) => (bitDepth === 8 ? v : Math.floor((v * 255) / maxSample + 0.5));
  const key = transparency && colorType !== 3 ? readColourKey(transparency, colorType) : null;
  const entries = palette ? palette.length / 3 : 0;
  let at = 0;
  for (const [x0, y0, dx, dy] of header.interlaced ? ADAM7 : WHOLE) {
    const passWidth = x0 >= width ? 0 : Math.ceil((width - x0) / dx);
    const passHeight = y0 >= height ? 0 : Math.ceil((height - y0) / dy);
    if (!passWidth || !passHeight) continue;
    const rowBytes = Math.ceil((passWidth * bitsPerPixel) / 8);
    let previous: Uint8Array | null = null;
    for (let py = 0; py < passHeight; py++) {
      if (at + 1 + rowBytes > inflated.length) throw new PngInputError(file, `its image data ends in row ${y0 + py * dy} (truncated)`);
      const type = inflated[at];
      if (type > 4) throw new PngInputError(file, `row ${y0 + py * dy} has filter type ${type} (0–4 expected)`);
      const row = Buffer.from(inflated.subarray(at + 1, at + 1 + rowBytes));
      unfilterRow(type, row, previous, pixelBytes);
      previous = row;
      at += 1 + rowBytes;
      const y = y0 + py * dy;
      for (let px = 0; px < passWidth; px++) {
        const o = (y * width + x0 + px * dx) * 4;
        const sample = (c: number): number => {
          if (bitDepth === 8) return row[px * channels + c];
          if (bitDepth === 16) return (row[(px * channels + c) * 2] << 8) | row[(px * channels + c) * 2 + 1];
          const bit = (px * channels + c) * bitDepth;
          return (row[bit >> 3] >> (8 - bitDepth - (bit & 7))) & maxSample;
        };
        if (colorType === 3) {
          const index = sample(0);
          if (index >= entries) throw new PngInputError(file, `pixel (${x0 + px * dx}, ${y}) uses palette index ${index}; the palette has ${entries} entries`);
          out[o] = palette![index * 3];
          out[o + 1] = palette![index * 3 + 1];
          out[o + 2] = palette![index * 3 + 2];
          out[o + 3] = transparency && index < transparency.length ? transparency[index] : 255;
          continue;
        }
        const grey = colorType === 0 || colorType === 4;
        const r = sample(0);
        const g = grey ? r : sample(1);
        const b = grey ? r : sample(2);
        if (key && r === key[0] && g === key[1] && b === key[2]) continue; // transparent black (the buffer starts zeroed)
        out[o] = scale(r);
        out[o + 1] = scale(g);
        out[o + 2] = scale(b);
        out[o + 3] = colorType === 4 ? scale(sample(1)) : colorType === 6 ? scale(sample(3)) : 255;
      }
    }
  }
  return out;
}

function readColourKey(trns: Buffer, colorType: number): [number, number, number] | null {
  if (colorType === 0 && trns.length >= 2) {
    const v = trns.readUInt16BE(0);
    return [v, v, v];
  }
  if (colorType === 2 && trns.length >= 6) return [trns.readUInt16BE(0), trns.readUInt16BE(2), trns.readUInt16BE(4)];
  return null;
}
