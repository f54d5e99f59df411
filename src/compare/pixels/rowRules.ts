/**
 * pixelmatch's rules over a list of rows: the one loop the calling thread
 * and the rules worker both run (engine.ts hands a large comparison's second
 * half of rows to the worker), and the messages between them.
 */
import { RowCache, colourDelta, isAntialiased, type PixelView } from './pixelRules';
import type { KernelRulesOffsets } from './kernels';
import { markCell, type CellGrid } from './regions';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A mark in the mark map: a changed pixel, an anti-aliased one. */
export const CHANGED = 1;
export const ANTIALIASED = 2;

export interface RowRulesInput {
  a: PixelView;
  b: PixelView;
  /** The compared area (the rules read neighbours up to its edges). */
  width: number;
  height: number;
  /** maxDeltaFor(threshold). */
  maxDelta: number;
  includeAA: boolean;
  /** Rectangles left out of the comparison, already clipped to the compared area. */
  ignore: Rect[];
}

/** Chunks of `size` rows (of the rows list) handed out one at a time: `next()` gives a chunk's index, or -1 when none is left. */
export interface RowChunks {
  size: number;
  next(): number;
}

/**
 * The chunks of a job shared by two threads: each takes the next one from a
 * counter both see (`counter[0]`, a SharedArrayBuffer), so the thread that
 * finishes its chunk first takes the next, and neither waits for the other's
 * share. `taken` records the indices this side took.
 */
export function sharedChunks(counter: Int32Array, rowCount: number, size: number, taken?: Uint8Array): RowChunks {
  const total = Math.ceil(rowCount / size);
  return {
    size,
    next() {
      const k = Atomics.add(counter, 0, 1);
      if (k >= total) return -1;
      if (taken) taken[k] = 1;
      return k;
    },
  };
}

export interface RowRulesTally {
  changed: number;
  antialiased: number;
}

/**
 * Runs the rules on `rows` (increasing, each holding pixels that may differ):
 * each differing pixel marked CHANGED or ANTIALIASED in the row `markRow(y)`
 * gives (asked for once per row, on its first mark), each changed one
 * recorded in `cells`. `beforeRow(y)` is called first for each row (the
 * calling thread makes B's rows y - 2 … y + 2 ready there). With `chunks`,
 * only the chunks of rows it hands out are run (two threads share them).
 */
export function runRowRules(
  input: RowRulesInput,
  rows: ArrayLike<number>,
  markRow: (y: number) => Uint8Array,
  cells: CellGrid,
  beforeRow?: (y: number) => void,
  chunks?: RowChunks,
): RowRulesTally {
  const { a, b, width, height, maxDelta, includeAA, ignore } = input;
  const c = a.channels;
  const cacheA = new RowCache(a, width);
  const cacheB = new RowCache(b, width);
  const colourA = cacheA.colour;
  const colourB = cacheB.colour;
  const da = a.data;
  const db = b.data;
  const topA = a.top ?? 0;
  const topB = b.top ?? 0;
  let changed = 0;
  let antialiased = 0;
  let i = 0;
  let end = rows.length;
  if (chunks) i = end = 0;
  for (;;) {
    if (i === end) {
      const k = chunks ? chunks.next() : -1;
      if (k < 0) break;
      i = k * chunks!.size;
      end = Math.min(rows.length, i + chunks!.size);
    }
    const y = rows[i++];
    beforeRow?.(y);
    const spans = ignoredSpans(ignore, y);
    const ra = cacheA.colours(y);
    const rb = cacheB.colours(y);
    const rowA = (y - topA) * a.stride;
    const rowB = (y - topB) * b.stride;
    let rowMarks: Uint8Array | undefined;
    for (let x = 0; x < width; x++) {
      if (colourA[ra + x] === colourB[rb + x]) continue;
      if (spans && inSpans(spans, x)) continue;
      const delta = colourDelta(da, rowA + x * c, db, rowB + x * c, c);
      if (delta <= maxDelta && delta >= -maxDelta) continue;
      if (!includeAA && (isAntialiased(cacheA, cacheB, x, y, width, height) || isAntialiased(cacheB, cacheA, x, y, width, height))) {
        (rowMarks ??= markRow(y))[x] = ANTIALIASED;
        antialiased++;
      } else {
        (rowMarks ??= markRow(y))[x] = CHANGED;
        changed++;
        markCell(cells, x, y);
      }
    }
  }
  return { changed, antialiased };
}

/** The x spans [from, to) of the ignored rectangles crossing row y, or null. */
function ignoredSpans(ignore: Rect[], y: number): number[] | null {
  let spans: number[] | null = null;
  for (const r of ignore) {
    if (y < r.y || y >= r.y + r.height) continue;
    (spans ??= []).push(r.x, r.x + r.width);
  }
  return spans;
}

function inSpans(spans: number[], x: number): boolean {
  for (let i = 0; i < spans.length; i += 2) if (x >= spans[i] && x < spans[i + 1]) return true;
  return false;
}

/**
 * What the calling thread sends the rules worker: the rules' input with both
 * images cut to the band of rows the job reads (its rows, two above and two
 * below) in shared memory, the rows, and the counter the two threads take
 * chunks of `chunkRows` rows from (sharedChunks).
 */
export interface RulesJob {
  id: number;
  input: RowRulesInput & { a: PixelView & { top: number }; b: PixelView & { top: number } };
  rows: Int32Array;
  counter: Int32Array;
  chunkRows: number;
}

/**
 * A job over kernel memory (kernels.ts): the worker runs the rules kernel
 * over the comparison's own shared memory, set up with `offsets` (its own
 * cells and brightness caches, the rest shared: its rows' marks land where
 * the calling thread reads them), on chunks of the i32 rows list at byte
 * offset `rows` (`count` rows) taken from `counter`.
 */
export interface KernelRulesJob {
  id: number;
  kind: 'kernel';
  memory: WebAssembly.Memory;
  offsets: KernelRulesOffsets;
  rows: number;
  count: number;
  counter: Int32Array;
  chunkRows: number;
}

/**
 * The worker's answer: the tally, the marks of the job's rows (one buffer,
 * row y's marks at (y - top) × width, `markedRows` listing the rows that have
 * any) and the cells of its changed pixels; or what went wrong.
 */
export type RulesReply =
  | {
      id: number;
      tally: RowRulesTally;
      top: number;
      marks: ArrayBuffer;
      markedRows: Int32Array;
      cells: CellGrid;
    }
  | { id: number; kind: 'kernel'; tally: RowRulesTally }
  | { id: number; error: string };
