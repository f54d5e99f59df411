/**
 * The pixel kernels (src/compare/pixels/kernels.wat, run by kernels.ts): each
 * (the Up filter, grey levels, marks) gives exactly the bytes of the rule it stands for — written out here
 * independently of src/ — on random data of every length and alignment; a
 * comparison gives the same result, diff image and tiles with the kernels as
 * with JavaScript alone (wasmKernels 'never'), for RGB and RGBA, every filter
 * type, narrow and odd widths, sizes that differ, and several comparisons at
 * once; pixelmatch's rules in the kernel mark, count and locate the same
 * pixels as in JavaScript (thresholds, anti-aliasing counted or not, ignored
 * rectangles); and a comparison the kernels cannot take still runs.
 */
import { comparePngBytes, type PixelComparison } from '../../src/compare/pixels';
import * as kernelsModule from '../../src/compare/pixels/kernels';
import { leaseKernels } from '../../src/compare/pixels/kernels';
import { blank, clone, disc, fillRect, noise, pixelmatchCount, pngOf, strokes, type Rgba } from './pixelFixtures';

afterEach(() => jest.restoreAllMocks());

/** A deterministic generator (a linear congruential one), bytes 0–255. */
function bytes(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) >> 16) & 255;
}

/** The diff image's grey level of one pixel: BT.601-like integer luma in 64 steps, a translucent pixel seen on white. */
function referenceLevel(r: number, g: number, b: number, a: number, base: number): number {
  const luma = 77 * r + 150 * g + 29 * b;
  const onWhite = a === 255 ? luma : Math.floor(65280 - ((65280 - luma) * a) / 255);
  return base + (onWhite >> 10);
}

describe('the kernels against the rules they stand for', () => {
  test('grey levels of RGB and RGBA pixels, every length from 0 to 70, at any alignment, with either base', () => {
    const lease = leaseKernels({ src: 4096, dst: 4096 })!;
    expect(lease).not.toBeNull();
    try {
      const { src, dst } = lease.regions;
      const next = bytes(7);
      for (const channels of [3, 4] as const) {
        for (let n = 0; n <= 70; n++) {
          for (const shift of [0, 1, 3, 5]) {
            for (const base of [0, 64]) {
              const at = shift;
              for (let i = 0; i < n * channels; i++) src[at + i] = next();
              if (channels === 4) for (let p = 0; p < n; p++) if (next() < 160) src[at + p * 4 + 3] = 255; // mostly opaque, as pages are
              dst.fill(0xee);
              lease.levels(src, at, n, channels, dst, 2 * shift + 1, base);
              const want = Array.from({ length: n }, (_, p) => {
                const o = at + p * channels;
                return referenceLevel(src[o], src[o + 1], src[o + 2], channels === 4 ? src[o + 3] : 255, base);
              });
              expect(Array.from(dst.subarray(2 * shift + 1, 2 * shift + 1 + n))).toEqual(want);
              expect(dst[2 * shift]).toBe(0xee); // nothing written before the start…
              expect(dst[2 * shift + 1 + n]).toBe(0xee); // …or past the end
            }
          }
        }
      }
    } finally {
      lease.release();
    }
  });

  test('every alpha value over a sweep of colours (the translucent rule, sixteen pixels at a time and one by one)', () => {
    const lease = leaseKernels({ src: 256 * 4 * 17, dst: 256 * 17 })!;
    try {
      const { src, dst } = lease.regions;
      for (let colour = 0; colour < 256; colour += 5) {
        let p = 0;
        for (let a = 0; a < 256; a++, p++) src.set([colour, 255 - colour, (colour * 7) & 255, a], p * 4);
        lease.levels(src, 0, 256, 4, dst, 0, 64);
        for (let a = 0; a < 256; a++) expect(dst[a]).toBe(referenceLevel(colour, 255 - colour, (colour * 7) & 255, a, 64));
      }
    } finally {
      lease.release();
    }
  });

  test('the Up filter undone: each byte plus the byte a stride before it, mod 256, for strides from 16 and any row length within one', () => {
    const lease = leaseKernels({ mem: 64 * 1024 })!;
    try {
      const { mem } = lease.regions;
      const next = bytes(11);
      for (let stride = 16; stride <= 90; stride += 7) {
        // A row is its filter byte and its bytes: at most stride - 1 of them.
        for (const n of [0, 1, 15, 16, 17, stride - 1].filter((k) => k < stride)) {
          const at = 100 + stride;
          for (let i = 0; i < 2 * stride + 40; i++) mem[100 + i] = next();
          const before = Buffer.from(mem.subarray(100, 100 + 2 * stride + 40));
          lease.unfilterUp(mem, at, stride, n);
          for (let i = 0; i < n; i++) expect(mem[at + i]).toBe((before[stride + i] + before[i]) & 255);
          expect(Buffer.compare(mem.subarray(at + n, 100 + 2 * stride + 40), before.subarray(stride + n))).toBe(0); // the rest untouched
          expect(Buffer.compare(mem.subarray(100, at), before.subarray(0, stride))).toBe(0); // the row above untouched
        }
      }
    } finally {
      lease.release();
    }
  });
});

