/**
 * Playwright selectors on a CDP session: resolved by the page runtime's
 * selector engine (injected/selectors/) in the main frame's utility world
 * (utilityWorld.ts), one protocol call each. A selector's syntax is checked
 * in Node first (selectorSyntax.ts), so a bad one fails before any call.
 */
import type { CdpSession } from './types';
import { checkSelectorSyntax } from './selectorSyntax';
import { SelectorSyntaxError } from './injected/selectors/syntaxError';
import { callRuntime, callRuntimeForHandle, releaseObject, utilityContext } from './utilityWorld';

export { SelectorSyntaxError, releaseObject };

/**
 * The remote object id of the first element `selector` matches in the main frame (the element
 * Playwright's non-strict page methods act on), or null when none matches. The object lives in
 * the utility world; DOM.* and callRuntimeOn accept it.
 */
export async function resolveSelector(session: CdpSession, selector: string): Promise<string | null> {
  checkSelectorSyntax(selector);
  const found = await callRuntimeForHandle(session, 'queryFirst', [selector]);
  return found ? found.objectId : null;
}

/** How many elements `selector` matches in the main frame. */
export async function countSelector(session: CdpSession, selector: string): Promise<number> {
  checkSelectorSyntax(selector);
  return callRuntime(session, 'count', [selector]);
}

/** For "no element matches" errors: selectors of existing elements resembling what `selector` asks for. */
export async function nearMisses(session: CdpSession, selector: string, limit = 5): Promise<string[]> {
  return callRuntime(session, 'describeNearMisses', [selector, limit]);
}

/** The utility world's handle on a DOM node known by its backend id (an element Puppeteer resolved). */
export async function resolveBackendNode(session: CdpSession, backendNodeId: number): Promise<string | null> {
  const executionContextId = await utilityContext(session);
  const { object } = await session.send('DOM.resolveNode', { backendNodeId, executionContextId });
  return object?.objectId ?? null;
}
