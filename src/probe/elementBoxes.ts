/**
 * The `elements` face of the screenshot's probe sidecar: the rendered
 * elements worth naming, each with its border box (CSS px, document
 * coordinates, as the PNG was cut), a short selector, the tag, role and label
 * that name it, and the computed styles that explain a change in its pixels.
 * A comparison names the elements under a changed region with it
 * (attribution.ts) and resolves ignore-selectors to rectangles; sidecars
 * written before it have no such face, and readers take it as optional.
 *
 * Built from the probe's own walk (cdp/styleWalker.ts, with details), so it
 * costs no second pass over the page.
 *
 * Which elements: those with a box of some area, not inside an <svg> (the
 * <svg> itself stands for its drawing), that are interactive, headings,
 * images and media, landmarks and other structure (lists, items, tables,
 * cells, forms), render text of their own, or paint something (a background,
 * a drawn border, a shadow). Plain layout wrappers that paint nothing are
 * left out: a change in their pixels is a change in something they hold.
 * Beyond ELEMENT_BOX_LIMIT the structural ones are kept first, then those
 * with text, then those that only paint, each in document order; `omitted`
 * says how many were left out.
 *
 * Names: `role` is the role attribute as written (absent when none is);
 * `name` is a label read from what is written and rendered — aria-label, alt,
 * title, a field's value or placeholder, else, for an element named by its
 * content (links, buttons, headings, items, cells, paragraphs, and any
 * element rendering text of its own), the text it renders (at most
 * NAME_LIMIT characters); a container is named by its attributes only. It is not the accessible-name computation
 * of the a11y tree (cdp/injected/aria), which would cost the screenshot a
 * walk of its own in the page.
 *
 * Styles: values as the browser serialized them. Properties at their initial
 * value are left out (STYLE_INITIAL says which value an absent key means);
 * text properties (color, font-*, line-height) are recorded only for elements
 * that render text, border properties only for the sides that are drawn.
 */
import { z } from 'zod';
import type { ElementDetails, RenderedElement } from '../../cdp/styleWalker';

/** At most this many elements per sidecar. */
export const ELEMENT_BOX_LIMIT = 1000;
/** Characters of a label. */
const NAME_LIMIT = 80;

const boxSchema = z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() });

export const elementBoxSchema = z.object({
  selector: z.string().describe('tag#id.class path as the probe writes selectors (frames joined with " >> ").'),
  parent: z.number().int().nullable().describe('Index in items of the nearest recorded ancestor, or null.'),
  tag: z.string(),
  role: z.string().optional().describe('The role attribute as written; absent when none is.'),
  name: z.string().describe('aria-label, alt, title, a field value or placeholder, else the rendered text ("" when none).'),
  box: boxSchema.describe('Border box in CSS px, document coordinates.'),
  styles: z.record(z.string(), z.string()).describe('Computed styles; a property at its initial value is absent.'),
});

export const elementBoxesFaceSchema = z
  .object({
    items: z.array(elementBoxSchema),
    omitted: z.number().int().describe('Elements worth naming that the limit left out.'),
  })
  .describe("The elements under the screenshot's pixels: boxes, selectors, names and computed styles (optional face).");

export type ElementBox = z.infer<typeof elementBoxSchema>;
export type ElementBoxesFace = z.infer<typeof elementBoxesFaceSchema>;

/** What an absent style key means (properties recorded only when they differ from it). */
export const STYLE_INITIAL: Readonly<Record<string, string>> = {
  'background-color': 'rgba(0, 0, 0, 0)',
  'background-image': 'none',
  'border-radius': '0px',
  border: 'none',
  'border-top': 'none',
  'border-right': 'none',
  'border-bottom': 'none',
  'border-left': 'none',
  padding: '0px',
  margin: '0px',
  opacity: '1',
  'box-shadow': 'none',
};

const INTERACTIVE = new Set(['a', 'button', 'input', 'select', 'textarea', 'summary', 'label', 'details', 'option']);
const MEDIA = new Set(['img', 'svg', 'picture', 'video', 'audio', 'canvas', 'iframe', 'frame', 'object', 'embed']);
const STRUCTURE = new Set([
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'footer',
  'nav',
  'main',
  'aside',
  'form',
  'section',
  'article',
  'dialog',
  'search',
  'fieldset',
  'figure',
  'blockquote',
  'ul',
  'ol',
  'li',
  'dl',
  'table',
  'tr',
  'td',
  'th',
  'hr',
  'p',
]);

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/** CSS shorthand of four sides (top, right, bottom, left), shortest form. */
function sides(t: string, r: string, b: string, l: string): string {
  if (t === r && r === b && b === l) return t;
  if (t === b && r === l) return `${t} ${r}`;
  if (r === l) return `${t} ${r} ${b}`;
  return `${t} ${r} ${b} ${l}`;
}

function isZero(value: string): boolean {
  return /^0(?:px)?$/.test(value.trim());
}

function transparent(value: string | null): boolean {
  return !value || value === 'transparent' || /^rgba\(\d+, \d+, \d+, 0\)$/.test(value);
}

