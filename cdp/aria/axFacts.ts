/**
 * Names and states of elements for the snapshot. Names come from
 * Chromium's accessibility tree (Accessibility.getFullAXTree); states follow
 * the format's definitions: which roles show which state, and whether the
 * state is the author's (aria-*) or the element's own (native checked,
 * selected, disabled). Roles are decided in the page (domWalk.ts). Each rule
 * that departs from Chromium's tree is listed in docs/aria-snapshot-differences.md.
 */

export interface AXValue { type?: string; value?: any }
export interface AXProperty { name: string; value: AXValue }
export interface AXNode {
  nodeId: string;
  ignored: boolean;
  ignoredReasons?: AXProperty[];
  role?: AXValue;
  name?: AXValue;
  properties?: AXProperty[];
  backendDOMNodeId?: number;
}

/** What the snapshot needs to know about one element. */
export interface ElementFacts {
  tag: string; // upper case
  attrs: Map<string, string>;
  ax?: AXNode;
  /** DOM properties read in the page: a checkbox/radio input's checked state, an option's selectedness. */
  nativeChecked?: boolean | 'mixed';
  nativeSelected?: boolean;
  /** Disabled natively or by aria-disabled on the element or an ancestor (read in the page). */
  disabled?: boolean;
}

// Which roles show which state in the snapshot.
const CHECKED_ROLES = new Set(['checkbox', 'menuitemcheckbox', 'option', 'radio', 'switch', 'menuitemradio', 'treeitem']);
const DISABLED_ROLES = new Set(['application', 'button', 'composite', 'gridcell', 'group', 'input', 'link', 'menuitem',
  'scrollbar', 'separator', 'tab', 'checkbox', 'columnheader', 'combobox', 'grid', 'listbox', 'menu', 'menubar',
  'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'radiogroup', 'row', 'rowheader', 'searchbox', 'select',
  'slider', 'spinbutton', 'switch', 'tablist', 'textbox', 'toolbar', 'tree', 'treegrid', 'treeitem']);
const EXPANDED_ROLES = new Set(['application', 'button', 'checkbox', 'combobox', 'gridcell', 'link', 'listbox',
  'menuitem', 'row', 'rowheader', 'tab', 'treeitem', 'columnheader', 'menuitemcheckbox', 'menuitemradio', 'switch']);
const INVALID_ROLES = new Set(['application', 'checkbox', 'columnheader', 'combobox', 'gridcell', 'listbox',
  'radiogroup', 'rowheader', 'searchbox', 'slider', 'spinbutton', 'switch', 'textbox', 'tree']);
const LEVEL_ROLES = new Set(['heading', 'listitem', 'row', 'treeitem']);
const SELECTED_ROLES = new Set(['gridcell', 'option', 'row', 'tab', 'rowheader', 'columnheader', 'treeitem']);
/** Roles whose accessible name may only come from the author, never from content; the snapshot shows none. */
const UNNAMED_ROLES = new Set(['caption', 'code', 'definition', 'deletion', 'emphasis', 'generic', 'insertion',
  'mark', 'paragraph', 'presentation', 'strong', 'subscript', 'suggestion', 'superscript', 'term', 'time']);

const CHROMIUM_ROLE_ALIASES: Record<string, string> = {
  image: 'img',
  LayoutTable: 'table',
  LayoutTableRow: 'row',
  LayoutTableCell: 'cell',
};

/** Chromium's role for the element in the snapshot's vocabulary, or undefined when it has none. */
export function chromiumRole(ax: AXNode | undefined): string | undefined {
  if (!ax || ax.ignored) return undefined;
  const raw = String(ax.role?.value ?? '');
  return CHROMIUM_ROLE_ALIASES[raw] || raw;
}

function prop(ax: AXNode | undefined, name: string): any {
  return ax?.properties?.find((p) => p.name === name)?.value?.value;
}

/** Whether the snapshot shows a name for this role at all. */
export function takesName(role: string): boolean {
  return !UNNAMED_ROLES.has(role);
}

/** Accessible name as the snapshot shows it: whitespace collapsed, none for roles that take no name. */
export function nameOf(f: ElementFacts, role: string): string {
  if (UNNAMED_ROLES.has(role)) return '';
  return normalizeWhiteSpace(String(f.ax?.name?.value ?? ''));
}

export function normalizeWhiteSpace(text: string): string {
  return text.replace(/[\u200b\u00ad]/g, '').trim().replace(/\s+/g, ' ');
}

function tristate(v: any): boolean | 'mixed' {
  const s = String(v ?? '').toLowerCase();
  return s === 'true' ? true : s === 'mixed' ? 'mixed' : false;
}

export interface StateFacts {
  checked?: boolean | 'mixed';
  disabled?: boolean;
  expanded?: boolean;
  invalid?: boolean | 'grammar' | 'spelling';
  level?: number;
  pressed?: boolean | 'mixed';
  selected?: boolean;
}

/** States shown in brackets, each only on the roles where the snapshot format shows it. */
export function statesOf(f: ElementFacts, role: string): StateFacts {
  const out: StateFacts = {};
  // Chromium's states are used when its node has the same role; where it has none or another
  // (ignored, inert, re-mapped), the states are read as the author wrote them.
  const ax = chromiumRole(f.ax) === role ? f.ax : undefined;
  const attr = (name: string) => f.attrs.get(name);
  const read = (axName: string, ariaName: string) => (ax ? prop(ax, axName) : attr(ariaName));
  if (CHECKED_ROLES.has(role)) {
    // A native checkbox or radio has its own state (aria-checked on it is ignored); every other
    // element has the written aria-checked, "mixed" included (Chromium drops mixed for roles
    // where ARIA does not allow it, such as switch).
    if (f.nativeChecked !== undefined) out.checked = ax ? tristate(prop(ax, 'checked')) : f.nativeChecked;
    else out.checked = tristate(attr('aria-checked'));
  }
  // Inherited aria-disabled counts for every role that can be disabled; Chromium passes it down
  // only in some cases, so the page's reading of the DOM decides.
  if (DISABLED_ROLES.has(role)) out.disabled = !!f.disabled;
  // [expanded] is what the author (or an open <details>) says; Chromium also reports expanded
  // for native popups and drops it on roles where ARIA does not list it.
  if (EXPANDED_ROLES.has(role)) out.expanded = f.tag === 'DETAILS' ? f.attrs.has('open') : (attr('aria-expanded') || '').toLowerCase() === 'true';
  if (INVALID_ROLES.has(role)) {
    // As written in aria-invalid: Chromium's own validity checks are not part of the format.
    const v = (attr('aria-invalid') || '').toLowerCase();
    out.invalid = !v.trim() || v === 'false' ? false : v === 'grammar' || v === 'spelling' ? v : true;
  }
  if (LEVEL_ROLES.has(role)) {
    const native = /^H([1-6])$/.exec(f.tag);
    // Only a written aria-level counts; Chromium's computed default levels are not shown.
    const written = f.attrs.has('aria-level') ? Number(attr('aria-level')) : NaN;
    out.level = native ? Number(native[1]) : Number.isInteger(written) && written >= 1 ? written : 0;
  }
  if (role === 'button') out.pressed = tristate(read('pressed', 'aria-pressed'));
  if (SELECTED_ROLES.has(role)) {
    // An <option> is selected as the select element says; any other element as written in
    // aria-selected (Chromium also marks a focused option or tab selected when selection follows focus).
    if (f.nativeSelected !== undefined) out.selected = f.nativeSelected;
    else out.selected = (attr('aria-selected') || '').toLowerCase() === 'true';
  }
  return out;
}
