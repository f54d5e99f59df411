/**
 * The computed-style walker: ONE DOMSnapshot.captureSnapshot call returns the
 * layout tree of every document in the page with the computed styles the
 * render-token probe needs, so the cost does not grow with a protocol round
 * trip per node. This module turns that snapshot into one record per rendered
 * element; it judges nothing (src/probe/comparator.ts does).
 *
 * What counts, and why:
 * - Rendered = has a layout object (display:none and display:contents
 *   elements have none), computed `visibility` is `visible`, and no element on
 *   its ancestor chain has `opacity: 0` (opacity is not inherited, so the
 *   chain is walked). Such elements paint nothing and are left out.
 * - An element "renders text" when one of its text nodes (or its own generated
 *   ::before/::after content) has a layout text fragment with a non-blank
 *   string. Only those elements report a font size and a text colour. The
 *   text colour is `-webkit-text-fill-color`, the colour text is painted with
 *   (it computes to `color` unless set); SVG text is painted with `fill`.
 *   Form controls draw their text in user-agent shadow trees the snapshot
 *   leaves out, so a control counts as rendering text when it shows a value,
 *   a button label or a selected option; one showing only its placeholder
 *   reports a font size but no colour (::placeholder paints it).
 *   Open shadow trees are walked like the light DOM.
 * - Background and border colours are reported only for boxes with a
 *   non-zero area; a border colour only for sides where the border is drawn
 *   (width > 0 and style not none/hidden).
 * - Corner radii: the computed value as Chromium serializes it ("8px",
 *   "10px 5px" for an elliptical corner, "50%") plus the used px radii x/y:
 *   percentages resolve against the border box (x against width, y against
 *   height), then the CSS overlap rule scales all radii down by one factor
 *   when adjacent radii exceed a side. A radius Chromium leaves as calc()
 *   cannot be resolved here and gets null x/y.
 * - Boxes are border boxes in CSS px, main-document coordinates. Elements in
 *   child frames are offset by their frame element's content box and the
 *   frame's scroll; their selectors are prefixed with the frame element's.
 * - With `details` (the screenshot's element boxes), the same snapshot also
 *   carries the styles that name a change (font weight and family, line
 *   height, every padding and margin, box-shadow, background-image) and each
 *   element gets its tag, the attributes that label it, the text its own text
 *   nodes render and the value a form control shows: one call still, and the
 *   probe alone does not pay for them.
 */
import type { CdpSession } from './types';

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export type Corner = 'top-left' | 'top-right' | 'bottom-right' | 'bottom-left';
export const CORNERS: readonly Corner[] = ['top-left', 'top-right', 'bottom-right', 'bottom-left'];
export type Side = 'top' | 'right' | 'bottom' | 'left';
const SIDES: readonly Side[] = ['top', 'right', 'bottom', 'left'];

export interface CornerRadius {
  /** Computed value as the browser serialized it, e.g. "8px", "10px 5px", "50%". */
  computed: string;
  /** Used horizontal radius in px after percentage resolution and overlap scaling; null when unresolvable. */
  x: number | null;
  /** Used vertical radius in px; null when unresolvable. */
  y: number | null;
}

export interface DrawnBorder {
  side: Side;
  color: string;
  width: number;
}

export interface RenderedText {
  /** Computed font-size as serialized ("16px"). */
  fontSize: string;
  fontSizePx: number;
  /**
   * The colour the text is painted with; null when it is not readable from
   * computed style (a form control showing only its placeholder, painted by
   * ::placeholder; SVG text with fill none).
   */
  color: string | null;
  colorProperty: 'color' | '-webkit-text-fill-color' | 'fill';
}

