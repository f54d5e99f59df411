/**
 * Two notions of "not shown", one module:
 * - hidden from assistive technology (the aria snapshot skips such elements,
 *   role selectors skip them unless include-hidden): not rendered, invisible,
 *   aria-hidden="true", or an unslotted shadow-host child, on the element or
 *   an ancestor;
 * - visible as a box (the :visible pseudo-class, visible=true, an action's
 *   wait): rendered, visibility:visible, non-empty bounding box; a
 *   display:contents element is visible when something inside it is.
 */
import { memo, memoTable } from './caches';
import { computedStyle, parentOrHost, textHasBox, upperTag } from './dom';

const hiddenChain = memoTable<Element, boolean>();
// display:none, aria-hidden="true" or an unslotted shadow-host child, on the element or an ancestor.
function computeHiddenByAncestry(e: Element): boolean {
  let hidden = !!(e.parentElement && e.parentElement.shadowRoot && !(e as any).assignedSlot);
  if (!hidden) {
    const s = computedStyle(e);
    hidden = !s || s.display === 'none' || (e.getAttribute('aria-hidden') || '').toLowerCase() === 'true';
  }
  if (!hidden) {
    const p = parentOrHost(e);
    if (p) hidden = hiddenByAncestry(p);
  }
  return hidden;
}
function hiddenByAncestry(e: Element): boolean {
  return memo(hiddenChain, e, computeHiddenByAncestry);
}

/** <style>, <script>, <noscript> and <template> never count as content. */
export function isIgnoredForAria(e: Element): boolean {
  const tag = upperTag(e);
  return tag === 'STYLE' || tag === 'SCRIPT' || tag === 'NOSCRIPT' || tag === 'TEMPLATE';
}

const hiddenForAria = memoTable<Element, boolean>();
function computeHiddenForAria(e: Element): boolean {
  if (isIgnoredForAria(e)) return true;
  const s = computedStyle(e);
  const isSlot = e.nodeName === 'SLOT';
  if (s && s.display === 'contents' && !isSlot) {
    // A box-less element is hidden only when nothing inside it shows.
    for (let c = e.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 1 && !isHiddenForAria(c as Element)) return false;
      if (c.nodeType === 3 && textHasBox(c as Text)) return false;
    }
    return true;
  }
  const optionInSelect = e.nodeName === 'OPTION' && !!e.closest('select');
  if (!optionInSelect && !isSlot && s) {
    if (!(e as any).checkVisibility() || s.visibility !== 'visible') return true;
  }
  return hiddenByAncestry(e);
}
/** Excluded from the accessibility tree (names read the same descendants again and again: memoized). */
export function isHiddenForAria(e: Element): boolean {
  return memo(hiddenForAria, e, computeHiddenForAria);
}

/** Rendered with a non-empty box (display:contents: some child is). */
export function isVisibleBox(e: Element): boolean {
  const s = computedStyle(e);
  if (!s) return true;
  if (s.display === 'contents') {
    for (let c = e.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 1 && isVisibleBox(c as Element)) return true;
      if (c.nodeType === 3 && textHasBox(c as Text)) return true;
    }
    return false;
  }
  if (!(e as any).checkVisibility() || s.visibility !== 'visible') return false;
  const r = e.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
}

/**
 * Whether the element's box counts as inline, as the snapshot format reads it: a display:contents
 * element takes it from its first shown child (a text run: inline; an element: not).
 */
export function isInlineBox(e: Element, s: CSSStyleDeclaration | undefined): boolean {
  if (!s) return false;
  if (s.display === 'contents') {
    for (let c = e.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 1 && isVisibleBox(c as Element)) return false;
      if (c.nodeType === 3 && textHasBox(c as Text)) return true;
    }
    return false;
  }
  return s.display === 'inline';
}
