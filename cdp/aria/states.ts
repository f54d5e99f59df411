/**
 * States of elements for the snapshot, by the format's definitions: which
 * roles show which state, and whether the state is the author's (aria-* as
 * written) or the element's own (native checked, selected, disabled), all
 * read from the DOM in the page (injected/aria/domWalk.ts).
 */
import {
  CHECKED_ROLES as CHECKED_ROLE_LIST,
  DISABLED_ROLES as DISABLED_ROLE_LIST,
  EXPANDED_ROLES as EXPANDED_ROLE_LIST,
  LEVEL_ROLES as LEVEL_ROLE_LIST,
  SELECTED_ROLES as SELECTED_ROLE_LIST,
} from '../injected/aria/roles';

/** What the snapshot needs to know about one element. */
export interface ElementFacts {
  tag: string; // upper case
  attrs: Map<string, string>;
  /** DOM properties read in the page: a checkbox/radio input's checked state, an option's selectedness. */
  nativeChecked?: boolean | 'mixed';
  nativeSelected?: boolean;
  /** Disabled natively or by aria-disabled on the element or an ancestor (read in the page). */
  disabled?: boolean;
}

// Which roles show which state in the snapshot: the lists the page's role code (and the role selector) use.
const CHECKED_ROLES = new Set(CHECKED_ROLE_LIST);
const DISABLED_ROLES = new Set(DISABLED_ROLE_LIST);
const EXPANDED_ROLES = new Set(EXPANDED_ROLE_LIST);
const INVALID_ROLES = new Set([
  'application',
  'checkbox',
  'columnheader',
  'combobox',
  'gridcell',
  'listbox',
  'radiogroup',
  'rowheader',
  'searchbox',
  'slider',
  'spinbutton',
  'switch',
  'textbox',
  'tree',
]);
const LEVEL_ROLES = new Set(LEVEL_ROLE_LIST);
const SELECTED_ROLES = new Set(SELECTED_ROLE_LIST);
export function normalizeWhiteSpace(text: string): string {
  return text
    .replace(/[\u200b\u00ad]/g, '')
    .trim()
    .replace(/\s+/g, ' ');
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
  const attr = (name: string) => f.attrs.get(name);
  if (CHECKED_ROLES.has(role)) {
    // A native checkbox or radio has its own state (aria-checked on it is ignored); every other
    // element has the written aria-checked, "mixed" included.
    if (f.nativeChecked !== undefined) out.checked = f.nativeChecked;
    else out.checked = tristate(attr('aria-checked'));
  }
  // Inherited aria-disabled counts for every role that can be disabled.
  if (DISABLED_ROLES.has(role)) out.disabled = !!f.disabled;
  // [expanded] is what the author (or an open <details>) says.
  if (EXPANDED_ROLES.has(role)) out.expanded = f.tag === 'DETAILS' ? f.attrs.has('open') : (attr('aria-expanded') || '').toLowerCase() === 'true';
  if (INVALID_ROLES.has(role)) {
    // As written in aria-invalid: native constraint validation is not part of the format.
    const v = (attr('aria-invalid') || '').toLowerCase();
    out.invalid = !v.trim() || v === 'false' ? false : v === 'grammar' || v === 'spelling' ? v : true;
  }
  if (LEVEL_ROLES.has(role)) {
    const native = /^H([1-6])$/.exec(f.tag);
    // Only a written aria-level counts; default levels are not shown.
    const written = f.attrs.has('aria-level') ? Number(attr('aria-level')) : NaN;
    out.level = native ? Number(native[1]) : Number.isInteger(written) && written >= 1 ? written : 0;
  }
  if (role === 'button') out.pressed = tristate(attr('aria-pressed'));
  if (SELECTED_ROLES.has(role)) {
    // An <option> is selected as the select element says; any other element as written in
    // aria-selected.
    if (f.nativeSelected !== undefined) out.selected = f.nativeSelected;
    else out.selected = (attr('aria-selected') || '').toLowerCase() === 'true';
  }
  return out;
}
