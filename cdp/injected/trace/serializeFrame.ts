/**
 * The trace snapshot's DOM serializer (runs in an isolated world of each
 * frame). It walks the live DOM (open shadow roots included) and returns the
 * node tree in the trace viewer's encoding, plus the state the viewer
 * restores from `__playwright_*` attributes (form values, scroll offsets,
 * image currentSrc, open dialogs/popovers, defined custom elements) and the
 * stylesheets the page built through CSSOM (`<style>` rules, adopted sheets).
 * iframe/frame elements carry `__evidence_frame_index__`: their index in the
 * last serialization's frame owners (`frameOwner(index)`), which the
 * snapshotter resolves to the child frame's CDP id (DOM.describeNode).
 */

import type { EncodedNode } from './encoding';
import { adoptedSheetTemplates, rulesText } from './stylesheets';
import { addLiveState, boundingRectAttribute } from './liveState';

export interface SerializeOptions {
  targetSelector?: string;
  /** The value the target's `__playwright_target__` attribute gets (default ''): a caller's nonce finds that element again. */
  targetMark?: string;
  /** Stylesheet URLs the network recorder already holds (not re-sent as text). */
  knownUrls?: string[];
}

export type { EncodedNode } from './encoding';

export interface SerializedFrame {
  html: EncodedNode;
  doctype?: string;
  frameUrl: string;
  viewport: { width: number; height: number };
  targetBox: { x: number; y: number; width: number; height: number } | null;
  stylesheets: { url: string; text?: string }[];
  frameOwnerCount: number;
}

/** The frame owner elements of the last serialization in this world, by the index their marker carries. */
let lastFrameOwners: Element[] = [];

/** The frame owner the last serialization numbered `index`, or null. */
export function frameOwner(index: number): Element | null {
  return lastFrameOwners[index] || null;
}

/** `targetElement`: the action's element when the caller resolved it; else `targetSelector` is tried as CSS. */
export function serializeFrame(options: SerializeOptions, targetElement?: Element | null): SerializedFrame {
  const doc = document;
  let target: Element | null = targetElement instanceof Element ? targetElement : null;
  if (!target && options.targetSelector) {
    try {
      target = doc.querySelector(options.targetSelector);
    } catch {
      target = null;
    }
  }
  const known = new Set(options.knownUrls || []);
  const definedCustomElements = new Set<string>();
  // Kept in this world for the snapshotter to resolve each owner element to its CDP frame id (DOM.describeNode).
  const frameOwners: Element[] = [];
  lastFrameOwners = frameOwners;
  const linkedSheets: { url: string; text?: string }[] = [];

  const appendChildren = (parent: Node, into: { push(node: EncodedNode): unknown }) => {
    for (let child = parent.firstChild; child; child = child.nextSibling) {
      const encoded = visit(child);
      if (encoded !== undefined) into.push(encoded);
    }
  };

  const visit = (node: Node): EncodedNode | undefined => {
    if (node.nodeType === 3 || node.nodeType === 4) return node.nodeValue ?? '';
    if (node.nodeType !== 1) return undefined;
    const el = node as Element;
    const name = el.nodeName;
    const upper = name.toUpperCase();
    // Scripts never run in the viewer; an existing BASE is replaced by ours.
    if (upper === 'SCRIPT' || upper === 'BASE') return undefined;
    const isFrame = upper === 'IFRAME' || upper === 'FRAME';
    const attrs: Record<string, string> = {};
    // Indexed loop, no per-attribute allocation: this is the walk's hot path.
    const list = el.attributes;
    for (let i = 0; i < list.length; i++) {
      const attr = list[i];
      const attrName = attr.name;
      // A frame's src would load the live page; its snapshot replaces it.
      if (isFrame && /^(src|srcdoc)$/i.test(attrName)) continue;
      // on* handlers are kept as names only: they never run in the viewer.
      const isHandler = attrName.length > 2 && (attrName.charCodeAt(0) | 32) === 111 && (attrName.charCodeAt(1) | 32) === 110;
      attrs[attrName] = isHandler ? '' : attr.value;
    }
    if (el === target) attrs.__playwright_target__ = options.targetMark ?? '';
    addLiveState(el, upper, attrs);
    if (isFrame) {
      attrs.__playwright_bounding_rect__ = boundingRectAttribute(el);
      // The snapshotter swaps this index for the child frame's snapshot URL.
      attrs.__evidence_frame_index__ = String(frameOwners.length);
      frameOwners.push(el);
    } else if (upper === 'LINK') {
      const link = el as HTMLLinkElement;
      if (link.sheet && /(^|\s)stylesheet(\s|$)/i.test(link.rel || '')) {
        const url = link.sheet.href || link.href;
        if (url && !known.has(url)) linkedSheets.push({ url, text: rulesText(link.sheet) });
      }
    }
    if (el.localName.includes('-')) {
      try {
        if (el.matches(':defined')) definedCustomElements.add(el.localName);
      } catch {
        /* not a valid name */
      }
    }

    const encoded: [string, Record<string, string>, ...EncodedNode[]] = [name, attrs];
    if (upper === 'HEAD') encoded.push(['BASE', { href: doc.baseURI }]);
    if (upper === 'STYLE') {
      // CSSOM text, not textContent: CSS-in-JS inserts rules with insertRule.
      const sheet = (el as HTMLStyleElement).sheet;
      const text = sheet ? rulesText(sheet) : undefined;
      encoded.push(text !== undefined ? text : el.textContent || '');
      return encoded;
    }
    if (el.shadowRoot) {
      const shadow: [string, Record<string, string>, ...EncodedNode[]] = ['template', { __playwright_shadow_root_: el.shadowRoot.mode }];
      appendChildren(el.shadowRoot, shadow);
      shadow.push(...adoptedSheetTemplates(el.shadowRoot));
      encoded.push(shadow);
    }
    const content = upper === 'TEMPLATE' ? (el as HTMLTemplateElement).content : null;
    appendChildren(content || el, encoded);
    if (upper === 'HEAD') encoded.push(...adoptedSheetTemplates(doc));
    return encoded;
  };

  const root = doc.documentElement;
  const html: EncodedNode = root ? (visit(root) as EncodedNode) : ['HTML', {}];
  if (definedCustomElements.size && Array.isArray(html)) {
    for (const child of html.slice(2)) {
      if (Array.isArray(child) && String(child[0]).toUpperCase() === 'BODY') {
        child[1].__playwright_custom_elements__ = Array.from(definedCustomElements).join(',');
      }
    }
  }
  let targetBox: SerializedFrame['targetBox'] = null;
  if (target) {
    const r = target.getBoundingClientRect();
    targetBox = { x: r.x, y: r.y, width: r.width, height: r.height };
  }
  return {
    html,
    doctype: doc.doctype ? doc.doctype.name : undefined,
    frameUrl: doc.URL,
    viewport: { width: window.innerWidth, height: window.innerHeight },
    targetBox,
    stylesheets: linkedSheets,
    frameOwnerCount: frameOwners.length,
  };
}