test('the marks laid over a row: 1 becomes the changed colour, 2 the anti-aliased one, 0 leaves the grey level', () => {
  const lease = leaseKernels({ marks: 256, out: 256 })!;
  try {
    const { marks, out } = lease.regions;
    const next = bytes(5);
    for (let n = 0; n <= 70; n++) {
      for (const shift of [0, 3]) {
        for (let i = 0; i < 200; i++) {
          marks[i] = next() % 3;
          out[i] = next() & 63;
        }
        const before = Buffer.from(out);
        lease.overlayMarks(marks.subarray(shift), out, 7, n, 128, 129);
        for (let i = 0; i < 200; i++) {
          const x = i - 7;
          const mark = x >= 0 && x < n ? marks[shift + x] : 0;
          expect(out[i]).toBe(mark === 1 ? 128 : mark === 2 ? 129 : before[i]);
        }
      }
    }
  } finally {
    lease.release();
  }
});

describe('leases', () => {
  test('regions are disjoint, 16-byte aligned, named as asked and owned by their lease until it ends', () => {
    const lease = leaseKernels({ small: 10, none: 0, big: 1000, odd: 33 })!;
    const regions = Object.values(lease.regions);
    expect(Object.keys(lease.regions)).toEqual(['small', 'none', 'big', 'odd']);
    expect(regions.map((r) => r.length)).toEqual([10, 0, 1000, 33]);
    const spans = regions.map((r) => [r.byteOffset, r.byteOffset + r.length]);
    for (const [start] of spans) expect(start % 16).toBe(0);
    for (let i = 1; i < spans.length; i++) expect(spans[i][0]).toBeGreaterThanOrEqual(spans[i - 1][1]);
    expect(regions.every((r) => lease.owns(r))).toBe(true);
    expect(lease.owns(Buffer.alloc(16))).toBe(false);
    lease.release();
    expect(lease.owns(lease.regions.small)).toBe(false);
  });

  test('a released memory serves the next lease; one that grew past the kept size does not; sizes past the limit get none', () => {
    const first = leaseKernels({ m: 1 << 20 })!;
    const memory = first.regions.m.buffer;
    first.release();
    const second = leaseKernels({ m: 1 << 20 })!;
    expect(second.regions.m.buffer).toBe(memory); // the same memory, already grown
    const third = leaseKernels({ m: 1 << 20 })!; // while the second is out: a memory of its own
    expect(third.regions.m.buffer).not.toBe(memory);
    third.release();
    second.release();

    const big = leaseKernels({ m: 200 * 1024 * 1024 })!;
    const bigMemory = big.regions.m.buffer;
    big.release();
    const after = leaseKernels({ m: 16 })!;
    expect(after.regions.m.buffer).not.toBe(bigMemory);
    after.release();

    expect(leaseKernels({ m: 2 ** 31 })).toBeNull();
  });
});

