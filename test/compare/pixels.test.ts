/**
 * The screenshot pixel comparison (src/compare/pixels/) on generated PNGs:
 * counts equal to pixelmatch's (pngjs-decoded, same threshold) on synthetic
 * pairs, the byte-identical short cut (proved by corrupt files that are
 * equal), sizes that differ, anti-aliasing apart from changes, the default
 * threshold against a one-step palette change, ignored rectangles, regions,
 * the diff image and the tiles, every PNG format decoded as pngjs decodes it,
 * clear errors naming the file, the result's schema, and the bundle.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as zlib from 'zlib';
import * as esbuild from 'esbuild';
import {
  comparePngBytes,
  comparePngFiles,
  pixelComparisonSchema,
  DEFAULT_PIXEL_THRESHOLD,
  DIFF_COLOURS,
  PngInputError,
  PixelInputError,
  type PixelComparison,
} from '../../src/compare/pixels';
import {
  asDecoded,
  blank,
  clone,
  crop,
  decodeWithPngjs,
  disc,
  fillRect,
  hex,
  noise,
  pixelmatchCount,
  pngOf,
  strokes,
  writeRawPng,
  type Rgba,
  type RawPngSpec,
} from './pixelFixtures';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-compare-pixels-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A page-like drawing: bands, strokes like text, discs, a noisy picture. */
function page(width: number, height: number): Rgba {
  const img = blank(width, height, [245, 245, 245]);
  fillRect(img, 0, 0, width, 40, hex('#0d47a1'));
  strokes(img, 10, 60, width - 20, 6, 3);
  fillRect(img, 20, 160, 90, 30, hex('#1565c0'));
  disc(img, width - 40, 190, 14);
  noise(img, 30, 220, 40, 30, 9);
  strokes(img, 10, height - 60, width - 20, 3, 5);
  return img;
}

let pairsMade: Array<[string, Rgba, Rgba]> | null = null;
function changedPairs(): Array<[string, Rgba, Rgba]> {
  return (pairsMade ??= drawChangedPairs());
}

function drawChangedPairs(): Array<[string, Rgba, Rgba]> {
  const a = page(200, 300);
  const pairs: Array<[string, Rgba, Rgba]> = [];
  pairs.push(['a colour step', a, fillRect(clone(a), 20, 160, 90, 30, hex('#1976d2'))]);
  pairs.push(['text redrawn', a, strokes(fillRect(clone(a), 10, 60, 180, 84, [245, 245, 245]), 10, 60, 180, 6, 4)]);
  pairs.push(['a disc moved by a fraction of a pixel', a, disc(fillRect(clone(a), 140, 170, 60, 40, [245, 245, 245]), 200 - 40.4, 190.3, 14)]);
  pairs.push(['noise re-rolled', a, noise(clone(a), 30, 220, 40, 30, 10)]);
  pairs.push(['a change on the last rows and columns', a, fillRect(clone(a), 190, 290, 10, 10, [0, 0, 0])]);
  pairs.push(['the header colour', a, fillRect(clone(a), 0, 0, 200, 40, hex('#1565c0'))]);
  return pairs;
}

