/**
 * Comparing two screenshots: comparePngFiles (paths) and comparePngBytes.
 *
 * Byte-identical files are unchanged without decoding (the sizes, then the
 * bytes). Otherwise both are inflated (large ones at once, one on the thread
 * pool) into kernel memory (kernels.ts), the rows that differ are found
 * (engine.ts), and pixelmatch's rules run on those rows: the changed-pixel
 * count is pixelmatch's at the same threshold. Images
 * of different sizes are aligned at the top left; the overlap is compared
 * and what only one side has is the extension.
 *
 * Default threshold 0, not pixelmatch's 0.1: captures here are deterministic
 * (an unchanged page captures byte-identical), so there is no rendering noise
 * to absorb, and any threshold above 0 hides some design-token change. 0.1
 * misses a one-step palette change (#1565c0 → #1976d2 is a YIQ delta of 109,
 * caught below 0.0557), a near-white grey step (#f5f5f5 → #fafafa, below
 * 0.019) and a one-level step (#ffffff → #fefefe, below 0.0038). Anti-aliasing
 * is still told apart by pixelmatch's detector, whatever the threshold.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as crypto from 'crypto';
import { diffScanlineBytes, renderDiffImage } from './diffImage';
import { leaseKernels, lumaCacheBytes } from './kernels';
import { PixelSides, type Rect, type RulesWorkerMode } from './engine';
import { PixelInputError, peekDimensions, readPngForCompare, type PngForCompare } from './readPng';
import { rasterOf, unfilterAll, type Raster } from './raster';
import { cellGridBytes, clusterRegions } from './regions';
import type { PixelComparisonResult, PixelRect, PixelRegion } from './schema';
import { renderTiles, type RegionTile, type TileOptions } from './tiles';

export const DEFAULT_PIXEL_THRESHOLD = 0;
export const DEFAULT_MAX_REGIONS = 32;
/**
 * Pixels of A from which A inflates on the thread pool while B inflates
 * here; below it both inflate here, one after the other (a hand-over to the
 * pool and back costs a few milliseconds on a busy machine, more than half
 * of a small image's inflating saves).
 */
const PARALLEL_INFLATE_PIXELS = 4_000_000;

export interface PixelCompareOptions {
  /** pixelmatch's threshold, 0–1 (default DEFAULT_PIXEL_THRESHOLD: 0). */
  threshold?: number;
  /** Count anti-aliased pixels as changes (default false: detected and counted apart). */
  includeAA?: boolean;
  /** Rectangles (device pixels, top-left aligned) left out of the comparison. */
  ignore?: PixelRect[];
  /** At most this many pixel regions (default 32); more are merged. */
  maxRegions?: number;
  /** false (default): no diff image; true: render it and return its bytes; a path: also write it there (atomically). */
  diffImage?: boolean | string;
  /** Before/after tiles of each region (PNG bytes); default false. */
  tiles?: boolean | TileOptions;
  /** zlib level of the diff image (default 1: fast). */
  diffImageLevel?: number;
  /** Where pixelmatch's rules run (default 'auto': a large comparison shares its rows with a worker thread; the result is the same). */
  rulesWorker?: RulesWorkerMode;
  /** 'auto' (default): image A and the diff image are unfiltered and drawn by the WebAssembly SIMD kernels where they run; 'never': by JavaScript alone. The bytes are the same. */
  wasmKernels?: 'auto' | 'never';
}

export interface PixelComparison {
  result: PixelComparisonResult;
  /** The diff image's PNG bytes when asked for (and something was decoded). */
  diffPng: Buffer | null;
  /** Tiles in the order of result.regions, when asked for. */
  tiles: RegionTile[];
}

