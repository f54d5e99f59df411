/**
 * The render-token comparator: judges the walker's rendered elements against
 * the declared design and the declaration-independent concentric-radius rule.
 * It owns every "is this rendered value on the scale" decision.
 *
 * Rules and the choices behind them:
 * - Font sizes: each element that renders text contributes its computed
 *   font size; one `font-size-off-scale` finding per distinct size not on
 *   design.fontSizes. Sizes match at Chromium's serialization precision (see
 *   pxKey).
 * - Colours: the text colour of text-rendering elements, background colours
 *   and drawn border colours. Fully transparent colours (alpha 0) are
 *   ignored; a translucent rendered colour can never equal an opaque palette
 *   literal, so it is reported off-palette as serialized. One
 *   `color-off-palette` finding per distinct colour, naming the properties.
 *   Colours Chromium serializes outside rgb()/rgba() (color(), oklch(), ...)
 *   are named undecidable.
 * - Radii: the computed corner radius as serialized, per corner of every box
 *   with area; square corners (0) are the absence of a radius, not a scale
 *   step, and are skipped. An elliptical "10px 5px" is on the scale only when
 *   both parts are. A percentage or calc() radius has no px scale value and is
 *   named undecidable. One `radius-off-scale` finding per distinct value.
 * - Concentric radii (always, bound or not): an inner box with a non-zero
 *   radius somewhere, inside an ancestor box (within 0.5px) whose rounded
 *   corner region contains the inner box's corner (inset < outer radius on
 *   both axes), should have radius max(0, outer - inset) at that corner,
 *   within 1px, per axis, using used radii. Each inner corner is paired with
 *   its nearest such ancestor; one `concentric-radius` finding per pair that
 *   breaks it, listing the corners.
 */
import type { Corner, RenderedElement } from '../../cdp/styleWalker';
import type { DesignAxis, DesignDeclaration } from '../contract/designBinding';
import { pxKey } from './literals';
import { readDeclaration, type CornerRelation, type Finding, type RenderTokensFace, type Sample, type Undecidable } from './face';

/** How many sample elements a finding lists. */
export const SAMPLE_LIMIT = 3;
/** Concentric tolerance (px), per the seed. */
export const CONCENTRIC_TOLERANCE_PX = 1;
/** Slack for "inside the outer box": boxes are laid out in 1/64px units. */
const CONTAINMENT_SLACK_PX = 0.5;

const CORNERS: readonly Corner[] = ['top-left', 'top-right', 'bottom-right', 'bottom-left'];

interface Tally {
  value: string;
  count: number;
  samples: Sample[];
  properties: Set<string>;
  lastElement: number;
}

/** Counts elements per distinct value (an element counts once per value), keeping document order. */
class ValueTally {
  private readonly byKey = new Map<string, Tally>();

  add(key: string, value: string, element: RenderedElement, property?: string): void {
    let tally = this.byKey.get(key);
    if (!tally) {
      tally = { value, count: 0, samples: [], properties: new Set(), lastElement: -1 };
      this.byKey.set(key, tally);
    }
    if (property) tally.properties.add(property);
    if (tally.lastElement === element.index) return;
    tally.lastElement = element.index;
    tally.count++;
    if (tally.samples.length < SAMPLE_LIMIT) tally.samples.push(sampleOf(element));
  }

