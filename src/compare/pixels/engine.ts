/**
 * The pixel comparison of two rasters, aligned at the top left: which rows
 * differ, then pixelmatch's rules on those rows only, the changed pixels
 * marked for the diff image and gathered into cells for the regions.
 *
 * Rows that are equal need no work. When both sides keep Chromium's filtered
 * rows at the same width, a row whose filter type and filtered bytes are
 * equal, under a row that is equal, is itself equal (every PNG filter reads
 * only the row and the one above), so it is neither unfiltered on B's side
 * nor compared pixel by pixel. Pixels of B's equal rows are copied from A
 * only where the anti-aliasing rule or a tile needs them. Many differing
 * rows (a reflow) are shared with the rules worker (rulesWorkerPool.ts).
 * When both images lie in kernel memory (kernels.ts) the rules run in the
 * kernel, on this thread and in the worker alike; otherwise in JavaScript
 * (rowRules.ts), with the same marks, counts and cells.
 */
import { maxDeltaFor } from './pixelRules';
import { rowsEqual, unfilterAll, unfilterInPlace, type Raster } from './raster';
import { rulesOffsets, type KernelLease, type KernelRulesSetup } from './kernels';
import { cellGridIn, mergeCells, newCellGrid, type CellGrid } from './regions';
import { runRowRules, sharedChunks, type Rect, type RowChunks, type RowRulesInput, type RowRulesTally, type RulesJob } from './rowRules';
import { bandBuffer, rulesWorker, type RulesWorker } from './rulesWorkerPool';

export type { Rect } from './rowRules';

/**
 * Where the rules run: 'auto' shares a large comparison's rows with the
 * rules worker, 'always' every comparison's (tests), 'never' none.
 */
export type RulesWorkerMode = 'auto' | 'always' | 'never';

/**
 * Work (differing rows × width) from which the worker shares the rows: when
 * it is running, 400,000 pixels (about 15 ms of rules, more than the copy to
 * shared memory and the hand-over cost); while it is still starting (~30 ms),
 * 1,500,000; and from 600,000 a comparison starts it for the next ones.
 */
const SPLIT_PIXELS = 400_000;
const SPLIT_PIXELS_STARTING = 1_500_000;
const START_PIXELS = 600_000;
/** Rows of the differing rows list per chunk the two threads take turns at. */
const CHUNK_ROWS = 32;

export interface EngineOptions {
  threshold: number;
  includeAA: boolean;
  /** Rectangles left out of the comparison, already clipped to the compared area. */
  ignore: Rect[];
  rulesWorker?: RulesWorkerMode;
  /** Kernel memory for the rules (compare.ts leases it with A in it): the rules then run in the kernel on this thread. */
  kernelMemory?: KernelRulesMemory | null;
}

/**
 * The lease a comparison's rules run in, A and B already in it: room for
 * the marks (width × height) and a byte per row saying which rows have any,
 * the cell grid (cellGridBytes), the rows list (4 bytes a row), the ignored
 * rectangles (16 bytes each) and each image's brightness rows
 * (lumaCacheBytes); and the rules worker's own cells and brightness rows,
 * for when it shares the rows.
 */
export type KernelRulesMemory = KernelLease<
  'marks' | 'rowMarked' | 'cells' | 'rows' | 'ignore' | 'lumaA' | 'lumaB' | 'workerCells' | 'workerLumaA' | 'workerLumaB'
>;

export interface EngineResult {
  /** The compared area: the overlap of the two images. */
  width: number;
  height: number;
  changedPixels: number;
  antiAliasedPixels: number;
  /** Per row of the compared area: its marks (CHANGED, ANTIALIASED per pixel), or undefined when it has none. */
  marks: Array<Uint8Array | undefined>;
  cells: CellGrid;
}

export class PixelSides {
  readonly width: number;
  readonly height: number;
  /** B's rows may be taken from A where the rows are equal (same width, the filtered shortcut). */
  private readonly shared: boolean;
  /** Per row of the overlap: 1 equal, 0 differing. */
  readonly equalRows: Uint8Array;

  constructor(
    readonly a: Raster,
    readonly b: Raster,
  ) {
    this.width = Math.min(a.width, b.width);
    this.height = Math.min(a.height, b.height);
    this.shared = !!a.filtered && !!b.filtered && a.width === b.width && a.channels === b.channels;
    this.equalRows = new Uint8Array(this.height);
  }

