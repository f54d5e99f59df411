/**
 * Sorting elements into document order across shadow roots: a host's light
 * children come before its shadow root's children, as Playwright orders them.
 */
import { parentOrHost } from '../aria/dom';

interface Entry {
  children: Element[];
  wanted: boolean;
}

export function sortInDocumentOrder(elements: Iterable<Element>): Element[] {
  const entries = new Map<Element, Entry>();
  const roots: Element[] = [];
  const enter = (e: Element): Entry => {
    let entry = entries.get(e);
    if (entry) return entry;
    entry = { children: [], wanted: false };
    entries.set(e, entry);
    const parent = parentOrHost(e);
    if (parent) enter(parent).children.push(e);
    else roots.push(e);
    return entry;
  };
  for (const e of elements) enter(e).wanted = true;
  const out: Element[] = [];
  const visit = (e: Element) => {
    const entry = entries.get(e) as Entry;
    if (entry.wanted) out.push(e);
    if (entry.children.length > 1) {
      const pending = new Set(entry.children);
      const ordered: Element[] = [];
      for (let c = e.firstElementChild; c && ordered.length < pending.size; c = c.nextElementSibling) if (pending.has(c)) ordered.push(c);
      const shadow = e.shadowRoot;
      for (let c = shadow ? shadow.firstElementChild : null; c && ordered.length < pending.size; c = c.nextElementSibling) if (pending.has(c)) ordered.push(c);
      entry.children = ordered;
    }
    entry.children.forEach(visit);
  };
  roots.forEach(visit);
  return out;
}
