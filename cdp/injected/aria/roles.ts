/**
 * Roles and the states role selectors filter on. A role is the first token of
 * role="…" the vocabulary knows, else the one HTML-AAM gives the tag in its DOM
 * context; role="none"/"presentation" yields to the implicit role on focusable
 * elements and ones with global ARIA attributes. The aria snapshot and the
 * `role=` selector both read roles from here, so a role the snapshot prints is
 * the role a selector matches.
 */
import { memo, memoTable } from './caches';
import { closestAcrossShadow, parentOrHost, upperTag } from './dom';

const GLOBAL_ARIA = [
  'aria-atomic',
  'aria-busy',
  'aria-controls',
  'aria-current',
  'aria-describedby',
  'aria-details',
  'aria-dropeffect',
  'aria-flowto',
  'aria-grabbed',
  'aria-hidden',
  'aria-keyshortcuts',
  'aria-label',
  'aria-labelledby',
  'aria-live',
  'aria-owns',
  'aria-relevant',
  'aria-roledescription',
];
const NAMING_PROHIBITED = [
  'caption',
  'code',
  'deletion',
  'emphasis',
  'generic',
  'insertion',
  'paragraph',
  'presentation',
  'strong',
  'subscript',
  'superscript',
];

function hasGlobalAria(e: Element, forRole: string): boolean {
  return GLOBAL_ARIA.some((a) => {
    if (!e.hasAttribute(a)) return false;
    if ((a === 'aria-label' || a === 'aria-labelledby') && NAMING_PROHIBITED.includes(forRole)) return false;
    if (a === 'aria-roledescription' && forRole === 'generic') return false;
    return true;
  });
}
const hasTabIndex = (e: Element) => !Number.isNaN(Number(String(e.getAttribute('tabindex'))));
const FORM_CONTROLS = ['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'OPTION', 'OPTGROUP'];

/** A disabled form control: its own attribute, a disabled optgroup, or a disabled fieldset (outside its legend). */
export function isNativelyDisabled(e: Element): boolean {
  if (!FORM_CONTROLS.includes(upperTag(e))) return false;
  if (e.hasAttribute('disabled')) return true;
  if (upperTag(e) === 'OPTION' && e.closest('OPTGROUP[DISABLED]')) return true;
  const fs = e.closest('FIELDSET[DISABLED]');
  if (!fs) return false;
  const legend = fs.querySelector(':scope > LEGEND');
  return !legend || !legend.contains(e);
}

const ariaDisabledChains = memoTable<Element, boolean>();
function computeAriaDisabledChain(e: Element): boolean {
  const v = (e.getAttribute('aria-disabled') || '').toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  const p = parentOrHost(e);
  return p ? ariaDisabledInChain(p) : false;
}
/** aria-disabled as set by the element or its nearest ancestor (across shadow hosts) that sets it. */
export function ariaDisabledInChain(e: Element): boolean {
  return memo(ariaDisabledChains, e, computeAriaDisabledChain);
}

function nativelyFocusable(e: Element): boolean {
  const tag = upperTag(e);
  if (['BUTTON', 'DETAILS', 'SELECT', 'TEXTAREA'].includes(tag)) return true;
  if (tag === 'A' || tag === 'AREA') return e.hasAttribute('href');
  if (tag === 'INPUT') return !(e as HTMLInputElement).hidden;
  return false;
}
const focusable = (e: Element) => !isNativelyDisabled(e) && (nativelyFocusable(e) || hasTabIndex(e));

const VALID = new Set([
  'alert',
  'alertdialog',
  'application',
  'article',
  'banner',
  'blockquote',
  'button',
  'caption',
  'cell',
  'checkbox',
  'code',
  'columnheader',
  'combobox',
  'complementary',
  'contentinfo',
  'definition',
  'deletion',
  'dialog',
  'directory',
  'document',
  'emphasis',
  'feed',
  'figure',
  'form',
  'generic',
  'grid',
  'gridcell',
  'group',
  'heading',
  'img',
  'insertion',
  'link',
  'list',
  'listbox',
  'listitem',
  'log',
  'main',
  'mark',
  'marquee',
  'math',
  'meter',
  'menu',
  'menubar',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'navigation',
  'none',
  'note',
  'option',
  'paragraph',
  'presentation',
  'progressbar',
  'radio',
  'radiogroup',
  'region',
  'row',
  'rowgroup',
  'rowheader',
  'scrollbar',
  'search',
  'searchbox',
  'separator',
  'slider',
  'spinbutton',
  'status',
  'strong',
  'subscript',
  'superscript',
  'switch',
  'tab',
  'table',
  'tablist',
  'tabpanel',
  'term',
  'textbox',
  'time',
  'timer',
  'toolbar',
  'tooltip',
  'tree',
  'treegrid',
  'treeitem',
]);

/** The first role="…" token the vocabulary knows, '' when none. */
export function explicitRole(e: Element): string {
  const tokens = (e.getAttribute('role') || '')
    .toLowerCase()
    .split(' ')
    .map((t) => t.trim());
  return tokens.find((t) => VALID.has(t)) || '';
}

const LANDMARK_BLOCKERS =
  'article:not([role]), aside:not([role]), main:not([role]), nav:not([role]), section:not([role]), [role=article], [role=complementary], [role=main], [role=navigation], [role=region]';
const FIXED: Record<string, string> = {
  ARTICLE: 'article',
  ASIDE: 'complementary',
  BLOCKQUOTE: 'blockquote',
  BUTTON: 'button',
  CAPTION: 'caption',
  CODE: 'code',
  DATALIST: 'listbox',
  DD: 'definition',
  DEL: 'deletion',
  DETAILS: 'group',
  DFN: 'term',
  DIALOG: 'dialog',
  DT: 'term',
  EM: 'emphasis',
  FIELDSET: 'group',
  FIGURE: 'figure',
  H1: 'heading',
  H2: 'heading',
  H3: 'heading',
  H4: 'heading',
  H5: 'heading',
  H6: 'heading',
  HR: 'separator',
  HTML: 'document',
  INS: 'insertion',
  LI: 'listitem',
  MAIN: 'main',
  MARK: 'mark',
  MATH: 'math',
  MENU: 'list',
  METER: 'meter',
  NAV: 'navigation',
  OL: 'list',
  OPTGROUP: 'group',
  OPTION: 'option',
  OUTPUT: 'status',
  P: 'paragraph',
  PROGRESS: 'progressbar',
  SEARCH: 'search',
  STRONG: 'strong',
  SUB: 'subscript',
  SUP: 'superscript',
  SVG: 'img',
  TABLE: 'table',
  TBODY: 'rowgroup',
  TEXTAREA: 'textbox',
  TFOOT: 'rowgroup',
  THEAD: 'rowgroup',
  TIME: 'time',
  TR: 'row',
  UL: 'list',
};
const INPUT_ROLES: Record<string, string> = {
  button: 'button',
  checkbox: 'checkbox',
  image: 'button',
  number: 'spinbutton',
  radio: 'radio',
  range: 'slider',
  reset: 'button',
  submit: 'button',
  file: 'button',
};
const nonEmptyDataCell = (e: Element | null) => !!e && upperTag(e) === 'TD' && !!((e.textContent || '').trim() || e.children.length > 0);

function tagRole(e: Element): string {
  const tag = upperTag(e);
  if (FIXED[tag]) return FIXED[tag];
  const named = e.hasAttribute('aria-label') || e.hasAttribute('aria-labelledby');
  switch (tag) {
    case 'A':
    case 'AREA':
      return e.hasAttribute('href') ? 'link' : '';
    case 'FORM':
      return named ? 'form' : '';
    case 'SECTION':
      return named ? 'region' : '';
    case 'HEADER':
      return closestAcrossShadow(e, LANDMARK_BLOCKERS) ? '' : 'banner';
    case 'FOOTER':
      return closestAcrossShadow(e, LANDMARK_BLOCKERS) ? '' : 'contentinfo';
    case 'IMG':
      return e.getAttribute('alt') === '' && !e.getAttribute('title') && !hasGlobalAria(e, '') && !hasTabIndex(e) ? 'presentation' : 'img';
    case 'SELECT': {
      const sel = e as HTMLSelectElement;
      return sel.multiple || sel.size > 1 ? 'listbox' : 'combobox';
    }
    case 'INPUT': {
      const type = (e as HTMLInputElement).type.toLowerCase();
      if (['email', 'search', 'tel', 'text', 'url', ''].includes(type)) {
        const listId = e.getAttribute('list');
        const root = e.getRootNode() as Document | ShadowRoot;
        const list = listId && root.querySelector ? root.querySelector('#' + CSS.escape(listId.split(/[ \t\n\f\r]+/).filter(Boolean)[0] || '_')) : null;
        if (list && upperTag(list) === 'DATALIST') return 'combobox';
        return type === 'search' ? 'searchbox' : 'textbox';
      }
      if (type === 'hidden') return '';
      return INPUT_ROLES[type] || 'textbox';
    }
    case 'TD': {
      const table = closestAcrossShadow(e, 'table');
      const r = table ? explicitRole(table) : '';
      return r === 'grid' || r === 'treegrid' ? 'gridcell' : 'cell';
    }
    case 'TH': {
      const scope = e.getAttribute('scope');
      if (scope === 'col' || scope === 'colgroup') return 'columnheader';
      if (scope === 'row' || scope === 'rowgroup') return 'rowheader';
      const next = e.nextElementSibling;
      const prev = e.previousElementSibling;
      const row = e.parentElement && upperTag(e.parentElement) === 'TR' ? e.parentElement : null;
      if (!next && !prev) {
        if (row) {
          const table = closestAcrossShadow(row, 'table') as HTMLTableElement | null;
          if (table && table.rows.length <= 1) return '';
        }
        return 'columnheader';
      }
      const isTh = (x: Element | null) => !!x && upperTag(x) === 'TH';
      if (isTh(next) && isTh(prev)) return 'columnheader';
      if (nonEmptyDataCell(next) || nonEmptyDataCell(prev)) return 'rowheader';
      return 'columnheader';
    }
  }
  return '';
}

// A role="none" list, table or description list takes its items' roles away too.
const INHERIT_FROM: Record<string, string[]> = {
  DD: ['DL', 'DIV'],
  DIV: ['DL'],
  DT: ['DL', 'DIV'],
  LI: ['OL', 'UL'],
  TBODY: ['TABLE'],
  TD: ['TR'],
  TFOOT: ['TABLE'],
  TH: ['TR'],
  THEAD: ['TABLE'],
  TR: ['THEAD', 'TBODY', 'TFOOT', 'TABLE'],
};

function implicitRole(e: Element): string {
  const role = tagRole(e);
  if (!role) return '';
  let cur: Element = e;
  for (;;) {
    const parent = parentOrHost(cur);
    const parents = INHERIT_FROM[upperTag(cur)];
    if (!parent || !parents || !parents.includes(upperTag(parent))) break;
    const pr = explicitRole(parent);
    if ((pr === 'none' || pr === 'presentation') && !(hasGlobalAria(parent, pr) || focusable(parent))) return pr;
    cur = parent;
  }
  return role;
}

/** The role the snapshot prints: '' for none, and for role="none"/"presentation" that holds. */
export function snapshotRole(e: Element): string {
  const written = explicitRole(e);
  if (!written) return implicitRole(e);
  if (written !== 'none' && written !== 'presentation') return written;
  const implicit = implicitRole(e);
  return hasGlobalAria(e, implicit) || focusable(e) ? implicit : '';
}

const roles = memoTable<Element, string>();
function computeAriaRole(e: Element): string {
  const written = explicitRole(e);
  if (written === 'none' || written === 'presentation') {
    const implicit = implicitRole(e);
    return hasGlobalAria(e, implicit) || focusable(e) ? implicit : written;
  }
  return written || implicitRole(e);
}
/** The element's role, keeping a role="none"/"presentation" that holds (naming rules and role selectors read it). */
export function ariaRole(e: Element): string {
  return memo(roles, e, computeAriaRole);
}

// ---- states, as role selectors read them (the snapshot reads the same facts from the walk's records) ----

export const CHECKED_ROLES = ['checkbox', 'menuitemcheckbox', 'option', 'radio', 'switch', 'menuitemradio', 'treeitem'];
export const PRESSED_ROLES = ['button'];
export const SELECTED_ROLES = ['gridcell', 'option', 'row', 'tab', 'rowheader', 'columnheader', 'treeitem'];
export const EXPANDED_ROLES = [
  'application',
  'button',
  'checkbox',
  'combobox',
  'gridcell',
  'link',
  'listbox',
  'menuitem',
  'row',
  'rowheader',
  'tab',
  'treeitem',
  'columnheader',
  'menuitemcheckbox',
  'menuitemradio',
  'switch',
];
export const LEVEL_ROLES = ['heading', 'listitem', 'row', 'treeitem'];
export const DISABLED_ROLES = [
  'application',
  'button',
  'composite',
  'gridcell',
  'group',
  'input',
  'link',
  'menuitem',
  'scrollbar',
  'separator',
  'tab',
  'checkbox',
  'columnheader',
  'combobox',
  'grid',
  'listbox',
  'menu',
  'menubar',
  'menuitemcheckbox',
  'menuitemradio',
  'option',
  'radio',
  'radiogroup',
  'row',
  'rowheader',
  'searchbox',
  'select',
  'slider',
  'spinbutton',
  'switch',
  'tablist',
  'textbox',
  'toolbar',
  'tree',
  'treegrid',
  'treeitem',
];

/** Checked: a native checkbox/radio by its state (indeterminate: 'mixed'), a checkable role by aria-checked; else false. */
export function checkedState(e: Element): boolean | 'mixed' {
  const tag = upperTag(e);
  if (tag === 'INPUT' && (e as HTMLInputElement).indeterminate) return 'mixed';
  if (tag === 'INPUT' && ['checkbox', 'radio'].includes((e as HTMLInputElement).type)) return (e as HTMLInputElement).checked;
  if (CHECKED_ROLES.includes(ariaRole(e))) {
    const v = e.getAttribute('aria-checked');
    return v === 'true' ? true : v === 'mixed' ? 'mixed' : false;
  }
  return false;
}

export function pressedState(e: Element): boolean | 'mixed' {
  if (!PRESSED_ROLES.includes(ariaRole(e))) return false;
  const v = e.getAttribute('aria-pressed');
  return v === 'true' ? true : v === 'mixed' ? 'mixed' : false;
}

export function selectedState(e: Element): boolean {
  if (upperTag(e) === 'OPTION') return (e as HTMLOptionElement).selected;
  if (!SELECTED_ROLES.includes(ariaRole(e))) return false;
  return (e.getAttribute('aria-selected') || '').toLowerCase() === 'true';
}

/** Expanded: an open <details>, else aria-expanded on a role that supports it; undefined when it says nothing. */
export function expandedState(e: Element): boolean | undefined {
  if (upperTag(e) === 'DETAILS') return (e as HTMLDetailsElement).open;
  if (!EXPANDED_ROLES.includes(ariaRole(e))) return undefined;
  const v = e.getAttribute('aria-expanded');
  return v === null ? undefined : v === 'true';
}

export function levelState(e: Element): number {
  const native = /^H([1-6])$/.exec(upperTag(e));
  if (native) return Number(native[1]);
  if (!LEVEL_ROLES.includes(ariaRole(e))) return 0;
  const v = e.getAttribute('aria-level');
  const n = v === null ? NaN : Number(v);
  return Number.isInteger(n) && n >= 1 ? n : 0;
}

/** Disabled: natively, or by aria-disabled (inherited) on a role that can be disabled. */
export function disabledState(e: Element): boolean {
  return isNativelyDisabled(e) || (DISABLED_ROLES.includes(ariaRole(e)) && ariaDisabledInChain(e));
}