/** What names an element, read from the same snapshot when the walk is asked for details. */
export interface ElementDetails {
  /** Lower-case tag name (`::before` for generated content). */
  tag: string;
  /** The labelling attributes as written, those present only. */
  attributes: Partial<Record<(typeof LABEL_ATTRIBUTES)[number], string>>;
  /** Text its own text nodes render (layout text, whitespace collapsed), at most OWN_TEXT_LIMIT characters. */
  ownText: string;
  /** The value a text field, textarea or select shows, when it shows one. */
  value?: string;
  /** A computed style by name, for WALKER_STYLES and DETAIL_STYLES ('' when not requested). */
  style(name: (typeof WALKER_STYLES)[number] | (typeof DETAIL_STYLES)[number]): string;
}

export interface RenderedElement {
  /** Position in the returned array (document order, main document first). */
  index: number;
  /** Index of the nearest rendered ancestor element in the same document, or null. */
  parent: number | null;
  /** Snapshot document index: 0 is the main frame. */
  document: number;
  /** tag#id.class path, e.g. "main#app > div.card > button.primary". */
  selector: string;
  box: Box;
  /** Present only when the element renders text. */
  text: RenderedText | null;
  /** Computed background-color; null when the box has no area. */
  backgroundColor: string | null;
  borders: DrawnBorder[];
  radii: Record<Corner, CornerRadius>;
  /** Present when the walk was asked for details. */
  details?: ElementDetails;
}

const RADIUS_PROPS = CORNERS.map((c) => `border-${c}-radius`);
const BORDER_PROPS = SIDES.flatMap((s) => [`border-${s}-width`, `border-${s}-style`, `border-${s}-color`]);

/** The computed styles requested from the snapshot, in the order its style arrays use. */
export const WALKER_STYLES = [
  'font-size',
  'color',
  '-webkit-text-fill-color',
  'background-color',
  'visibility',
  'opacity',
  'padding-top',
  'padding-left',
  'fill',
  ...BORDER_PROPS,
  ...RADIUS_PROPS,
] as const;
const STYLE_INDEX: Record<string, number> = Object.fromEntries(WALKER_STYLES.map((name, i) => [name, i]));

/** Styles only a walk with details requests, after WALKER_STYLES in the snapshot's style arrays. */
export const DETAIL_STYLES = [
  'font-weight',
  'font-family',
  'line-height',
  'padding-right',
  'padding-bottom',
  'margin-top',
  'margin-right',
  'margin-bottom',
  'margin-left',
  'box-shadow',
  'background-image',
] as const;
const DETAIL_INDEX: Record<string, number> = Object.fromEntries([...WALKER_STYLES, ...DETAIL_STYLES].map((name, i) => [name, i]));

/** Attributes that label an element, kept in its details when written. */
export const LABEL_ATTRIBUTES = ['id', 'role', 'aria-label', 'alt', 'title', 'placeholder', 'type', 'href', 'name'] as const;
const LABEL_ATTRIBUTE_SET = new Set<string>(LABEL_ATTRIBUTES);
/** Characters of own text kept per element: enough to name it. */
const OWN_TEXT_LIMIT = 120;

export interface WalkOptions {
  /** Also read what names each element (ElementDetails): the screenshot's element boxes. */
  details?: boolean;
}

/** Inputs that show no text of their own. */
const NON_TEXT_INPUTS = new Set(['checkbox', 'radio', 'range', 'color', 'hidden', 'image']);
/** Inputs that always show a label (their value or the browser's default). */
const LABELLED_INPUTS = new Set(['submit', 'reset', 'button', 'file']);

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
const SELECTOR_DEPTH = 4;

interface RareStrings {
  index: number[];
  value: number[];
}

interface SnapshotDocument {
  nodes: {
    inputValue?: RareStrings;
    textValue?: RareStrings;
    parentIndex?: number[];
    nodeType?: number[];
    nodeName?: number[];
    attributes?: number[][];
    contentDocumentIndex?: { index: number[]; value: number[] };
  };
  layout: { nodeIndex: number[]; styles: number[][]; bounds: number[][]; text: number[] };
  scrollOffsetX?: number;
  scrollOffsetY?: number;
}