/** A page-like drawing: text strokes, discs, noise and blocks, translucent where asked. */
function page(width: number, height: number, seed: number, translucent: boolean): Rgba {
  const img = blank(width, height, [250, 250, 250]);
  for (let y = 4, s = seed; y + 20 < height; y += 30, s++) strokes(img, 2, y, Math.max(1, width - 6), 3, s);
  if (width > 20) disc(img, width / 2, height / 3, Math.min(width, height) / 6);
  noise(img, 0, Math.floor(height / 2), Math.min(width, 40), Math.min(20, height - Math.floor(height / 2)), seed, translucent);
  if (translucent) fillRect(img, 1, 1, Math.max(1, width - 2), 6, [21, 101, 192], 128);
  return img;
}

function changed(img: Rgba, seed: number): Rgba {
  const out = clone(img);
  fillRect(out, Math.floor(img.width / 3), Math.floor(img.height / 2), Math.max(1, Math.floor(img.width / 4)), 9, [211, 47, 47]);
  disc(out, img.width / 4, (img.height * 3) / 4, 5 + (seed % 3));
  return out;
}

function sameAs(withKernels: PixelComparison, without: PixelComparison): void {
  expect(withKernels.result).toEqual(without.result);
  expect(withKernels.diffPng?.equals(without.diffPng!)).toBe(true);
  expect(withKernels.tiles.length).toBe(without.tiles.length);
  withKernels.tiles.forEach((t, i) => {
    expect(t.before.equals(without.tiles[i].before)).toBe(true);
    expect(t.after.equals(without.tiles[i].after)).toBe(true);
  });
}

