/**
 * Changed pixels clustered into rectangles. The compared area is cut into
 * square cells; each cell keeps the count and the bounding box of its changed
 * pixels; cells within `GAP_CELLS` cells of each other (both ways) join one
 * region, whose rectangle is the bounding box of its pixels. When that makes
 * more regions than allowed, the cells are pooled 2 × 2 (the gap doubles) and
 * clustered again, until the count fits: deterministic, and linear in the
 * number of cells at each level.
 */

/** Side of a cell at the first level, in device pixels. */
export const CELL = 8;
/** Cells apart that still join: 2 cells of 8 px, so changes up to about 16 px apart form one region. */
export const GAP_CELLS = 2;

export interface CellGrid {
  size: number;
  cols: number;
  rows: number;
  count: Int32Array;
  minX: Int32Array;
  minY: Int32Array;
  maxX: Int32Array;
  maxY: Int32Array;
}

export function newCellGrid(width: number, height: number, size = CELL): CellGrid {
  const cols = Math.max(1, Math.ceil(width / size));
  const rows = Math.max(1, Math.ceil(height / size));
  const n = cols * rows;
  return { size, cols, rows, count: new Int32Array(n), minX: new Int32Array(n), minY: new Int32Array(n), maxX: new Int32Array(n), maxY: new Int32Array(n) };
}

/** Bytes of the five arrays of a grid over width × height (cellGridIn). */
export function cellGridBytes(width: number, height: number, size = CELL): number {
  return 5 * 4 * Math.max(1, Math.ceil(width / size)) * Math.max(1, Math.ceil(height / size));
}

/** A grid whose arrays are views of `memory` (cellGridBytes long, 4-byte aligned), zeroed. */
export function cellGridIn(width: number, height: number, memory: Uint8Array, size = CELL): CellGrid {
  const cols = Math.max(1, Math.ceil(width / size));
  const rows = Math.max(1, Math.ceil(height / size));
  const n = cols * rows;
  memory.fill(0, 0, 20 * n);
  const at = (k: number) => new Int32Array(memory.buffer, memory.byteOffset + k * 4 * n, n);
  return { size, cols, rows, count: at(0), minX: at(1), minY: at(2), maxX: at(3), maxY: at(4) };
}

/** Records a changed pixel. */
export function markCell(grid: CellGrid, x: number, y: number): void {
  const i = Math.floor(y / grid.size) * grid.cols + Math.floor(x / grid.size);
  if (grid.count[i]++ === 0) {
    grid.minX[i] = grid.maxX[i] = x;
    grid.minY[i] = grid.maxY[i] = y;
    return;
  }
  if (x < grid.minX[i]) grid.minX[i] = x;
  else if (x > grid.maxX[i]) grid.maxX[i] = x;
  if (y > grid.maxY[i]) grid.maxY[i] = y;
  else if (y < grid.minY[i]) grid.minY[i] = y;
}

export interface PixelCluster {
  x: number;
  y: number;
  width: number;
  height: number;
  changedPixels: number;
}

/** A grid of cells twice the size, each holding the four it covers. */
function pooled(g: CellGrid): CellGrid {
  const next = newCellGrid(g.cols * g.size, g.rows * g.size, g.size * 2);
  for (let r = 0; r < g.rows; r++) {
    for (let c = 0; c < g.cols; c++) {
      const i = r * g.cols + c;
      if (!g.count[i]) continue;
      addCell(next, (r >> 1) * next.cols + (c >> 1), g, i);
    }
  }
  return next;
}