interface NodeLayout {
  styles: string[];
  bounds: number[];
  /** Styles the element's text is painted with, when it renders text. */
  textStyles: string[] | null;
}

function px(value: string | undefined): number {
  const n = parseFloat(value ?? '');
  return Number.isFinite(n) ? n : 0;
}

/** Resolves one radius component ("8px", "50%") against a side length; null for calc() and the like. */
function radiusComponent(text: string, side: number): number | null {
  if (/^-?[\d.]+(?:e[+-]?\d+)?px$/i.test(text)) return parseFloat(text);
  if (/^-?[\d.]+(?:e[+-]?\d+)?%$/i.test(text)) return (parseFloat(text) * side) / 100;
  return null;
}

/** Splits a computed corner radius into horizontal and vertical parts ("10px 5px" -> 10px, 5px). */
function splitRadius(computed: string): [string, string] {
  if (computed.includes('(')) return [computed, computed];
  const parts = computed.trim().split(/\s+/);
  return [parts[0], parts[1] ?? parts[0]];
}

/** Used radii per CSS Backgrounds 3 §5.5: one shared scale factor when adjacent radii overflow a side. */
export function usedRadii(computed: Record<Corner, string>, width: number, height: number): Record<Corner, CornerRadius> {
  const raw = {} as Record<Corner, { x: number | null; y: number | null }>;
  for (const corner of CORNERS) {
    const [hx, vy] = splitRadius(computed[corner]);
    let x = radiusComponent(hx, width);
    let y = radiusComponent(vy, height);
    // A corner with either radius zero is square.
    if (x !== null && y !== null && (x <= 0 || y <= 0)) x = y = 0;
    raw[corner] = { x, y };
  }
  const sum = (a: number | null, b: number | null) => (a ?? 0) + (b ?? 0);
  const ratios = [
    width / sum(raw['top-left'].x, raw['top-right'].x),
    width / sum(raw['bottom-left'].x, raw['bottom-right'].x),
    height / sum(raw['top-left'].y, raw['bottom-left'].y),
    height / sum(raw['top-right'].y, raw['bottom-right'].y),
  ].filter((r) => Number.isFinite(r));
  const factor = Math.min(1, ...ratios);
  const out = {} as Record<Corner, CornerRadius>;
  for (const corner of CORNERS) {
    const { x, y } = raw[corner];
    out[corner] = {
      computed: computed[corner],
      x: x === null ? null : x * factor,
      y: y === null ? null : y * factor,
    };
  }
  return out;
}

/**
 * Captures one DOM snapshot of the page and returns every rendered element
 * with the style facts the render-token probe compares.
 */
export async function walkRenderedStyles(session: CdpSession, options: WalkOptions = {}): Promise<RenderedElement[]> {
  const snapshot = await session.send('DOMSnapshot.captureSnapshot', {
    computedStyles: options.details ? [...WALKER_STYLES, ...DETAIL_STYLES] : [...WALKER_STYLES],
    includeDOMRects: false,
    includePaintOrder: false,
  });
  const strings: string[] = snapshot?.strings;
  const documents: SnapshotDocument[] = snapshot?.documents;
  if (!Array.isArray(strings) || !Array.isArray(documents)) {
    throw new Error('DOMSnapshot.captureSnapshot returned no documents');
  }
  return new SnapshotReader(strings, documents, options.details === true).read();
}

interface FrameOrigin {
  x: number;
  y: number;
  selector: string;
  hidden: boolean;
}

class SnapshotReader {
  private readonly elements: RenderedElement[] = [];
  /** Per document: node index -> element index in `elements`. */
  private readonly elementIndex: Map<number, number>[] = [];
  /** Per document: element node -> ":nth-of-type(k)" when siblings share its tag, else "". */
  private readonly nthOfType: Map<number, string>[] = [];
  private readonly frameOrigins = new Map<number, FrameOrigin>();

