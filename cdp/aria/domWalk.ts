/* istanbul ignore file -- walkDocumentInPage is serialized into the page; coverage counters would break it there. */
/**
 * The part of the snapshot that only the live DOM knows: which text nodes and
 * elements a reader meets, in which order (light DOM, open shadow roots, slot
 * assignment, aria-owns), what CSS generated content and layout (block or
 * inline) surround them, and the current values of form fields. It runs in the
 * page through Runtime.evaluate and returns plain JSON; roles, names and states
 * come from the Accessibility domain afterwards (see axFacts.ts).
 *
 * Elements are numbered in one canonical pre-order (child nodes, then the open
 * shadow root) so that the Node side can line them up with DOM.getDocument's
 * nodes, which carry the backendNodeId the accessibility tree is keyed by.
 */

/** One element the walk reached and that is not hidden from assistive technology. */
export interface WalkedElement {
  /** Index in the canonical element order. */
  i: number;
  /** nodeName as the DOM spells it (upper case for HTML). */
  t: string;
  /** Computed display is something other than inline, or the element is <br>. */
  blk: boolean;
  /** Computed display is inline (as Playwright's box.inline reads it). */
  inl: boolean;
  /** The element's only child node is a text node. */
  oneText: boolean;
  /** Text produced by ::before / ::after (already padded for non-inline pseudo boxes). */
  before: string;
  after: string;
  /**
   * A ::before / ::after box shows content the format does not read (counter(), quotes, url()):
   * Chromium's name includes what it renders there, the snapshot text does not.
   */
  beforeUnread?: boolean;
  afterUnread?: boolean;
  /** href / placeholder attributes as written, when present. */
  href?: string;
  placeholder?: string;
  /**
   * Text of the elements that label this one (aria-labelledby, else <label>),
   * whitespace-collapsed; only read where Chromium's tree has no node for the element.
   */
  labelText?: string;
  /** Text of an <svg>'s own <title> child (which is never rendered, so not among `kids`). */
  svgTitle?: string;
  /** Native checked state of a checkbox or radio input ('mixed' when indeterminate), and an option's selectedness. */
  nativeChecked?: boolean | 'mixed';
  nativeSelected?: boolean;
  /**
   * Disabled as the format reads it: a disabled form control (also inside a disabled fieldset
   * or optgroup), or aria-disabled="true" on the element or its nearest ancestor that sets it.
   */
  disabled?: boolean;
  /** Current value of an input or textarea that shows one. */
  value?: string;
  /**
   * The element's role in the snapshot's vocabulary, '' for none: the first
   * role token the format knows as written (role="none"/"presentation" yield
   * to the implicit role on focusable elements or ones with global ARIA
   * attributes), else the role HTML-AAM gives the tag in its DOM context.
   */
  role: string;
  /** The attributes the snapshot rules read (role, aria-*, title, alt, type, open, value), as written. */
  at: Record<string, string>;
  /** Child content in reading order: text runs and elements. */
  kids: WalkedChild[];
}
export type WalkedChild = string | WalkedElement;

export interface WalkResult {
  /** nodeName of every element in canonical order, to check the alignment with DOM.getDocument. */
  order: string[];
  /** Children of the snapshot's root fragment; null when the document has no body yet. */
  root: WalkedChild[] | null;
}

/**
 * Evaluated in the page. Must stay self-contained (it is serialized with
 * Function.prototype.toString), so helpers live inside it.
 */
export function walkDocumentInPage(): WalkResult {
  const order: string[] = [];
  const indexOf = new Map<Element, number>();
  const enumerate = (node: Node) => {
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 1) {
        indexOf.set(child as Element, order.length);
        order.push(child.nodeName);
      }
      enumerate(child);
    }
    const shadow = node.nodeType === 1 ? (node as Element).shadowRoot : null;
    if (shadow) enumerate(shadow);
  };
  enumerate(document);

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
  const hiddenForAria = (e: Element): boolean => {
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
  // Text of `content` on ::before/::after: strings and attr() only, alt text after "/".
  const cssContentText = (e: Element, value: string): string | undefined => {
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
  const pseudoText = (e: Element, pseudo: '::before' | '::after'): string | undefined => {
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
  const focusable = (e: Element) => {
    if (nativelyDisabled(e)) return false;
    const tag = upperTag(e);
    if (['BUTTON', 'DETAILS', 'SELECT', 'TEXTAREA'].includes(tag)) return true;
    if (tag === 'A' || tag === 'AREA') return e.hasAttribute('href');
    if (tag === 'INPUT') return !(e as HTMLInputElement).hidden;
    return hasTabIndex(e);
  };
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
  const READ_ATTRIBUTES = ['role', 'aria-label', 'aria-labelledby', 'aria-level', 'aria-invalid', 'aria-checked',
    'aria-selected', 'aria-pressed', 'aria-expanded', 'aria-valuetext', 'aria-valuenow', 'value', 'title', 'alt', 'type', 'open'];
  const readAttributes = (e: Element): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const name of READ_ATTRIBUTES) {
      const v = e.getAttribute(name);
      if (v !== null) out[name] = v;
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
    const rec: WalkedElement = {
      i: indexOf.has(e) ? (indexOf.get(e) as number) : -1,
      t: e.nodeName,
      blk: display !== 'inline' || e.nodeName === 'BR',
      inl: display === 'inline',
      oneText: e.childNodes.length === 1 && e.childNodes[0].nodeType === 3,
      role: roleOf(e),
      at: readAttributes(e),
      before: '',
      after: '',
      kids: [],
    };
    const before = pseudoText(e, '::before');
    const after = pseudoText(e, '::after');
    if (before === undefined) rec.beforeUnread = true;
    else rec.before = before;
    if (after === undefined) rec.afterUnread = true;
    else rec.after = after;
    if (e.hasAttribute('href')) rec.href = e.getAttribute('href') as string;
    if (e.hasAttribute('placeholder')) rec.placeholder = e.getAttribute('placeholder') as string;
    const labelledBy = e.getAttribute('aria-labelledby');
    const labels = (e as HTMLInputElement).labels;
    if (labelledBy) {
      const root = e.getRootNode() as Document | ShadowRoot;
      rec.labelText = labelledBy.split(/\s+/).filter(Boolean)
        .map((id) => (root.getElementById ? root.getElementById(id) : null)?.textContent || '').join(' ');
    } else if (labels && labels.length) {
      rec.labelText = Array.from(labels).map((l) => l.textContent || '').join(' ');
    }
    if (upperTag(e) === 'SVG') {
      for (let c = e.firstElementChild; c; c = c.nextElementSibling) {
        if (upperTag(c) === 'TITLE') { rec.svgTitle = c.textContent || ''; break; }
      }
    }
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
  return { order, root: rootEl ? root : null };
}
