/**
 * The aria snapshot's walk of the live DOM in the page: which text nodes and
 * elements a reader meets, in which order (light DOM, open shadow roots, slot
 * assignment, aria-owns), with the facts the snapshot prints about each —
 * generated content and block/inline layout around them, role, accessible
 * name, the attributes states are read from, current form values. It returns
 * plain JSON records; cdp/aria/tree.ts turns them into the snapshot.
 *
 * The facts come from the modules beside it (roles, names, visibility,
 * pseudoContent), which role selectors read too. Names are computed over the
 * DOM, not taken from Chromium's accessibility tree: the snapshot format
 * defines them by the accname / HTML-AAM rules as Playwright implements them,
 * and Chromium's tree departs from those rules in many real pages.
 */
import { withCaches } from './caches';
import { computedStyle, upperTag } from './dom';
import { accessibleName } from './names';
import { pseudoText } from './pseudoContent';
import { ariaDisabledInChain, isNativelyDisabled, snapshotRole } from './roles';
import { isHiddenForAria, isInlineBox } from './visibility';

/** One element the walk reached and that is not hidden from assistive technology. */
export interface WalkedElement {
  /** nodeName as the DOM spells it (upper case for HTML). */
  t: string;
  /** Computed display is something other than inline, or the element is <br>. */
  blk?: boolean;
  /** The box counts as inline: display inline, or display:contents whose first shown child is text. */
  inl?: boolean;
  /** The element's only child node is a text node. */
  oneText?: boolean;
  /** Text produced by ::before / ::after (already padded for non-inline pseudo boxes). */
  before?: string;
  after?: string;
  /** href / placeholder attributes as written, when present. */
  href?: string;
  placeholder?: string;
  /** Accessible name (flattened), for elements with a role that can be named. */
  name?: string;
  /** Native checked state of a checkbox or radio input ('mixed' when indeterminate), and an option's selectedness. */
  nativeChecked?: boolean | 'mixed';
  nativeSelected?: boolean;
  /**
   * Disabled as the format reads it: a disabled form control (also inside a disabled fieldset
   * or optgroup), or aria-disabled="true" on the element or its nearest ancestor that sets it.
   */
  disabled?: boolean;
  /**
   * aria-hidden="true" on an element that is shown all the same (display:contents with shown
   * children is hidden only when nothing inside it shows); the format marks it.
   */
  ariaHidden?: boolean;
  /** Current value of an input or textarea that shows one. */
  value?: string;
  /**
   * The element's role in the snapshot's vocabulary, '' for none: the first
   * role token the format knows as written (role="none"/"presentation" yield
   * to the implicit role on focusable elements or ones with global ARIA
   * attributes), else the role HTML-AAM gives the tag in its DOM context.
   */
  role: string;
  /** The attributes the states are read from (aria-level, -invalid, -checked, -selected, -pressed, -expanded, open), as written. */
  at?: Record<string, string>;
  /** Child content in reading order: text runs and elements. */
  kids: WalkedChild[];
}
export type WalkedChild = string | WalkedElement;

export interface WalkResult {
  /** Children of the snapshot's root fragment; null when the document has no body yet. */
  root: WalkedChild[] | null;
}