describe('counts equal pixelmatch (pngjs-decoded) at the same threshold', () => {
  const cases: Array<[string, number, boolean, 2 | 6]> = [];
  for (const threshold of [0, 0.05, 0.1, 0.3])
    for (const includeAA of [false, true]) cases.push([`threshold ${threshold}, includeAA ${includeAA}`, threshold, includeAA, 2]);
  cases.push(['RGBA files, threshold 0', 0, false, 6]);
  cases.push(['RGBA files, threshold 0.1', 0.1, false, 6]);

  test.each(cases)('%s', async (_title, threshold, includeAA, colorType) => {
    for (const [what, a, b] of changedPairs()) {
      const pa = pngOf(a, colorType);
      const pb = pngOf(b, colorType);
      const { result } = await comparePngBytes(pa, pb, { threshold, includeAA });
      const expected = pixelmatchCount(asDecoded(a, colorType), asDecoded(b, colorType), { threshold, includeAA });
      expect({ what, changed: result.changedPixels }).toEqual({ what, changed: expected });
      expect(result.status).toBe(expected > 0 ? 'changed' : 'unchanged');
      if (includeAA) expect(result.antiAliasedPixels).toBe(0);
    }
  });

  test('translucent pixels (alpha blended onto white, as pixelmatch does)', async () => {
    const a = noise(blank(64, 48, [255, 255, 255], 128), 0, 0, 64, 48, 11, true);
    const b = noise(clone(a), 10, 10, 30, 20, 12, true);
    fillRect(b, 40, 30, 10, 10, [0, 0, 0], 40);
    const pa = pngOf(a);
    const pb = pngOf(b);
    for (const threshold of [0, 0.1]) {
      const { result } = await comparePngBytes(pa, pb, { threshold });
      expect(result.changedPixels).toBe(pixelmatchCount(a, b, { threshold }));
    }
  });

  test('an RGB file against an RGBA file of the same pixels is unchanged; changes still counted', async () => {
    const a = page(120, 90);
    const same = await comparePngBytes(pngOf(a, 2), pngOf(a, 6));
    expect(same.result).toMatchObject({ status: 'unchanged', identicalBytes: false, changedPixels: 0, antiAliasedPixels: 0 });
    const b = fillRect(clone(a), 5, 50, 20, 20, [200, 0, 0]);
    const changed = await comparePngBytes(pngOf(a, 2), pngOf(b, 6));
    expect(changed.result.changedPixels).toBe(pixelmatchCount(a, b, { threshold: 0 }));
  });

  test('the oracle reads what the fixtures write: pngjs decodes them to the drawn pixels', () => {
    const img = changedPairs()[3][2];
    expect(decodeWithPngjs(pngOf(img, 6)).data.equals(img.data)).toBe(true);
    expect(decodeWithPngjs(pngOf(img, 2)).data.equals(asDecoded(img, 2).data)).toBe(true);
  });
});

describe('byte-identical files', () => {
  test('are unchanged without being decoded: two equal corrupt files compare as unchanged', async () => {
    const corrupt = Buffer.concat([pngOf(page(40, 30)).subarray(0, 60), Buffer.from('not the rest of a PNG')]);
    const a = path.join(dir, 'corrupt-a.png');
    const b = path.join(dir, 'corrupt-b.png');
    fs.writeFileSync(a, corrupt);
    fs.writeFileSync(b, corrupt);
    const { result, diffPng } = await comparePngFiles(a, b, { diffImage: path.join(dir, 'never.png') });
    expect(result).toMatchObject({ status: 'unchanged', identicalBytes: true, changedPixels: 0, comparedArea: null, diffImage: null });
    // The size is read from the header alone.
    expect(result.a).toEqual({ file: a, width: 40, height: 30, bytes: corrupt.length });
    expect(diffPng).toBeNull();
    expect(fs.existsSync(path.join(dir, 'never.png'))).toBe(false);
    // The same bytes with one byte changed are decoded, and refused.
    const other = Buffer.from(corrupt);
    other[other.length - 1] ^= 1;
    fs.writeFileSync(b, other);
    await expect(comparePngFiles(a, b)).rejects.toThrow(PngInputError);
  });

  test('equal pixels in different bytes are decoded and unchanged, not identical', async () => {
    const img = page(80, 60);
    const { result } = await comparePngBytes(pngOf(img, 2), writeRawPng({ width: 80, height: 60, colorType: 6, bitDepth: 8, samples: pixelsOf(img) }));
    expect(result).toMatchObject({ status: 'unchanged', identicalBytes: false, changedPixels: 0, comparedArea: { width: 80, height: 60 } });
  });
});

function pixelsOf(img: Rgba): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < img.width * img.height; i++) out.push([...img.data.subarray(i * 4, i * 4 + 4)]);
  return out;
}

