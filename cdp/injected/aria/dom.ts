/**
 * DOM facts every in-page module reads: tag names, the flat-tree parent
 * (crossing open shadow roots), computed styles, whether a text run has a
 * layout box, id references within the element's own tree.
 */
import { memo, memoTable } from './caches';

export function upperTag(e: Element): string {
  return e.nodeName.toUpperCase();
}

/** The parent element, or the shadow host when `e` is a shadow root's top-level child. */
export function parentOrHost(e: Element): Element | null {
  if (e.parentElement) return e.parentElement;
  const p = e.parentNode as ShadowRoot | null;
  return p && p.nodeType === 11 && p.host ? p.host : null;
}

const styles = memoTable<Element, CSSStyleDeclaration | undefined>();
const readStyle = (e: Element) => (e.ownerDocument.defaultView ? e.ownerDocument.defaultView.getComputedStyle(e) : undefined);

export function computedStyle(e: Element): CSSStyleDeclaration | undefined {
  return memo(styles, e, readStyle);
}

let range: Range | undefined;
/** The text run occupies a non-empty layout box. */
export function textHasBox(t: Text): boolean {
  range = range || document.createRange();
  range.selectNode(t);
  const r = range.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
}

/** Element.closest that continues past shadow boundaries into the hosts' trees. */
export function closestAcrossShadow(e: Element, css: string): Element | null {
  let cur: Element | null = e;
  while (cur) {
    const hit = cur.closest(css);
    if (hit) return hit;
    let top: Element = cur;
    while (top.parentElement) top = top.parentElement;
    cur = parentOrHost(top);
  }
  return null;
}

/** Elements named by an id-list attribute value, looked up in `e`'s own tree (document or shadow root), without repeats. */
export function idRefs(e: Element, value: string | null): Element[] {
  if (!value) return [];
  const root = e.getRootNode() as Document | ShadowRoot;
  if (!root || !root.querySelector) return [];
  const out: Element[] = [];
  for (const id of value.split(/[ \t\n\f\r]+/)) {
    if (!id) continue;
    let hit: Element | null = null;
    try {
      hit = root.querySelector('#' + CSS.escape(id));
    } catch {
      hit = null;
    }
    if (hit && !out.includes(hit)) out.push(hit);
  }
  return out;
}
