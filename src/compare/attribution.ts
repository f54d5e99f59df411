/**
 * Names what a changed pixel region of a screenshot belongs to: the elements
 * under it on each side (from the probe sidecars' `elements` face,
 * elementBoxes.ts), paired across the two captures, with the computed-style
 * changes that explain it (`button#buy background-color #1565c0 → #d32f2f`,
 * a font size off the declared scale when the capture was bound), and the
 * elements present on one side only. Also turns ignore-selectors into
 * rectangles through the same recorded boxes.
 *
 * Coordinates: regions are device pixels of the PNG (what the pixel engine
 * reports); boxes are CSS px; the sidecar's devicePixelRatio converts. The
 * two captures are aligned at their top-left corner, as the pixel engine
 * aligns pages of different heights.
 *
 * Pairing (once per pair of sidecars, over all recorded elements): the same
 * selector and name; then the same tag, role and name (a list item that moved
 * down when one was inserted above it keeps its name, not its :nth-of-type);
 * then the same selector (a button whose label changed). What is left is
 * added or removed. Ties go in document order.
 *
 * Under a region: every element whose box meets it, ranked by how well the
 * box fits the region (intersection over union), deeper elements first on a
 * tie — so the button whose background changed ranks above the form that
 * holds it and the text inside it. Changes are listed style and name changes
 * first, then elements on one side only, then boxes that only moved (which
 * follow from something else), each best fit first.
 */
import type { ProbeSidecar } from '../probe/sidecar';
import { scaleChecker } from '../probe/comparator';
import type { DesignAxis, DesignDeclaration } from '../contract/designBinding';
import { STYLE_INITIAL, type ElementBox, type ElementBoxesFace } from '../probe/elementBoxes';

/** A rectangle in device pixels of the screenshot (the pixel engine's regions carry changedPixels too). */
export interface DeviceRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

interface CssBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** An element as an attribution names it. */
export interface NamedElement {
  /** Index in its sidecar's elements.items. */
  index: number;
  selector: string;
  tag: string;
  /** The role attribute as written. */
  role?: string;
  name: string;
  /** CSS px, document coordinates. */
  box: CssBox;
  /** Intersection over union of the box and the region (0..1); 0 for an element outside the region named as a partner. */
  fit: number;
}

export interface StyleChange {
  property: string;
  before: string;
  after: string;
  /** The after value is off the declared scale of its axis (the after capture is bound and declares that axis). */
  offScale?: DesignAxis;
}

export type ElementChangeKind = 'changed' | 'added' | 'removed';

export interface ElementChange {
  kind: ElementChangeKind;
  before: NamedElement | null;
  after: NamedElement | null;
  /** How the two sides were paired (null for added or removed). */
  pairedBy: 'selector and name' | 'tag, role and name' | 'selector' | null;
  styles: StyleChange[];
  /** The label changed. */
  name?: { before: string; after: string };
  /** The box moved or changed size (by more than half a CSS pixel). */
  box?: { before: CssBox; after: CssBox };
  /** Its nearest recorded ancestor is another element after than before (it moved elsewhere, not with what holds it). */
  reparented?: { before: string | null; after: string | null };
  /** One line for people: `button#buy "Buy now": background-color #1565c0 → #d32f2f`. */
  summary: string;
}

export interface RegionAttribution {
  region: DeviceRect;
  /** Elements under the region on each side, best fit first (at most `limit`). */
  before: NamedElement[];
  after: NamedElement[];
  /** Elements under the region on either side that differ, best fit first: style changes, then moves, then one-sided elements. */
  changes: ElementChange[];
  /** Why a side could not be named (no sidecar, no elements face, no page facts). */
  unavailable: string[];
}

export interface AttributionOptions {
  /** Elements named per side and region. Default 5. */
  limit?: number;
}

/** Half a CSS pixel: boxes are laid out in 1/64 px, and a sub-pixel shift paints nothing to name. */
const BOX_TOLERANCE = 0.5;

interface Side {
  face: ElementBoxesFace | null;
  ratio: number;
  depth: number[];
  design: DesignDeclaration | undefined;
  problem: string | null;
}

function readSide(label: 'before' | 'after', sidecar: ProbeSidecar | null): Side {
  const none = (problem: string): Side => ({ face: null, ratio: 1, depth: [], design: undefined, problem });
  if (!sidecar) return none(`the ${label} screenshot has no probe sidecar`);
  if (!sidecar.elements)
    return none(`the ${label} probe sidecar records no element boxes (written before they were recorded, or by a provider that does not record them)`);
  if (!sidecar.page) return none(`the ${label} probe sidecar has no page facts, so its device pixel ratio is unknown`);
  const items = sidecar.elements.items;
  const depth = items.map(() => 0);
  items.forEach((item, i) => (depth[i] = item.parent === null ? 0 : depth[item.parent] + 1));
  return { face: sidecar.elements, ratio: sidecar.page.devicePixelRatio || 1, depth, design: sidecar.design as DesignDeclaration | undefined, problem: null };
}

