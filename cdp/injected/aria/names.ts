/**
 * Accessible names, computed over the live DOM by the accname / HTML-AAM rules
 * as Playwright implements them (which differ from Chromium's accessibility
 * tree in many places: docs/aria-snapshot-differences.md): text as the DOM
 * spells it, hidden and unrendered text skipped, nested controls counted by
 * value, generated content included. The aria snapshot prints these names and
 * role selectors match [name=…] against them.
 */
import { idRefs, computedStyle, upperTag } from './dom';
import { isHiddenForAria, isIgnoredForAria } from './visibility';
import { ownContentText, pseudoText } from './pseudoContent';
import { ariaRole } from './roles';

const NAME_PROHIBITED = new Set([
  'caption',
  'code',
  'definition',
  'deletion',
  'emphasis',
  'generic',
  'insertion',
  'mark',
  'paragraph',
  'presentation',
  'strong',
  'subscript',
  'suggestion',
  'superscript',
  'term',
  'time',
]);
const FROM_CONTENT = new Set([
  'button',
  'cell',
  'checkbox',
  'columnheader',
  'gridcell',
  'heading',
  'link',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'option',
  'radio',
  'row',
  'rowheader',
  'switch',
  'tab',
  'tooltip',
  'treeitem',
]);
// Roles that take their name from content only when met inside another element's name computation.
const FROM_CONTENT_INSIDE = new Set([
  '',
  'caption',
  'code',
  'contentinfo',
  'definition',
  'deletion',
  'emphasis',
  'insertion',
  'list',
  'listitem',
  'mark',
  'none',
  'paragraph',
  'presentation',
  'region',
  'row',
  'rowgroup',
  'section',
  'strong',
  'subscript',
  'superscript',
  'table',
  'term',
  'time',
]);
const RANGE = ['progressbar', 'scrollbar', 'slider', 'spinbutton', 'meter'];
const PLACEHOLDER_INPUTS = ['text', 'password', 'number', 'search', 'tel', 'email', 'url'];
interface NameState {
  seen: Set<Element>;
  /** 'self' for the element being named, 'descendant' below it, undefined inside a label/labelledby detour. */
  target?: 'self' | 'descendant';
  /** Set while reading an aria-labelledby target, a <label>, or a legend/caption/figcaption/svg title; value: that root was hidden. */
  byRef?: boolean;
  byLabel?: boolean;
  byNative?: boolean;
  /** Hidden content counts (role selectors' include-hidden). */
  includeHidden?: boolean;
}
const inAriaOwned = (e: Element, css: string): Element[] => {
  const out = Array.from(e.querySelectorAll(css));
  for (const owned of idRefs(e, e.getAttribute('aria-owns'))) {
    if (owned.matches(css)) out.push(owned);
    out.push(...Array.from(owned.querySelectorAll(css)));
  }
  return out;
};
const labelsOf = (e: Element): Element[] => Array.from(((e as HTMLInputElement).labels || []) as ArrayLike<Element>);
const fromLabels = (labels: Element[], st: NameState): string =>
  labels
    .map((l) => textAlternative(l, { seen: st.seen, includeHidden: st.includeHidden, byLabel: isHiddenForAria(l) }))
    .filter((t) => !!t)
    .join(' ');