  constructor(
    private readonly strings: string[],
    private readonly documents: SnapshotDocument[],
    private readonly withDetails = false,
  ) {}

  read(): RenderedElement[] {
    // Frames are read after the document holding their frame element, so the
    // origin of a child document is known when it is read.
    const order = this.documentOrder();
    for (const docIndex of order) this.readDocument(docIndex);
    return this.elements;
  }

  private documentOrder(): number[] {
    const seen = new Set<number>();
    const order: number[] = [];
    const visit = (i: number) => {
      if (seen.has(i) || !this.documents[i]) return;
      seen.add(i);
      order.push(i);
      const cdi = this.documents[i].nodes.contentDocumentIndex;
      if (cdi) for (const child of cdi.value) visit(child);
    };
    visit(0);
    for (let i = 0; i < this.documents.length; i++) visit(i);
    return order;
  }

  private str(index: number | undefined): string {
    return index === undefined || index < 0 ? '' : (this.strings[index] ?? '');
  }

  private readDocument(docIndex: number): void {
    const doc = this.documents[docIndex];
    const nodes = doc.nodes;
    const parentIndex = nodes.parentIndex ?? [];
    const nodeType = nodes.nodeType ?? [];
    const origin = this.frameOrigins.get(docIndex) ?? { x: 0, y: 0, selector: '', hidden: false };
    if (origin.hidden) return;
    const byNode = new Map<number, NodeLayout>();
    /** Element node -> computed styles of its first non-blank text fragment. */
    const textOwners = new Map<number, string[]>();
    /** Element node -> text its own text nodes render (details only). */
    const ownTexts = this.withDetails ? new Map<number, string>() : null;
    const layout = doc.layout;
    // A node can own several layout entries (its box, then text fragments of
    // generated content); the first entry is the box.
    for (let i = 0; i < layout.nodeIndex.length; i++) {
      const node = layout.nodeIndex[i];
      const type = nodeType[node];
      const styles = (layout.styles[i] ?? []).map((v) => this.str(v));
      if (type === ELEMENT_NODE && !byNode.has(node)) {
        byNode.set(node, { styles, bounds: layout.bounds[i] ?? [0, 0, 0, 0], textStyles: null });
      }
      const text = this.str(layout.text?.[i]);
      if (/\S/.test(text)) {
        const owner = type === TEXT_NODE ? parentIndex[node] : node;
        if (owner !== undefined && owner >= 0 && !textOwners.has(owner)) textOwners.set(owner, styles.length ? styles : []);
        if (ownTexts && owner !== undefined && owner >= 0) {
          const known = ownTexts.get(owner) ?? '';
          if (known.length < OWN_TEXT_LIMIT) ownTexts.set(owner, (known ? known + ' ' : '') + text);
        }
      }
    }
    const placeholderOnly = new Set<number>();
    for (const [node, showsPlaceholderOnly] of this.formControlText(doc, byNode)) {
      if (textOwners.has(node)) continue;
      textOwners.set(node, byNode.get(node)!.styles);
      if (showsPlaceholderOnly) placeholderOnly.add(node);
    }
    // Text whose parent has no box (display: contents) belongs to the nearest
    // ancestor with one; its styles stay the text's own.
    for (const [owner, styles] of textOwners) {
      for (let n = owner; n !== undefined && n >= 0; n = parentIndex[n]) {
        const entry = byNode.get(n);
        if (entry) {
          if (!entry.textStyles) entry.textStyles = styles.length ? styles : entry.styles;
          break;
        }
      }
    }

    const elementIndex = new Map<number, number>();
    this.elementIndex[docIndex] = elementIndex;
    this.nthOfType[docIndex] = this.siblingPositions(doc);
    const invisibleByOpacity = new Map<number, boolean>();
    // Iterative (not recursive): script-built DOM can be deeper than the JS stack.
    const opacityHidden = (start: number): boolean => {
      const path: number[] = [];
      let result = false;
      for (let node = start; node !== undefined && node >= 0; node = parentIndex[node]) {
        const cached = invisibleByOpacity.get(node);
        if (cached !== undefined) {
          result = cached;
          break;
        }
        path.push(node);
        const entry = byNode.get(node);
        if (entry && parseFloat(entry.styles[STYLE_INDEX.opacity]) === 0) {
          result = true;
          break;
        }
      }
      // Everything below a transparent ancestor is hidden; below a visible chain, not.
      for (const node of path) invisibleByOpacity.set(node, result);
      return result;
    };

    // Layout entries come in tree order, but record elements in node order so
    // ancestors always precede descendants.
    const elementNodes = [...byNode.keys()].sort((a, b) => a - b);
    for (const node of elementNodes) {
      const entry = byNode.get(node)!;
      const s = entry.styles;
      if (s.length === 0) continue;
      if (s[STYLE_INDEX.visibility] !== 'visible') continue;
      if (opacityHidden(node)) continue;
      const [bx, by, bw, bh] = entry.bounds;
      const box: Box = { x: bx + origin.x, y: by + origin.y, width: bw, height: bh };
      const hasArea = bw > 0 && bh > 0;
      const index = this.elements.length;
      let parent: number | null = null;
      for (let p = parentIndex[node]; p !== undefined && p >= 0; p = parentIndex[p]) {
        const found = elementIndex.get(p);
        if (found !== undefined) {
          parent = found;
          break;
        }
      }
      const t = entry.textStyles;
      const fontSize = t?.[STYLE_INDEX['font-size']] ?? '';
      const borders: DrawnBorder[] = [];
      if (hasArea) {
        for (const side of SIDES) {
          const width = px(s[STYLE_INDEX[`border-${side}-width`]]);
          const style = s[STYLE_INDEX[`border-${side}-style`]];
          if (width > 0 && style !== 'none' && style !== 'hidden') {
            borders.push({ side, color: s[STYLE_INDEX[`border-${side}-color`]], width });
          }
        }
      }
      const computedRadii = Object.fromEntries(CORNERS.map((c) => [c, s[STYLE_INDEX[`border-${c}-radius`]] || '0px'])) as Record<Corner, string>;
      this.elements.push({
        index,
        parent,
        document: docIndex,
        selector: origin.selector + this.selectorOf(docIndex, node),
        box,
        text:
          t && t[STYLE_INDEX.visibility] === 'visible'
            ? { fontSize, fontSizePx: px(fontSize), ...this.textColor(doc, node, t, placeholderOnly.has(node)) }
            : null,
        backgroundColor: hasArea ? s[STYLE_INDEX['background-color']] : null,
        borders,
        radii: usedRadii(computedRadii, bw, bh),
      });
      if (ownTexts) this.elements[index].details = this.detailsOf(doc, node, s, ownTexts.get(node) ?? '');
      elementIndex.set(node, index);

      const childDoc = this.contentDocumentOf(doc, node);
      if (childDoc !== undefined) {
        const frameDoc = this.documents[childDoc];
        this.frameOrigins.set(childDoc, {
          x: box.x + px(s[STYLE_INDEX['border-left-width']]) + px(s[STYLE_INDEX['padding-left']]) - (frameDoc?.scrollOffsetX ?? 0),
          y: box.y + px(s[STYLE_INDEX['border-top-width']]) + px(s[STYLE_INDEX['padding-top']]) - (frameDoc?.scrollOffsetY ?? 0),
          selector: origin.selector + this.selectorOf(docIndex, node) + ' >> ',
          hidden: false,
        });
      }
    }
    // Frames whose element is not rendered paint nothing.
    const cdi = doc.nodes.contentDocumentIndex;
    if (cdi) {
      cdi.index.forEach((node, i) => {
        if (!elementIndex.has(node)) this.frameOrigins.set(cdi.value[i], { x: 0, y: 0, selector: '', hidden: true });
      });
    }
  }

