/**
 * Playwright selectors on a CDP session: the in-page engine
 * (injected/selectorEngine.ts, bundled into generated/selectorEngine.ts) is
 * installed once per isolated world of the main frame — cached on a symbol in
 * that world's global — and every call after that only names the selector.
 * A navigation destroys the world with its document; the next call notices,
 * makes a new world and installs the engine again.
 *
 * Selector syntax is checked here in Node before any protocol call (the
 * parser is the same module the page runs), so a bad selector fails with
 * "selector syntax error at position N: …" even when no page is loaded.
 */
import type { CdpSession } from './types';
import { source as ENGINE_SOURCE } from './generated/selectorEngine';
import { parseSelector } from './injected/selectors/parse';
import { SelectorSyntaxError } from './injected/selectors/syntaxError';

export { SelectorSyntaxError };

const WORLD_NAME = 'design-playbook-selectors';
/** Where the engine lives in the world's global; shared with in-page code the action runner evaluates there. */
export const ENGINE_GLOBAL = "globalThis[Symbol.for('design-playbook.selectorEngine')]";
const INSTALL = `(() => { const key = Symbol.for('design-playbook.selectorEngine'); if (!globalThis[key]) globalThis[key] = ${ENGINE_SOURCE}; return true; })()`;

const worlds = new WeakMap<CdpSession, number>();
const MISSING = '__design_playbook_selector_engine_missing__';

/** Throws SelectorSyntaxError ("selector syntax error at position N: …") when `selector` is not valid. */
export function checkSelectorSyntax(selector: string): void {
  parseSelector(selector);
}

/**
 * Puppeteer-only syntax (P-selectors `::-p-…`, `>>>`, the `pierce/`, `aria/`, `text/`, `xpath/` query
 * handlers) that this engine does not read and Playwright rejects; the action runner hands such
 * selectors to Puppeteer as an extension (README "Actions").
 */
export function usesPuppeteerSyntax(selector: string): boolean {
  return /::-p-|>>>|^(?:pierce|aria|text|xpath)\//.test(selector);
}

async function createWorld(session: CdpSession): Promise<number> {
  const { frameTree } = await session.send('Page.getFrameTree');
  const world = await session.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: WORLD_NAME });
  const contextId = world.executionContextId as number;
  const installed = await session.send('Runtime.evaluate', { expression: INSTALL, contextId, returnByValue: true });
  if (installed.exceptionDetails) throw new Error('selector engine: install failed: ' + describeException(installed.exceptionDetails));
  worlds.set(session, contextId);
  return contextId;
}

/** The execution context id of the session's selector world, with the engine installed (made on first use and after navigation). */
export async function ensureSelectorEngine(session: CdpSession): Promise<number> {
  return worlds.get(session) ?? createWorld(session);
}

const isContextGone = (error: unknown) => /context with specified id|Execution context was destroyed|Cannot find context|Inspected target navigated/i.test(String((error as Error)?.message ?? error));

function describeException(details: any): string {
  return String(details?.exception?.description || details?.text || 'unknown error').split('\n')[0];
}

/**
 * Evaluates `expression` in the selector world, where `engine` names the installed engine:
 * e.g. evaluateWithEngine(session, 'engine.count("li")', true). Retries once in a new world
 * when a navigation destroyed the old one. Returns the protocol's RemoteObject.
 */
export async function evaluateWithEngine(session: CdpSession, expression: string, returnByValue: boolean): Promise<any> {
  const wrapped = `(() => { const engine = ${ENGINE_GLOBAL}; if (!engine) return '${MISSING}'; return (${expression}); })()`;
  for (let attempt = 1; ; attempt++) {
    const contextId = await ensureSelectorEngine(session);
    let reply: any;
    try {
      reply = await session.send('Runtime.evaluate', { expression: wrapped, contextId, returnByValue });
    } catch (error) {
      worlds.delete(session);
      if (attempt >= 2 || !isContextGone(error)) throw error;
      continue;
    }
    if (reply.exceptionDetails) throw new Error(describeException(reply.exceptionDetails).replace(/^(?:Uncaught )?(?:\w*Error: )?/, ''));
    if (reply.result && reply.result.value === MISSING) {
      // A world without the engine (not one this module made): install it there.
      worlds.delete(session);
      if (attempt >= 2) throw new Error('selector engine: not installed in the page');
      continue;
    }
    return reply.result;
  }
}

/**
 * The remote object id of the first element `selector` matches in the main frame (the element
 * Playwright's non-strict page methods act on), or null when none matches. The object lives in
 * the selector world; DOM.* and Runtime.callFunctionOn accept it.
 */
export async function resolveSelector(session: CdpSession, selector: string): Promise<string | null> {
  checkSelectorSyntax(selector);
  const result = await evaluateWithEngine(session, `engine.queryFirst(${JSON.stringify(selector)})`, false);
  return result && result.subtype !== 'null' && result.objectId ? result.objectId as string : null;
}

/** How many elements `selector` matches in the main frame. */
export async function countSelector(session: CdpSession, selector: string): Promise<number> {
  checkSelectorSyntax(selector);
  const result = await evaluateWithEngine(session, `engine.count(${JSON.stringify(selector)})`, true);
  return result.value as number;
}

/** For "no element matches" errors: selectors of existing elements resembling what `selector` asks for. */
export async function nearMisses(session: CdpSession, selector: string, limit = 5): Promise<string[]> {
  const result = await evaluateWithEngine(session, `engine.describeNearMisses(${JSON.stringify(selector)}, ${Number(limit)})`, true);
  return result.value as string[];
}

/**
 * Calls the engine's export `method` with the element `objectId` names (an object of the selector
 * world) as its first argument and `args` after it; returns the value (awaited when `awaitPromise`).
 * Page exceptions are thrown as Errors carrying the page's message.
 */
export async function callEngineOn(session: CdpSession, objectId: string, method: string, args: unknown[] = [], awaitPromise = false): Promise<any> {
  const reply = await session.send('Runtime.callFunctionOn', {
    objectId,
    functionDeclaration: `function(...args) { return ${ENGINE_GLOBAL}.${method}(this, ...args); }`,
    arguments: args.map((value) => ({ value })),
    returnByValue: true,
    awaitPromise,
  });
  if (reply.exceptionDetails) throw new Error(describeException(reply.exceptionDetails).replace(/^(?:Uncaught )?(?:\w*Error: )?/, ''));
  return reply.result?.value;
}

/** The selector world's handle on a DOM node known by its backend id (an element another session resolved). */
export async function resolveBackendNode(session: CdpSession, backendNodeId: number): Promise<string | null> {
  const executionContextId = await ensureSelectorEngine(session);
  const { object } = await session.send('DOM.resolveNode', { backendNodeId, executionContextId });
  return object?.objectId ?? null;
}

/** Lets the page forget a handle this module returned (best effort). */
export function releaseObject(session: CdpSession, objectId: string): void {
  session.send('Runtime.releaseObject', { objectId }).catch(() => undefined);
}