function intersection(a: CssBox, b: CssBox): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

function named(item: ElementBox, index: number, fit: number): NamedElement {
  const out: NamedElement = { index, selector: item.selector, tag: item.tag, name: item.name, box: item.box, fit: Math.round(fit * 1000) / 1000 };
  if (item.role !== undefined) out.role = item.role;
  return out;
}

/** Pairs of item indexes across two faces (before -> after), by the rules in the header. */
export function pairElements(before: ElementBoxesFace, after: ElementBoxesFace): Map<number, { after: number; by: NonNullable<ElementChange['pairedBy']> }> {
  const pairs = new Map<number, { after: number; by: NonNullable<ElementChange['pairedBy']> }>();
  const taken = new Set<number>();
  const pass = (key: (item: ElementBox) => string | null, by: NonNullable<ElementChange['pairedBy']>) => {
    const waiting = new Map<string, number[]>();
    after.items.forEach((item, j) => {
      if (taken.has(j)) return;
      const k = key(item);
      if (k === null) return;
      const list = waiting.get(k);
      if (list) list.push(j);
      else waiting.set(k, [j]);
    });
    before.items.forEach((item, i) => {
      if (pairs.has(i)) return;
      const k = key(item);
      const list = k === null ? undefined : waiting.get(k);
      if (!list || !list.length) return;
      const j = list.shift()!;
      pairs.set(i, { after: j, by });
      taken.add(j);
    });
  };
  pass((item) => `${item.selector}\u0000${item.name}`, 'selector and name');
  pass((item) => (item.name ? `${item.tag}\u0000${item.role ?? ''}\u0000${item.name}` : null), 'tag, role and name');
  pass((item) => item.selector, 'selector');
  return pairs;
}

/** Opaque rgb() as #rrggbb, in any value ("1px solid rgb(224, 224, 224)" -> "1px solid #e0e0e0"). */
export function readableValue(value: string): string {
  return value.replace(/rgb\((\d+), (\d+), (\d+)\)/g, (_m, r, g, b) => '#' + [r, g, b].map((c) => Number(c).toString(16).padStart(2, '0')).join(''));
}

const SCALE_AXIS: Record<string, DesignAxis> = { 'font-size': 'fontSizes', color: 'colors', 'background-color': 'colors', 'border-radius': 'radii' };

function styleChanges(a: ElementBox, b: ElementBox, onScale: ((axis: DesignAxis, value: string) => boolean | null) | null): StyleChange[] {
  const out: StyleChange[] = [];
  const keys = [...new Set([...Object.keys(a.styles), ...Object.keys(b.styles)])];
  for (const property of keys) {
    const initial = STYLE_INITIAL[property];
    const before = a.styles[property] ?? initial;
    const after = b.styles[property] ?? initial;
    // A text style recorded on one side only (the element stopped rendering text) has no value to compare.
    if (before === undefined || after === undefined || before === after) continue;
    const change: StyleChange = { property, before, after };
    const drawnBorder = /^border(-(top|right|bottom|left))?$/.test(property);
    const axis = drawnBorder ? 'colors' : SCALE_AXIS[property];
    if (axis && onScale && after !== 'none') {
      // A radius shorthand is judged corner by corner (square corners are no step of the scale); a border by its colour.
      const parts = axis === 'radii' ? after.split(' ').filter((p) => !/^0(px)?$/.test(p)) : drawnBorder ? (after.match(/rgba?\([^)]*\)/g) ?? []) : [after];
      if (parts.some((p) => onScale(axis, p) === false)) change.offScale = axis;
    }
    out.push(change);
  }
  return out;
}

const SCALE_NAMES: Record<DesignAxis, string> = { fontSizes: 'type scale', colors: 'palette', radii: 'radius scale' };

function title(element: NamedElement): string {
  return element.name ? `${element.selector} ${JSON.stringify(element.name)}` : element.selector;
}