function find(parent: Int32Array, i: number): number {
  while (parent[i] !== i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

/** Clusters at one level: regions in reading order (top to bottom, then left to right). */
function clusterLevel(g: CellGrid): PixelCluster[] {
  let m = 0;
  for (let i = 0; i < g.count.length; i++) if (g.count[i]) m++;
  const marked = new Int32Array(m);
  const slot = new Int32Array(g.count.length).fill(-1);
  for (let i = 0, k = 0; i < g.count.length; i++) {
    if (!g.count[i]) continue;
    slot[i] = k;
    marked[k++] = i;
  }
  const parent = new Int32Array(m);
  for (let k = 0; k < m; k++) parent[k] = k;
  for (let k = 0; k < m; k++) {
    const r = Math.floor(marked[k] / g.cols);
    const c = marked[k] - r * g.cols;
    // k's root, kept up to date here: only joins made for k change it (earlier cells are done).
    let root = find(parent, k);
    // Earlier cells only: rows above within the gap, and the same row to the left.
    for (let dr = -GAP_CELLS; dr <= 0; dr++) {
      const rr = r + dr;
      if (rr < 0) continue;
      for (let dc = -GAP_CELLS; dc <= GAP_CELLS; dc++) {
        if (dr === 0 && dc >= 0) break;
        const cc = c + dc;
        if (cc < 0 || cc >= g.cols) continue;
        const other = slot[rr * g.cols + cc];
        if (other < 0) continue;
        const rb = find(parent, other);
        if (rb === root) continue;
        // The smaller index is the root of the joined set.
        if (rb < root) {
          parent[root] = rb;
          root = rb;
        } else parent[rb] = root;
      }
    }
  }
  // Each root gathers its cells' boxes and counts (a root is the smallest index of its set).
  const x0 = new Int32Array(m);
  const y0 = new Int32Array(m);
  const x1 = new Int32Array(m);
  const y1 = new Int32Array(m);
  const n = new Float64Array(m);
  const roots: number[] = [];
  for (let k = 0; k < m; k++) {
    const i = marked[k];
    const root = find(parent, k);
    if (root === k) {
      roots.push(k);
      x0[k] = g.minX[i];
      y0[k] = g.minY[i];
      x1[k] = g.maxX[i];
      y1[k] = g.maxY[i];
      n[k] = g.count[i];
      continue;
    }
    x0[root] = Math.min(x0[root], g.minX[i]);
    y0[root] = Math.min(y0[root], g.minY[i]);
    x1[root] = Math.max(x1[root], g.maxX[i]);
    y1[root] = Math.max(y1[root], g.maxY[i]);
    n[root] += g.count[i];
  }
  return roots
    .map((k) => ({ x: x0[k], y: y0[k], width: x1[k] - x0[k] + 1, height: y1[k] - y0[k] + 1, changedPixels: n[k] }))
    .sort((p, q) => p.y - q.y || p.x - q.x);
}

/**
 * The regions of a grid, at most `maxRegions`; `gap` is how far apart (in
 * device pixels, about) changes could be and still share a region.
 */
export function clusterRegions(grid: CellGrid, maxRegions: number): { regions: PixelCluster[]; gap: number } {
  let g = grid;
  for (;;) {
    const regions = clusterLevel(g);
    if (regions.length <= maxRegions || (g.cols === 1 && g.rows === 1)) return { regions, gap: g.size * GAP_CELLS };
    g = pooled(g);
  }
}

/** Adds the cells of `from` (a grid of the same size and cell) into `into`. */
export function mergeCells(into: CellGrid, from: CellGrid): void {
  for (let i = 0; i < from.count.length; i++) if (from.count[i]) addCell(into, i, from, i);
}

/** Adds cell i of `from` into cell j of `into`: the counts summed, the boxes joined. */
function addCell(into: CellGrid, j: number, from: CellGrid, i: number): void {
  if (!into.count[j]) {
    into.minX[j] = from.minX[i];
    into.minY[j] = from.minY[i];
    into.maxX[j] = from.maxX[i];
    into.maxY[j] = from.maxY[i];
  } else {
    into.minX[j] = Math.min(into.minX[j], from.minX[i]);
    into.minY[j] = Math.min(into.minY[j], from.minY[i]);
    into.maxX[j] = Math.max(into.maxX[j], from.maxX[i]);
    into.maxY[j] = Math.max(into.maxY[j], from.maxY[i]);
  }
  into.count[j] += from.count[i];
}