describe('images of different sizes', () => {
  test('are aligned at the top left: the overlap compared as pixelmatch compares it, the extension reported', async () => {
    const a = page(200, 300);
    const b = fillRect(page(200, 360), 20, 160, 90, 30, hex('#d32f2f'));
    const pa = pngOf(a);
    const pb = pngOf(b);
    const { result, diffPng } = await comparePngBytes(pa, pb, { diffImage: true });
    const overlap = pixelmatchCount(crop(a, 200, 300), crop(b, 200, 300), { threshold: 0 });
    expect(overlap).toBeGreaterThan(0);
    expect(result).toMatchObject({
      status: 'changed',
      comparedArea: { width: 200, height: 300 },
      changedPixels: overlap,
      extension: { pixels: 200 * 60, rects: [{ side: 'b', x: 0, y: 300, width: 200, height: 60 }] },
    });
    expect(result.regions.filter((r) => r.kind === 'extension')).toEqual([
      { kind: 'extension', side: 'b', x: 0, y: 300, width: 200, height: 60, changedPixels: 12000 },
    ]);
    const diff = decodeWithPngjs(diffPng!);
    expect([diff.width, diff.height]).toEqual([200, 360]);
  });

  test('a wider A and a taller B: each side its own strip, the corner neither has left white', async () => {
    const a = page(220, 200);
    const b = page(200, 260);
    const { result, diffPng } = await comparePngBytes(pngOf(a), pngOf(b), { diffImage: true });
    expect(result.extension).toEqual({
      pixels: 20 * 200 + 200 * 60,
      rects: [
        { side: 'a', x: 200, y: 0, width: 20, height: 200 },
        { side: 'b', x: 0, y: 200, width: 200, height: 60 },
      ],
    });
    expect(result.status).toBe('changed');
    const diff = decodeWithPngjs(diffPng!);
    expect([diff.width, diff.height]).toEqual([220, 260]);
    expect([...diff.data.subarray((259 * 220 + 219) * 4, (259 * 220 + 219) * 4 + 3)]).toEqual([...DIFF_COLOURS.empty]);
  });

  test('the same content, one page longer: only the extension changed', async () => {
    const a = page(100, 150);
    const b = blank(100, 180, [245, 245, 245]);
    a.data.copy(b.data);
    const { result } = await comparePngBytes(pngOf(a, 2), pngOf(b, 2));
    expect(result).toMatchObject({ status: 'changed', changedPixels: 0, extension: { pixels: 3000 } });
  });
});

describe('anti-aliasing', () => {
  test('an anti-aliased edge moved by a fraction of a pixel is not a change', async () => {
    const a = disc(blank(64, 64), 32, 32, 12);
    const b = disc(blank(64, 64), 32.25, 32.25, 12);
    const pa = pngOf(a, 2);
    const pb = pngOf(b, 2);
    const { result } = await comparePngBytes(pa, pb);
    expect(result).toMatchObject({ status: 'unchanged', changedPixels: 0, regions: [] });
    expect(result.antiAliasedPixels).toBeGreaterThan(20);
    // Counted as changes when asked to, as pixelmatch counts them.
    const included = await comparePngBytes(pa, pb, { includeAA: true });
    expect(included.result.changedPixels).toBe(pixelmatchCount(a, b, { threshold: 0, includeAA: true }));
    expect(pixelmatchCount(a, b, { threshold: 0 })).toBe(0);
    expect(included.result.changedPixels).toBe(result.antiAliasedPixels);
  });
});