function summaryOf(change: Omit<ElementChange, 'summary'>): string {
  if (change.kind === 'added') return `${title(change.after!)}: only after`;
  if (change.kind === 'removed') return `${title(change.before!)}: only before`;
  const parts: string[] = [];
  for (const s of change.styles) {
    const note = s.offScale ? ` (off the declared ${SCALE_NAMES[s.offScale]})` : '';
    parts.push(`${s.property} ${readableValue(s.before)} \u2192 ${readableValue(s.after)}${note}`);
  }
  if (change.name) parts.push(`name ${JSON.stringify(change.name.before)} \u2192 ${JSON.stringify(change.name.after)}`);
  if (change.reparented) parts.push(`now in ${change.reparented.after ?? 'the page'} (was in ${change.reparented.before ?? 'the page'})`);
  if (change.box) {
    const { before: p, after: q } = change.box;
    if (p.x !== q.x || p.y !== q.y) parts.push(`moved (${p.x}, ${p.y}) \u2192 (${q.x}, ${q.y})`);
    if (p.width !== q.width || p.height !== q.height) parts.push(`size ${p.width}\u00d7${p.height} \u2192 ${q.width}\u00d7${q.height}`);
  }
  const moved = change.after!.selector !== change.before!.selector ? ` (now ${change.after!.selector})` : '';
  return `${change.before!.selector}${moved}: ${parts.join(', ')}`;
}

function boxMoved(a: CssBox, b: CssBox): boolean {
  return (
    Math.abs(a.x - b.x) > BOX_TOLERANCE ||
    Math.abs(a.y - b.y) > BOX_TOLERANCE ||
    Math.abs(a.width - b.width) > BOX_TOLERANCE ||
    Math.abs(a.height - b.height) > BOX_TOLERANCE
  );
}

/** Attributes changed regions of one screenshot pair; the pairing is computed once for all regions. */
export function attributeRegions(
  regions: readonly DeviceRect[],
  before: ProbeSidecar | null,
  after: ProbeSidecar | null,
  options: AttributionOptions = {},
): RegionAttribution[] {
  const limit = options.limit ?? 5;
  const a = readSide('before', before);
  const b = readSide('after', after);
  const unavailable = [a.problem, b.problem].filter((p): p is string => p !== null);
  const pairs = a.face && b.face ? pairElements(a.face, b.face) : new Map<number, { after: number; by: NonNullable<ElementChange['pairedBy']> }>();
  const reverse = new Map<number, number>();
  for (const [i, { after: j }] of pairs) reverse.set(j, i);
  const onScale = b.design !== undefined ? scaleChecker(b.design) : null;

  const under = (side: Side, region: DeviceRect) => {
    if (!side.face) return [];
    const r = side.ratio;
    const box: CssBox = { x: region.x / r, y: region.y / r, width: region.width / r, height: region.height / r };
    const area = box.width * box.height;
    const hits: { index: number; fit: number; depth: number }[] = [];
    side.face.items.forEach((item, index) => {
      const inter = intersection(item.box, box);
      if (inter <= 0) return;
      const union = area + item.box.width * item.box.height - inter;
      hits.push({ index, fit: union > 0 ? inter / union : 0, depth: side.depth[index] });
    });
    return hits.sort((x, y) => y.fit - x.fit || y.depth - x.depth || x.index - y.index);
  };

  return regions.map((region) => {
    const hitsA = under(a, region);
    const hitsB = under(b, region);
    const fitA = new Map(hitsA.map((h) => [h.index, h.fit]));
    const fitB = new Map(hitsB.map((h) => [h.index, h.fit]));
    const changes: (ElementChange & { rank: number; order: number })[] = [];
    const seen = new Set<string>();
    const consider = (i: number | null, j: number | null, order: number) => {
      const key = `${i}:${j}`;
      if (seen.has(key)) return;
      seen.add(key);
      const itemA = i === null ? null : a.face!.items[i];
      const itemB = j === null ? null : b.face!.items[j];
      const elA = itemA ? named(itemA, i!, fitA.get(i!) ?? 0) : null;
      const elB = itemB ? named(itemB, j!, fitB.get(j!) ?? 0) : null;
      const fit = Math.max(elA?.fit ?? 0, elB?.fit ?? 0);
      if (!itemA || !itemB) {
        // Only one capture recorded element boxes: nothing is one-sided for certain.
        if (!a.face || !b.face) return;
        const kind: ElementChangeKind = itemA ? 'removed' : 'added';
        const change = { kind, before: elA, after: elB, pairedBy: null, styles: [] };
        changes.push({ ...change, summary: summaryOf(change), rank: 1 - fit, order });
        return;
      }
      const styles = styleChanges(itemA, itemB, onScale);
      const change: Omit<ElementChange, 'summary'> = { kind: 'changed', before: elA, after: elB, pairedBy: pairs.get(i!)!.by, styles };
      if (itemA.name !== itemB.name) change.name = { before: itemA.name, after: itemB.name };
      if (boxMoved(itemA.box, itemB.box)) change.box = { before: itemA.box, after: itemB.box };
      const parentA = itemA.parent === null ? null : (pairs.get(itemA.parent)?.after ?? -1);
      if (parentA !== itemB.parent) {
        change.reparented = {
          before: itemA.parent === null ? null : a.face!.items[itemA.parent].selector,
          after: itemB.parent === null ? null : b.face!.items[itemB.parent].selector,
        };
      }
      if (!styles.length && !change.name && !change.box && !change.reparented) return;
      // Style and name changes explain pixels, then elements on one side only or put elsewhere; a box that only moved follows from something else.
      const rank = (styles.length || change.name ? 0 : change.reparented ? 1 : 2) - fit;
      changes.push({ ...change, summary: summaryOf(change), rank, order });
    };
    let order = 0;
    for (const h of hitsA) consider(h.index, pairs.get(h.index)?.after ?? null, order++);
    for (const h of hitsB) consider(reverse.get(h.index) ?? null, h.index, order++);
    changes.sort((x, y) => x.rank - y.rank || x.order - y.order);
    return {
      region: { x: region.x, y: region.y, width: region.width, height: region.height },
      before: hitsA.slice(0, limit).map((h) => named(a.face!.items[h.index], h.index, h.fit)),
      after: hitsB.slice(0, limit).map((h) => named(b.face!.items[h.index], h.index, h.fit)),
      changes: changes.map(({ rank: _rank, order: _order, ...change }) => change),
      unavailable,
    };
  });
}

