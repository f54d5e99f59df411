/**
 * Source of the function the snapshotter evaluates in an isolated world of
 * the page. It walks the live DOM (open shadow roots included) and returns
 * the node tree in the trace viewer's encoding, plus the state the viewer
 * restores from `__playwright_*` attributes (form values, scroll offsets,
 * image currentSrc, open dialogs/popovers, defined custom elements) and the
 * stylesheets the page built through CSSOM (`<style>` rules, adopted sheets).
 *
 * It is kept as plain JavaScript text, not a compiled TypeScript function,
 * so what runs in the page never depends on the build or a coverage
 * instrumenter rewriting the function body.
 *
 * Input: { targetSelector?: string, knownUrls: string[] }.
 * Output: JSON text of { html, doctype, frameUrl, viewport, targetBox,
 * stylesheets, frameOwnerCount }; iframe/frame elements carry
 * `__evidence_frame_index__` (their index in `globalThis.__evidenceTraceFrameOwners`).
 */
export const SERIALIZE_FRAME_SOURCE = String.raw`(options) => {
  const doc = document;
  let target = null;
  if (options.targetSelector) {
    try { target = doc.querySelector(options.targetSelector); } catch (e) { target = null; }
  }
  const known = new Set(options.knownUrls || []);
  const definedCustomElements = new Set();
  // Kept in this isolated world's global for the snapshotter to resolve
  // each owner element to its CDP frame id (DOM.describeNode).
  const frameOwners = [];
  globalThis.__evidenceTraceFrameOwners = frameOwners;
  const linkedSheets = [];

  const rulesText = (sheet) => {
    try { return Array.from(sheet.cssRules, (rule) => rule.cssText).join('\n'); } catch (e) { return undefined; }
  };
  const rectOf = (el) => {
    const r = el.getBoundingClientRect();
    return JSON.stringify({ left: r.left, top: r.top, right: r.right, bottom: r.bottom });
  };
  const adoptedSheetTemplates = (root) => {
    const out = [];
    for (const sheet of root.adoptedStyleSheets || []) {
      const text = rulesText(sheet);
      if (text !== undefined) out.push(['template', { __playwright_style_sheet_: text }]);
    }
    return out;
  };
  const appendChildren = (parent, into) => {
    for (let child = parent.firstChild; child; child = child.nextSibling) {
      const encoded = visit(child);
      if (encoded !== undefined) into.push(encoded);
    }
  };

  const visit = (node) => {
    if (node.nodeType === 3 || node.nodeType === 4) return node.nodeValue;
    if (node.nodeType !== 1) return undefined;
    const el = node;
    const name = el.nodeName;
    const upper = name.toUpperCase();
    // Scripts never run in the viewer; an existing BASE is replaced by ours.
    if (upper === 'SCRIPT' || upper === 'BASE') return undefined;
    const isFrame = upper === 'IFRAME' || upper === 'FRAME';
    const attrs = {};
    // Indexed loop, no per-attribute allocation: this is the walk's hot path.
    const list = el.attributes;
    for (let i = 0; i < list.length; i++) {
      const attr = list[i];
      const attrName = attr.name;
      // A frame's src would load the live page; its snapshot replaces it.
      if (isFrame && /^(src|srcdoc)$/i.test(attrName)) continue;
      const isHandler = attrName.length > 2 && (attrName.charCodeAt(0) | 32) === 111 && (attrName.charCodeAt(1) | 32) === 110;
      attrs[attrName] = isHandler ? '' : attr.value;
    }
    if (el === target) attrs.__playwright_target__ = '';
    if (upper === 'INPUT') {
      const type = (el.type || '').toLowerCase();
      if (type !== 'file') attrs.__playwright_value_ = el.value;
      if (type === 'checkbox' || type === 'radio') attrs.__playwright_checked_ = String(el.checked);
    } else if (upper === 'TEXTAREA') {
      attrs.__playwright_value_ = el.value;
    } else if (upper === 'OPTION') {
      attrs.__playwright_selected_ = String(el.selected);
    } else if (upper === 'IMG' && el.currentSrc) {
      attrs.__playwright_current_src__ = el.currentSrc;
    } else if (upper === 'CANVAS') {
      attrs.__playwright_bounding_rect__ = rectOf(el);
    } else if (isFrame) {
      attrs.__playwright_bounding_rect__ = rectOf(el);
      // The snapshotter swaps this index for the child frame's snapshot URL.
      attrs.__evidence_frame_index__ = String(frameOwners.length);
      frameOwners.push(el);
    } else if (upper === 'DIALOG' && el.open) {
      let modal = false;
      try { modal = el.matches(':modal'); } catch (e) { modal = false; }
      attrs.__playwright_dialog_open_ = modal ? 'modal' : 'true';
    } else if (upper === 'LINK' && el.sheet && /(^|\s)stylesheet(\s|$)/i.test(el.rel || '')) {
      const url = el.sheet.href || el.href;
      if (url && !known.has(url)) linkedSheets.push({ url, text: rulesText(el.sheet) });
    }
    if (el.scrollTop) attrs.__playwright_scroll_top_ = String(el.scrollTop);
    if (el.scrollLeft) attrs.__playwright_scroll_left_ = String(el.scrollLeft);
    if (el.hasAttribute('popover')) {
      try { if (el.matches(':popover-open')) attrs.__playwright_popover_open_ = 'true'; } catch (e) { /* older engines */ }
    }
    if (el.localName.includes('-')) {
      try { if (el.matches(':defined')) definedCustomElements.add(el.localName); } catch (e) { /* not a valid name */ }
    }

    const encoded = [name, attrs];
    if (upper === 'HEAD') encoded.push(['BASE', { href: doc.baseURI }]);
    if (upper === 'STYLE') {
      // CSSOM text, not textContent: CSS-in-JS inserts rules with insertRule.
      const text = el.sheet ? rulesText(el.sheet) : undefined;
      encoded.push(text !== undefined ? text : el.textContent || '');
      return encoded;
    }
    if (el.shadowRoot) {
      const shadow = ['template', { __playwright_shadow_root_: el.shadowRoot.mode }];
      appendChildren(el.shadowRoot, shadow);
      shadow.push(...adoptedSheetTemplates(el.shadowRoot));
      encoded.push(shadow);
    }
    appendChildren(upper === 'TEMPLATE' && el.content ? el.content : el, encoded);
    if (upper === 'HEAD') encoded.push(...adoptedSheetTemplates(doc));
    return encoded;
  };

  const root = doc.documentElement;
  const html = root ? visit(root) : ['HTML', {}];
  if (definedCustomElements.size && Array.isArray(html)) {
    for (const child of html.slice(2)) {
      if (Array.isArray(child) && String(child[0]).toUpperCase() === 'BODY')
        child[1].__playwright_custom_elements__ = Array.from(definedCustomElements).join(',');
    }
  }
  let targetBox = null;
  if (target) {
    const r = target.getBoundingClientRect();
    targetBox = { x: r.x, y: r.y, width: r.width, height: r.height };
  }
  // One JSON string crosses the protocol much faster than a deep object.
  return JSON.stringify({
    html,
    doctype: doc.doctype ? doc.doctype.name : undefined,
    frameUrl: doc.URL,
    viewport: { width: window.innerWidth, height: window.innerHeight },
    targetBox,
    stylesheets: linkedSheets,
    frameOwnerCount: frameOwners.length,
  });
}`;