describe('the default threshold', () => {
  test('catches a one-step palette change (#1565c0 → #1976d2) that pixelmatch misses at its default 0.1', async () => {
    const imgA = fillRect(blank(120, 60), 10, 10, 100, 40, hex('#1565c0'));
    const imgB = fillRect(blank(120, 60), 10, 10, 100, 40, hex('#1976d2'));
    const a = pngOf(imgA, 2);
    const b = pngOf(imgB, 2);
    const { result } = await comparePngBytes(a, b);
    expect(result.threshold).toBe(DEFAULT_PIXEL_THRESHOLD);
    expect(result).toMatchObject({ status: 'changed', changedPixels: 4000 });
    expect(result.regions).toEqual([{ kind: 'pixels', x: 10, y: 10, width: 100, height: 40, changedPixels: 4000 }]);
    expect(pixelmatchCount(imgA, imgB, { threshold: 0.1 })).toBe(0);
    expect(pixelmatchCount(imgA, imgB, { threshold: 0.05 })).toBe(4000);
    // A near-white grey step and a one-level step too.
    for (const [from, to] of [
      ['#f5f5f5', '#fafafa'],
      ['#ffffff', '#fefefe'],
    ]) {
      const one = pngOf(fillRect(blank(40, 40, hex(from)), 0, 0, 40, 40, hex(from)), 2);
      const two = pngOf(fillRect(blank(40, 40, hex(from)), 10, 10, 20, 20, hex(to)), 2);
      expect((await comparePngBytes(one, two)).result.changedPixels).toBe(400);
    }
  });
});

describe('ignored rectangles', () => {
  const a = page(200, 300);
  const b = noise(fillRect(clone(a), 20, 160, 90, 30, hex('#d32f2f')), 30, 220, 40, 30, 99);

  test('leave their pixels out of the count and the regions', async () => {
    const all = (await comparePngBytes(pngOf(a), pngOf(b))).result;
    expect(all.regions.filter((r) => r.kind === 'pixels')).toHaveLength(2);
    const { result } = await comparePngBytes(pngOf(a), pngOf(b), { ignore: [{ x: 25, y: 215, width: 50, height: 40 }] });
    expect(result.changedPixels).toBe(90 * 30);
    expect(result.regions).toEqual([{ kind: 'pixels', x: 20, y: 160, width: 90, height: 30, changedPixels: 2700 }]);
    expect(result.ignored).toEqual([{ x: 25, y: 215, width: 50, height: 40 }]);
    const none = await comparePngBytes(pngOf(a), pngOf(b), {
      ignore: [
        { x: 0, y: 150, width: 200, height: 45 },
        { x: 25, y: 215, width: 50, height: 40 },
      ],
    });
    expect(none.result).toMatchObject({ status: 'unchanged', changedPixels: 0, regions: [] });
  });

  test('are clipped to the compared area; one that covers half a change counts the other half', async () => {
    const { result } = await comparePngBytes(pngOf(a), pngOf(fillRect(clone(a), 20, 160, 90, 30, hex('#d32f2f'))), {
      ignore: [
        { x: 20, y: 160, width: 45, height: 30 },
        { x: 190, y: 290, width: 500, height: 500 },
      ],
    });
    expect(result.changedPixels).toBe(45 * 30);
    expect(result.ignored).toEqual([
      { x: 20, y: 160, width: 45, height: 30 },
      { x: 190, y: 290, width: 10, height: 10 },
    ]);
  });

  test('must be whole rectangles: a bad one is refused, naming it', async () => {
    await expect(comparePngBytes(pngOf(a), pngOf(b), { ignore: [{ x: 0, y: 0, width: 0, height: 3 }] })).rejects.toThrow(
      'ignore[0].width must be an integer of at least 1 (got 0)',
    );
    await expect(comparePngBytes(pngOf(a), pngOf(b), { threshold: 1.5 })).rejects.toThrow('threshold must be a number from 0 to 1 (got 1.5)');
  });
});

