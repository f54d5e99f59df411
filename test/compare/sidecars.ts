/**
 * Hand-made probe sidecars for the comparison's unit tests: elements shaped
 * as the style walker yields them (details included), run through the real
 * comparator, element-box builder and sidecar builder.
 */
import { CORNERS, usedRadii, type Corner, type ElementDetails, type RenderedElement } from '../../cdp/styleWalker';
import { compareRenderTokens } from '../../src/probe/comparator';
import { buildProbeSidecar, type ProbeSidecar } from '../../src/probe/sidecar';
import { buildElementBoxes } from '../../src/probe/elementBoxes';
import type { DesignDeclaration } from '../../src/contract/designBinding';

export interface ElementSpec {
  tag: string;
  /** Index of the parent in the list (ancestors precede descendants). */
  parent?: number | null;
  /** Selector; default: the tag, or tag#id. */
  selector?: string;
  id?: string;
  attributes?: ElementDetails['attributes'];
  box: [number, number, number, number];
  text?: string;
  fontSize?: number;
  color?: string;
  background?: string;
  radius?: string;
  border?: { width: number; color: string; style?: string };
  styles?: Record<string, string>;
}

export function rendered(specs: ElementSpec[]): RenderedElement[] {
  return specs.map((spec, index) => {
    const [x, y, width, height] = spec.box;
    const radius = spec.radius ?? '0px';
    const computed = Object.fromEntries(CORNERS.map((c) => [c, radius])) as Record<Corner, string>;
    const styles: Record<string, string> = {
      'font-weight': '400',
      'font-family': 'sans-serif',
      'line-height': 'normal',
      'padding-top': '0px',
      'padding-right': '0px',
      'padding-bottom': '0px',
      'padding-left': '0px',
      'margin-top': '0px',
      'margin-right': '0px',
      'margin-bottom': '0px',
      'margin-left': '0px',
      'box-shadow': 'none',
      'background-image': 'none',
      opacity: '1',
      'border-top-style': spec.border?.style ?? 'solid',
      'border-right-style': spec.border?.style ?? 'solid',
      'border-bottom-style': spec.border?.style ?? 'solid',
      'border-left-style': spec.border?.style ?? 'solid',
      ...spec.styles,
    };
    const fontSize = spec.fontSize ?? 16;
    return {
      index,
      parent: spec.parent ?? null,
      document: 0,
      selector: spec.selector ?? (spec.id ? `${spec.tag}#${spec.id}` : spec.tag),
      box: { x, y, width, height },
      text: spec.text ? { fontSize: `${fontSize}px`, fontSizePx: fontSize, color: spec.color ?? 'rgb(33, 33, 33)', colorProperty: 'color' } : null,
      backgroundColor: spec.background ?? 'rgba(0, 0, 0, 0)',
      borders: spec.border ? (['top', 'right', 'bottom', 'left'] as const).map((side) => ({ side, color: spec.border!.color, width: spec.border!.width })) : [],
      radii: usedRadii(computed, width, height),
      details: {
        tag: spec.tag,
        attributes: { ...(spec.id ? { id: spec.id } : {}), ...spec.attributes },
        ownText: spec.text ?? '',
        style: (name: string) => styles[name] ?? '',
      },
    };
  });
}

export const PAGE = {
  finalUrl: 'http://127.0.0.1:1/shop.html',
  documentSize: { width: 800, height: 600 },
  viewport: { width: 800, height: 600 },
  devicePixelRatio: 2,
};

/** A sidecar as the runtime writes it, from walker-shaped elements. */
export function sidecarOf(specs: ElementSpec[], design?: DesignDeclaration, options: { elements?: boolean } = {}): ProbeSidecar {
  const elements = rendered(specs);
  return buildProbeSidecar(
    {
      page_facts: PAGE,
      render_tokens: compareRenderTokens(elements, design),
      ...(options.elements === false ? {} : { element_boxes: buildElementBoxes(elements) }),
    },
    design,
  );
}

/** The shop page's elements: a header, a product card with two buttons, a list of two items. */
export function shop(changes: (specs: ElementSpec[]) => void = () => {}): ElementSpec[] {
  const specs: ElementSpec[] = [
    { tag: 'body', selector: 'html > body', box: [0, 0, 800, 600], background: 'rgb(250, 250, 250)' },
    { tag: 'header', selector: 'html > body > header', parent: 0, box: [0, 0, 800, 60], background: 'rgb(21, 101, 192)' },
    { tag: 'h1', selector: 'html > body > header > h1', parent: 1, box: [24, 16, 752, 28], text: 'Shop', fontSize: 24, color: 'rgb(255, 255, 255)' },
    { tag: 'main', selector: 'html > body > main', parent: 0, box: [0, 60, 800, 400] },
    {
      tag: 'section',
      selector: 'html > body > main > section.card',
      parent: 3,
      attributes: { 'aria-label': 'Product' },
      box: [24, 84, 752, 140],
      background: 'rgb(255, 255, 255)',
      border: { width: 1, color: 'rgb(224, 224, 224)' },
      radius: '8px',
    },
    {
      tag: 'button',
      id: 'buy',
      parent: 4,
      box: [41, 174, 93, 34],
      text: 'Buy now',
      color: 'rgb(255, 255, 255)',
      background: 'rgb(21, 101, 192)',
      radius: '8px',
    },
    { tag: 'button', id: 'later', parent: 4, box: [139, 174, 127, 34], text: 'Save for later', background: 'rgb(224, 224, 224)', radius: '8px' },
    { tag: 'ul', id: 'items', parent: 3, box: [41, 289, 718, 48] },
    { tag: 'li', selector: 'ul#items > li:nth-of-type(1)', parent: 7, box: [65, 289, 694, 24], text: 'Mug' },
    { tag: 'li', selector: 'ul#items > li:nth-of-type(2)', parent: 7, box: [65, 313, 694, 24], text: 'Saucer' },
  ];
  changes(specs);
  return specs;
}

export const DESIGN: DesignDeclaration = {
  fontSizes: [16, 24],
  colors: ['#1565c0', '#ffffff', '#212121', '#e0e0e0', '#fafafa', '#d32f2f'],
  radii: [8],
} as DesignDeclaration;
