/**
 * The comparison's SIMD kernels (kernels.wat) and the WebAssembly memory they
 * work in. A comparison leases one memory for its large buffers — image A,
 * copied in as inflated, B's rows the rules read, the marks, the cells and
 * the diff image's scanlines — so that undoing A's Up filter, drawing the
 * diff image's grey levels and laying the marks over them run 16 bytes at a
 * time (in JavaScript they cost more than inflating), and pixelmatch's rules
 * skip equal pixels 16 bytes at a time. Every other reader sees the same
 * bytes through Buffer views of that memory.
 *
 * Where WebAssembly SIMD is missing, or an image is too large for one
 * memory, leaseKernels answers null and the callers keep their JavaScript
 * loops, which give the same bytes (test/compare/pixelKernels.test.ts).
 */
import { wasmBase64 } from './generated/pixelKernels';
import type { CellGrid } from './regions';

interface KernelExports {
  memory: WebAssembly.Memory;
  unfilterUp(at: number, stride: number, n: number): void;
  levelsRgb(src: number, n: number, dst: number, base: number): void;
  levelsRgba(src: number, n: number, dst: number, base: number): void;
  overlayMarks(marks: number, out: number, n: number, changed: number, aa: number): void;
  setupRules(
    aData: number,
    aStride: number,
    bData: number,
    bStride: number,
    channels: number,
    width: number,
    height: number,
    maxDelta: number,
    includeAA: number,
    marks: number,
    rowMarked: number,
    cellCount: number,
    cellMinX: number,
    cellMinY: number,
    cellMaxX: number,
    cellMaxY: number,
    cellSize: number,
    cellCols: number,
    ignore: number,
    ignoreCount: number,
    lumaA: number,
    lumaB: number,
  ): void;
  rulesRows(rows: number, n: number): void;
  changedCount(): number;
  antialiasedCount(): number;
}

/** What the rules kernel reads and writes, every buffer in the lease's memory (engine.ts sets it up). */
export interface KernelRulesSetup {
  a: { data: Uint8Array; stride: number };
  b: { data: Uint8Array; stride: number };
  channels: 3 | 4;
  width: number;
  height: number;
  maxDelta: number;
  includeAA: boolean;
  /** width × height: row y's marks at y × width. */
  marks: Uint8Array;
  /** One byte a row, zeroed: set to 1 where the row got a mark. */
  rowMarked: Uint8Array;
  cells: CellGrid;
  /** The ignored rectangles as (x, y, width, height) quads. */
  ignore: Int32Array;
  /** Each image's cache of brightness rows, lumaCacheBytes(width) each (emptied here). */
  lumaA: Uint8Array;
  lumaB: Uint8Array;
}

/** Bytes of one image's cache of brightness rows in the rules kernel: 8 row tags, then 8 rows of f64. */
export function lumaCacheBytes(width: number): number {
  return 32 + 8 * 8 * width;
}

/** A leased memory's largest size (a 1280 × 16,000 RGBA capture and its diff image need ~100 MB). */
const MAX_LEASE_BYTES = 1024 * 1024 * 1024;
/** A memory larger than this is dropped after its comparison rather than kept (WebAssembly memory never shrinks). */
const KEEP_BYTES = 128 * 1024 * 1024;
const PAGE = 65536;
/** Regions start 64 bytes apart at least, 16-byte aligned, so no vector load reaches across two of them. */
const GAP = 64;

/** The compiled module: undefined until first asked for, null where it cannot run (no WebAssembly SIMD). */
let compiled: WebAssembly.Module | null | undefined;
/** An instance kept between comparisons (its memory already grown: no page faults for the next one of a similar size). */
let idle: KernelExports | null = null;

