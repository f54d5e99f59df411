/**
 * The comparison's SIMD kernels (kernels.wat) and the WebAssembly memory they
 * work in. A comparison leases one memory for its two large buffers — image
 * A, copied in as inflated, and the diff image's scanlines — so that undoing
 * A's Up filter and drawing the diff image's grey levels run 16 bytes at a
 * time (in JavaScript they cost more than inflating). Every other reader
 * sees the same bytes through Buffer views of that memory.
 *
 * Where WebAssembly SIMD is missing, or an image is too large for one
 * memory, leaseKernels answers null and the callers keep their JavaScript
 * loops, which give the same bytes (test/compare/pixelKernels.test.ts).
 */
import { wasmBase64 } from './generated/pixelKernels';

interface KernelExports {
  memory: WebAssembly.Memory;
  unfilterUp(at: number, stride: number, n: number): void;
  levelsRgb(src: number, n: number, dst: number, base: number): void;
  levelsRgba(src: number, n: number, dst: number, base: number): void;
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
export class KernelLease {
  /** One view per size asked for, in order. Valid until release(). */
  readonly regions: Buffer[];
  private released = false;

  constructor(
    private readonly k: KernelExports,
    sizes: number[],
  ) {
    let at = GAP;
    const starts = sizes.map((size) => {
      const start = at;
      at = Math.ceil((at + size + GAP) / 16) * 16;
      return start;
    });
    const pages = Math.ceil(at / PAGE) - k.memory.buffer.byteLength / PAGE;
    if (pages > 0) k.memory.grow(pages); // before any view is made: growing detaches the old buffer
    this.regions = sizes.map((size, i) => Buffer.from(k.memory.buffer, starts[i], size));
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
export function leaseKernels(sizes: number[]): KernelLease | null {
  const total = sizes.reduce((n, s) => n + s + 2 * GAP, GAP);
  if (total > MAX_LEASE_BYTES) return null;
  const module = kernelModule();
  if (!module) return null;
  let k = idle;
  idle = null;
  try {
    k ??= new WebAssembly.Instance(module, {}).exports as unknown as KernelExports;
    return new KernelLease(k, sizes);
  } catch {
    return null; // the memory could not grow (out of memory): JavaScript's buffers instead
  }
}
