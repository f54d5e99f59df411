/**
 * Pixel size of an image from its header bytes (PNG IHDR, JPEG SOF), so the
 * page can reserve each lazily loaded image's box and scale the probe's CSS
 * px boxes to image pixels without decoding anything.
 */
import * as fs from 'fs';

export interface ImageInfo {
  format: 'png' | 'jpeg';
  width: number;
  height: number;
}

const PNG_SIGNATURE = '89504e470d0a1a0a';

export function imageInfoOf(bytes: Buffer): ImageInfo | null {
  if (bytes.length >= 24 && bytes.subarray(0, 8).toString('hex') === PNG_SIGNATURE && bytes.subarray(12, 16).toString('latin1') === 'IHDR') {
    return { format: 'png', width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) return jpegInfo(bytes);
  return null;
}

/** Walks JPEG segments to the first start-of-frame marker. */
function jpegInfo(bytes: Buffer): ImageInfo | null {
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1];
    if (marker === 0xff) {
      at++;
      continue;
    }
    const length = bytes.readUInt16BE(at + 2);
    // SOF0..SOF15 except DHT (c4), JPG (c8) and DAC (cc).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { format: 'jpeg', height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    }
    at += 2 + length;
  }
  return null;
}

/** Reads only the first 64 KiB (a JPEG's frame header can follow large EXIF segments). */
export function imageInfoOfFile(file: string): ImageInfo | null {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const head = Buffer.alloc(65536);
    const n = fs.readSync(fd, head, 0, head.length, 0);
    return imageInfoOf(head.subarray(0, n));
  } catch {
    return null;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
