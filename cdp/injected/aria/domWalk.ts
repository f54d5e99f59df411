/**
 * Everything the snapshot says, read from the live DOM in the page: which
 * text nodes and elements a reader meets, in which order (light DOM, open
 * shadow roots, slot assignment, aria-owns), what CSS generated content and
 * layout (block or inline) surround them, roles (written or HTML-AAM
 * implicit), accessible names, the attributes the states are read from, and
 * the current values of form fields. It runs in the page through
 * Runtime.evaluate and returns plain JSON.
 *
 * Names are computed here, not taken from Chromium's accessibility tree: the
 * snapshot format defines them by the accname / HTML-AAM rules as Playwright
 * implements them over the DOM (text as the DOM spells it, hidden and
 * unrendered text skipped, nested controls counted by value), and Chromium's
 * tree departs from those rules in many real pages. The computation reads
 * only browser facts: attributes, computed styles, the layout box of text
 * runs, form state and label association.
 */

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

/**
 * Evaluated in the page. Must stay self-contained (it is serialized with
 * Function.prototype.toString), so helpers live inside it.
 */
export function walkDocumentInPage(): WalkResult {
  const styleCache = new Map<Element, CSSStyleDeclaration | undefined>();
  const style = (e: Element): CSSStyleDeclaration | undefined => {
    if (styleCache.has(e)) return styleCache.get(e);
    const s = e.ownerDocument.defaultView ? e.ownerDocument.defaultView.getComputedStyle(e) : undefined;
    styleCache.set(e, s);
    return s;
  };
  const upperTag = (e: Element) => e.nodeName.toUpperCase();
  const parentOrHost = (e: Element): Element | null => {
    if (e.parentElement) return e.parentElement;
    const p = e.parentNode as ShadowRoot | null;
    return p && p.nodeType === 11 && p.host ? p.host : null;
  };
  let range: Range | undefined;
  const textHasBox = (t: Text) => {
    range = range || document.createRange();
    range.selectNode(t);
    const r = range.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const hiddenChain = new Map<Element, boolean>();
  // display:none, aria-hidden="true" or an unslotted shadow-host child, on the element or an ancestor.
  const hiddenByAncestry = (e: Element): boolean => {
    const known = hiddenChain.get(e);
    if (known !== undefined) return known;
    let hidden = !!(e.parentElement && e.parentElement.shadowRoot && !(e as any).assignedSlot);
    if (!hidden) {
      const s = style(e);
      hidden = !s || s.display === 'none' || (e.getAttribute('aria-hidden') || '').toLowerCase() === 'true';
    }
    if (!hidden) {
      const p = parentOrHost(e);
      if (p) hidden = hiddenByAncestry(p);
    }
    hiddenChain.set(e, hidden);
    return hidden;
  };
  // Names read the same descendants again and again (a row, then each of its cells): cached.
  const hiddenCache = new Map<Element, boolean>();
  const hiddenForAria = (e: Element): boolean => {
    let hidden = hiddenCache.get(e);
    if (hidden === undefined) {
      hidden = computeHiddenForAria(e);
      hiddenCache.set(e, hidden);
    }
    return hidden;
  };
  const computeHiddenForAria = (e: Element): boolean => {
    const tag = upperTag(e);
    if (tag === 'STYLE' || tag === 'SCRIPT' || tag === 'NOSCRIPT' || tag === 'TEMPLATE') return true;
    const s = style(e);
    const isSlot = e.nodeName === 'SLOT';
    if (s && s.display === 'contents' && !isSlot) {
      // A box-less element is hidden only when nothing inside it shows.
      for (let c = e.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 1 && !hiddenForAria(c as Element)) return false;
        if (c.nodeType === 3 && textHasBox(c as Text)) return false;
      }
      return true;
    }
    const optionInSelect = e.nodeName === 'OPTION' && !!e.closest('select');
    if (!optionInSelect && !isSlot && s) {
      if (!(e as any).checkVisibility() || s.visibility !== 'visible') return true;
    }
    return hiddenByAncestry(e);
  };
  // Whether the element's box counts as inline, as the format reads it: a display:contents element
  // takes it from its first shown child (a text run: inline; an element: not).
  const boxIsVisible = (e: Element): boolean => {
    const s = style(e);
    if (!s) return true;
    if (s.display === 'contents') {
      for (let c = e.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 1 && boxIsVisible(c as Element)) return true;
        if (c.nodeType === 3 && textHasBox(c as Text)) return true;
      }
      return false;
    }
    if (!(e as any).checkVisibility() || s.visibility !== 'visible') return false;
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const boxIsInline = (e: Element, s: CSSStyleDeclaration | undefined): boolean => {
    if (!s) return false;
    if (s.display === 'contents') {
      for (let c = e.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 1 && boxIsVisible(c as Element)) return false;
        if (c.nodeType === 3 && textHasBox(c as Text)) return true;
      }
      return false;
    }
    return s.display === 'inline';
  };
  // Text of `content` on ::before/::after: strings and attr() only, alt text after "/".
  const cssContentText = (e: Element, value: string, requireSlash = false): string | undefined => {
    const tokens: Array<{ k: string; v: string }> = [];
    let i = 0;
    while (i < value.length) {
      const ch = value[i];
      if (/\s/.test(ch)) { i++; continue; }
      if (ch === '"' || ch === "'") {
        let out = '';
        i++;
        while (i < value.length && value[i] !== ch) {
          if (value[i] === '\\' && i + 1 < value.length) {
            const hex = /^[0-9a-fA-F]{1,6}\s?/.exec(value.slice(i + 1));
            if (hex) { out += String.fromCodePoint(parseInt(hex[0], 16)); i += 1 + hex[0].length; continue; }
            out += value[i + 1]; i += 2; continue;
          }
          out += value[i++];
        }
        i++;
        tokens.push({ k: 'str', v: out });
        continue;
      }
      const attr = /^attr\(\s*([-\w]+)\s*\)/i.exec(value.slice(i));
      if (attr) { tokens.push({ k: 'attr', v: attr[1] }); i += attr[0].length; continue; }
      if (ch === '/') { tokens.push({ k: 'slash', v: '/' }); i++; continue; }
      const other = /^[^\s"'/]+/.exec(value.slice(i));
      tokens.push({ k: 'other', v: other ? other[0] : ch });
      i += other ? other[0].length : 1;
    }
    const slash = tokens.findIndex((t) => t.k === 'slash');
    if (slash < 0 && requireSlash) return undefined;
    const used = slash >= 0 ? tokens.slice(slash + 1) : tokens;
    let out = '';
    for (const t of used) {
      if (t.k === 'str') out += t.v;
      else if (t.k === 'attr') out += e.getAttribute(t.v) || '';
      else return undefined;
    }
    return out;
  };
  // undefined: the pseudo box shows content the format does not read.
  const beforeCache = new Map<Element, string | undefined>();
  const afterCache = new Map<Element, string | undefined>();
  const pseudoText = (e: Element, pseudo: '::before' | '::after'): string | undefined => {
    const cache = pseudo === '::before' ? beforeCache : afterCache;
    if (cache.has(e)) return cache.get(e);
    const text = computePseudoText(e, pseudo);
    cache.set(e, text);
    return text;
  };
  const computePseudoText = (e: Element, pseudo: '::before' | '::after'): string | undefined => {
    const view = e.ownerDocument.defaultView;
    if (!view) return '';
    const s = view.getComputedStyle(e, pseudo);
    const c = s.content;
    if (!c || c === 'none' || c === 'normal' || s.display === 'none' || s.visibility === 'hidden') return '';
    const text = cssContentText(e, c);
    if (text === undefined) return undefined;
    return (s.display || 'inline') !== 'inline' ? ' ' + text + ' ' : text;
  };


  // ---- implicit roles (HTML-AAM): depends on tag, attributes and DOM context only ----
  const GLOBAL_ARIA = ['aria-atomic', 'aria-busy', 'aria-controls', 'aria-current', 'aria-describedby', 'aria-details',
    'aria-dropeffect', 'aria-flowto', 'aria-grabbed', 'aria-hidden', 'aria-keyshortcuts', 'aria-label',
    'aria-labelledby', 'aria-live', 'aria-owns', 'aria-relevant', 'aria-roledescription'];
  const NAMING_PROHIBITED = ['caption', 'code', 'deletion', 'emphasis', 'generic', 'insertion', 'paragraph',
    'presentation', 'strong', 'subscript', 'superscript'];
  const hasGlobalAria = (e: Element, forRole: string) => GLOBAL_ARIA.some((a) => {
    if (!e.hasAttribute(a)) return false;
    if ((a === 'aria-label' || a === 'aria-labelledby') && NAMING_PROHIBITED.includes(forRole)) return false;
    if (a === 'aria-roledescription' && forRole === 'generic') return false;
    return true;
  });
  const hasTabIndex = (e: Element) => !Number.isNaN(Number(String(e.getAttribute('tabindex'))));
  const FORM_CONTROLS = ['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'OPTION', 'OPTGROUP'];
  const nativelyDisabled = (e: Element) => {
    if (!FORM_CONTROLS.includes(upperTag(e))) return false;
    if (e.hasAttribute('disabled')) return true;
    if (upperTag(e) === 'OPTION' && e.closest('OPTGROUP[DISABLED]')) return true;
    const fs = e.closest('FIELDSET[DISABLED]');
    if (!fs) return false;
    const legend = fs.querySelector(':scope > LEGEND');
    return !legend || !legend.contains(e);
  };
  const disabledChain = new Map<Element, boolean>();
  const ariaDisabledChain = (e: Element): boolean => {
    const known = disabledChain.get(e);
    if (known !== undefined) return known;
    const v = (e.getAttribute('aria-disabled') || '').toLowerCase();
    let result: boolean;
    if (v === 'true') result = true;
    else if (v === 'false') result = false;
    else {
      const p = parentOrHost(e);
      result = p ? ariaDisabledChain(p) : false;
    }
    disabledChain.set(e, result);
    return result;
  };
  const nativelyFocusable = (e: Element) => {
    const tag = upperTag(e);
    if (['BUTTON', 'DETAILS', 'SELECT', 'TEXTAREA'].includes(tag)) return true;
    if (tag === 'A' || tag === 'AREA') return e.hasAttribute('href');
    if (tag === 'INPUT') return !(e as HTMLInputElement).hidden;
    return false;
  };
  const focusable = (e: Element) => !nativelyDisabled(e) && (nativelyFocusable(e) || hasTabIndex(e));
  const VALID = new Set(['alert', 'alertdialog', 'application', 'article', 'banner', 'blockquote', 'button', 'caption',
    'cell', 'checkbox', 'code', 'columnheader', 'combobox', 'complementary', 'contentinfo', 'definition', 'deletion',
    'dialog', 'directory', 'document', 'emphasis', 'feed', 'figure', 'form', 'generic', 'grid', 'gridcell', 'group',
    'heading', 'img', 'insertion', 'link', 'list', 'listbox', 'listitem', 'log', 'main', 'mark', 'marquee', 'math',
    'meter', 'menu', 'menubar', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'navigation', 'none', 'note', 'option',
    'paragraph', 'presentation', 'progressbar', 'radio', 'radiogroup', 'region', 'row', 'rowgroup', 'rowheader',
    'scrollbar', 'search', 'searchbox', 'separator', 'slider', 'spinbutton', 'status', 'strong', 'subscript',
    'superscript', 'switch', 'tab', 'table', 'tablist', 'tabpanel', 'term', 'textbox', 'time', 'timer', 'toolbar',
    'tooltip', 'tree', 'treegrid', 'treeitem']);
  const explicitRole = (e: Element) => {
    const tokens = (e.getAttribute('role') || '').toLowerCase().split(' ').map((t) => t.trim());
    return tokens.find((t) => VALID.has(t)) || '';
  };
  const LANDMARK_BLOCKERS = 'article:not([role]), aside:not([role]), main:not([role]), nav:not([role]), section:not([role]), [role=article], [role=complementary], [role=main], [role=navigation], [role=region]';
  const closestAcrossShadow = (e: Element, css: string): Element | null => {
    let cur: Element | null = e;
    while (cur) {
      const hit = cur.closest(css);
      if (hit) return hit;
      let top: Element = cur;
      while (top.parentElement) top = top.parentElement;
      cur = parentOrHost(top);
    }
    return null;
  };
  const FIXED: Record<string, string> = {
    ARTICLE: 'article', ASIDE: 'complementary', BLOCKQUOTE: 'blockquote', BUTTON: 'button', CAPTION: 'caption',
    CODE: 'code', DATALIST: 'listbox', DD: 'definition', DEL: 'deletion', DETAILS: 'group', DFN: 'term',
    DIALOG: 'dialog', DT: 'term', EM: 'emphasis', FIELDSET: 'group', FIGURE: 'figure', H1: 'heading', H2: 'heading',
    H3: 'heading', H4: 'heading', H5: 'heading', H6: 'heading', HR: 'separator', HTML: 'document', INS: 'insertion',
    LI: 'listitem', MAIN: 'main', MARK: 'mark', MATH: 'math', MENU: 'list', METER: 'meter', NAV: 'navigation',
    OL: 'list', OPTGROUP: 'group', OPTION: 'option', OUTPUT: 'status', P: 'paragraph', PROGRESS: 'progressbar',
    SEARCH: 'search', STRONG: 'strong', SUB: 'subscript', SUP: 'superscript', SVG: 'img', TABLE: 'table',
    TBODY: 'rowgroup', TEXTAREA: 'textbox', TFOOT: 'rowgroup', THEAD: 'rowgroup', TIME: 'time', TR: 'row', UL: 'list',
  };
  const INPUT_ROLES: Record<string, string> = { button: 'button', checkbox: 'checkbox', image: 'button',
    number: 'spinbutton', radio: 'radio', range: 'slider', reset: 'button', submit: 'button', file: 'button' };
  const nonEmptyDataCell = (e: Element | null) =>
    !!e && upperTag(e) === 'TD' && !!((e.textContent || '').trim() || e.children.length > 0);
  const tagRole = (e: Element): string => {
    const tag = upperTag(e);
    if (FIXED[tag]) return FIXED[tag];
    const named = e.hasAttribute('aria-label') || e.hasAttribute('aria-labelledby');
    switch (tag) {
      case 'A': case 'AREA': return e.hasAttribute('href') ? 'link' : '';
      case 'FORM': return named ? 'form' : '';
      case 'SECTION': return named ? 'region' : '';
      case 'HEADER': return closestAcrossShadow(e, LANDMARK_BLOCKERS) ? '' : 'banner';
      case 'FOOTER': return closestAcrossShadow(e, LANDMARK_BLOCKERS) ? '' : 'contentinfo';
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
  };
  // A role="none" list, table or description list takes its items' roles away too.
  const INHERIT_FROM: Record<string, string[]> = { DD: ['DL', 'DIV'], DIV: ['DL'], DT: ['DL', 'DIV'], LI: ['OL', 'UL'],
    TBODY: ['TABLE'], TD: ['TR'], TFOOT: ['TABLE'], TH: ['TR'], THEAD: ['TABLE'], TR: ['THEAD', 'TBODY', 'TFOOT', 'TABLE'] };
  const implicitRole = (e: Element): string => {
    const role = tagRole(e);
    if (!role) return '';
    let cur: Element = e;
    for (;;) {
      const parent = parentOrHost(cur);
      const parents = INHERIT_FROM[upperTag(cur)];
      if (!parents || !parent || !parents.includes(upperTag(parent))) break;
      const pr = explicitRole(parent);
      if ((pr === 'none' || pr === 'presentation') && !(hasGlobalAria(parent, pr) || focusable(parent))) return pr;
      cur = parent;
    }
    return role;
  };

  const roleOf = (e: Element): string => {
    const written = explicitRole(e);
    if (!written) return implicitRole(e);
    if (written !== 'none' && written !== 'presentation') return written;
    const implicit = implicitRole(e);
    return hasGlobalAria(e, implicit) || focusable(e) ? implicit : '';
  };
  // ---- accessible names, computed over the live DOM as the snapshot format computes them ----
  // The format's names follow the accname / HTML-AAM rules as Playwright implements them, which
  // differ from Chromium's tree in many places (docs/aria-snapshot-differences.md), so they are
  // computed here from the same facts: attributes, computed styles, layout of text, form state.
  const fullRoleCache = new Map<Element, string>();
  // roleOf, except that an unresolved role="none"/"presentation" is kept (naming rules read it).
  const ariaRole = (e: Element): string => {
    let role = fullRoleCache.get(e);
    if (role === undefined) {
      const written = explicitRole(e);
      if (written === 'none' || written === 'presentation') {
        const implicit = implicitRole(e);
        role = hasGlobalAria(e, implicit) || focusable(e) ? implicit : written;
      } else {
        role = written || implicitRole(e);
      }
      fullRoleCache.set(e, role);
    }
    return role;
  };
  const NAME_PROHIBITED = new Set(['caption', 'code', 'definition', 'deletion', 'emphasis', 'generic', 'insertion',
    'mark', 'paragraph', 'presentation', 'strong', 'subscript', 'suggestion', 'superscript', 'term', 'time']);
  const FROM_CONTENT = new Set(['button', 'cell', 'checkbox', 'columnheader', 'gridcell', 'heading', 'link',
    'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'row', 'rowheader', 'switch', 'tab',
    'tooltip', 'treeitem']);
  // Roles that take their name from content only when met inside another element's name computation.
  const FROM_CONTENT_INSIDE = new Set(['', 'caption', 'code', 'contentinfo', 'definition', 'deletion', 'emphasis',
    'insertion', 'list', 'listitem', 'mark', 'none', 'paragraph', 'presentation', 'region', 'row', 'rowgroup',
    'section', 'strong', 'subscript', 'superscript', 'table', 'term', 'time']);
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
  }
  const idRefs = (e: Element, value: string | null): Element[] => {
    if (!value) return [];
    const root = e.getRootNode() as Document | ShadowRoot;
    if (!root || !root.querySelector) return [];
    const out: Element[] = [];
    for (const id of value.split(/[ \t\n\f\r]+/)) {
      if (!id) continue;
      let hit: Element | null = null;
      try { hit = root.querySelector('#' + CSS.escape(id)); } catch { hit = null; }
      if (hit && !out.includes(hit)) out.push(hit);
    }
    return out;
  };
  const inAriaOwned = (e: Element, css: string): Element[] => {
    const out = Array.from(e.querySelectorAll(css));
    for (const owned of idRefs(e, e.getAttribute('aria-owns'))) {
      if (owned.matches(css)) out.push(owned);
      out.push(...Array.from(owned.querySelectorAll(css)));
    }
    return out;
  };
  // The element's own `content` (not a pseudo box) counts only as alternative text after "/".
  const ownContentText = (e: Element): string | undefined => {
    const s = style(e);
    if (!s) return undefined;
    const c = s.content;
    if (!c || c === 'none' || c === 'normal' || s.display === 'none' || s.visibility === 'hidden') return undefined;
    return cssContentText(e, c, true);
  };
  const labelsOf = (e: Element): Element[] => Array.from(((e as HTMLInputElement).labels || []) as ArrayLike<Element>);
  const fromLabels = (labels: Element[], st: NameState): string =>
    labels.map((l) => textAlternative(l, { seen: st.seen, byLabel: hiddenForAria(l) }))
      .filter((t) => !!t).join(' ');
  const withinHiddenRoot = (st: NameState) => !!(st.byRef || st.byLabel || st.byNative);
  const textAlternative = (e: Element, st: NameState): string => {
    if (st.seen.has(e)) return '';
    const inner: NameState = { ...st, target: st.target === 'self' ? 'descendant' : st.target };
    const tag = upperTag(e);
    const ignored = tag === 'STYLE' || tag === 'SCRIPT' || tag === 'NOSCRIPT' || tag === 'TEMPLATE';
    if (ignored || (!withinHiddenRoot(st) && hiddenForAria(e))) {
      st.seen.add(e);
      return '';
    }
    // Element references set from script (ariaLabelledByElements) count like ids written in the attribute.
    const reflected = (e as any).ariaLabelledByElements as Element[] | null | undefined;
    const labelledBy = reflected && reflected.length ? Array.from(reflected) : idRefs(e, e.getAttribute('aria-labelledby'));
    if (st.byRef === undefined) {
      const text = labelledBy.map((ref) => textAlternative(ref, { seen: st.seen, byRef: hiddenForAria(ref) })).join(' ');
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
          if (upperTag(c) === childTag) return textAlternative(c, { ...inner, byNative: hiddenForAria(c) });
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
          if (upperTag(c) === 'TITLE' && (c as SVGElement).ownerSVGElement) return textAlternative(c, { ...inner, byRef: hiddenForAria(c) });
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
    if (FROM_CONTENT.has(role) || (st.target === 'descendant' && FROM_CONTENT_INSIDE.has(role)) || summaryNamedByContent ||
        st.byRef !== undefined || st.byLabel !== undefined || st.byNative !== undefined) {
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
    const skipUnrendered = !withinHiddenRoot(st);
    let out = pseudoText(e, '::before') || '';
    const add = (node: Node, skipSlotted: boolean) => {
      if (skipSlotted && (node as any).assignedSlot) return;
      if (node.nodeType === 1) {
        const s = style(node as Element);
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
  const flatten = (s: string) => s.split('\u00a0')
    .map((chunk) => chunk.replace(/\r\n/g, '\n').replace(/[\u200b\u00ad]/g, '').replace(/\s\s*/g, ' ')).join('\u00a0').trim();
  const accessibleName = (e: Element, role: string): string => {
    if (NAME_PROHIBITED.has(role)) return '';
    return flatten(textAlternative(e, { seen: new Set(), target: 'self' }));
  };

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
  const visited = new Set<Node>();
  const visit = (into: WalkedChild[], node: Node): void => {
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
    if (hiddenForAria(e)) return;
    const s = style(e);
    const display = (s && s.display) || 'inline';
    // Fields at their default (false, empty) are left out: a large page's walk is megabytes of JSON.
    const rec: WalkedElement = { t: e.nodeName, role: roleOf(e), kids: [] };
    if (display !== 'inline' || e.nodeName === 'BR') rec.blk = true;
    if (boxIsInline(e, s)) rec.inl = true;
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
    if (nativelyDisabled(e) || ariaDisabledChain(e)) rec.disabled = true;
    if (e instanceof HTMLInputElement || e instanceof HTMLTextAreaElement) {
      if (e.type !== 'checkbox' && e.type !== 'radio' && e.type !== 'file') rec.value = e.value;
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
      for (const c of assigned) visit(rec.kids, c);
    } else {
      for (let c = e.firstChild; c; c = c.nextSibling) {
        if (!(c as any).assignedSlot) visit(rec.kids, c);
      }
      if (e.shadowRoot) {
        for (let c = e.shadowRoot.firstChild; c; c = c.nextSibling) visit(rec.kids, c);
      }
    }
    for (const o of owned) visit(rec.kids, o);
  };

  // page.ariaSnapshot() starts at the first body or frameset, visited like any other element.
  const rootEl = document.querySelector('body,frameset');
  const root: WalkedChild[] = [];
  if (rootEl) visit(root, rootEl);
  return { root: rootEl ? root : null };
}
