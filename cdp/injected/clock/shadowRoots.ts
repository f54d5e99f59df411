/**
 * Every shadow tree of one document, for the freeze and the rest rule. A
 * document-level style sheet, MutationObserver, getAnimations() or
 * querySelectorAll stops at a shadow root, so each of them has to be asked
 * of every root as well:
 *
 * - roots made by script (attachShadow, open or closed) are recorded as they
 *   are made: the hook is installed with the clock, before any page script;
 * - open roots that no script made (declarative shadow DOM, parsed from the
 *   HTML) are found by a walk of the document and of each root found, run
 *   when the freeze is applied (after load and after the actions);
 * - a closed root that no script made (`<template shadowrootmode="closed">`)
 *   is out of reach of the page: the capture finds it over the protocol and
 *   hands it in (`record`; cdp/declaredShadowRoots.ts says when).
 *
 * While the freeze is on, its sheet is adopted by every root, including one
 * made later, and stays adopted when a component sets its own sheets (Lit
 * and most web-component libraries assign `adoptedStyleSheets` once they are
 * connected): a transition or animation in a shadow tree is stopped exactly
 * as in the document.
 */

export interface ShadowRoots {
  /** Every root recorded, connected or not. */
  all(): ShadowRoot[];
  /** The roots whose host is in the document now, in the order they were found. */
  connected(): ShadowRoot[];
  /** Finds open roots no script made (declarative), in the document and in every root. */
  discover(): void;
  /** Adopts `css` as one constructed sheet in the document and every root, now and for roots made later; false where the document cannot adopt sheets. */
  freeze(css: string): boolean;
  /** Takes the freeze's sheet out of force (disabled where it is adopted) until `freeze` is called again. */
  thaw(): void;
  /** Records a root the page could not show (a closed one declared in the HTML, found over the protocol: cdp/declaredShadowRoots.ts). */
  record(root: ShadowRoot): void;
  /** Called with each root as it is recorded (the rest rule watches it for changes). */
  onRoot(listener: (root: ShadowRoot) => void): void;
}

export function installShadowRoots(win: Window & typeof globalThis, define: (target: object, name: string, value: unknown) => void): ShadowRoots {
  const roots = new Set<ShadowRoot>();
  const listeners: Array<(root: ShadowRoot) => void> = [];
  let sheet: CSSStyleSheet | null = null;
  // Taken before any page script runs: a page may replace them.
  const RealCSSStyleSheet = win.CSSStyleSheet;
  const RealNodeFilter = win.NodeFilter;
  const shadowDescriptor = win.ShadowRoot && Object.getOwnPropertyDescriptor(win.ShadowRoot.prototype, 'adoptedStyleSheets');
  const documentDescriptor = win.Document && Object.getOwnPropertyDescriptor(win.Document.prototype, 'adoptedStyleSheets');

  const adopt = (target: Document | ShadowRoot) => {
    if (!sheet) return;
    const descriptor = target instanceof win.Document ? documentDescriptor : shadowDescriptor;
    if (!descriptor?.get || !descriptor.set) return;
    const current = descriptor.get.call(target) as CSSStyleSheet[];
    if (!current.includes(sheet)) descriptor.set.call(target, [...current, sheet]);
  };

  const record = (root: ShadowRoot) => {
    if (roots.has(root)) return;
    roots.add(root);
    adopt(root);
    for (const listener of listeners) listener(root);
  };

  const elementPrototype = win.Element?.prototype;
  if (elementPrototype && typeof elementPrototype.attachShadow === 'function') {
    const attachShadow = elementPrototype.attachShadow;
    define(elementPrototype, 'attachShadow', function (this: Element, init: ShadowRootInit) {
      const root = attachShadow.call(this, init);
      record(root);
      return root;
    });
  }

  // A component that sets its own sheets keeps the freeze's after them, while the freeze is on.
  for (const [proto, descriptor] of [
    [win.ShadowRoot?.prototype, shadowDescriptor],
    [win.Document?.prototype, documentDescriptor],
  ] as const) {
    if (!proto || !descriptor?.get || !descriptor.set) continue;
    const { get, set } = descriptor;
    Object.defineProperty(proto, 'adoptedStyleSheets', {
      configurable: true,
      enumerable: descriptor.enumerable,
      get,
      set(this: Document | ShadowRoot, value: CSSStyleSheet[]) {
        let wanted: unknown = value;
        if (sheet && value && typeof (value as Iterable<CSSStyleSheet>)[Symbol.iterator] === 'function') {
          const list = Array.from(value as Iterable<CSSStyleSheet>);
          wanted = list.includes(sheet) ? list : [...list, sheet];
        }
        set.call(this, wanted);
      },
    });
  }

  return {
    all: () => Array.from(roots),
    connected: () => Array.from(roots).filter((root) => root.host.isConnected),
    discover() {
      if (!win.document) return;
      // The document and every root known, each walked once; an open root found is walked in turn.
      const walked = new Set<Document | ShadowRoot>();
      const scopes: Array<Document | ShadowRoot> = [win.document, ...roots];
      for (let scope = scopes.pop(); scope; scope = scopes.pop()) {
        if (walked.has(scope)) continue;
        walked.add(scope);
        const walker = win.document.createTreeWalker(scope, RealNodeFilter.SHOW_ELEMENT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const root = (node as Element).shadowRoot;
          if (!root) continue;
          record(root);
          scopes.push(root);
        }
      }
    },
    freeze(css: string) {
      if (!sheet) {
        if (typeof RealCSSStyleSheet !== 'function' || !documentDescriptor?.set) return false;
        sheet = new RealCSSStyleSheet();
        sheet.replaceSync(css);
      }
      sheet.disabled = false;
      adopt(win.document);
      for (const root of roots) adopt(root);
      return true;
    },
    thaw() {
      if (sheet) sheet.disabled = true;
    },
    record(root: ShadowRoot) {
      if (root instanceof win.ShadowRoot) record(root);
    },
    onRoot(listener) {
      listeners.push(listener);
    },
  };
}
