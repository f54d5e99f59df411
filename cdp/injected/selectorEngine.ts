/**
 * In-page entry: Playwright's selector engine (cdp/injected/selectors/),
 * bundled by scripts/build-injected.js into cdp/generated/selectorEngine.ts.
 * cdp/selectorEngine.ts installs it once per isolated world and document and
 * calls these exports; their signatures are the contract with the action
 * runner.
 *
 * Selectors follow Playwright's grammar: CSS (piercing open shadow roots, with
 * Playwright's pseudo-classes), text=, role=, xpath= (or a leading // or ..),
 * id=, data-testid=, data-test-id=, data-test=, css=, chaining with >>, nth=,
 * visible=, and the internal: forms locators print. The first element of
 * queryAll is the one Playwright's non-strict page methods act on.
 */
import { parseSelector as parseUncached, type ParsedSelector } from './selectors/parse';
import { queryParsed } from './selectors/query';
import { nearMisses } from './selectors/nearMisses';
import type { QueryRoot } from './selectors/cssEvaluator';
import { isVisibleBox } from './aria/visibility';
import { missingState, previewNode, scrollAndRemember, settledPoint, type Needs } from './selectors/actionability';

export { focusTarget, prepareFill, previewNode, selectOption, settledPoint, settledPointAfterFrame } from './selectors/actionability';

export { SelectorSyntaxError } from './selectors/syntaxError';

// The action runner polls the same selector many times: parse it once.
const parsedSelectors = new Map<string, ParsedSelector>();

/**
 * Parses a selector, throwing an Error whose message reads
 * "selector syntax error at position N: …" when it is not valid.
 */
export function parse(selector: string): ParsedSelector {
  let parsed = parsedSelectors.get(selector);
  if (!parsed) {
    parsed = parseUncached(selector);
    if (parsedSelectors.size > 500) parsedSelectors.clear();
    parsedSelectors.set(selector, parsed);
  }
  return parsed;
}

/** Every element the selector matches under `root` (default: the document), first match first. */
export function queryAll(selector: string, root?: Node): Element[] {
  return queryParsed(parse(selector), (root || document) as QueryRoot);
}

/** The element Playwright's non-strict page methods would act on, or null. */
export function queryFirst(selector: string, root?: Node): Element | null {
  return queryAll(selector, root)[0] || null;
}

/** How many elements match (for strictness and error messages). */
export function count(selector: string, root?: Node): number {
  return queryAll(selector, root).length;
}

/**
 * For "no element matches" errors: up to `limit` selectors of elements that exist and resemble what
 * `selector` asks for (by text, name, id or test id), e.g. ['role=button[name="Retry now"]', '#retry'].
 */
export function describeNearMisses(selector: string, limit = 5): string[] {
  return nearMisses(selector, document, limit);
}

/**
 * For an action: `e` once it has every state in `needs` — scrolled into view
 * and its box remembered for settledPoint when `scroll` >= 0 (the retry
 * number: it picks the alignment) — else 'why|preview', e.g.
 * 'element is not enabled|<button id="go" disabled>Go</button>'.
 */
export function prepareTarget(e: Element, needs: Needs, scroll: number): Element | string {
  const missing = missingState(e, needs);
  if (missing) return missing + '|' + previewNode(e);
  if (scroll >= 0) scrollAndRemember(e, scroll);
  return e;
}

/** prepareTarget on the selector's first match; 'none' when nothing matches. */
export function actionTarget(selector: string, needs: Needs, scroll: number): Element | string {
  const e = queryFirst(selector);
  return e ? prepareTarget(e, needs, scroll) : 'none';
}

/** For wait_for_selector: '' once the first match is visible, 'none' while nothing matches, else 'element is not visible|preview'. */
export function waitVisible(selector: string): string {
  const e = queryFirst(selector);
  if (!e) return 'none';
  return isVisibleBox(e) ? '' : 'element is not visible|' + previewNode(e);
}