  /**
   * Finds the equal rows. Both sides are unfiltered in place as it goes (a
   * row's filtered bytes are compared before its own unfiltering); A ends
   * fully unfiltered, B where needed (all of it when the widths differ).
   */
  classifyRows(): number[] {
    const { a, b, width, height } = this;
    const bytes = width * a.channels;
    const differing: number[] = [];
    if (!this.shared) {
      unfilterAll(a);
      unfilterAll(b);
      for (let y = 0; y < height; y++) {
        if (rowsEqual(a, y, b, y, bytes)) this.equalRows[y] = 1;
        else differing.push(y);
      }
      return differing;
    }
    const fa = a.filtered!;
    const fb = b.filtered!;
    const span = a.stride;
    let aboveEqual = true;
    for (let y = 0; y < height; y++) {
      const start = y * span;
      const type = fa[start];
      const same = type === fb[start] && (aboveEqual || type <= 1) && fa.compare(fb, start + 1, start + span, start + 1, start + span) === 0;
      unfilterInPlace(a, y);
      if (same) {
        this.equalRows[y] = 1;
        aboveEqual = true;
        continue;
      }
      this.bRow(y);
      aboveEqual = rowsEqual(a, y, b, y, bytes);
      if (aboveEqual) this.equalRows[y] = 1;
      else differing.push(y);
    }
    unfilterAll(a, height);
    // Rows only B has are unfiltered in order, from the last row of the overlap.
    for (let y = height; y < b.height; y++) this.bRow(y);
    return differing;
  }

  /**
   * Makes row y of B ready: unfiltered, or copied from A when the rows are
   * equal (over B's filtered bytes of that row, which nothing reads again once
   * the rows are classified).
   */
  bRow(y: number): void {
    const { a, b } = this;
    if (b.ready[y]) return;
    if (y < this.height && this.equalRows[y]) {
      a.data.copy(b.data, y * b.stride, y * a.stride, y * a.stride + a.rowBytes);
      b.ready[y] = 1;
      return;
    }
    if (y > 0 && !b.ready[y - 1]) this.bRow(y - 1);
    unfilterInPlace(b, y);
  }

  /** Makes rows y0..y1 (inclusive, clamped) of B ready. */
  bRows(y0: number, y1: number): void {
    const last = Math.min(y1, this.b.height - 1);
    for (let y = Math.max(0, y0); y <= last; y++) if (!this.b.ready[y]) this.bRow(y);
  }

  /**
   * pixelmatch's rules on the differing rows. In a large comparison (see
   * SPLIT_PIXELS) the rules worker shares the rows: this thread and the
   * worker take chunks of rows from one counter until none is left, in the
   * kernel memory both images already lie in (sharedInKernel), or else over
   * copies of both images' band of differing rows in shared memory. Chunks
   * the worker took but could not finish (it failed, or went away) are run
   * here.
   */
  async compare(differing: number[], options: EngineOptions): Promise<EngineResult> {
    const { width, height } = this;
    const input: RowRulesInput = {
      a: { data: this.a.data, stride: this.a.stride, channels: this.a.channels },
      b: { data: this.b.data, stride: this.b.stride, channels: this.b.channels },
      width,
      height,
      maxDelta: maxDeltaFor(options.threshold),
      includeAA: options.includeAA,
      ignore: options.ignore,
    };
    const marks: Array<Uint8Array | undefined> = new Array(height);
    const memory = options.kernelMemory && options.kernelMemory === this.a.kernels && options.kernelMemory === this.b.kernels ? options.kernelMemory : null;
    const scratch = memory?.regions.marks;
    const markRow = scratch
      ? (y: number) => (marks[y] = scratch.subarray(y * width, (y + 1) * width).fill(0))
      : (y: number) => (marks[y] = new Uint8Array(width));
    const cells = memory ? cellGridIn(width, height, memory.regions.cells) : newCellGrid(width, height);
    const readyAround = (y: number) => this.bRows(y - 2, y + 2);
    const worker = this.rulesWorkerFor(differing.length * width, options.rulesWorker ?? 'auto');
    if (memory) {
      const tally = worker ? await this.sharedInKernel(worker, memory, input, differing, markRow, cells) : this.rulesInKernel(memory, input, differing, cells);
      for (let y = 0; y < height; y++) if (memory.regions.rowMarked[y]) marks[y] = memory.regions.marks.subarray(y * width, (y + 1) * width);
      return { width, height, changedPixels: tally.changed, antiAliasedPixels: tally.antialiased, marks, cells };
    }
    if (!worker) {
      const tally = runRowRules(input, differing, markRow, cells, readyAround);
      return { width, height, changedPixels: tally.changed, antiAliasedPixels: tally.antialiased, marks, cells };
    }
    const rows = Int32Array.from(differing);
    const bands: Array<{ release(): void }> = [];
    const tally = await this.shareRows(
      input,
      differing,
      markRow,
      cells,
      (counter) => {
        const away = worker.run({ input: this.sharedBand(input, differing, bands), rows, counter, chunkRows: CHUNK_ROWS });
        // The bands go back once the worker is done with them.
        const release = () => bands.forEach((band) => band.release());
        away.then(release, release);
        return away;
      },
      (chunks) => runRowRules(input, rows, markRow, cells, undefined, chunks),
      (reply) => {
        mergeCells(cells, reply.cells);
        for (const y of reply.markedRows) marks[y] = new Uint8Array(reply.marks, (y - reply.top) * width, width);
      },
    );
    return { width, height, changedPixels: tally.changed, antiAliasedPixels: tally.antialiased, marks, cells };
  }

