/**
 * Builds the snapshot tree from the DOM walk (reading order, text, generated
 * content, roles) and the accessibility facts (names, states) of each element,
 * then normalizes it the way Playwright's default snapshot does: adjacent
 * text runs merge with collapsed whitespace, a lone text child that repeats
 * the name goes, and empty nameless generic wrappers vanish.
 */
import type { WalkedChild, WalkedElement } from './domWalk';
import { chromiumRole, nameOf, normalizeWhiteSpace, statesOf, takesName, type ElementFacts } from './axFacts';
import type { AriaNode } from './yaml';

/** Facts of a walked element: its tag and attributes, and Chromium's node for it when one lines up. */
export type FactsLookup = (rec: WalkedElement) => ElementFacts;

/** A data: URL keeps its media type; the payload is never useful in a snapshot. */
export function truncateDataUrl(url: string): string {
  if (!url.startsWith('data:')) return url;
  const comma = url.indexOf(',');
  return comma === -1 ? url : url.slice(0, comma + 1) + '\u2026';
}

export function buildAriaTree(top: WalkedChild[], factsOf: FactsLookup): AriaNode {
  const root: AriaNode = { role: 'fragment', name: '', children: [] };
  for (const child of top) {
    if (typeof child === 'string') root.children.push(child);
    else visitElement(root, child, factsOf);
  }
  normalizeTree(root);
  return root;
}

function visitElement(parent: AriaNode, rec: WalkedElement, factsOf: FactsLookup): void {
  const node = toAriaNode(rec, factsOf);
  if (node) parent.children.push(node);
  const target = node || parent;
  if (rec.blk) target.children.push(' ');
  target.children.push(rec.before);
  for (const kid of rec.kids) {
    if (typeof kid === 'string') {
      // A text field shows its value, not the text nodes inside it.
      if (target.role !== 'textbox') target.children.push(kid);
    } else {
      visitElement(target, kid, factsOf);
    }
  }
  target.children.push(rec.after);
  if (rec.blk) target.children.push(' ');
  if (target.children.length === 1 && target.name === target.children[0]) target.children = [];
  if (target.role === 'link' && rec.href !== undefined) target.url = truncateDataUrl(rec.href);
  if (target.role === 'textbox' && rec.placeholder !== undefined && rec.placeholder !== target.name)
    target.placeholder = rec.placeholder;
  if (node && node.role === 'row' && !node.name) node.name = rowName(node);
}

function toAriaNode(rec: WalkedElement, factsOf: FactsLookup): AriaNode | null {
  const tag = rec.t.toUpperCase();
  if (tag === 'IFRAME' || tag === 'FRAME') return { role: 'iframe', name: '', children: [] };
  const facts = factsOf(rec);
  const role = rec.role === 'none' || rec.role === 'presentation' ? '' : rec.role;
  if (!role) return null;
  // An inline generic around nothing but text is just text.
  if (role === 'generic' && rec.inl && rec.oneText) return null;
  const node: AriaNode = {
    role,
    name: nameOf(facts, role),
    children: [],
    ...statesOf({ ...facts, nativeChecked: rec.nativeChecked, nativeSelected: rec.nativeSelected, disabled: rec.disabled }, role),
  };
  const ownName = authorFallbackName(facts, rec, role);
  if (ownName !== undefined) node.name = ownName;
  else fixName(node, rec, factsOf);
  if (rec.value !== undefined) node.children = [rec.value];
  return node;
}

const INPUT_BUTTON_DEFAULTS: Record<string, string> = { submit: 'Submit', reset: 'Reset', button: '' };

/**
 * Names the format takes from the element itself, ahead of Chromium's: an
 * <input> button without ARIA naming is named by its value or default
 * caption (Chromium prefers a wrapping <label>), an image button by label,
 * alt, title or "Submit", an <img alt=""> by its title (Chromium: no name).
 */
function authorFallbackName(facts: ElementFacts, rec: WalkedElement, role: string): string | undefined {
  const a = facts.attrs;
  if ((a.get('aria-label') || '').trim() || a.has('aria-labelledby')) return undefined;
  if (facts.tag === 'INPUT' && role === 'button') {
    const type = (a.get('type') || '').toLowerCase();
    // An image button is named by its label, alt, title, else "Submit"; never by its value.
    if (type === 'image' && !rec.labelText) {
      return normalizeWhiteSpace((a.get('alt') || '').trim() ? a.get('alt')! : (a.get('title') || '').trim() ? a.get('title')! : 'Submit');
    }
    if (type in INPUT_BUTTON_DEFAULTS) {
      const value = rec.value ?? '';
      return normalizeWhiteSpace(value.trim() ? value : INPUT_BUTTON_DEFAULTS[type] || a.get('title') || '');
    }
  }
  if (facts.tag === 'IMG' && a.get('title') && !String(facts.ax?.name?.value ?? '').trim()) return normalizeWhiteSpace(a.get('title')!);
  return undefined;
}

/**
 * Brings Chromium's name to the format's: re-spelled from the DOM where it is
 * the element's content (or a label) up to case and spacing; computed from the
 * walk where Chromium has no node for the element; a figure Chromium leaves
 * unnamed is named by its caption. (Rows are named after their cells are built.)
 */