function checkOptions(
  options: PixelCompareOptions,
): Required<Pick<PixelCompareOptions, 'threshold' | 'includeAA' | 'maxRegions' | 'rulesWorker'>> & { ignore: PixelRect[] } {
  const threshold = options.threshold ?? DEFAULT_PIXEL_THRESHOLD;
  if (typeof threshold !== 'number' || !Number.isFinite(threshold) || threshold < 0 || threshold > 1) {
    throw new RangeError(`threshold must be a number from 0 to 1 (got ${String(threshold)})`);
  }
  const includeAA = options.includeAA ?? false;
  if (typeof includeAA !== 'boolean') throw new TypeError(`includeAA must be true or false (got ${String(includeAA)})`);
  const maxRegions = options.maxRegions ?? DEFAULT_MAX_REGIONS;
  if (!Number.isInteger(maxRegions) || maxRegions < 1) throw new RangeError(`maxRegions must be an integer of at least 1 (got ${String(maxRegions)})`);
  const ignore = options.ignore ?? [];
  if (!Array.isArray(ignore)) throw new TypeError('ignore must be a list of rectangles {x, y, width, height}');
  ignore.forEach((r, i) => {
    for (const key of ['x', 'y', 'width', 'height'] as const) {
      const v = (r as unknown as Record<string, unknown>)?.[key];
      const min = key === 'x' || key === 'y' ? 0 : 1;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < min)
        throw new RangeError(`ignore[${i}].${key} must be an integer of at least ${min} (got ${String(v)})`);
    }
  });
  if (options.diffImage !== undefined && typeof options.diffImage !== 'boolean' && (typeof options.diffImage !== 'string' || !options.diffImage)) {
    throw new TypeError('diffImage must be true, false or a file path');
  }
  if (options.wasmKernels !== undefined && options.wasmKernels !== 'auto' && options.wasmKernels !== 'never')
    throw new TypeError(`wasmKernels must be 'auto' or 'never' (got ${String(options.wasmKernels)})`);
  const rulesWorker = options.rulesWorker ?? 'auto';
  if (rulesWorker !== 'auto' && rulesWorker !== 'always' && rulesWorker !== 'never')
    throw new TypeError(`rulesWorker must be 'auto', 'always' or 'never' (got ${String(rulesWorker)})`);
  return { threshold, includeAA, maxRegions, ignore, rulesWorker };
}

function clip(rects: PixelRect[], width: number, height: number): Rect[] {
  const out: Rect[] = [];
  for (const r of rects) {
    const x1 = Math.min(width, r.x + r.width);
    const y1 = Math.min(height, r.y + r.height);
    if (x1 > r.x && y1 > r.y) out.push({ x: r.x, y: r.y, width: x1 - r.x, height: y1 - r.y });
  }
  return out;
}

/** The areas only one side has: its columns right of the other's width (over the shared rows), and its rows below the other's height. */
function extensionRects(a: { width: number; height: number }, b: { width: number; height: number }): Array<Rect & { side: 'a' | 'b' }> {
  const w = Math.min(a.width, b.width);
  const h = Math.min(a.height, b.height);
  const rects: Array<Rect & { side: 'a' | 'b' }> = [];
  for (const [side, s] of [
    ['a', a],
    ['b', b],
  ] as const) {
    if (s.width > w) rects.push({ side, x: w, y: 0, width: s.width - w, height: h });
    if (s.height > h) rects.push({ side, x: 0, y: h, width: s.width, height: s.height - h });
  }
  return rects;
}

/** RGBA copy of a raster (every row unfiltered), for pairing RGB with RGBA. */
function asRgba(r: Raster): Raster {
  if (r.channels === 4) return r;
  unfilterAll(r);
  const data = Buffer.allocUnsafe(r.width * r.height * 4);
  for (let y = 0; y < r.height; y++) {
    let p = y * r.stride;
    let o = y * r.width * 4;
    for (let x = 0; x < r.width; x++, p += 3, o += 4) {
      data[o] = r.data[p];
      data[o + 1] = r.data[p + 1];
      data[o + 2] = r.data[p + 2];
      data[o + 3] = 255;
    }
  }
  return { ...r, channels: 4, rowBytes: r.width * 4, stride: r.width * 4, data, ready: new Uint8Array(r.height).fill(1), filtered: null, kernels: null };
}

/**
 * Writes bytes to `target` through a temporary file in the same folder, so a
 * failure leaves no partial file. At once, as the inputs are read: a diff
 * image is a few hundred kB, and two queued file operations under load cost
 * more than writing it.
 */