  /**
   * The differing rows shared with the rules worker, in chunks of CHUNK_ROWS
   * taken from one counter: `post(counter)` sends the worker its job,
   * `here(chunks)` runs this thread's chunks and gives their tally, and
   * `merge(reply)` takes in the marks and cells of the worker's answer. The
   * answer is awaited only when the worker took a chunk; chunks it took but
   * did not finish (it failed, or went away) are run here, in JavaScript.
   */
  private async shareRows<Reply extends { tally: RowRulesTally }>(
    input: RowRulesInput,
    differing: number[],
    markRow: (y: number) => Uint8Array,
    cells: CellGrid,
    post: (counter: Int32Array) => Promise<Reply>,
    here: (chunks: RowChunks) => RowRulesTally,
    merge: (reply: Reply) => void,
  ): Promise<RowRulesTally> {
    const counter = new Int32Array(new SharedArrayBuffer(4));
    const taken = new Uint8Array(Math.ceil(differing.length / CHUNK_ROWS));
    const away = post(counter);
    away.catch(() => undefined); // awaited below only when the worker took a chunk
    const tally = here(sharedChunks(counter, differing.length, CHUNK_ROWS, taken));
    if (taken.indexOf(0) < 0) return tally;
    let rest: RowRulesTally;
    try {
      const reply = await away;
      merge(reply);
      rest = reply.tally;
    } catch {
      rest = runRowRules(
        input,
        differing.filter((_, i) => !taken[Math.floor(i / CHUNK_ROWS)]),
        markRow,
        cells,
      );
    }
    return { changed: tally.changed + rest.changed, antialiased: tally.antialiased + rest.antialiased };
  }

  /**
   * Sets up this thread's rules kernel for the rows `rows` (copied into the
   * kernel's rows list). `readyRowsOfB(from, to)` makes the rows of B that
   * list[from] … list[to - 1] read (two above and below) ready; `run(from,
   * to)` does that, then runs the rules on those rows.
   */
  private kernelRules(memory: KernelRulesMemory, input: RowRulesInput, rows: ArrayLike<number>, cells: CellGrid) {
    const { b, width, height } = this;
    const { regions } = memory;
    const list = new Int32Array(regions.rows.buffer, regions.rows.byteOffset, rows.length);
    list.set(rows);
    const ignore = new Int32Array(regions.ignore.buffer, regions.ignore.byteOffset, input.ignore.length * 4);
    input.ignore.forEach((r, i) => ignore.set([r.x, r.y, r.width, r.height], i * 4));
    regions.rowMarked.fill(0);
    const setup: KernelRulesSetup = {
      a: { data: this.a.data, stride: this.a.stride },
      b: { data: b.data, stride: b.stride },
      channels: this.a.channels,
      width,
      height,
      maxDelta: input.maxDelta,
      includeAA: input.includeAA,
      marks: regions.marks,
      rowMarked: regions.rowMarked,
      cells,
      ignore,
      lumaA: regions.lumaA,
      lumaB: regions.lumaB,
    };
    memory.rules.setup(rulesOffsets(setup));
    const readyRowsOfB = (from: number, to: number) => {
      for (let i = from; i < to; i++) this.bRows(list[i] - 2, list[i] + 2);
    };
    const run = (from: number, to: number) => {
      readyRowsOfB(from, to);
      memory.rules.rows(list.byteOffset + from * 4, to - from);
    };
    return { setup, list, readyRowsOfB, run };
  }