describe('regions', () => {
  test('changes far apart are separate regions, in reading order, with their boxes and counts', async () => {
    const a = blank(300, 400);
    const b = fillRect(fillRect(fillRect(clone(a), 200, 20, 30, 10, [0, 0, 0]), 10, 300, 5, 50, [0, 0, 0]), 20, 20, 10, 10, [0, 0, 0]);
    const { result } = await comparePngBytes(pngOf(a, 2), pngOf(b, 2));
    expect(result.regions).toEqual([
      { kind: 'pixels', x: 20, y: 20, width: 10, height: 10, changedPixels: 100 },
      { kind: 'pixels', x: 200, y: 20, width: 30, height: 10, changedPixels: 300 },
      { kind: 'pixels', x: 10, y: 300, width: 5, height: 50, changedPixels: 250 },
    ]);
  });

  test('changes a few pixels apart (letters of a word) are one region', async () => {
    const a = blank(200, 100);
    const b = clone(a);
    for (let i = 0; i < 8; i++) fillRect(b, 20 + i * 9, 40, 5, 12, [0, 0, 0]);
    const { result } = await comparePngBytes(pngOf(a, 2), pngOf(b, 2));
    expect(result.regions).toEqual([{ kind: 'pixels', x: 20, y: 40, width: 68, height: 12, changedPixels: 8 * 60 }]);
  });

  test('more clusters than maxRegions are merged, the same way every time, every changed pixel still in a region', async () => {
    const a = blank(400, 400);
    const b = clone(a);
    for (let y = 5; y < 400; y += 40) for (let x = 5; x < 400; x += 40) fillRect(b, x, y, 3, 3, [0, 0, 0]);
    const first = (await comparePngBytes(pngOf(a, 2), pngOf(b, 2), { maxRegions: 8 })).result;
    const again = (await comparePngBytes(pngOf(a, 2), pngOf(b, 2), { maxRegions: 8 })).result;
    expect(first.changedPixels).toBe(100 * 9);
    expect(first.regions.length).toBeLessThanOrEqual(8);
    expect(first.regions.length).toBeGreaterThan(0);
    expect(first.regionGap).toBeGreaterThan(16);
    expect(first.regions.reduce((n, r) => n + r.changedPixels, 0)).toBe(900);
    expect(again.regions).toEqual(first.regions);
    const unbounded = (await comparePngBytes(pngOf(a, 2), pngOf(b, 2), { maxRegions: 1000 })).result;
    expect(unbounded.regions).toHaveLength(100);
    expect(unbounded.regionGap).toBe(16);
  });
});

describe('the diff image', () => {
  test('decodes to the size of the pair: changes red, anti-aliasing yellow, the rest A in grey; written atomically where asked', async () => {
    const a = disc(blank(120, 80), 30, 40, 12);
    const b = fillRect(disc(blank(120, 80), 30.25, 40.25, 12), 80, 10, 20, 20, [0, 120, 0]);
    const target = path.join(dir, 'diff.png');
    const { result, diffPng } = await comparePngBytes(pngOf(a, 2), pngOf(b, 2), { diffImage: target });
    expect(result.diffImage).toEqual({ path: target, width: 120, height: 80 });
    expect(fs.readFileSync(target).equals(diffPng!)).toBe(true);
    expect(fs.readdirSync(dir).filter((f) => f.startsWith('.diff.png'))).toEqual([]);
    const diff = decodeWithPngjs(diffPng!);
    const at = (x: number, y: number) => [...diff.data.subarray((y * 120 + x) * 4, (y * 120 + x) * 4 + 3)];
    expect(at(85, 15)).toEqual([...DIFF_COLOURS.changed]);
    let yellow = 0;
    let red = 0;
    for (let i = 0; i < 120 * 80; i++) {
      const px = [...diff.data.subarray(i * 4, i * 4 + 3)];
      if (px.join() === DIFF_COLOURS.antialiased.join()) yellow++;
      if (px.join() === DIFF_COLOURS.changed.join()) red++;
    }
    expect(red).toBe(result.changedPixels);
    expect(yellow).toBe(result.antiAliasedPixels);
    // Unchanged pixels: grey, lighter than A (dimmed), white staying white.
    const [r, g, bl] = at(5, 75);
    expect(r === g && g === bl && r >= 250).toBe(true);
    const [dr, dg, db] = at(30, 40);
    expect(dr === dg && dg === db && dr > 150 && dr < 230).toBe(true);
  });

  test('not asked for: none rendered', async () => {
    const { result, diffPng } = await comparePngBytes(pngOf(blank(10, 10), 2), pngOf(fillRect(blank(10, 10), 0, 0, 2, 2, [0, 0, 0]), 2));
    expect(result.diffImage).toBeNull();
    expect(diffPng).toBeNull();
  });
});