  /** Tag, labelling attributes, own text, shown value and a style reader, for the walk with details. */
  private detailsOf(doc: SnapshotDocument, node: number, styles: string[], ownText: string): ElementDetails {
    const tag = this.str(doc.nodes.nodeName?.[node]).toLowerCase();
    const attributes: ElementDetails['attributes'] = {};
    const raw = doc.nodes.attributes?.[node] ?? [];
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = this.str(raw[i]).toLowerCase();
      if (LABEL_ATTRIBUTE_SET.has(name)) attributes[name as (typeof LABEL_ATTRIBUTES)[number]] = this.str(raw[i + 1]);
    }
    const details: ElementDetails = {
      tag,
      attributes,
      ownText: ownText.replace(/\s+/g, ' ').trim().slice(0, OWN_TEXT_LIMIT),
      style: (name) => styles[DETAIL_INDEX[name]] ?? '',
    };
    if (tag === 'input' || tag === 'textarea' || tag === 'select') {
      const value = this.rareValue(doc.nodes.inputValue, node) ?? this.rareValue(doc.nodes.textValue, node);
      if (value !== undefined && /\S/.test(value)) details.value = value.slice(0, OWN_TEXT_LIMIT);
    }
    return details;
  }

  private rareValue(data: RareStrings | undefined, node: number): string | undefined {
    if (!data) return undefined;
    const at = data.index.indexOf(node);
    return at >= 0 ? this.str(data.value[at]) : undefined;
  }

  /** The colour text is painted with: SVG text uses fill; HTML text -webkit-text-fill-color (computes to color unless set). */
  private textColor(doc: SnapshotDocument, node: number, t: string[], placeholderOnly: boolean): Pick<RenderedText, 'color' | 'colorProperty'> {
    const name = this.str(doc.nodes.nodeName?.[node]);
    if (placeholderOnly) return { color: null, colorProperty: 'color' };
    if (name !== name.toUpperCase() && !name.startsWith('::')) {
      const fill = t[STYLE_INDEX.fill];
      // fill: none paints nothing; url(#paint) and colours are reported as computed.
      return { color: fill && fill !== 'none' ? fill : null, colorProperty: 'fill' };
    }
    const color = t[STYLE_INDEX.color];
    const fill = t[STYLE_INDEX['-webkit-text-fill-color']] || color;
    return { color: fill, colorProperty: fill === color ? 'color' : '-webkit-text-fill-color' };
  }

  /**
   * Form controls paint their text in user-agent shadow trees the snapshot
   * does not include, so read what they show from the node data: a value,
   * a button label, a select's option. A control showing only its
   * placeholder reports its font size but no colour (::placeholder paints it).
   */
  private formControlText(doc: SnapshotDocument, byNode: Map<number, NodeLayout>): [number, boolean][] {
    const out: [number, boolean][] = [];
    const rare = (data: RareStrings | undefined) => {
      const map = new Map<number, string>();
      if (data) data.index.forEach((node, i) => map.set(node, this.str(data.value[i])));
      return map;
    };
    let inputValues: Map<number, string> | null = null;
    let textValues: Map<number, string> | null = null;
    for (const node of byNode.keys()) {
      const name = this.str(doc.nodes.nodeName?.[node]);
      if (name !== 'INPUT' && name !== 'TEXTAREA' && name !== 'SELECT') continue;
      if (name === 'SELECT') {
        out.push([node, false]);
        continue;
      }
      const attrs = this.attributesOf(doc, node);
      const type = (attrs.get('type') ?? 'text').toLowerCase();
      if (name === 'INPUT' && NON_TEXT_INPUTS.has(type)) continue;
      if (name === 'INPUT' && LABELLED_INPUTS.has(type)) {
        out.push([node, false]);
        continue;
      }
      inputValues ??= rare(doc.nodes.inputValue);
      textValues ??= rare(doc.nodes.textValue);
      const value = name === 'INPUT' ? inputValues.get(node) : (textValues.get(node) ?? inputValues.get(node));
      if (value && /\S/.test(value)) out.push([node, false]);
      else if (/\S/.test(attrs.get('placeholder') ?? '')) out.push([node, true]);
    }
    return out;
  }

  private attributesOf(doc: SnapshotDocument, node: number): Map<string, string> {
    const attrs = doc.nodes.attributes?.[node] ?? [];
    const map = new Map<string, string>();
    for (let i = 0; i + 1 < attrs.length; i += 2) map.set(this.str(attrs[i]).toLowerCase(), this.str(attrs[i + 1]));
    return map;
  }

  private contentDocumentOf(doc: SnapshotDocument, node: number): number | undefined {
    const cdi = doc.nodes.contentDocumentIndex;
    if (!cdi) return undefined;
    const at = cdi.index.indexOf(node);
    return at >= 0 ? cdi.value[at] : undefined;
  }

  /** :nth-of-type positions for elements whose parent has several children with the same tag (one pass over the nodes). */
  private siblingPositions(doc: SnapshotDocument): Map<number, string> {
    const parentIndex = doc.nodes.parentIndex ?? [];
    const nodeType = doc.nodes.nodeType ?? [];
    const nodeName = doc.nodes.nodeName ?? [];
    const seen = new Map<string, number[]>();
    for (let node = 0; node < nodeType.length; node++) {
      if (nodeType[node] !== ELEMENT_NODE) continue;
      const name = this.str(nodeName[node]);
      if (name.startsWith('::')) continue;
      const key = `${parentIndex[node]}|${name}`;
      const group = seen.get(key);
      if (group) group.push(node);
      else seen.set(key, [node]);
    }
    const out = new Map<number, string>();
    for (const group of seen.values()) {
      if (group.length > 1) group.forEach((node, i) => out.set(node, `:nth-of-type(${i + 1})`));
    }
    return out;
  }

  private segment(docIndex: number, node: number): { text: string; anchored: boolean } {
    const doc = this.documents[docIndex];
    const name = this.str(doc.nodes.nodeName?.[node]).toLowerCase();
    if (name.startsWith('::')) return { text: name, anchored: false };
    const attrs = doc.nodes.attributes?.[node] ?? [];
    let id = '';
    let classes = '';
    for (let i = 0; i + 1 < attrs.length; i += 2) {
      const key = this.str(attrs[i]);
      const value = this.str(attrs[i + 1]);
      if (key === 'id' && value && !/\s/.test(value)) id = `#${value}`;
      else if (key === 'class') {
        classes = value
          .split(/\s+/)
          .filter(Boolean)
          .slice(0, 3)
          .map((c) => `.${c}`)
          .join('');
      }
    }
    const nth = id ? '' : (this.nthOfType[docIndex]?.get(node) ?? '');
    return { text: name + id + classes + nth, anchored: id !== '' };
  }

  /** tag#id.class path of up to SELECTOR_DEPTH elements, stopping at an id. */
  private selectorOf(docIndex: number, node: number): string {
    const doc = this.documents[docIndex];
    const parts: string[] = [];
    const parentIndex = doc.nodes.parentIndex ?? [];
    const nodeType = doc.nodes.nodeType ?? [];
    let current = node;
    while (current !== undefined && current >= 0 && parts.length < SELECTOR_DEPTH) {
      if (nodeType[current] === ELEMENT_NODE) {
        const seg = this.segment(docIndex, current);
        if (seg.text.startsWith('::') && parts.length === 0) {
          parts.unshift(seg.text);
        } else if (parts.length > 0 && parts[0].startsWith('::')) {
          parts[0] = seg.text + parts[0];
          if (seg.anchored) break;
        } else {
          parts.unshift(seg.text);
          if (seg.anchored) break;
        }
      }
      current = parentIndex[current];
    }
    return parts.join(' > ');
  }
}