  /**
   * The rules on this thread in the kernel (kernels.wat rulesRows),
   * CHUNK_ROWS rows a call: one long call would keep running the kernel's
   * first, unoptimised code.
   */
  private rulesInKernel(memory: KernelRulesMemory, input: RowRulesInput, rows: ArrayLike<number>, cells: CellGrid): RowRulesTally {
    const { run } = this.kernelRules(memory, input, rows, cells);
    for (let from = 0; from < rows.length; from += CHUNK_ROWS) run(from, Math.min(rows.length, from + CHUNK_ROWS));
    return memory.rules.tally();
  }

  /**
   * The rules shared with the rules worker in kernel memory: every row of B
   * the rules read is made ready first, then both threads run the rules
   * kernel over the same memory, taking chunks from one counter; the worker
   * keeps its own cells (merged here) and brightness rows, and its marks land
   * in the shared marks (the worker writes nothing before it takes a chunk,
   * so a caller that took every chunk does not wait for it).
   */
  private async sharedInKernel(
    worker: RulesWorker,
    memory: KernelRulesMemory,
    input: RowRulesInput,
    differing: number[],
    markRow: (y: number) => Uint8Array,
    cells: CellGrid,
  ): Promise<RowRulesTally> {
    const { width, height } = this;
    const { regions } = memory;
    const kernel = this.kernelRules(memory, input, differing, cells);
    kernel.readyRowsOfB(0, differing.length);
    const workerCells = cellGridIn(width, height, regions.workerCells);
    const offsets = rulesOffsets({ ...kernel.setup, cells: workerCells, lumaA: regions.workerLumaA, lumaB: regions.workerLumaB });
    return this.shareRows(
      input,
      differing,
      markRow,
      cells,
      (counter) =>
        worker.runInKernel({
          kind: 'kernel',
          memory: memory.memory,
          offsets,
          rows: kernel.list.byteOffset,
          count: differing.length,
          counter,
          chunkRows: CHUNK_ROWS,
        }),
      (chunks) => {
        for (let k = chunks.next(); k >= 0; k = chunks.next()) kernel.run(k * CHUNK_ROWS, Math.min(differing.length, (k + 1) * CHUNK_ROWS));
        return memory.rules.tally();
      },
      () => mergeCells(cells, workerCells),
    );
  }

  /**
   * The rules' input over copies, in shared memory, of the band of A and B
   * the differing rows read (two rows above and below): B's rows there made
   * ready first. The shared buffers (bandBuffer) are pushed to `bands`, to be
   * released when the worker has answered.
   */
  private sharedBand(input: RowRulesInput, differing: number[], bands: Array<{ release(): void }>): RulesJob['input'] {
    const top = Math.max(0, differing[0] - 2);
    const bottom = Math.min(this.height - 1, differing[differing.length - 1] + 2);
    this.bRows(top, bottom);
    const band = (r: Raster) => {
      const bytes = r.data.subarray(top * r.stride, bottom * r.stride + r.rowBytes);
      const buffer = bandBuffer(bytes.length);
      bands.push(buffer);
      const data = buffer.view;
      data.set(bytes);
      return { data, stride: r.stride, channels: r.channels, top };
    };
    return { ...input, a: band(this.a), b: band(this.b) };
  }

  /** The rules worker when this much work (differing rows × width) is worth a second thread, else null. */
  private rulesWorkerFor(work: number, mode: RulesWorkerMode): RulesWorker | null {
    if (mode === 'never' || work === 0) return null;
    if (mode === 'always') return rulesWorker(true);
    const worker = rulesWorker(work >= START_PIXELS);
    if (!worker) return null;
    return work >= (worker.ready ? SPLIT_PIXELS : SPLIT_PIXELS_STARTING) ? worker : null;
  }
}
