/**
 * Builds one PNG from horizontal strips (tiles) of the same width and pixel
 * format, streaming: each tile is inflated, its rows go into one deflate
 * stream, and the tile is dropped before the next arrives — the whole bitmap
 * is never held, only the compressed result grows.
 *
 * A tile's rows keep the filters Chromium chose, which stay valid in the
 * joined image because a row's filter only reads that row and the one above
 * — except a tile's first row, filtered against an imagined row of zeros.
 * That row is unfiltered on its own (with no real row above, every filter
 * reduces to one that reads only its own row) and stored with the Sub filter,
 * which also reads only its own row, so it stays right under any row above.
 */
import * as zlib from 'zlib';
import { pngChunk } from './chunk';
import { PNG_SIGNATURE, PngFormatError, inflateImage, unfilterRow, type PngHeader } from './decode';

/** The Sub-filtered form of a row of pixel bytes, filter byte first. */
function subFiltered(pixels: Uint8Array, pixelBytes: number): Buffer {
  const out = Buffer.allocUnsafe(pixels.length + 1);
  out[0] = 1;
  for (let i = 0; i < pixels.length; i++) out[i + 1] = (pixels[i] - (i >= pixelBytes ? pixels[i - pixelBytes] : 0)) & 0xff;
  return out;
}

export class PngAssembler {
  private header: PngHeader | null = null;
  /** The first tile's chunks that describe colour (sRGB, iCCP, gAMA, pHYs…), kept in the result. */
  private ancillary: Array<{ type: string; data: Buffer }> = [];
  private rows = 0;
  private readonly compressed: Buffer[] = [];
  private readonly deflate: zlib.Deflate;
  private failure: Error | null = null;
  private finished = false;

  constructor(level = 6) {
    this.deflate = zlib.createDeflate({ level, chunkSize: 256 * 1024 });
    this.deflate.on('data', (data: Buffer) => this.compressed.push(data));
    this.deflate.on('error', (err) => (this.failure = err));
  }

  get height(): number {
    return this.rows;
  }

  /**
   * Appends a tile (a complete PNG of the next rows). `expectedRows`, when
   * given, is the height the tile must have for the next one to start at the
   * right row (a seam would otherwise repeat or lose a row).
   */
  async append(tilePng: Buffer, expectedRows?: number): Promise<void> {
    if (this.finished) throw new Error('PngAssembler already finished');
    const { header, filtered, before } = inflateImage(tilePng);
    if (!this.header) {
      this.header = header;
      this.ancillary = before.map((c) => ({ type: c.type, data: Buffer.from(c.data) }));
    } else if (header.width !== this.header.width || header.colorType !== this.header.colorType || header.bitDepth !== this.header.bitDepth) {
      throw new PngFormatError(
        `tile ${header.width}px wide (colour type ${header.colorType}, ${header.bitDepth}-bit) does not match the first tile ` +
          `(${this.header.width}px, colour type ${this.header.colorType}, ${this.header.bitDepth}-bit)`,
      );
    }
    if (expectedRows !== undefined && header.height !== expectedRows) {
      throw new PngFormatError(`a tile is ${header.height} rows tall where ${expectedRows} were asked for; the strips would not meet`);
    }
    const stride = header.rowBytes + 1;
    const first = Buffer.from(filtered.subarray(1, stride));
    unfilterRow(filtered[0], first, null, header.pixelBytes);
    await this.write(subFiltered(first, header.pixelBytes));
    if (header.height > 1) await this.write(filtered.subarray(stride));
    this.rows += header.height;
  }

  private write(data: Buffer): Promise<void> {
    return new Promise((resolve, reject) => {
      this.deflate.write(data, (err) => (err || this.failure ? reject(err ?? this.failure) : resolve()));
    });
  }

  /** The finished PNG. */
  async finish(): Promise<Buffer> {
    if (!this.header) throw new Error('no tile was appended');
    this.finished = true;
    await new Promise<void>((resolve, reject) => {
      this.deflate.once('end', resolve);
      this.deflate.once('error', reject);
      this.deflate.end();
    });
    if (this.failure) throw this.failure;
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(this.header.width, 0);
    ihdr.writeUInt32BE(this.rows, 4);
    ihdr[8] = this.header.bitDepth;
    ihdr[9] = this.header.colorType;
    const parts = [PNG_SIGNATURE, pngChunk('IHDR', ihdr), ...this.ancillary.map((c) => pngChunk(c.type, c.data))];
    // One IDAT per deflate output block keeps each chunk small; readers concatenate them.
    for (const data of this.compressed) parts.push(pngChunk('IDAT', data));
    this.compressed.length = 0;
    parts.push(pngChunk('IEND', Buffer.alloc(0)));
    return Buffer.concat(parts);
  }

  /** Stops early (a failed capture): releases the deflate stream. */
  abandon(): void {
    this.finished = true;
    this.compressed.length = 0;
    this.deflate.destroy();
  }
}