function writeAtomically(target: string, bytes: Buffer): void {
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.${crypto.randomBytes(6).toString('hex')}.tmp`);
  try {
    fs.writeFileSync(temp, bytes, { flag: 'wx' });
    fs.renameSync(temp, target);
  } catch (err) {
    fs.rmSync(temp, { force: true });
    throw err;
  }
}

/**
 * Compares two PNGs held in memory; `labels` name them in errors and in the
 * result (default 'A' and 'B').
 */
export async function comparePngBytes(
  a: Uint8Array,
  b: Uint8Array,
  options: PixelCompareOptions & { labels?: { a: string; b: string } } = {},
): Promise<PixelComparison> {
  const checked = checkOptions(options);
  const labels = options.labels ?? { a: 'A', b: 'B' };
  const bufA = Buffer.isBuffer(a) ? a : Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  const bufB = Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  if (bufA.length === bufB.length && bufA.equals(bufB)) return identical(labels, bufA, bufB, checked);
  return compareDecoded(labels, bufA, bufB, options, checked);
}

/** Compares two PNG files. A file that cannot be read or is not a readable PNG throws a PixelInputError naming it. */
export async function comparePngFiles(fileA: string, fileB: string, options: PixelCompareOptions = {}): Promise<PixelComparison> {
  const checked = checkOptions(options);
  const labels = { a: fileA, b: fileB };
  // Read at once, not through the thread pool: a screenshot is a few MB, and a queued read under load costs more than it.
  const bufA = readInput(fileA);
  const bufB = readInput(fileB);
  if (bufA.length === bufB.length && bufA.equals(bufB)) return identical(labels, bufA, bufB, checked);
  return compareDecoded(labels, bufA, bufB, options, checked);
}

function readInput(file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'a folder, not a file' : e.code === 'EACCES' ? 'permission denied' : e.message;
    throw new PixelInputError(file, `cannot be read: ${why}`);
  }
}

function identical(labels: { a: string; b: string }, bufA: Buffer, bufB: Buffer, checked: ReturnType<typeof checkOptions>): PixelComparison {
  const dims = peekDimensions(bufA);
  const side = (file: string, bytes: Buffer) => ({ file, width: dims?.width || null, height: dims?.height || null, bytes: bytes.length });
  return {
    result: {
      status: 'unchanged',
      identicalBytes: true,
      a: side(labels.a, bufA),
      b: side(labels.b, bufB),
      threshold: checked.threshold,
      includeAA: checked.includeAA,
      comparedArea: null,
      changedPixels: 0,
      antiAliasedPixels: 0,
      extension: null,
      regions: [],
      regionGap: 0,
      ignored: [],
      diffImage: null,
    },
    diffPng: null,
    tiles: [],
  };
}

async function compareDecoded(
  labels: { a: string; b: string },
  bufA: Buffer,
  bufB: Buffer,
  options: PixelCompareOptions,
  checked: ReturnType<typeof checkOptions>,
): Promise<PixelComparison> {
  const [pngA, pngB] = await readBoth(labels, bufA, bufB);
  const wantDiff = options.diffImage !== undefined && options.diffImage !== false;
  const diffBytes = wantDiff ? diffScanlineBytes(pngA, pngB) : 0;
  const kernels =
    pngA.filtered && pngA.channels === pngB.channels && options.wasmKernels !== 'never' ? leaseFor(pngA, pngB, diffBytes, checked.ignore.length) : null;
  try {
    return await compareRasters(labels, bufA, bufB, pngA, pngB, kernels, options, checked);
  } finally {
    kernels?.release();
  }
}

/** Both PNGs read: a large A inflates on the thread pool while B inflates here. A failure of either is reported (A's first). */
async function readBoth(labels: { a: string; b: string }, bufA: Buffer, bufB: Buffer): Promise<[PngForCompare, PngForCompare]> {
  const dims = peekDimensions(bufA);
  if (!dims || dims.width * dims.height < PARALLEL_INFLATE_PIXELS) {
    const pngA = await readPngForCompare(bufA, labels.a, true);
    return [pngA, await readPngForCompare(bufB, labels.b, true)];
  }
  const inflatingA = readPngForCompare(bufA, labels.a);
  inflatingA.catch(() => undefined);
  let pngB: PngForCompare;
  try {
    pngB = await readPngForCompare(bufB, labels.b, true);
  } catch (err) {
    await inflatingA;
    throw err;
  }
  return [await inflatingA, pngB];
}

/** Kernel memory for a comparison: A, B, the diff image's scanlines and what the rules write (engine.ts KernelRulesMemory). */
function leaseFor(pngA: PngForCompare, pngB: PngForCompare, diffBytes: number, ignoreCount: number) {
  const width = Math.min(pngA.width, pngB.width);
  const height = Math.min(pngA.height, pngB.height);
  return leaseKernels({
    a: pngA.filtered!.length,
    b: (pngB.filtered ?? pngB.pixels)!.length,
    diff: diffBytes,
    marks: width * height,
    rowMarked: height,
    cells: cellGridBytes(width, height),
    rows: height * 4,
    ignore: ignoreCount * 16,
    lumaA: lumaCacheBytes(width),
    lumaB: lumaCacheBytes(width),
    workerCells: cellGridBytes(width, height),
    workerLumaA: lumaCacheBytes(width),
    workerLumaB: lumaCacheBytes(width),
  });
}

type ComparisonLease = NonNullable<ReturnType<typeof leaseFor>>;

async function compareRasters(
  labels: { a: string; b: string },
  bufA: Buffer,
  bufB: Buffer,
  pngA: PngForCompare,
  pngB: PngForCompare,
  kernels: ComparisonLease | null,
  options: PixelCompareOptions,
  checked: ReturnType<typeof checkOptions>,
): Promise<PixelComparison> {
  if (kernels) {
    // Both images move into kernel memory, where they are unfiltered, compared and drawn 16 bytes at a time.
    kernels.regions.a.set(pngA.filtered!);
    pngA = { ...pngA, filtered: kernels.regions.a };
    kernels.regions.b.set((pngB.filtered ?? pngB.pixels)!);
    pngB = pngB.filtered ? { ...pngB, filtered: kernels.regions.b } : { ...pngB, pixels: kernels.regions.b };
  }
  let rasterA = rasterOf(pngA, kernels);
  let rasterB = rasterOf(pngB, kernels);
  if (rasterA.channels !== rasterB.channels) {
    rasterA = asRgba(rasterA);
    rasterB = asRgba(rasterB);
  }
  const sides = new PixelSides(rasterA, rasterB);
  const ignored = clip(checked.ignore, sides.width, sides.height);
  const differing = sides.classifyRows();
  const engine = await sides.compare(differing, {
    threshold: checked.threshold,
    includeAA: checked.includeAA,
    ignore: ignored,
    rulesWorker: checked.rulesWorker,
    kernelMemory: kernels,
  });
  const clusters = clusterRegions(engine.cells, checked.maxRegions);
  const extension = extensionRects(rasterA, rasterB);
  const regions: PixelRegion[] = [
    ...clusters.regions.map((r) => ({ kind: 'pixels' as const, ...r })),
    ...extension.map(({ side, ...r }) => ({ kind: 'extension' as const, ...r, changedPixels: r.width * r.height, side })),
  ];
  const extensionPixels = extension.reduce((n, r) => n + r.width * r.height, 0);
  const wantDiff = options.diffImage !== undefined && options.diffImage !== false;
  const scratch = kernels && wantDiff && kernels.regions.diff.length === diffScanlineBytes(sides.a, sides.b) ? kernels.regions.diff : null;
  const [diff, tiles] = await Promise.all([
    wantDiff ? renderDiffImage(sides, engine, options.diffImageLevel ?? 1, scratch) : null,
    options.tiles ? renderTiles(sides, regions, typeof options.tiles === 'object' ? options.tiles : {}) : [],
  ]);
  const diffPath = typeof options.diffImage === 'string' ? path.resolve(options.diffImage) : null;
  if (diff && diffPath) writeAtomically(diffPath, diff.png);
  const result: PixelComparisonResult = {
    status: engine.changedPixels > 0 || extensionPixels > 0 ? 'changed' : 'unchanged',
    identicalBytes: false,
    a: { file: labels.a, width: rasterA.width, height: rasterA.height, bytes: bufA.length },
    b: { file: labels.b, width: rasterB.width, height: rasterB.height, bytes: bufB.length },
    threshold: checked.threshold,
    includeAA: checked.includeAA,
    comparedArea: { width: sides.width, height: sides.height },
    changedPixels: engine.changedPixels,
    antiAliasedPixels: engine.antiAliasedPixels,
    extension: extension.length ? { pixels: extensionPixels, rects: extension.map(({ side, ...r }) => ({ ...r, side })) } : null,
    regions,
    regionGap: clusters.gap,
    ignored,
    diffImage: diff ? { path: diffPath, width: diff.width, height: diff.height } : null,
  };
  return { result, diffPng: diff ? diff.png : null, tiles };
}