function fixName(node: AriaNode, rec: WalkedElement, factsOf: FactsLookup): void {
  if (node.name) {
    if (NAME_FROM_CONTENT.has(node.role) && namedOnlyByContent(rec, factsOf(rec))) {
      // Chromium found a name where the DOM content has no text (an <svg><use> pulling in a
      // <symbol>'s <title>, text in a closed shadow root): the format reads only the content.
      if (!normalizeWhiteSpace(contentText(rec, factsOf, true, 'snapshot'))) {
        node.name = '';
        return;
      }
    }
    if (NAME_FROM_CONTENT.has(node.role)) node.name = domSpelling(node.name, rec, factsOf);
    // A name from a label that differs only in letter case was upper- or lower-cased by CSS.
    const label = normalizeWhiteSpace(rec.labelText || '');
    if (label && label !== node.name && label.toLowerCase() === node.name.toLowerCase()) node.name = label;
    return;
  }
  const facts = factsOf(rec);
  if (chromiumRole(facts.ax) !== node.role) {
    // Chromium has no node of this role for the element: content it ignores or skips (inert,
    // behind a modal dialog, inside content-visibility:auto not yet rendered) or a written
    // role it re-maps (an option outside a listbox). The snapshot still names it.
    node.name = fallbackName(rec, facts, node.role, factsOf);
    return;
  }
  if (node.role === 'figure') {
    const caption = rec.kids.find((k): k is WalkedElement => typeof k !== 'string' && k.t.toUpperCase() === 'FIGCAPTION');
    if (caption) node.name = normalizeWhiteSpace(walkedText(caption));
  }
}

/** Elements whose only possible name source, by HTML-AAM, is their content. */
function namedOnlyByContent(rec: WalkedElement, facts: ElementFacts): boolean {
  const a = facts.attrs;
  if (['INPUT', 'IMG', 'AREA', 'OPTION', 'SELECT', 'TEXTAREA', 'SVG', 'FIELDSET', 'FIGURE', 'TABLE'].includes(facts.tag)) return false;
  if (a.has('aria-label') || a.has('aria-labelledby') || a.has('title') || a.has('alt')) return false;
  return !(rec.labelText || '').trim();
}

const LABELABLE = new Set(['INPUT', 'TEXTAREA', 'SELECT', 'METER', 'PROGRESS', 'OUTPUT']);
const PLACEHOLDER_TYPES = new Set(['text', 'password', 'number', 'search', 'tel', 'email', 'url']);
const CAPTION_CHILD: Record<string, string> = { FIELDSET: 'LEGEND', FIGURE: 'FIGCAPTION', TABLE: 'CAPTION' };

/**
 * The HTML-AAM name of an element Chromium's tree has no node for, from what
 * the walk read: aria-labelledby, aria-label, <label>, title and placeholder
 * of fields, legend / figcaption / caption, alt, an <svg>'s <title>, content
 * for roles named by content, else title. Only used in that case, so a
 * snapshot never replaces a name Chromium computed with this one.
 */
function fallbackName(rec: WalkedElement, facts: ElementFacts, role: string, factsOf: FactsLookup): string {
  if (!takesName(role)) return '';
  const a = facts.attrs;
  const tag = facts.tag;
  const title = a.get('title') || '';
  if (a.has('aria-labelledby') && (rec.labelText || '').trim()) return normalizeWhiteSpace(rec.labelText!);
  if ((a.get('aria-label') || '').trim()) return normalizeWhiteSpace(a.get('aria-label')!);
  if (LABELABLE.has(tag)) {
    if ((rec.labelText || '').trim()) return normalizeWhiteSpace(rec.labelText!);
    const type = (a.get('type') || 'text').toLowerCase();
    const usesPlaceholder = tag === 'TEXTAREA' || (tag === 'INPUT' && PLACEHOLDER_TYPES.has(type));
    return normalizeWhiteSpace(!usesPlaceholder || title ? title : rec.placeholder || '');
  }
  const captionTag = CAPTION_CHILD[tag];
  if (captionTag) {
    const caption = rec.kids.find((k): k is WalkedElement => typeof k !== 'string' && k.t.toUpperCase() === captionTag);
    if (caption) return normalizeWhiteSpace(contentText(caption, factsOf, true, 'snapshot'));
    return normalizeWhiteSpace(title);
  }
  if (tag === 'IMG' || tag === 'AREA') return normalizeWhiteSpace((a.get('alt') || '').trim() ? a.get('alt')! : title);
  if (tag === 'SVG' && rec.svgTitle) return normalizeWhiteSpace(rec.svgTitle);
  if (NAME_FROM_CONTENT.has(role) || tag === 'SUMMARY') {
    const text = normalizeWhiteSpace(contentText(rec, factsOf, true, 'snapshot'));
    if (text) return text;
  }
  return normalizeWhiteSpace(title);
}

const NAME_FROM_CONTENT = new Set(['button', 'cell', 'checkbox', 'columnheader', 'gridcell', 'heading', 'link',
  'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'row', 'rowheader', 'switch', 'tab', 'tooltip',
  'treeitem']);