describe('tiles', () => {
  test('crop the same padded box from each side as PNGs; a large box is scaled down', async () => {
    const a = page(300, 200);
    const b = fillRect(clone(a), 100, 100, 40, 20, [200, 0, 0]);
    fillRect(b, 0, 150, 300, 50, [10, 10, 10]);
    const { result, tiles } = await comparePngBytes(pngOf(a, 2), pngOf(b, 2), { tiles: { padding: 4, maxSide: 100 } });
    expect(result.regions.map((r) => [r.x, r.y, r.width, r.height])).toEqual([
      [100, 100, 40, 20],
      [0, 150, 300, 50],
    ]);
    expect(tiles.map((t) => [t.region, t.box])).toEqual([
      [0, { x: 96, y: 96, width: 48, height: 28, scale: 1 }],
      [1, { x: 0, y: 146, width: 300, height: 54, scale: 3 }],
    ]);
    const before = decodeWithPngjs(tiles[0].before);
    const after = decodeWithPngjs(tiles[0].after);
    expect([before.width, before.height, after.width, after.height]).toEqual([48, 28, 48, 28]);
    const px = (img: Rgba, x: number, y: number) => [...img.data.subarray((y * img.width + x) * 4, (y * img.width + x) * 4 + 4)];
    expect(px(after, 10, 10)).toEqual([200, 0, 0, 255]);
    expect(px(before, 10, 10)).toEqual([...a.data.subarray((106 * 300 + 106) * 4, (106 * 300 + 106) * 4 + 4)]);
    const scaled = decodeWithPngjs(tiles[1].after);
    expect([scaled.width, scaled.height]).toEqual([100, 18]);
  });

  test('where a side has no pixels (the other side is taller) its tile is transparent', async () => {
    const { result, tiles } = await comparePngBytes(pngOf(blank(50, 40), 2), pngOf(blank(50, 60), 2), { tiles: true });
    expect(result.regions).toEqual([{ kind: 'extension', side: 'b', x: 0, y: 40, width: 50, height: 20, changedPixels: 1000 }]);
    const before = decodeWithPngjs(tiles[0].before);
    expect(before.data[(before.height - 1) * before.width * 4 + 3]).toBe(0);
    expect(decodeWithPngjs(tiles[0].after).data[(before.height - 1) * before.width * 4 + 3]).toBe(255);
  });
});