  entries(): [string, Tally][] {
    return [...this.byKey.entries()];
  }
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

function sampleOf(element: RenderedElement): Sample {
  const { x, y, width, height } = element.box;
  return { selector: element.selector, box: { x: round(x), y: round(y), width: round(width), height: round(height) } };
}

type RenderedColor = { kind: 'transparent' } | { kind: 'rgb'; key: string } | { kind: 'translucent'; key: string } | { kind: 'other' };

/** Reads a colour as Chromium serializes computed colours. */
export function readRenderedColor(value: string): RenderedColor {
  const m = /^rgba?\((\d+), (\d+), (\d+)(?:, ([0-9.e+-]+))?\)$/.exec(value.trim());
  if (!m) return /^transparent$/i.test(value.trim()) ? { kind: 'transparent' } : { kind: 'other' };
  const alpha = m[4] === undefined ? 1 : Number(m[4]);
  if (alpha <= 0) return { kind: 'transparent' };
  if (alpha < 1) return { kind: 'translucent', key: value.trim() };
  return { kind: 'rgb', key: `rgb(${m[1]}, ${m[2]}, ${m[3]})` };
}

type RadiusReading = { kind: 'square' } | { kind: 'px'; keys: string[] } | { kind: 'unresolved' };

/** Reads a computed corner radius ("8px", "10px 5px", "50%", "calc(...)") for the scale comparison. */
function readComputedRadius(computed: string): RadiusReading {
  const parts = computed.trim().split(/\s+/);
  if (computed.includes('(') || parts.length > 2) return { kind: 'unresolved' };
  const values: number[] = [];
  for (const part of parts) {
    const m = /^(-?[0-9.]+(?:e[+-]?[0-9]+)?)(px|%)$/i.exec(part);
    if (!m) return { kind: 'unresolved' };
    const n = Number(m[1]);
    if (n <= 0) return { kind: 'square' };
    if (m[2] === '%') return { kind: 'unresolved' };
    values.push(n);
  }
  return { kind: 'px', keys: values.map(pxKey) };
}

/**
 * Compares rendered elements with the declaration. `design` undefined means
 * unbound: declared comparisons are named undecidable, concentric relations
 * and distinct font sizes are still measured.
 */
export function compareRenderTokens(elements: RenderedElement[], design: DesignDeclaration | undefined): RenderTokensFace {
  const declared = readDeclaration(design);
  const findings: Finding[] = [];
  const renderedUndecidable: Undecidable[] = [];

  const fontSizes = new ValueTally();
  const colors = new ValueTally();
  const otherColors = new ValueTally();
  const radii = new ValueTally();
  const unresolvedRadii = new ValueTally();
  const distinct = new Map<string, number>();

  for (const element of elements) {
    if (element.text) {
      const key = pxKey(element.text.fontSizePx);
      distinct.set(key, Number(key));
      fontSizes.add(key, element.text.fontSize, element);
    }
    const painted: [string, string][] = [];
    if (element.text?.color) painted.push([element.text.color, element.text.colorProperty]);
    if (element.backgroundColor) painted.push([element.backgroundColor, 'background-color']);
    for (const border of element.borders) painted.push([border.color, `border-${border.side}-color`]);
    for (const [value, property] of painted) {
      const color = readRenderedColor(value);
      if (color.kind === 'transparent') continue;
      if (color.kind === 'other') otherColors.add(value, value, element, property);
      else colors.add(color.key, value, element, property);
    }
    if (element.box.width > 0 && element.box.height > 0) {
      for (const corner of CORNERS) {
        const computed = element.radii[corner].computed;
        const reading = readComputedRadius(computed);
        if (reading.kind === 'px') radii.add(computed, computed, element);
        else if (reading.kind === 'unresolved') unresolvedRadii.add(computed, computed, element);
      }
    }
  }

  const scale = declared.comparable;
  if (scale.fontSizes) {
    for (const [key, tally] of fontSizes.entries()) {
      if (!scale.fontSizes.has(key)) findings.push(finding('fontSizes', 'font-size-off-scale', tally));
    }
  }
  if (scale.colors) {
    for (const [key, tally] of colors.entries()) {
      if (!scale.colors.has(key)) findings.push({ ...finding('colors', 'color-off-palette', tally), properties: [...tally.properties] });
    }
    for (const [, tally] of otherColors.entries()) {
      renderedUndecidable.push({
        axis: 'colors',
        kind: 'rendered-value',
        literal: null,
        value: tally.value,
        count: tally.count,
        reason: `rendered colour is serialized outside rgb() (${[...tally.properties].join(', ')}); the probe compares sRGB rgb() values only`,
      });
    }
  }
  if (scale.radii) {
    for (const [key, tally] of radii.entries()) {
      const reading = readComputedRadius(key);
      if (reading.kind === 'px' && !reading.keys.every((k) => scale.radii!.has(k))) findings.push(finding('radii', 'radius-off-scale', tally));
    }
    for (const [, tally] of unresolvedRadii.entries()) {
      renderedUndecidable.push({
        axis: 'radii',
        kind: 'rendered-value',
        literal: null,
        value: tally.value,
        count: tally.count,
        reason: 'a percentage or calc() radius resolves per box and has no px value to hold against the radius scale',
      });
    }
  }
  findings.push(...concentricFindings(elements));

  return {
    measurement_status: 'measured',
    measurement_error: '',
    findings,
    undecidable: [...declared.undecidable, ...renderedUndecidable],
    distinctFontSizes: [...distinct.values()].sort((a, b) => a - b),
  };
}

/**
 * Whether one rendered value (as serialized: "15px", "rgb(1, 2, 3)", "8px")
 * is on the declared scale of its axis, by the rules above: true or false,
 * or null when that cannot be said (unbound, the axis not declared or with
 * nothing comparable, a transparent colour, a square corner, a value outside
 * the rules). For a comparison that names one element's change.
 */
export function scaleChecker(design: DesignDeclaration | undefined): (axis: DesignAxis, value: string) => boolean | null {
  const scale = readDeclaration(design).comparable;
  return (axis, value) => {
    const declared = scale[axis];
    if (!declared) return null;
    if (axis === 'colors') {
      const color = readRenderedColor(value);
      if (color.kind === 'rgb') return declared.has(color.key);
      return color.kind === 'translucent' ? false : null;
    }
    if (axis === 'radii') {
      const reading = readComputedRadius(value);
      return reading.kind === 'px' ? reading.keys.every((k) => declared.has(k)) : null;
    }
    const px = /^(-?[0-9.]+(?:e[+-]?[0-9]+)?)px$/i.exec(value.trim());
    return px ? declared.has(pxKey(Number(px[1]))) : null;
  };
}

function finding(axis: DesignAxis, rule: Finding['rule'], tally: Tally): Finding {
  return { axis, rule, value: tally.value, count: tally.count, samples: tally.samples };
}

/** Insets between an inner and an outer border box at one corner (px, horizontal and vertical). */
function insetAt(corner: Corner, inner: RenderedElement['box'], outer: RenderedElement['box']): { x: number; y: number } {
  const left = inner.x - outer.x;
  const top = inner.y - outer.y;
  const right = outer.x + outer.width - (inner.x + inner.width);
  const bottom = outer.y + outer.height - (inner.y + inner.height);
  const x = corner.endsWith('left') ? left : right;
  const y = corner.startsWith('top') ? top : bottom;
  return { x: Math.max(0, x), y: Math.max(0, y) };
}

function contains(outer: RenderedElement['box'], inner: RenderedElement['box']): boolean {
  return (
    inner.x >= outer.x - CONTAINMENT_SLACK_PX &&
    inner.y >= outer.y - CONTAINMENT_SLACK_PX &&
    inner.x + inner.width <= outer.x + outer.width + CONTAINMENT_SLACK_PX &&
    inner.y + inner.height <= outer.y + outer.height + CONTAINMENT_SLACK_PX
  );
}

function isRounded(element: RenderedElement): boolean {
  return CORNERS.some((c) => (element.radii[c].x ?? 0) > 0 && (element.radii[c].y ?? 0) > 0);
}

/** One finding per (inner, outer) pair whose shared corners break the concentric relation. */
export function concentricFindings(elements: RenderedElement[]): Finding[] {
  const findings: Finding[] = [];
  for (const inner of elements) {
    if (inner.box.width <= 0 || inner.box.height <= 0 || !isRounded(inner)) continue;
    const brokenByOuter = new Map<number, CornerRelation[]>();
    for (const corner of CORNERS) {
      const actual = inner.radii[corner];
      if (actual.x === null || actual.y === null) continue;
      for (let p = inner.parent; p !== null; p = elements[p].parent) {
        const outer = elements[p];
        const outerRadius = outer.radii[corner];
        if (outerRadius.x === null || outerRadius.y === null || outerRadius.x <= 0 || outerRadius.y <= 0) continue;
        if (!contains(outer.box, inner.box)) continue;
        const inset = insetAt(corner, inner.box, outer.box);
        if (inset.x >= outerRadius.x || inset.y >= outerRadius.y) continue;
        // Nearest ancestor sharing this corner region: judge against it and stop.
        const expected = { x: Math.max(0, outerRadius.x - inset.x), y: Math.max(0, outerRadius.y - inset.y) };
        if (Math.abs(actual.x - expected.x) > CONCENTRIC_TOLERANCE_PX || Math.abs(actual.y - expected.y) > CONCENTRIC_TOLERANCE_PX) {
          const list = brokenByOuter.get(p) ?? [];
          list.push({
            corner,
            outer: { x: round(outerRadius.x), y: round(outerRadius.y) },
            inset: { x: round(inset.x), y: round(inset.y) },
            expected: { x: round(expected.x), y: round(expected.y) },
            actual: { x: round(actual.x), y: round(actual.y) },
          });
          brokenByOuter.set(p, list);
        }
        break;
      }
    }
    for (const [outerIndex, corners] of [...brokenByOuter.entries()].sort((a, b) => b[0] - a[0])) {
      const innerSample = sampleOf(inner);
      const outerSample = sampleOf(elements[outerIndex]);
      findings.push({
        axis: 'radii',
        rule: 'concentric-radius',
        value: inner.radii[corners[0].corner].computed,
        count: 1,
        samples: [innerSample, outerSample],
        inner: innerSample,
        outer: outerSample,
        corners,
      });
    }
  }
  return findings;
}