// The attributes the states are read from (states.ts).
const READ_ATTRIBUTES = ['aria-level', 'aria-invalid', 'aria-checked', 'aria-selected', 'aria-pressed', 'aria-expanded', 'open'];
const readAttributes = (e: Element): Record<string, string> | undefined => {
  let out: Record<string, string> | undefined;
  for (const name of READ_ATTRIBUTES) {
    const v = e.getAttribute(name);
    if (v !== null) (out = out || {})[name] = v;
  }
  return out;
};
function visit(visited: Set<Node>, into: WalkedChild[], node: Node): void {
  if (visited.has(node)) return;
  visited.add(node);
  if (node.nodeType === 3) {
    if (!node.nodeValue) return;
    const parent = (node as Text).parentElement;
    if (parent) {
      if (parent.shadowRoot && !(node as any).assignedSlot) return;
      if (upperTag(parent) === 'DETAILS' && !(parent as HTMLDetailsElement).open) return;
    }
    into.push(node.nodeValue);
    return;
  }
  if (node.nodeType !== 1) return;
  const e = node as Element;
  if (isHiddenForAria(e)) return;
  const s = computedStyle(e);
  const display = (s && s.display) || 'inline';
  // Fields at their default (false, empty) are left out: a large page's walk is megabytes of JSON.
  const rec: WalkedElement = { t: e.nodeName, role: snapshotRole(e), kids: [] };
  if (display !== 'inline' || e.nodeName === 'BR') rec.blk = true;
  if (isInlineBox(e, s)) rec.inl = true;
  if (e.childNodes.length === 1 && e.childNodes[0].nodeType === 3) rec.oneText = true;
  const at = readAttributes(e);
  if (at) rec.at = at;
  const before = pseudoText(e, '::before');
  const after = pseudoText(e, '::after');
  if ((e.getAttribute('aria-hidden') || '').toLowerCase() === 'true') rec.ariaHidden = true;
  if (before) rec.before = before;
  if (after) rec.after = after;
  if (e.hasAttribute('href')) rec.href = e.getAttribute('href') as string;
  if (e.hasAttribute('placeholder')) rec.placeholder = e.getAttribute('placeholder') as string;
  const named = rec.role && rec.role !== 'none' && rec.role !== 'presentation' && e.nodeName !== 'IFRAME' && e.nodeName !== 'FRAME';
  if (named) rec.name = accessibleName(e, rec.role);
  if (e instanceof HTMLInputElement) {
    if (e.indeterminate) rec.nativeChecked = 'mixed';
    else if (e.type === 'checkbox' || e.type === 'radio') rec.nativeChecked = e.checked;
  }
  if (e instanceof HTMLOptionElement) rec.nativeSelected = e.selected;
  if (isNativelyDisabled(e) || ariaDisabledInChain(e)) rec.disabled = true;
  if (e instanceof HTMLInputElement || e instanceof HTMLTextAreaElement) {
    // A password's value as the browser shows it (Playwright prints it as typed: docs/aria-snapshot-differences.md).
    if (e instanceof HTMLInputElement && e.type === 'password') rec.value = '\u2022'.repeat([...e.value].length);
    else if (e.type !== 'checkbox' && e.type !== 'radio' && e.type !== 'file') rec.value = e.value;
  }
  into.push(rec);
  const owned: Element[] = [];
  const owns = e.getAttribute('aria-owns');
  if (owns) {
    for (const id of owns.split(/\s+/)) {
      const o = document.getElementById(id);
      if (o) owned.push(o);
    }
  }
  // IFRAME contents are a separate document; default snapshots stop at the frame.
  const assigned = e.nodeName === 'SLOT' ? (e as HTMLSlotElement).assignedNodes() : [];
  if (assigned.length) {
    for (const c of assigned) visit(visited, rec.kids, c);
  } else {
    for (let c = e.firstChild; c; c = c.nextSibling) {
      if (!(c as any).assignedSlot) visit(visited, rec.kids, c);
    }
    if (e.shadowRoot) {
      for (let c = e.shadowRoot.firstChild; c; c = c.nextSibling) visit(visited, rec.kids, c);
    }
  }
  for (const o of owned) visit(visited, rec.kids, o);
}

/** The snapshot's records, from the first body or frameset (visited like any other element), as page.ariaSnapshot() starts. */
export function walkDocumentInPage(): WalkResult {
  return withCaches(() => {
    const rootEl = document.querySelector('body,frameset');
    if (!rootEl) return { root: null };
    const root: WalkedChild[] = [];
    visit(new Set<Node>(), root, rootEl);
    return { root };
  });
}