describe('every PNG format is decoded as pngjs decodes it', () => {
  const W = 13;
  const H = 11;
  let s = 5;
  const rand = (n: number) => ((s = (s * 1103515245 + 12345) & 0x7fffffff) >> 8) % n;
  const each = (f: () => number[]) => Array.from({ length: W * H }, f);
  const formats: Array<[string, RawPngSpec]> = [];
  for (const bitDepth of [1, 2, 4, 8, 16] as const)
    formats.push([`grey ${bitDepth}-bit`, { width: W, height: H, colorType: 0, bitDepth, samples: each(() => [rand(2 ** bitDepth)]) }]);
  formats.push([
    'grey 8-bit with a transparent grey',
    { width: W, height: H, colorType: 0, bitDepth: 8, samples: each(() => [rand(4) * 60]), transparency: [60] },
  ]);
  formats.push(['grey+alpha 8-bit', { width: W, height: H, colorType: 4, bitDepth: 8, samples: each(() => [rand(256), rand(256)]) }]);
  formats.push(['grey+alpha 16-bit', { width: W, height: H, colorType: 4, bitDepth: 16, samples: each(() => [rand(65536), rand(65536)]) }]);
  formats.push(['RGB 16-bit', { width: W, height: H, colorType: 2, bitDepth: 16, samples: each(() => [rand(65536), rand(65536), rand(65536)]) }]);
  formats.push([
    'RGB 8-bit with a transparent colour',
    { width: W, height: H, colorType: 2, bitDepth: 8, samples: each(() => [rand(2) * 255, 0, 0]), transparency: [255, 0, 0] },
  ]);
  formats.push(['RGBA 16-bit', { width: W, height: H, colorType: 6, bitDepth: 16, samples: each(() => [rand(65536), rand(65536), rand(65536), rand(65536)]) }]);
  const palette: Array<[number, number, number]> = Array.from({ length: 16 }, (_, i) => [i * 16, 255 - i * 16, (i * 77) & 255]);
  for (const bitDepth of [1, 2, 4, 8] as const) {
    formats.push([
      `palette ${bitDepth}-bit with tRNS`,
      { width: W, height: H, colorType: 3, bitDepth, palette, transparency: [0, 128, 255], samples: each(() => [rand(Math.min(16, 2 ** bitDepth))]) },
    ]);
  }
  formats.push([
    'RGB 8-bit, Adam7 interlaced',
    { width: W, height: H, colorType: 2, bitDepth: 8, interlace: true, samples: each(() => [rand(256), rand(256), rand(256)]) },
  ]);
  formats.push([
    'palette 2-bit, Adam7 interlaced',
    { width: W, height: H, colorType: 3, bitDepth: 2, interlace: true, palette, samples: each(() => [rand(4)]) },
  ]);
  formats.push([
    'RGBA 8-bit, Adam7 interlaced',
    { width: W, height: H, colorType: 6, bitDepth: 8, interlace: true, samples: each(() => [rand(256), rand(256), rand(256), rand(256)]) },
  ]);
  formats.push([
    'RGB 8-bit, every row Paeth',
    { width: W, height: H, colorType: 2, bitDepth: 8, filters: [4], samples: each(() => [rand(256), rand(256), rand(256)]) },
  ]);

  test.each(formats)('%s', async (_title, spec) => {
    const png = writeRawPng(spec);
    const reference = decodeWithPngjs(png);
    // The same pixels as 8-bit RGBA: no change at all.
    const { result } = await comparePngBytes(png, pngOf(reference), { threshold: 0, includeAA: true });
    expect(result).toMatchObject({ status: 'unchanged', identicalBytes: false, changedPixels: 0, a: { width: W, height: H } });
    // And a changed copy counts as pixelmatch counts it.
    const changed = fillRect(clone(reference), 2, 3, 5, 4, [9, 200, 9]);
    const against = await comparePngBytes(png, pngOf(changed));
    expect(against.result.changedPixels).toBe(pixelmatchCount(reference, changed, { threshold: 0 }));
  });
});