/** One region's attribution (attributeRegions for several). */
export function attributeRegion(
  region: DeviceRect,
  before: ProbeSidecar | null,
  after: ProbeSidecar | null,
  options: AttributionOptions = {},
): RegionAttribution {
  return attributeRegions([region], before, after, options)[0];
}

// ---- ignore-selectors ----

interface Compound {
  tag: string | null;
  id: string | null;
  classes: string[];
  nth: number | null;
}

/** A selector of compounds (tag, #id, .class, :nth-of-type(n)) joined by ' ' or '>'; null when it uses anything else. */
function parseSelector(selector: string): { compounds: Compound[]; child: boolean[] } | null {
  const tokens = selector
    .trim()
    .replace(/\s*>\s*/g, ' > ')
    .split(/\s+/);
  const compounds: Compound[] = [];
  const child: boolean[] = [];
  let nextIsChild = false;
  for (const token of tokens) {
    if (token === '>') {
      if (!compounds.length || nextIsChild) return null;
      nextIsChild = true;
      continue;
    }
    const m = /^([a-zA-Z][\w-]*|\*)?((?:[#.][\w-]+)*)(?::nth-of-type\((\d+)\))?$/.exec(token);
    if (!m || token === '') return null;
    const compound: Compound = { tag: m[1] && m[1] !== '*' ? m[1].toLowerCase() : null, id: null, classes: [], nth: m[3] ? Number(m[3]) : null };
    for (const part of m[2].match(/[#.][\w-]+/g) ?? []) {
      if (part[0] === '#') compound.id = part.slice(1);
      else compound.classes.push(part.slice(1));
    }
    child.push(nextIsChild);
    compounds.push(compound);
    nextIsChild = false;
  }
  return compounds.length && !nextIsChild ? { compounds, child } : null;
}

/** One segment of a recorded selector (`button#buy.primary:nth-of-type(2)`). */
function readSegment(segment: string): Compound {
  const m = /^([a-zA-Z][\w-]*)?((?:[#.][^#.:\s]+)*)(?::nth-of-type\((\d+)\))?/.exec(segment) ?? ['', '', '', undefined];
  const compound: Compound = { tag: m[1] ? m[1].toLowerCase() : null, id: null, classes: [], nth: m[3] ? Number(m[3]) : null };
  for (const part of m[2]?.match(/[#.][^#.]+/g) ?? []) {
    if (part[0] === '#') compound.id = part.slice(1);
    else compound.classes.push(part.slice(1));
  }
  return compound;
}

function compoundMatches(want: Compound, have: Compound): boolean {
  if (want.tag && want.tag !== have.tag) return false;
  if (want.id && want.id !== have.id) return false;
  if (want.nth !== null && want.nth !== have.nth) return false;
  return want.classes.every((c) => have.classes.includes(c));
}

/**
 * Segments from an element up: its recorded selector's own path (each the
 * parent of the one before), then the last segments of its recorded
 * ancestors beyond that path (ancestors, not necessarily parents).
 */
function ancestry(items: ElementBox[], index: number): { segment: Compound; exactParent: boolean }[] {
  const item = items[index];
  const own = item.selector.split(/ >> | > /).reverse();
  const chain = own.map((segment, k) => ({ segment: readSegment(segment), exactParent: k < own.length - 1 }));
  const depth = own.length;
  let skipped = 0;
  for (let p = item.parent; p !== null; p = items[p].parent) {
    // The first depth-1 recorded ancestors may already be in the path.
    if (skipped++ < depth - 1) continue;
    const segments = items[p].selector.split(/ >> | > /);
    chain.push({ segment: readSegment(segments[segments.length - 1]), exactParent: false });
  }
  return chain;
}

/** Whether the chain, from position `at` up, matches the selector's compounds right to left. */
function chainMatches(chain: ReturnType<typeof ancestry>, at: number, parsed: { compounds: Compound[]; child: boolean[] }): boolean {
  const { compounds, child } = parsed;
  const match = (c: number, pos: number): boolean => {
    if (!compoundMatches(compounds[c], chain[pos].segment)) return false;
    if (c === 0) return true;
    // Where the recorded path ends, the next recorded ancestor may not be the parent: '>' is then read as ' '.
    if (child[c] && chain[pos].exactParent) return pos + 1 < chain.length && match(c - 1, pos + 1);
    for (let up = pos + 1; up < chain.length; up++) if (match(c - 1, up)) return true;
    return false;
  };
  return match(compounds.length - 1, at);
}

export interface IgnoreRegion {
  selector: string;
  /** Device-pixel rectangles of the matched elements' boxes. */
  rects: DeviceRect[];
  /** Selectors of the recorded elements matched. */
  matched: string[];
  /** `element`: recorded elements match it; `descendants`: it names an unrecorded element, covered by the recorded elements inside it. */
  via: 'element' | 'descendants' | null;
  /** Why nothing was resolved ('' when something was). */
  problem: string;
}

function toDevice(box: CssBox, ratio: number): DeviceRect {
  const x = Math.floor(box.x * ratio);
  const y = Math.floor(box.y * ratio);
  return { x, y, width: Math.ceil((box.x + box.width) * ratio) - x, height: Math.ceil((box.y + box.height) * ratio) - y };
}

/**
 * Ignore-selectors as device-pixel rectangles, through one capture's recorded
 * element boxes. Selectors are compounds of tag, #id, .class and
 * :nth-of-type(n) joined by descendant or child combinators, matched against
 * what the sidecar records (tag, id, the first three classes, position among
 * same-tag siblings, and the recorded ancestry). Where an element's recorded
 * path ends (at an id, or four elements up) its parent is not known, so a
 * child combinator there is read as a descendant one: an ignore region errs
 * on the side of covering.
 */
export function resolveIgnoreSelectors(selectors: readonly string[], sidecar: ProbeSidecar): IgnoreRegion[] {
  const side = readSide('after', sidecar);
  return selectors.map((selector) => {
    const result: IgnoreRegion = { selector, rects: [], matched: [], via: null, problem: '' };
    if (!side.face) {
      result.problem = side.problem!.replace('the after ', 'the ');
      return result;
    }
    const parsed = parseSelector(selector);
    if (!parsed) {
      result.problem = `ignore selector ${JSON.stringify(selector)} is not one this comparison resolves: use tag, #id, .class and :nth-of-type(n), joined by spaces or '>'`;
      return result;
    }
    const items = side.face.items;
    const chains = items.map((_item, i) => ancestry(items, i));
    let hits = items.map((_item, i) => i).filter((i) => chainMatches(chains[i], 0, parsed));
    if (hits.length) result.via = 'element';
    else {
      // The selector may name a wrapper the face leaves out: cover what it holds.
      hits = items.map((_item, i) => i).filter((i) => chains[i].some((_s, at) => at > 0 && chainMatches(chains[i], at, parsed)));
      if (hits.length) result.via = 'descendants';
    }
    // Boxes inside a matched one add nothing.
    const set = new Set(hits);
    const top = hits.filter((i) => {
      for (let p = items[i].parent; p !== null; p = items[p].parent) if (set.has(p)) return false;
      return true;
    });
    result.matched = top.map((i) => items[i].selector);
    result.rects = top.map((i) => toDevice(items[i].box, side.ratio));
    if (!top.length) result.problem = `ignore selector ${JSON.stringify(selector)} matched no element the probe sidecar records`;
    return result;
  });
}