/**
 * Chromium builds names from rendered text: text-transform applies, and it
 * puts a space between inline images. The snapshot spells a name from content
 * as the DOM has it. When Chromium's name is the element's own content up to
 * letter case and spacing, the DOM's spelling is taken; any other name (from
 * aria-label, a <label>, alt, title) stays exactly as Chromium computed it.
 */
function domSpelling(axName: string, rec: WalkedElement, factsOf: FactsLookup): string {
  const squash = (s: string) => s.replace(/\s+/g, '').toLowerCase();
  const asChromium = squash(contentText(rec, factsOf, true, 'chromium'));
  const target = squash(axName);
  let same = asChromium === target;
  if (!same && asChromium.includes(UNREAD)) {
    // Generated content the format does not read (counters, quotes) is text only Chromium has:
    // any text may stand in its place.
    const pattern = asChromium.split(UNREAD).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^]*?');
    same = new RegExp('^' + pattern + '$', 'u').test(target);
  }
  return same ? normalizeWhiteSpace(contentText(rec, factsOf, true, 'snapshot')) : axName;
}

/** Stands, in Chromium's reading of content, for generated content the format does not read. */
const UNREAD = '\u0000';

const RANGE_ROLES = new Set(['progressbar', 'scrollbar', 'slider', 'spinbutton', 'meter']);

/**
 * The element's content as accessible-name text. Nested images and labelled
 * parts count by their name. Nested form controls differ between the two
 * readings: Chromium counts a control inside a button or link by its name,
 * the snapshot format by its value (a text field's text, a slider's or
 * progress bar's aria-valuetext / aria-valuenow / value, a menu not at all).
 */
function contentText(rec: WalkedElement, factsOf: FactsLookup, isRoot: boolean, reading: 'chromium' | 'snapshot'): string {
  const pad = (text: string) => (!isRoot && rec.blk ? ' ' + text + ' ' : text);
  if (!isRoot) {
    const facts = factsOf(rec);
    if (facts) {
      if (reading === 'snapshot') {
        const role = rec.role;
        const a = facts.attrs;
        if (role === 'textbox' || role === 'searchbox') return pad(rec.value ?? walkedText(rec));
        if (RANGE_ROLES.has(role)) return pad(a.get('aria-valuetext') ?? a.get('aria-valuenow') ?? a.get('value') ?? '');
        if (role === 'menu') return '';
      }
      const named = facts.tag === 'IMG' || facts.tag === 'INPUT' || facts.tag === 'SELECT' || facts.tag === 'TEXTAREA' ||
        facts.tag === 'SVG' || facts.attrs.has('aria-label') || facts.attrs.has('aria-labelledby');
      if (named) {
        const name = chromiumRole(facts.ax) === rec.role || (!rec.role && facts.ax && !facts.ax.ignored)
          ? String(facts.ax?.name?.value ?? '')
          : fallbackName(rec, facts, rec.role, factsOf);
        return pad(normalizeWhiteSpace(name));
      }
    }
  }
  const unread = reading === 'chromium' ? UNREAD : '';
  let out = rec.beforeUnread ? unread : rec.before;
  for (const k of rec.kids) out += typeof k === 'string' ? k : contentText(k, factsOf, false, reading);
  out += rec.afterUnread ? unread : rec.after;
  return pad(out);
}

/** A table row Chromium leaves unnamed is named by its cells, as the format names rows from content. */
function rowName(row: AriaNode): string {
  return normalizeWhiteSpace(row.children.map((c) => (typeof c === 'string' ? c : c.name || flatText(c))).join(' '));
}

function flatText(node: AriaNode): string {
  return node.children.map((c) => (typeof c === 'string' ? c : c.name || flatText(c))).join(' ');
}

function walkedText(rec: WalkedElement): string {
  let out = (rec.blk ? ' ' : '') + rec.before;
  for (const k of rec.kids) out += typeof k === 'string' ? k : walkedText(k);
  return out + rec.after + (rec.blk ? ' ' : '');
}

function normalizeTree(root: AriaNode): void {
  const visit = (node: AriaNode) => {
    const kept: Array<AriaNode | string> = [];
    for (const child of node.children) {
      if (typeof child === 'string') {
        kept.push(child);
        continue;
      }
      visit(child);
      // An empty generic wrapper without a name carries nothing.
      if (child.role === 'generic' && !child.name && child.children.length === 0) continue;
      kept.push(child);
    }
    node.children = kept;
    mergeText(node);
  };
  visit(root);
}

function mergeText(node: AriaNode): void {
  const out: Array<AriaNode | string> = [];
  let buffer = '';
  let pending = false;
  const flush = () => {
    if (!pending) return;
    const text = normalizeWhiteSpace(buffer);
    if (text) out.push(text);
    buffer = '';
    pending = false;
  };
  for (const child of node.children) {
    if (typeof child === 'string') {
      buffer += child;
      pending = true;
    } else {
      flush();
      out.push(child);
    }
  }
  flush();
  node.children = out;
  if (out.length === 1 && out[0] === node.name) node.children = [];
}
