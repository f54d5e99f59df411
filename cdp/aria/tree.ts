/**
 * Builds the snapshot tree from the DOM walk (reading order, text, generated
 * content, roles, names) and the states of each element, then normalizes it the way Playwright's default snapshot does: adjacent
 * text runs merge with collapsed whitespace, a lone text child that repeats
 * the name goes, and empty nameless generic wrappers vanish.
 */
import type { WalkedChild, WalkedElement } from '../injected/aria/domWalk';
import { normalizeWhiteSpace, statesOf, type ElementFacts } from './states';
import type { AriaNode } from './yaml';

/** A data: URL keeps its media type; the payload is never useful in a snapshot. */
export function truncateDataUrl(url: string): string {
  if (!url.startsWith('data:')) return url;
  const comma = url.indexOf(',');
  return comma === -1 ? url : url.slice(0, comma + 1) + '\u2026';
}

export function buildAriaTree(top: WalkedChild[]): AriaNode {
  const root: AriaNode = { role: 'fragment', name: '', children: [] };
  for (const child of top) {
    if (typeof child === 'string') root.children.push(child);
    else visitElement(root, child);
  }
  normalizeTree(root);
  return root;
}

function visitElement(parent: AriaNode, rec: WalkedElement): void {
  const node = toAriaNode(rec);
  if (node) parent.children.push(node);
  const target = node || parent;
  if (rec.blk) target.children.push(' ');
  target.children.push(rec.before || '');
  for (const kid of rec.kids) {
    if (typeof kid === 'string') {
      // A text field shows its value, not the text nodes inside it.
      if (target.role !== 'textbox') target.children.push(kid);
    } else {
      visitElement(target, kid);
    }
  }
  target.children.push(rec.after || '');
  if (rec.blk) target.children.push(' ');
  if (target.children.length === 1 && target.name === target.children[0]) target.children = [];
  if (target.role === 'link' && rec.href !== undefined) target.url = truncateDataUrl(rec.href);
  if (target.role === 'textbox' && rec.placeholder !== undefined && rec.placeholder !== target.name) target.placeholder = rec.placeholder;
}

function toAriaNode(rec: WalkedElement): AriaNode | null {
  const tag = rec.t.toUpperCase();
  if (tag === 'IFRAME' || tag === 'FRAME') return { role: 'iframe', name: '', children: [] };
  const role = rec.role === 'none' || rec.role === 'presentation' ? '' : rec.role;
  if (!role) return null;
  // An inline generic around nothing but text is just text.
  if (role === 'generic' && rec.inl && rec.oneText) return null;
  const facts: ElementFacts = {
    tag,
    attrs: new Map(Object.entries(rec.at || {})),
    nativeChecked: rec.nativeChecked,
    nativeSelected: rec.nativeSelected,
    disabled: rec.disabled,
  };
  const node: AriaNode = {
    role,
    name: normalizeWhiteSpace(rec.name || ''),
    children: [],
    ...statesOf(facts, role),
  };
  if (rec.ariaHidden) node.ariaHidden = true;
  if (rec.value !== undefined) node.children = [rec.value];
  return node;
}

function normalizeTree(root: AriaNode): void {
  const visit = (node: AriaNode) => {
    const kept: Array<AriaNode | string> = [];
    for (const child of node.children) {
      if (typeof child === 'string') {
        kept.push(child);
        continue;
      }
      visit(child);
      // An empty generic wrapper without a name carries nothing.
      if (child.role === 'generic' && !child.name && child.children.length === 0) continue;
      kept.push(child);
    }
    node.children = kept;
    mergeText(node);
  };
  visit(root);
}

function mergeText(node: AriaNode): void {
  const out: Array<AriaNode | string> = [];
  let buffer = '';
  let pending = false;
  const flush = () => {
    if (!pending) return;
    const text = normalizeWhiteSpace(buffer);
    if (text) out.push(text);
    buffer = '';
    pending = false;
  };
  for (const child of node.children) {
    if (typeof child === 'string') {
      buffer += child;
      pending = true;
    } else {
      flush();
      out.push(child);
    }
  }
  flush();
  node.children = out;
  if (out.length === 1 && out[0] === node.name) node.children = [];
}