describe('a comparison with the kernels and without', () => {
  const cases: Array<{ name: string; width: number; height: number; colorType: 2 | 6; filters?: number[]; translucent?: boolean }> = [
    { name: 'RGB, every filter type', width: 333, height: 120, colorType: 2 },
    { name: 'RGB, Up only (Chromium’s usual rows)', width: 640, height: 200, colorType: 2, filters: [2] },
    { name: 'RGBA with translucent pixels, every filter type', width: 257, height: 90, colorType: 6, translucent: true },
    { name: 'RGBA, Up only', width: 96, height: 64, colorType: 6, filters: [2, 2, 2, 1] },
    { name: 'a width of 5 (rows narrower than a vector)', width: 5, height: 40, colorType: 2 },
    { name: 'a width of 1, RGBA', width: 1, height: 33, colorType: 6, translucent: true },
    { name: 'a width of 17', width: 17, height: 50, colorType: 2, filters: [2] },
  ];
  test.each(cases)('$name: same result, diff image and tiles; counts equal pixelmatch’s', async ({ width, height, colorType, filters, translucent }) => {
    const a = page(width, height, 3, !!translucent);
    const b = changed(a, 3);
    const bytesA = pngOf(a, colorType, filters);
    const bytesB = pngOf(b, colorType, filters);
    const options = { diffImage: true, tiles: true } as const;
    const withKernels = await comparePngBytes(bytesA, bytesB, options);
    const without = await comparePngBytes(bytesA, bytesB, { ...options, wasmKernels: 'never' });
    sameAs(withKernels, without);
    expect(withKernels.result.changedPixels).toBe(pixelmatchCount(a, b, { threshold: 0 }));
  });

  test.each([
    { threshold: 0, includeAA: false },
    { threshold: 0.05, includeAA: false },
    { threshold: 0.1, includeAA: true },
    { threshold: 0, includeAA: true },
  ])(
    'pixelmatch’s rules in the kernel (threshold $threshold, includeAA $includeAA): same marks, counts and cells as in JavaScript, with ignored rectangles',
    async ({ threshold, includeAA }) => {
      for (const [colorType, translucent] of [
        [2, false],
        [6, true],
      ] as const) {
        const a = page(420, 260, 13, translucent);
        const b = changed(a, 13);
        strokes(b, 30, 200, 300, 2, 99); // a reflowed paragraph: many anti-aliased edges
        fillRect(b, 400, 0, 20, 260, [250, 250, 250], translucent ? 200 : 255);
        const bytesA = pngOf(a, colorType, [2, 2, 1, 4]);
        const bytesB = pngOf(b, colorType, [2, 3, 2, 0]);
        const ignore = [
          { x: 0, y: 0, width: 50, height: 50 },
          { x: 200, y: 120, width: 30, height: 400 },
        ];
        for (const options of [
          { threshold, includeAA },
          { threshold, includeAA, ignore },
        ]) {
          const withKernels = await comparePngBytes(bytesA, bytesB, { ...options, diffImage: true, tiles: true });
          const without = await comparePngBytes(bytesA, bytesB, { ...options, diffImage: true, tiles: true, wasmKernels: 'never' });
          sameAs(withKernels, without);
          if (!options.ignore) expect(withKernels.result.changedPixels).toBe(pixelmatchCount(a, b, { threshold, includeAA }));
          expect(withKernels.result.changedPixels + withKernels.result.antiAliasedPixels).toBeGreaterThan(0);
        }
      }
    },
  );

  test('sizes that differ (the extension drawn from each side)', async () => {
    const a = page(300, 160, 5, false);
    const b = changed(page(340, 120, 5, false), 5);
    for (const [x, y] of [
      [a, b],
      [b, a],
    ]) {
      const bytesX = pngOf(x, 2, [2, 0, 1]);
      const bytesY = pngOf(y, 2, [2, 4, 3]);
      sameAs(
        await comparePngBytes(bytesX, bytesY, { diffImage: true, tiles: true }),
        await comparePngBytes(bytesX, bytesY, { diffImage: true, tiles: true, wasmKernels: 'never' }),
      );
    }
  });

  test('three comparisons at once each get their own memory, and equal the same comparisons one by one', async () => {
    const pairs = [1, 2, 3].map((seed) => {
      const a = page(400 + seed * 10, 150, seed, seed === 2);
      return [pngOf(a, seed === 2 ? 6 : 2, [2]), pngOf(changed(a, seed), seed === 2 ? 6 : 2, [2])] as const;
    });
    const together = await Promise.all(pairs.map(([x, y]) => comparePngBytes(x, y, { diffImage: true, tiles: true })));
    for (let i = 0; i < pairs.length; i++)
      sameAs(together[i], await comparePngBytes(pairs[i][0], pairs[i][1], { diffImage: true, tiles: true, wasmKernels: 'never' }));
  });

  test('where no kernel memory can be had, the comparison runs in JavaScript with the same result', async () => {
    const a = page(200, 80, 9, false);
    const b = changed(a, 9);
    const bytesA = pngOf(a, 2, [2]);
    const bytesB = pngOf(b, 2, [2]);
    const withKernels = await comparePngBytes(bytesA, bytesB, { diffImage: true });
    const spy = jest.spyOn(kernelsModule, 'leaseKernels').mockReturnValue(null);
    const without = await comparePngBytes(bytesA, bytesB, { diffImage: true });
    expect(spy).toHaveBeenCalled();
    sameAs(withKernels, without);
  });

  test('wasmKernels takes only auto or never', async () => {
    const png = pngOf(blank(4, 4), 2);
    const other = pngOf(fillRect(blank(4, 4), 0, 0, 1, 1, [0, 0, 0]), 2);
    await expect(comparePngBytes(png, other, { wasmKernels: 'sometimes' as never })).rejects.toThrow("wasmKernels must be 'auto' or 'never' (got sometimes)");
  });
});
