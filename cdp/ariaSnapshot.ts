/**
 * Playwright-format aria snapshot of the page a CDP session is attached to,
 * without Playwright: the text `page.ariaSnapshot()` returns (default mode,
 * rooted at the first body or frameset; iframes appear as `- iframe` without
 * their content, as in Playwright's default mode).
 *
 * Three protocol reads, sent together:
 * - Runtime.evaluate, in an isolated world, of the DOM walk: reading order,
 *   text, generated content, field values, roles (written or HTML-AAM
 *   implicit); see aria/domWalk.ts;
 * - DOM.getDocument (pierce) to learn each walked element's backendNodeId;
 * - Accessibility.getFullAXTree for accessible names and some states; see
 *   aria/axFacts.ts.
 * The caller needs no domain enabled first. DOM.getDocument resets the
 * session's DOM node ids. docs/aria-snapshot-differences.md says which fact
 * comes from where and where the text can still differ from Playwright's.
 */
import type { CdpSession } from './types';
import { walkDocumentInPage, type WalkedElement, type WalkResult } from './aria/domWalk';
import type { AXNode, ElementFacts } from './aria/axFacts';
import { buildAriaTree } from './aria/tree';
import { renderAriaYaml } from './aria/yaml';

export { renderAriaYaml, quoteKey, quoteValue, needsYamlQuotes } from './aria/yaml';
export type { AriaNode } from './aria/yaml';

interface DomNode {
  nodeType: number;
  nodeName: string;
  backendNodeId: number;
  children?: DomNode[];
  shadowRoots?: Array<DomNode & { shadowRootType?: string }>;
}

// Serialized to one JSON string in the page: returning a large nested object by value is several
// times slower than returning a string of it.
const WALK_EXPRESSION = `JSON.stringify((${walkDocumentInPage.toString()})())`;
const MAX_ATTEMPTS = 3;

/**
 * The walk runs in an isolated world of the main frame: same DOM, but built-ins
 * (JSON, Map, Array methods) the page cannot have patched. One world per
 * session and document; a navigation destroys it and the next call makes a new one.
 */
const isolatedWorlds = new WeakMap<CdpSession, number>();
const WORLD_NAME = 'design-playbook-aria-snapshot';

async function evaluateWalk(session: CdpSession): Promise<any> {
  for (let attempt = 1; ; attempt++) {
    let contextId = isolatedWorlds.get(session);
    if (contextId === undefined) {
      const { frameTree } = await session.send('Page.getFrameTree');
      const world = await session.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: WORLD_NAME });
      contextId = world.executionContextId as number;
      isolatedWorlds.set(session, contextId);
    }
    try {
      return await session.send('Runtime.evaluate', { expression: WALK_EXPRESSION, contextId, returnByValue: true });
    } catch (error) {
      // The world went away with its document (navigation): make a new one, once.
      isolatedWorlds.delete(session);
      if (attempt >= 2) throw error;
    }
  }
}

/** The snapshot text of the session's page (main frame). */
export async function ariaSnapshotText(session: CdpSession): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const [walk, doc, ax] = await Promise.all([
      evaluateWalk(session),
      session.send('DOM.getDocument', { depth: -1, pierce: true }),
      session.send('Accessibility.getFullAXTree', {}),
    ]);
    if (walk.exceptionDetails) throw new Error('aria snapshot: DOM walk failed: ' + (walk.exceptionDetails.exception?.description || walk.exceptionDetails.text));
    const result = JSON.parse(walk.result.value as string) as WalkResult;
    const elements = elementsInOrder(doc.root as DomNode);
    // The three reads are not atomic; a page that changed in between is read again.
    const aligned = elements.length === result.order.length && elements.every((e, i) => e.nodeName === result.order[i]);
    if (!aligned && attempt < MAX_ATTEMPTS) continue;
    if (!result.root) return '';
    const axByBackendId = new Map<number, AXNode>();
    for (const node of ax.nodes as AXNode[]) {
      if (node.backendDOMNodeId !== undefined && !axByBackendId.has(node.backendDOMNodeId)) axByBackendId.set(node.backendDOMNodeId, node);
    }
    const backendIds = aligned ? elements.map((e) => e.backendNodeId) : pairByName(result.order, elements);
    // Name rules look at descendants' facts again and again: built once per element.
    const factsCache = new Map<WalkedElement, ElementFacts>();
    const factsOf = (rec: WalkedElement): ElementFacts => {
      let facts = factsCache.get(rec);
      if (!facts) {
        const backendId = rec.i >= 0 ? backendIds[rec.i] : undefined;
        facts = {
          tag: rec.t.toUpperCase(),
          attrs: new Map(Object.entries(rec.at)),
          ax: backendId === undefined ? undefined : axByBackendId.get(backendId),
        };
        factsCache.set(rec, facts);
      }
      return facts;
    };
    const tree = buildAriaTree(result.root, factsOf);
    return renderAriaYaml(tree.children);
  }
}

/**
 * When the DOM kept changing between the reads, pairs the walk's elements
 * with DOM.getDocument's by walking both sequences and re-synchronizing on
 * equal node names within a small window; unpaired elements get no
 * accessibility facts (their roles and text still come from the walk).
 */
function pairByName(order: string[], elements: DomNode[]): Array<number | undefined> {
  const WINDOW = 64;
  const out: Array<number | undefined> = new Array(order.length);
  let j = 0;
  for (let i = 0; i < order.length && j < elements.length; i++) {
    if (order[i] === elements[j].nodeName) {
      out[i] = elements[j++].backendNodeId;
      continue;
    }
    let skip = -1;
    for (let k = 1; k <= WINDOW && j + k < elements.length; k++) {
      if (elements[j + k].nodeName === order[i]) { skip = k; break; }
    }
    if (skip >= 0) {
      j += skip;
      out[i] = elements[j++].backendNodeId;
    }
  }
  return out;
}

/** Elements of DOM.getDocument's tree in the walk's canonical order: children, then the open shadow root. */
function elementsInOrder(root: DomNode): DomNode[] {
  const out: DomNode[] = [];
  const enumerate = (node: DomNode) => {
    for (const child of node.children || []) {
      if (child.nodeType === 1) out.push(child);
      enumerate(child);
    }
    for (const shadow of node.shadowRoots || []) {
      if (shadow.shadowRootType === 'open') enumerate(shadow);
    }
  };
  enumerate(root);
  return out;
}
