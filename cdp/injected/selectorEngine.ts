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