const withinHiddenRoot = (st: NameState) => !!(st.byRef || st.byLabel || st.byNative);
const textAlternative = (e: Element, st: NameState): string => {
  if (st.seen.has(e)) return '';
  const inner: NameState = { ...st, target: st.target === 'self' ? 'descendant' : st.target };
  const tag = upperTag(e);
  if (!st.includeHidden && (isIgnoredForAria(e) || (!withinHiddenRoot(st) && isHiddenForAria(e)))) {
    st.seen.add(e);
    return '';
  }
  // Element references set from script (ariaLabelledByElements) count like ids written in the attribute.
  const reflected = (e as any).ariaLabelledByElements as Element[] | null | undefined;
  const labelledBy = reflected && reflected.length ? Array.from(reflected) : idRefs(e, e.getAttribute('aria-labelledby'));
  if (st.byRef === undefined) {
    const text = labelledBy.map((ref) => textAlternative(ref, { seen: st.seen, includeHidden: st.includeHidden, byRef: isHiddenForAria(ref) })).join(' ');
    if (text) return text;
  }
  const role = ariaRole(e);
  const presentational = role === 'presentation' || role === 'none';
  // A control inside another element's name counts by its value, not its own name.
  if ((st.byLabel !== undefined || st.byRef !== undefined || st.target === 'descendant') && !labelledBy.includes(e)) {
    if (role === 'textbox' || role === 'searchbox') {
      st.seen.add(e);
      return tag === 'INPUT' || tag === 'TEXTAREA' ? (e as HTMLInputElement).value : e.textContent || '';
    }
    if (role === 'combobox' || role === 'listbox') {
      st.seen.add(e);
      let chosen: Element[];
      if (tag === 'SELECT') {
        const sel = e as HTMLSelectElement;
        chosen = Array.from(sel.selectedOptions);
        if (!chosen.length && sel.options.length) chosen.push(sel.options[0]);
      } else {
        const listbox = role === 'combobox' ? inAriaOwned(e, '*').find((x) => ariaRole(x) === 'listbox') : e;
        chosen = listbox ? inAriaOwned(listbox, '[aria-selected="true" i]').filter((x) => ariaRole(x) === 'option') : [];
      }
      if (!chosen.length && tag === 'INPUT') return (e as HTMLInputElement).value;
      return chosen.map((o) => textAlternative(o, inner)).join(' ');
    }
    if (RANGE.includes(role)) {
      st.seen.add(e);
      return e.getAttribute('aria-valuetext') ?? e.getAttribute('aria-valuenow') ?? e.getAttribute('value') ?? '';
    }
    if (role === 'menu') {
      st.seen.add(e);
      return '';
    }
  }
  const ariaLabel = e.getAttribute('aria-label') || '';
  if (ariaLabel.trim()) {
    st.seen.add(e);
    return ariaLabel;
  }
  if (!presentational) {
    const type = tag === 'INPUT' ? (e as HTMLInputElement).type : '';
    const title = e.getAttribute('title') || '';
    const captionChild = (childTag: string): string | undefined => {
      for (let c = e.firstElementChild; c; c = c.nextElementSibling) {
        if (upperTag(c) === childTag) return textAlternative(c, { ...inner, byNative: isHiddenForAria(c) });
      }
      return undefined;
    };
    if (tag === 'INPUT' && (type === 'button' || type === 'submit' || type === 'reset')) {
      st.seen.add(e);
      const value = (e as HTMLInputElement).value || '';
      if (value.trim()) return value;
      return type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : title;
    }
    if (tag === 'INPUT' && (type === 'file' || type === 'image')) {
      st.seen.add(e);
      const labels = labelsOf(e);
      if (labels.length && st.byRef === undefined) return fromLabels(labels, st);
      if (type === 'file') return 'Choose File';
      const alt = e.getAttribute('alt') || '';
      return alt.trim() ? alt : title.trim() ? title : 'Submit';
    }
    if (!labelledBy.length && tag === 'BUTTON') {
      st.seen.add(e);
      const labels = labelsOf(e);
      if (labels.length) return fromLabels(labels, st);
    }
    if (!labelledBy.length && tag === 'OUTPUT') {
      st.seen.add(e);
      const labels = labelsOf(e);
      return labels.length ? fromLabels(labels, st) : title;
    }
    if (!labelledBy.length && ['TEXTAREA', 'SELECT', 'INPUT', 'METER', 'PROGRESS'].includes(tag)) {
      st.seen.add(e);
      const labels = labelsOf(e);
      if (labels.length) return fromLabels(labels, st);
      const usesPlaceholder = (tag === 'INPUT' && PLACEHOLDER_INPUTS.includes(type)) || tag === 'TEXTAREA';
      return !usesPlaceholder || title ? title : e.getAttribute('placeholder') || '';
    }
    if (!labelledBy.length && (tag === 'FIELDSET' || tag === 'FIGURE')) {
      st.seen.add(e);
      const caption = captionChild(tag === 'FIELDSET' ? 'LEGEND' : 'FIGCAPTION');
      return caption !== undefined ? caption : title;
    }
    if (tag === 'IMG' || tag === 'AREA') {
      st.seen.add(e);
      const alt = e.getAttribute('alt') || '';
      return alt.trim() ? alt : title;
    }
    if (tag === 'TABLE') {
      st.seen.add(e);
      const caption = captionChild('CAPTION');
      if (caption !== undefined) return caption;
      const summary = e.getAttribute('summary') || '';
      if (summary) return summary;
    }
    const svgPart = (e as SVGElement).ownerSVGElement;
    if (tag === 'SVG' || svgPart) {
      st.seen.add(e);
      for (let c = e.firstElementChild; c; c = c.nextElementSibling) {
        if (upperTag(c) === 'TITLE' && (c as SVGElement).ownerSVGElement) return textAlternative(c, { ...inner, byRef: isHiddenForAria(c) });
      }
    }
    if (svgPart && tag === 'A') {
      const xlinkTitle = e.getAttribute('xlink:title') || '';
      if (xlinkTitle.trim()) {
        st.seen.add(e);
        return xlinkTitle;
      }
    }
  }
  const summaryNamedByContent = tag === 'SUMMARY' && !presentational;
  if (
    FROM_CONTENT.has(role) ||
    (st.target === 'descendant' && FROM_CONTENT_INSIDE.has(role)) ||
    summaryNamedByContent ||
    st.byRef !== undefined ||
    st.byLabel !== undefined ||
    st.byNative !== undefined
  ) {
    st.seen.add(e);
    const text = contentOf(e, inner);
    // An element's own empty content falls through to its title; inside another name it counts as is.
    if (st.target === 'self' ? text.trim() : text) return text;
  }
  if (!presentational || tag === 'IFRAME' || tag === 'FRAME') {
    st.seen.add(e);
    const title = e.getAttribute('title') || '';
    if (title.trim()) return title;
  }
  st.seen.add(e);
  return '';
};
const contentOf = (e: Element, st: NameState): string => {
  const skipUnrendered = !st.includeHidden && !withinHiddenRoot(st);
  let out = pseudoText(e, '::before') || '';
  const add = (node: Node, skipSlotted: boolean) => {
    if (skipSlotted && (node as any).assignedSlot) return;
    if (node.nodeType === 1) {
      const s = computedStyle(node as Element);
      const display = (s && s.display) || 'inline';
      const text = textAlternative(node as Element, st);
      out += display !== 'inline' || node.nodeName === 'BR' ? ' ' + text + ' ' : text;
    } else if (node.nodeType === 3) {
      if (skipUnrendered) {
        const parent = (node as Text).parentElement;
        if (parent && parent.shadowRoot && !(node as any).assignedSlot) return;
        if (parent && upperTag(parent) === 'DETAILS' && !(parent as HTMLDetailsElement).open) return;
      }
      out += node.textContent || '';
    }
  };
  const own = ownContentText(e);
  if (own !== undefined) {
    out += own;
  } else {
    const assigned = e.nodeName === 'SLOT' ? (e as HTMLSlotElement).assignedNodes() : [];
    if (assigned.length) {
      for (const c of assigned) add(c, false);
    } else {
      for (let c = e.firstChild; c; c = c.nextSibling) add(c, true);
      if (e.shadowRoot) for (let c = e.shadowRoot.firstChild; c; c = c.nextSibling) add(c, true);
      for (const owned of idRefs(e, e.getAttribute('aria-owns'))) add(owned, true);
    }
  }
  return out + (pseudoText(e, '::after') || '');
};
// As the format flattens a name: whitespace runs collapse, but a no-break space stays a separator of its own.
const flatten = (s: string) =>
  s
    .split('\u00a0')
    .map((chunk) =>
      chunk
        .replace(/\r\n/g, '\n')
        .replace(/[\u200b\u00ad]/g, '')
        .replace(/\s\s*/g, ' '),
    )
    .join('\u00a0')
    .trim();
/**
 * The accessible name of an element whose role is `role`, flattened. With `includeHidden`, hidden
 * content counts too (role selectors with [include-hidden] match such names).
 */
export function accessibleName(e: Element, role: string, includeHidden = false): string {
  if (NAME_PROHIBITED.has(role)) return '';
  return flatten(textAlternative(e, { seen: new Set(), target: 'self', includeHidden }));
}
