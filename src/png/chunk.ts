/** Writing PNG chunks: the one chunk framer for every PNG the project writes (the assembled screenshot, the comparison's images). */
import * as zlib from 'zlib';

/** One chunk: its length, type, data and the CRC of type and data. */
export function pngChunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  out.set(data, 8);
  out.writeUInt32BE(zlib.crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}