describe('errors name the file and what is wrong', () => {
  const good = pngOf(page(40, 30), 2);
  const write = (name: string, bytes: Buffer) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, bytes);
    return file;
  };

  test.each<[string, () => Buffer, RegExp]>([
    ['not a PNG', () => Buffer.from('GIF89a, not a PNG at all'), /not a readable PNG: it does not start with the PNG signature/],
    [
      'a cut-short file',
      () => good.subarray(0, good.length - 30),
      /not a readable PNG: (chunk IDAT at byte \d+ runs past the end of the file \(truncated\)|the file is cut short)/,
    ],
    [
      'a flipped bit in the image data',
      () => {
        const bad = Buffer.from(good);
        bad[good.indexOf('IDAT') + 10] ^= 0x40;
        return bad;
      },
      /not a readable PNG: chunk IDAT at byte \d+ fails its CRC \(corrupt\)/,
    ],
    [
      'image data that does not inflate',
      () => {
        const bad = Buffer.from(good);
        const at = good.indexOf('IDAT');
        bad.fill(0xff, at + 4, at + 20);
        bad.writeUInt32BE(zlib.crc32(bad.subarray(at, at + 4 + bad.readUInt32BE(at - 4))), at + 4 + bad.readUInt32BE(at - 4));
        return bad;
      },
      /not a readable PNG: its image data does not inflate/,
    ],
    ['a bit depth its colour type does not allow', () => writeRawPngWithHeader(2, 4), /not a readable PNG: bit depth 4 with colour type 2 \(allowed: 8, 16\)/],
  ])('%s', async (_title, bytes, message) => {
    const file = write('bad.png', bytes());
    const other = write('good.png', good);
    const err = await comparePngFiles(other, file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PngInputError);
    expect((err as PngInputError).file).toBe(file);
    expect((err as Error).message).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
    expect((err as Error).message).toMatch(message);
  });

  test('a missing file, and bytes labelled by the caller', async () => {
    const missing = path.join(dir, 'nope.png');
    const err = await comparePngFiles(missing, write('good.png', good)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PixelInputError);
    expect((err as Error).message).toBe(`${missing}: cannot be read: no such file`);
    await expect(comparePngBytes(good, Buffer.from('x'), { labels: { a: 'before.png', b: 'after.png' } })).rejects.toThrow(
      'after.png: not a readable PNG: it does not start with the PNG signature',
    );
  });
});

function writeRawPngWithHeader(colorType: number, bitDepth: number): Buffer {
  const png = writeRawPng({ width: 2, height: 2, colorType: 0, bitDepth: 8, samples: [[0], [0], [0], [0]] });
  const at = png.indexOf('IHDR');
  png[at + 4 + 8] = bitDepth;
  png[at + 4 + 9] = colorType;
  png.writeUInt32BE(zlib.crc32(png.subarray(at, at + 17)), at + 17);
  return png;
}

describe('the result', () => {
  test('is JSON that the schema accepts, for a change, for identical bytes and for an extension', async () => {
    const a = pngOf(page(60, 50), 2);
    const results: PixelComparison[] = [
      await comparePngBytes(a, pngOf(fillRect(page(60, 50), 1, 1, 5, 5, [0, 0, 0]), 2), { diffImage: true, tiles: true }),
      await comparePngBytes(a, a),
      await comparePngBytes(a, pngOf(page(60, 70), 2)),
    ];
    for (const { result } of results) {
      const json = JSON.parse(JSON.stringify(result));
      expect(pixelComparisonSchema.parse(json)).toEqual(result);
    }
  });
});

test('the comparison bundles with esbuild into one file that runs (no native addon, no file of its own)', async () => {
  const out = await esbuild.build({
    entryPoints: [path.join(__dirname, '..', '..', 'src', 'compare', 'pixels', 'index.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    write: false,
    logLevel: 'silent',
  });
  const code = out.outputFiles[0].text;
  const required = [...code.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]);
  expect(required.filter((m) => !['fs', 'path', 'crypto', 'zlib', 'util', 'worker_threads'].includes(m.replace(/^node:/, '')))).toEqual([]);
  const file = path.join(dir, 'pixels.bundle.cjs');
  fs.writeFileSync(file, code);
  const bundled = (await import(file)) as typeof import('../../src/compare/pixels');
  const a = pngOf(blank(8, 8), 2);
  const b = pngOf(fillRect(blank(8, 8), 0, 0, 2, 2, [0, 0, 0]), 2);
  expect((await bundled.comparePngBytes(a, b)).result.changedPixels).toBe(4);
  // The rules worker's program travels inside the bundle as a string: no worker file to find.
  expect((await bundled.comparePngBytes(a, b, { rulesWorker: 'always' })).result.changedPixels).toBe(4);
  await (bundled as unknown as { stopRulesWorker(): Promise<void> }).stopRulesWorker();
});