function kernelModule(): WebAssembly.Module | null {
  if (compiled === undefined) {
    try {
      compiled = new WebAssembly.Module(Buffer.from(wasmBase64, 'base64'));
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

/** Buffers of one comparison in kernel memory, and the kernels over them. */
export class KernelLease<K extends string = string> {
  /** One view per size asked for, under its name. Valid until release(). */
  readonly regions: Record<K, Buffer>;
  private released = false;

  constructor(
    private readonly k: KernelExports,
    sizes: Record<K, number>,
  ) {
    let at = GAP;
    const starts: Array<[K, number, number]> = [];
    for (const name of Object.keys(sizes) as K[]) {
      starts.push([name, at, sizes[name]]);
      at = Math.ceil((at + sizes[name] + GAP) / 16) * 16;
    }
    const pages = Math.ceil(at / PAGE) - k.memory.buffer.byteLength / PAGE;
    if (pages > 0) k.memory.grow(pages); // before any view is made: growing detaches the old buffer
    this.regions = Object.fromEntries(starts.map(([name, start, size]) => [name, Buffer.from(k.memory.buffer, start, size)])) as Record<K, Buffer>;
  }

  /** Whether `view` lies in this lease's memory. */
  owns(view: Uint8Array): boolean {
    return !this.released && view.buffer === this.k.memory.buffer;
  }

  /** Undoes the Up filter of `n` bytes at view[at], the row above `stride` bytes before (stride of at least 16). */
  unfilterUp(view: Uint8Array, at: number, stride: number, n: number): void {
    this.k.unfilterUp(view.byteOffset + at, stride, n);
  }

  /** Grey levels (diffImage.ts levelsInto) of `pixels` pixels at src[at] into dst[dstAt…]. */
  levels(src: Uint8Array, at: number, pixels: number, channels: 3 | 4, dst: Uint8Array, dstAt: number, base: number): void {
    (channels === 3 ? this.k.levelsRgb : this.k.levelsRgba)(src.byteOffset + at, pixels, dst.byteOffset + dstAt, base);
  }

  /** Marks over grey levels (diffImage.ts drawRows): out[outAt + x] becomes `changed` where marks[x] is 1, `aa` where it is 2, for x below n. */
  overlayMarks(marks: Uint8Array, out: Uint8Array, outAt: number, n: number, changed: number, aa: number): void {
    this.k.overlayMarks(marks.byteOffset, out.byteOffset + outAt, n, changed, aa);
  }

  /** Sets up the rules kernel (pixelmatch's rules, rowRules.ts runRowRules) for one comparison; its tally starts at 0. */
  setupRules(r: KernelRulesSetup): void {
    const at = (view: Uint8Array | Int32Array) => view.byteOffset;
    const c = r.cells;
    r.lumaA.fill(0xff, 0, 32); // every row tag -1: no row cached
    r.lumaB.fill(0xff, 0, 32);
    this.k.setupRules(
      at(r.a.data),
      r.a.stride,
      at(r.b.data),
      r.b.stride,
      r.channels,
      r.width,
      r.height,
      r.maxDelta,
      r.includeAA ? 1 : 0,
      at(r.marks),
      at(r.rowMarked),
      at(c.count),
      at(c.minX),
      at(c.minY),
      at(c.maxX),
      at(c.maxY),
      c.size,
      c.cols,
      at(r.ignore),
      r.ignore.length / 4,
      at(r.lumaA),
      at(r.lumaB),
    );
  }

  /** The rules on `n` rows of the list `rows` (in kernel memory) from index `from`; their rows of B must be in place. */
  rulesRows(rows: Int32Array, from: number, n: number): void {
    this.k.rulesRows(rows.byteOffset + from * 4, n);
  }

  /** Changed and anti-aliased pixels marked since setupRules. */
  rulesTally(): { changed: number; antialiased: number } {
    return { changed: this.k.changedCount(), antialiased: this.k.antialiasedCount() };
  }

  /** Ends the lease: the memory may serve the next comparison, so no view of it may be read after this. */
  release(): void {
    if (this.released) return;
    this.released = true;
    if (!idle && this.k.memory.buffer.byteLength <= KEEP_BYTES) idle = this.k;
  }
}

/**
 * Kernel memory with one region per size, or null where the kernels cannot
 * run or the sizes are too large (the caller then uses its own buffers).
 */
export function leaseKernels<K extends string>(sizes: Record<K, number>): KernelLease<K> | null {
  const total = (Object.values(sizes) as number[]).reduce((n, s) => n + s + 2 * GAP, GAP);
  if (total > MAX_LEASE_BYTES) return null;
  const module = kernelModule();
  if (!module) return null;
  let k = idle;
  idle = null;
  try {
    k ??= new WebAssembly.Instance(module, {}).exports as unknown as KernelExports;
    return new KernelLease<K>(k, sizes);
  } catch {
    return null; // the memory could not grow (out of memory): JavaScript's buffers instead
  }
}
