/**
 * Order-preserving alignment of two key sequences: which items of A and B
 * are the same item, keeping both orders (a common subsequence). The aria
 * diff aligns sibling lists with it; the trace diff pairs actions and DOM
 * outlines with it.
 *
 * How, and why it stays fast on 10,000-item lists: equal prefixes and
 * suffixes are matched first; then keys that occur exactly once on each side
 * are anchors (patience diff), of which the longest run in order on both
 * sides is kept, and the gaps between anchors are aligned the same way. A
 * gap without such anchors is aligned exactly (a longest common subsequence
 * table) when it is small, else greedily in order. Deterministic: ties go to
 * the earliest items.
 */

/** Gaps up to this many cells (|A| × |B|) get the exact table; larger ones the greedy pass. */
const EXACT_LIMIT = 250_000;

export type Pair = [number, number];

/** Matched index pairs of `a` and `b` (equal keys), increasing on both sides. */
export function alignSequences<K extends string | number>(a: readonly K[], b: readonly K[]): Pair[] {
  const out: Pair[] = [];
  alignRange(a, b, 0, a.length, 0, b.length, out);
  return out;
}

function alignRange<K extends string | number>(a: readonly K[], b: readonly K[], aLo: number, aHi: number, bLo: number, bHi: number, out: Pair[]): void {
  while (aLo < aHi && bLo < bHi && a[aLo] === b[bLo]) out.push([aLo++, bLo++]);
  const suffix: Pair[] = [];
  while (aHi > aLo && bHi > bLo && a[aHi - 1] === b[bHi - 1]) suffix.push([--aHi, --bHi]);
  if (aLo < aHi && bLo < bHi) {
    const anchors = uniqueAnchors(a, b, aLo, aHi, bLo, bHi);
    if (anchors.length) {
      let i = aLo;
      let j = bLo;
      for (const [ai, bj] of anchors) {
        alignRange(a, b, i, ai, j, bj, out);
        out.push([ai, bj]);
        i = ai + 1;
        j = bj + 1;
      }
      alignRange(a, b, i, aHi, j, bHi, out);
    } else if ((aHi - aLo) * (bHi - bLo) <= EXACT_LIMIT) {
      exactLcs(a, b, aLo, aHi, bLo, bHi, out);
    } else {
      greedy(a, b, aLo, aHi, bLo, bHi, out);
    }
  }
  for (let k = suffix.length - 1; k >= 0; k--) out.push(suffix[k]);
}

/** Keys once in each range, paired, reduced to the longest run increasing on both sides. */
function uniqueAnchors<K extends string | number>(a: readonly K[], b: readonly K[], aLo: number, aHi: number, bLo: number, bHi: number): Pair[] {
  const inA = new Map<K, number>();
  for (let i = aLo; i < aHi; i++) inA.set(a[i], inA.has(a[i]) ? -1 : i);
  const inB = new Map<K, number>();
  for (let j = bLo; j < bHi; j++) if (inA.has(b[j])) inB.set(b[j], inB.has(b[j]) ? -1 : j);
  const candidates: Pair[] = [];
  for (let i = aLo; i < aHi; i++) {
    const at = inA.get(a[i])!;
    const bj = inB.get(a[i]);
    if (at === i && bj !== undefined && bj >= 0) candidates.push([i, bj]);
  }
  return longestIncreasing(candidates);
}

/** Longest subsequence of pairs (sorted by A) whose B indexes increase: patience sorting, O(n log n). */
function longestIncreasing(pairs: Pair[]): Pair[] {
  if (pairs.length <= 1) return pairs;
  const tails: number[] = [];
  const previous = new Array<number>(pairs.length).fill(-1);
  for (let k = 0; k < pairs.length; k++) {
    const value = pairs[k][1];
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (pairs[tails[mid]][1] < value) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) previous[k] = tails[lo - 1];
    tails[lo] = k;
  }
  const out: Pair[] = [];
  for (let k = tails[tails.length - 1]; k >= 0; k = previous[k]) out.push(pairs[k]);
  return out.reverse();
}

function exactLcs<K extends string | number>(a: readonly K[], b: readonly K[], aLo: number, aHi: number, bLo: number, bHi: number, out: Pair[]): void {
  const n = aHi - aLo;
  const m = bHi - bLo;
  // table[i][j]: LCS length of a[aLo+i..] and b[bLo+j..], so the walk below goes forwards.
  const width = m + 1;
  const table = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * width + j] = a[aLo + i] === b[bLo + j] ? table[(i + 1) * width + j + 1] + 1 : Math.max(table[(i + 1) * width + j], table[i * width + j + 1]);
    }
  }
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[aLo + i] === b[bLo + j]) {
      out.push([aLo + i++, bLo + j++]);
    } else if (table[(i + 1) * width + j] >= table[i * width + j + 1]) {
      i++;
    } else {
      j++;
    }
  }
}

/** Each A item takes the first unused equal B item after the last match. */
function greedy<K extends string | number>(a: readonly K[], b: readonly K[], aLo: number, aHi: number, bLo: number, bHi: number, out: Pair[]): void {
  const positions = new Map<K, number[]>();
  for (let j = bLo; j < bHi; j++) {
    const list = positions.get(b[j]);
    if (list) list.push(j);
    else positions.set(b[j], [j]);
  }
  const cursor = new Map<K, number>();
  let last = bLo - 1;
  for (let i = aLo; i < aHi; i++) {
    const list = positions.get(a[i]);
    if (!list) continue;
    let k = cursor.get(a[i]) ?? 0;
    while (k < list.length && list[k] <= last) k++;
    cursor.set(a[i], k);
    if (k < list.length) {
      last = list[k];
      out.push([i, last]);
      cursor.set(a[i], k + 1);
    }
  }
}

/**
 * Order-preserving pairing of two short lists by a score (higher is a better
 * pair; null = may not pair), maximizing the total: the pass that pairs what
 * the key alignment left, e.g. a button whose name changed. Lists larger than
 * `limit` cells fall back to pairing in order by `fallbackKey`.
 */
export function pairByScore<T>(
  a: readonly T[],
  b: readonly T[],
  score: (x: T, y: T) => number | null,
  fallbackKey: (x: T) => string | number,
  limit = 40_000,
): Pair[] {
  const n = a.length;
  const m = b.length;
  if (!n || !m) return [];
  if (n * m > limit) return alignSequences(a.map(fallbackKey), b.map(fallbackKey));
  const width = m + 1;
  const best = new Float64Array((n + 1) * width);
  const scores = new Float64Array(n * m).fill(-1);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) {
      const s = score(a[i], b[j]);
      if (s !== null && s > 0) scores[i * m + j] = s;
    }
  }
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      let v = Math.max(best[(i + 1) * width + j], best[i * width + j + 1]);
      const s = scores[i * m + j];
      if (s > 0) v = Math.max(v, s + best[(i + 1) * width + j + 1]);
      best[i * width + j] = v;
    }
  }
  const out: Pair[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    const s = scores[i * m + j];
    const here = best[i * width + j];
    if (s > 0 && here === s + best[(i + 1) * width + j + 1]) {
      out.push([i++, j++]);
    } else if (here === best[(i + 1) * width + j]) {
      i++;
    } else {
      j++;
    }
  }
  return out;
}