/** Styles that explain an element's pixels, initial values left out. */
function stylesOf(element: RenderedElement, d: ElementDetails): Record<string, string> {
  const out: Record<string, string> = {};
  if (element.text) {
    if (element.text.color) out.color = element.text.color;
    out['font-size'] = element.text.fontSize;
    out['font-weight'] = d.style('font-weight');
    out['font-family'] = d.style('font-family');
    out['line-height'] = d.style('line-height');
  }
  if (!transparent(element.backgroundColor)) out['background-color'] = element.backgroundColor!;
  const image = d.style('background-image');
  if (image && image !== 'none') out['background-image'] = image;
  if (element.borders.length) {
    const drawn = element.borders.map((b) => `${b.width}px ${d.style(`border-${b.side}-style`)} ${b.color}`);
    if (element.borders.length === 4 && drawn.every((v) => v === drawn[0])) out.border = drawn[0];
    else element.borders.forEach((b, i) => (out[`border-${b.side}`] = drawn[i]));
  }
  const r = element.radii;
  const radius = sides(r['top-left'].computed, r['top-right'].computed, r['bottom-right'].computed, r['bottom-left'].computed);
  if (!radius.split(' ').every(isZero)) out['border-radius'] = radius;
  const padding = sides(d.style('padding-top'), d.style('padding-right'), d.style('padding-bottom'), d.style('padding-left'));
  if (!padding.split(' ').every(isZero)) out.padding = padding;
  const margin = sides(d.style('margin-top'), d.style('margin-right'), d.style('margin-bottom'), d.style('margin-left'));
  if (!margin.split(' ').every(isZero)) out.margin = margin;
  const opacity = d.style('opacity');
  if (opacity && opacity !== '1') out.opacity = opacity;
  const shadow = d.style('box-shadow');
  if (shadow && shadow !== 'none') out['box-shadow'] = shadow;
  return out;
}

/** 0: structure and controls, 1: renders text, 2: only paints, null: not worth naming. */
function rankOf(element: RenderedElement, d: ElementDetails, paints: boolean): number | null {
  if (INTERACTIVE.has(d.tag) || MEDIA.has(d.tag) || STRUCTURE.has(d.tag) || d.attributes.role) return 0;
  if (d.attributes['aria-label'] || d.attributes.title) return 0;
  if (element.text) return 1;
  return paints ? 2 : null;
}

/** Elements a label may be read from the text they hold (as names from content go); a container is named only by its attributes. */
const NAMED_BY_CONTENT = new Set([
  'a',
  'button',
  'summary',
  'label',
  'option',
  'legend',
  'caption',
  'figcaption',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'li',
  'td',
  'th',
  'dt',
  'dd',
  'p',
]);

function nameOf(d: ElementDetails, text: string): string {
  const a = d.attributes;
  const content = NAMED_BY_CONTENT.has(d.tag) || d.ownText !== '' ? text : '';
  const written = a['aria-label'] || a.alt || a.title || d.value || a.placeholder || content;
  const name = (written ?? '').replace(/\s+/g, ' ').trim();
  return name.length > NAME_LIMIT ? name.slice(0, NAME_LIMIT - 1) + '\u2026' : name;
}

/**
 * The face from a walk with details (walkRenderedStyles(session, {details:
 * true})). Elements without details (a walk without them) give an empty face.
 */
export function buildElementBoxes(elements: RenderedElement[], limit = ELEMENT_BOX_LIMIT): ElementBoxesFace {
  // Text each element renders, its descendants' included, in document order (ancestors precede descendants).
  const texts = new Array<string>(elements.length).fill('');
  const insideSvg = new Array<boolean>(elements.length).fill(false);
  for (const element of elements) {
    const d = element.details;
    if (!d) continue;
    const parent = element.parent;
    if (parent !== null && (insideSvg[parent] || elements[parent].details?.tag === 'svg')) insideSvg[element.index] = true;
    // Generated content (a list marker, an icon glyph) names its own pseudo-element, not what holds it.
    if (!d.ownText || d.tag.startsWith('::')) {
      if (d.ownText) texts[element.index] = d.ownText;
      continue;
    }
    for (let at: number | null = element.index; at !== null; at = elements[at].parent) {
      if (texts[at].length >= NAME_LIMIT) break;
      texts[at] = texts[at] ? `${texts[at]} ${d.ownText}` : d.ownText;
    }
  }
  const candidates: { element: RenderedElement; rank: number }[] = [];
  for (const element of elements) {
    const d = element.details;
    if (!d || insideSvg[element.index] || element.box.width <= 0 || element.box.height <= 0) continue;
    const paints =
      !transparent(element.backgroundColor) || element.borders.length > 0 || d.style('box-shadow') !== 'none' || d.style('background-image') !== 'none';
    const rank = rankOf(element, d, paints);
    if (rank !== null) candidates.push({ element, rank });
  }
  let kept = candidates;
  if (candidates.length > limit) {
    const byRank = [...candidates].sort((a, b) => a.rank - b.rank || a.element.index - b.element.index).slice(0, limit);
    kept = byRank.sort((a, b) => a.element.index - b.element.index);
  }
  const itemOf = new Map<number, number>();
  const items: ElementBox[] = kept.map(({ element }, i) => {
    itemOf.set(element.index, i);
    const d = element.details!;
    let parent: number | null = null;
    for (let at = element.parent; at !== null; at = elements[at].parent) {
      const found = itemOf.get(at);
      if (found !== undefined) {
        parent = found;
        break;
      }
    }
    const { x, y, width, height } = element.box;
    return {
      selector: element.selector,
      parent,
      tag: d.tag,
      ...(d.attributes.role ? { role: d.attributes.role } : {}),
      name: nameOf(d, texts[element.index]),
      box: { x: round(x), y: round(y), width: round(width), height: round(height) },
      styles: stylesOf(element, d),
    };
  });
  return { items, omitted: candidates.length - kept.length };
}
