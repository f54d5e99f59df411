/**
 * The PNG reader and the strip assembler on synthetic images: every filter
 * type, RGB and RGBA, 8 and 16 bits; strips joined into one image decode to
 * exactly the pixels of the whole; malformed input is refused, not guessed.
 */
import * as zlib from 'zlib';
import { decodePng, PNG_SIGNATURE, PngFormatError } from '../../src/png/decode';
import { PngAssembler } from '../../src/png/assemble';

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A seeded generator, so a failure reproduces. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

/** Encodes raw rows with the given filter per row — a test-side encoder independent of the code under test. */
function encode(
  width: number,
  height: number,
  channels: number,
  bitDepth: number,
  pixels: Buffer,
  filterOf: (y: number) => number,
  extra: Buffer[] = [],
): Buffer {
  const bpp = Math.max(1, (channels * bitDepth) / 8);
  const rowBytes = (width * channels * bitDepth) / 8;
  const out = Buffer.alloc(height * (rowBytes + 1));
  for (let y = 0; y < height; y++) {
    const type = filterOf(y);
    out[y * (rowBytes + 1)] = type;
    for (let i = 0; i < rowBytes; i++) {
      const x = pixels[y * rowBytes + i];
      const a = i >= bpp ? pixels[y * rowBytes + i - bpp] : 0;
      const b = y > 0 ? pixels[(y - 1) * rowBytes + i] : 0;
      const c = y > 0 && i >= bpp ? pixels[(y - 1) * rowBytes + i - bpp] : 0;
      const p = a + b - c;
      const pred = [
        0,
        a,
        b,
        (a + b) >> 1,
        Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c,
      ][type];
      out[y * (rowBytes + 1) + 1 + i] = (x - pred) & 0xff;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = bitDepth;
  ihdr[9] = { 1: 0, 2: 4, 3: 2, 4: 6 }[channels]!;
  const data = zlib.deflateSync(out);
  // Split the data over two IDAT chunks: readers must join them.
  const half = data.length >> 1;
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk('IHDR', ihdr),
    ...extra,
    chunk('IDAT', data.subarray(0, half)),
    chunk('IDAT', data.subarray(half)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A noisy image with smooth areas, so every filter has work to do. */
function image(width: number, height: number, channels: number, bitDepth: number, seed: number): Buffer {
  const next = random(seed);
  const rowBytes = (width * channels * bitDepth) / 8;
  const pixels = Buffer.alloc(height * rowBytes);
  for (let i = 0; i < pixels.length; i++) pixels[i] = next() < 0.3 ? Math.floor(next() * 256) : (i * 7 + (i / rowBytes) * 3) & 0xff;
  return pixels;
}

test.each([
  [3, 8],
  [4, 8],
  [1, 8],
  [2, 8],
  [3, 16],
])('decode: %i channels, %i-bit, every filter type', (channels, bitDepth) => {
  const width = 37;
  const height = 25;
  const pixels = image(width, height, channels, bitDepth, channels * 100 + bitDepth);
  const png = encode(width, height, channels, bitDepth, pixels, (y) => y % 5);
  const decoded = decodePng(png);
  expect(decoded.header).toMatchObject({ width, height, bitDepth });
  expect(decoded.pixels.equals(pixels)).toBe(true);
});

test.each([
  [3, [7, 7, 7, 3]],
  [4, [1, 9, 10, 4]],
  [3, [24]],
])('strips of a %i-channel image, %j rows each, join into exactly the whole image', async (channels, strips) => {
  const width = 53;
  const height = strips.reduce((a, b) => a + b, 0);
  const pixels = image(width, height, channels, 8, height * 31 + channels);
  const rowBytes = width * channels;
  const srgb = chunk('sRGB', Buffer.from([0]));
  const assembler = new PngAssembler();
  let y = 0;
  for (const [index, rows] of strips.entries()) {
    const part = pixels.subarray(y * rowBytes, (y + rows) * rowBytes);
    // Each strip starts with a filter that reads the row above: the assembler must not keep it as is.
    const tile = encode(width, rows, channels, 8, Buffer.from(part), (r) => (r === 0 ? 2 + (index % 3) : (r + index) % 5), [srgb]);
    await assembler.append(tile, index < strips.length - 1 ? rows : undefined);
    y += rows;
  }
  const joined = await assembler.finish();
  const decoded = decodePng(joined);
  expect(decoded.header).toMatchObject({ width, height });
  expect(decoded.pixels.equals(pixels)).toBe(true);
  // The first strip's colour-space chunk is kept.
  expect(joined.includes(Buffer.from('sRGB'))).toBe(true);
});

test('a strip of another width or format, or of the wrong height, is refused', async () => {
  const a = encode(4, 2, 3, 8, Buffer.alloc(24, 1), () => 0);
  const wider = encode(5, 2, 3, 8, Buffer.alloc(30, 1), () => 0);
  const rgba = encode(4, 2, 4, 8, Buffer.alloc(32, 1), () => 0);
  const assembler = new PngAssembler();
  await assembler.append(a, 2);
  await expect(assembler.append(wider)).rejects.toThrow(/does not match the first tile/);
  await expect(assembler.append(rgba)).rejects.toThrow(/does not match the first tile/);
  await expect(assembler.append(a, 3)).rejects.toThrow(/2 rows tall where 3 were asked for/);
  assembler.abandon();
});

test('broken input is refused with a reason', () => {
  const good = encode(4, 2, 3, 8, Buffer.alloc(24, 1), () => 0);
  expect(() => decodePng(Buffer.from('not a png'))).toThrow(PngFormatError);
  const badCrc = Buffer.from(good);
  badCrc[20] ^= 0xff; // inside IHDR
  expect(() => decodePng(badCrc)).toThrow(/fails its CRC/);
  expect(() => decodePng(good.subarray(0, good.length - 20))).toThrow(PngFormatError);
});
