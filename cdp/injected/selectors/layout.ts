/**
 * Layout pseudo-classes (:right-of, :left-of, :above, :below, :near): an
 * element qualifies when some anchor lies in that direction (within the
 * maximum distance, when given); its score — the gap plus how far it is
 * offset across the direction — orders the results, nearest first.
 */
type Scorer = (box: DOMRect, anchor: DOMRect, max: number | undefined) => number | undefined;

const within = (gap: number, max: number | undefined) => gap >= 0 && (max === undefined || gap <= max);

const SCORERS: Record<string, Scorer> = {
  'right-of': (b, a, max) => {
    const gap = b.left - a.right;
    return within(gap, max) ? gap + Math.max(a.bottom - b.bottom, 0) + Math.max(b.top - a.top, 0) : undefined;
  },
  'left-of': (b, a, max) => {
    const gap = a.left - b.right;
    return within(gap, max) ? gap + Math.max(a.bottom - b.bottom, 0) + Math.max(b.top - a.top, 0) : undefined;
  },
  above: (b, a, max) => {
    const gap = a.top - b.bottom;
    return within(gap, max) ? gap + Math.max(b.left - a.left, 0) + Math.max(a.right - b.right, 0) : undefined;
  },
  below: (b, a, max) => {
    const gap = b.top - a.bottom;
    return within(gap, max) ? gap + Math.max(b.left - a.left, 0) + Math.max(a.right - b.right, 0) : undefined;
  },
  near: (b, a, max) => {
    // Sum of the gaps on each axis; 50 px unless the caller says otherwise.
    const gaps = [b.left - a.right, a.left - b.right, a.top - b.bottom, b.top - a.bottom];
    const score = gaps.reduce((sum, g) => (g >= 0 ? sum + g : sum), 0);
    return score > (max === undefined ? 50 : max) ? undefined : score;
  },
};

/** The best (lowest) score of `e` against any anchor other than itself; undefined when none qualifies. */
export function layoutScore(name: string, e: Element, anchors: Element[], max: number | undefined): number | undefined {
  const scorer = SCORERS[name];
  const box = e.getBoundingClientRect();
  let best: number | undefined;
  for (const a of anchors) {
    if (a === e) continue;
    const s = scorer(box, a.getBoundingClientRect(), max);
    if (s !== undefined && (best === undefined || s < best)) best = s;
  }
  return best;
}
