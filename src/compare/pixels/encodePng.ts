/**
 * A small PNG writer for the comparison's own images (the diff image and the
 * region tiles): the caller hands over scanlines already filtered (each row
 * its filter type byte first); this deflates them (on the thread pool) and
 * frames the chunks.
 */
import * as zlib from 'zlib';
import { promisify } from 'util';
import { pngChunk } from '../../png/chunk';
import { PNG_SIGNATURE } from '../../png/decode';

const deflateAsync = promisify(zlib.deflate);

export interface PngLayout {
  width: number;
  height: number;
  /** 2 RGB, 3 palette, 6 RGBA; always 8 bits per sample (or per index). */
  colorType: 2 | 3 | 6;
  /** RGB triples, for colour type 3. */
  palette?: Uint8Array;
}

export interface PngScanlines extends PngLayout {
  /** height × (1 + width × bytes per pixel). */
  scanlines: Buffer;
}

/** The PNG file around image data already deflated (a zlib stream of the scanlines). */
export function framePng(image: PngLayout, compressed: Buffer): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(image.width, 0);
  ihdr.writeUInt32BE(image.height, 4);
  ihdr[8] = 8;
  ihdr[9] = image.colorType;
  const parts = [PNG_SIGNATURE, pngChunk('IHDR', ihdr)];
  if (image.colorType === 3) parts.push(pngChunk('PLTE', image.palette!));
  parts.push(pngChunk('IDAT', compressed), pngChunk('IEND', Buffer.alloc(0)));
  return Buffer.concat(parts);
}

/**
 * The PNG file. `level` is zlib's (1 is fast and, on scanlines of a
 * screenshot, within a few percent of the default's size).
 */
export async function encodePng(image: PngScanlines, level = 1): Promise<Buffer> {
  return framePng(image, await deflateAsync(image.scanlines, { level, memLevel: 9 }));
}

/** Scanlines deflated on this thread, for the PNG's IDAT (`level` as for encodePng). */
export function deflateNow(scanlines: Uint8Array, level: number): Buffer {
  return zlib.deflateSync(scanlines, { level, memLevel: 9 });
}

/**
 * A zlib stream fed scanlines in bands while the next band is computed: each
 * band deflates on the thread pool while the caller works on the next one
 * (the caller yields to the event loop between bands, see `write`).
 */
export function bandDeflater(level: number): { write(band: Buffer): Promise<void>; end(): Promise<Buffer> } {
  const stream = zlib.createDeflate({ level, memLevel: 9, chunkSize: 256 * 1024 });
  const parts: Buffer[] = [];
  let failure: Error | null = null;
  stream.on('data', (part: Buffer) => parts.push(part));
  const done = new Promise<void>((resolve, reject) => {
    stream.on('end', resolve);
    stream.on('error', (err) => {
      failure = err;
      reject(err);
    });
  });
  done.catch(() => undefined); // reported by write or end
  return {
    async write(band) {
      if (failure) throw failure;
      stream.write(band);
      // Let the previous band's completion run, so the stream starts on this one.
      await new Promise<void>((resolve) => setImmediate(resolve));
    },
    async end() {
      stream.end();
      await done;
      return Buffer.concat(parts);
    },
  };
}

/** Scanlines with filter None from rows of `bytesPerPixel`-byte pixels, `stride` bytes apart. */
export function unfilteredScanlines(data: Uint8Array, width: number, height: number, bytesPerPixel: number, stride: number): Buffer {
  const rowBytes = width * bytesPerPixel;
  const out = Buffer.allocUnsafe(height * (rowBytes + 1));
  for (let y = 0; y < height; y++) {
    out[y * (rowBytes + 1)] = 0;
    out.set(data.subarray(y * stride, y * stride + rowBytes), y * (rowBytes + 1) + 1);
  }
  return out;
}
