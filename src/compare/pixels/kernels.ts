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
 * The memory is shared (a SharedArrayBuffer underneath): the rules worker
 * runs the same rules kernel over the same memory (rulesKernelOver), so a
 * large comparison's rows are shared without copying either image.
 *
 * Where WebAssembly SIMD is missing, or an image is too large for one
 * memory, leaseKernels answers null and the callers keep their JavaScript
 * loops, which give the same bytes (test/compare/pixelKernels.test.ts).
 */
import { wasmBase64 } from './generated/pixelKernels';
import type { CellGrid } from './regions';

interface KernelExports {
  unfilterUp(at: number, stride: number, n: number): void;
  levelsRgb(src: number, n: number, dst: number, base: number): void;
  levelsRgba(src: number, n: number, dst: number, base: number): void;
  overlayMarks(marks: number, out: number, n: number, changed: number, aa: number): void;
  setupRules(...args: number[]): void;
  rulesRows(rows: number, n: number): void;
  changedCount(): number;
  antialiasedCount(): number;
}

/** What the rules kernel reads and writes, every buffer in one kernel memory (engine.ts sets it up). */
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
  /** Each image's cache of brightness rows, lumaCacheBytes(width) each (the kernel's set-up empties them). */
  lumaA: Uint8Array;
  lumaB: Uint8Array;
}

/** The same, as byte offsets in the memory: what crosses to the rules worker. */
export type KernelRulesOffsets = number[];

/** Bytes of one image's cache of brightness rows in the rules kernel: 8 row tags, then 8 rows of f64. */
export function lumaCacheBytes(width: number): number {
  return 32 + 8 * 8 * width;
}

/** The offsets of a set-up, in the order kernels.wat setupRules takes them. */
export function rulesOffsets(r: KernelRulesSetup): KernelRulesOffsets {
  const c = r.cells;
  const at = (view: Uint8Array | Int32Array) => view.byteOffset;
  return [
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
  ];
}

/** A leased memory's largest size (a pair of 1280 × 16,000 RGBA captures, the marks and the diff image need ~210 MB). */
const MAX_LEASE_BYTES = 1024 * 1024 * 1024;
const PAGE = 65536;
/** A memory larger than this is dropped after its comparison rather than kept (WebAssembly memory never shrinks). */
const KEEP_BYTES = 128 * 1024 * 1024;
/** Regions start 64 bytes apart at least, 16-byte aligned, so no vector load reaches across two of them. */
const GAP = 64;

/** The compiled module: undefined until first asked for, null where it cannot run (no WebAssembly SIMD or shared memory). */
let compiled: WebAssembly.Module | null | undefined;
/** A memory kept between comparisons (already grown: no page faults for the next one of a similar size). */
let idle: WebAssembly.Memory | null = null;

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

function instantiate(memory: WebAssembly.Memory): KernelExports {
  return new WebAssembly.Instance(kernelModule()!, { env: { memory } }).exports as unknown as KernelExports;
}

/** pixelmatch's rules in the kernel over one memory (an instance of its own: its tally and set-up are its own). */
export class RulesKernel {
  private readonly k: KernelExports;

  constructor(memory: WebAssembly.Memory) {
    this.k = instantiate(memory);
  }

  /** Sets up the rules for one comparison: the tally starts at 0, the brightness caches empty. */
  setup(offsets: KernelRulesOffsets): void {
    this.k.setupRules(...offsets);
  }

  /** The rules on `n` rows of the i32 list at byte offset `rowsAt`; their rows of B (two above and below) must be in place. */
  rows(rowsAt: number, n: number): void {
    this.k.rulesRows(rowsAt, n);
  }

  /** Changed and anti-aliased pixels marked since the set-up. */
  tally(): { changed: number; antialiased: number } {
    return { changed: this.k.changedCount(), antialiased: this.k.antialiasedCount() };
  }
}

/** The rules kernel over a memory another thread leased (the rules worker), or null where the kernels cannot run. */
export function rulesKernelOver(memory: WebAssembly.Memory): RulesKernel | null {
  return kernelModule() ? new RulesKernel(memory) : null;
}

/** Buffers of one comparison in kernel memory, and the kernels over them. */
export class KernelLease<K extends string = string> {
  /** One view per size asked for, under its name. Valid until release(). */
  readonly regions: Record<K, Buffer>;
  /** The rules kernel of this thread over this memory. */
  readonly rules: RulesKernel;
  private readonly k: KernelExports;
  private readonly buffer: SharedArrayBuffer;
  private released = false;

  constructor(
    readonly memory: WebAssembly.Memory,
    sizes: Record<K, number>,
  ) {
    let at = GAP;
    const starts: Array<[K, number, number]> = [];
    for (const name of Object.keys(sizes) as K[]) {
      starts.push([name, at, sizes[name]]);
      at = Math.ceil((at + sizes[name] + GAP) / 16) * 16;
    }
    const pages = Math.ceil(at / PAGE) - memory.buffer.byteLength / PAGE;
    if (pages > 0) memory.grow(pages); // before any view is made: views are of the buffer as it is then
    this.buffer = memory.buffer as unknown as SharedArrayBuffer;
    this.regions = Object.fromEntries(starts.map(([name, start, size]) => [name, Buffer.from(this.buffer, start, size)])) as Record<K, Buffer>;
    this.rules = new RulesKernel(memory);
    this.k = instantiate(memory);
  }

  /** Whether `view` lies in this lease's memory. */
  owns(view: Uint8Array): boolean {
    return !this.released && view.buffer === this.buffer;
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

  /** Ends the lease: the memory may serve the next comparison, so no view of it may be read after this. */
  release(): void {
    if (this.released) return;
    this.released = true;
    if (!idle && this.buffer.byteLength <= KEEP_BYTES) idle = this.memory;
  }
}

/**
 * Kernel memory with one region per size, or null where the kernels cannot
 * run or the sizes are too large (the caller then uses its own buffers).
 */
export function leaseKernels<K extends string>(sizes: Record<K, number>): KernelLease<K> | null {
  const total = (Object.values(sizes) as number[]).reduce((n, s) => n + s + 2 * GAP, GAP);
  if (total > MAX_LEASE_BYTES || !kernelModule()) return null;
  let memory = idle;
  idle = null;
  try {
    memory ??= new WebAssembly.Memory({ initial: 1, maximum: MAX_LEASE_BYTES / PAGE, shared: true });
    return new KernelLease<K>(memory, sizes);
  } catch {
    return null; // the memory could not grow (out of memory): JavaScript's buffers instead
  }
}
