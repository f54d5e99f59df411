/**
 * Playwright's selector engine as the runtime (cdp/injected/runtime.ts)
 * exposes it: resolve a selector (first match first, as Playwright's
 * non-strict page methods), count, suggest near misses, and get an action's
 * target ready in one call — its states checked, scrolled into view — or say
 * in a typed code why not yet.
 *
 * Selectors follow Playwright's grammar: CSS (piercing open shadow roots, with
 * Playwright's pseudo-classes), text=, role=, xpath= (or a leading // or ..),
 * id=, data-testid=, data-test-id=, data-test=, css=, chaining with >>, nth=,
 * visible=, and the internal: forms locators print.
 */
import { parseSelector as parseUncached, type ParsedSelector } from './parse';
import { queryParsed } from './query';
import { nearMisses } from './nearMisses';
import type { QueryRoot } from './cssEvaluator';
import {
  missingState,
  previewNode,
  scrollAndRemember,
  settledPoint,
  settledPointAfterFrame,
  type MissingState,
  type Needs,
  type Point,
  type PointProblem,
  type Quad,
} from './actionability';

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
 * Why an action's target is not ready: nothing matches yet, a state it lacks
 * (with the element's preview, for the message once the budget is spent), or
 * an element that can never be edited.
 */
export type TargetProblem = { code: 'no-match' } | { code: MissingState; preview: string } | { code: 'not-editable-element' };

/**
 * For an action: `e` once it has every state in `needs` — scrolled into view
 * and its box remembered for clickPoint when `scroll` >= 0 (the retry
 * number: it picks the alignment) — else why not.
 */
export function prepareTarget(e: Element, needs: Needs, scroll: number): Element | TargetProblem {
  const missing = missingState(e, needs);
  if (missing) return missing.code === 'not-editable-element' ? missing : { code: missing.code, preview: previewNode(e) };
  if (scroll >= 0) scrollAndRemember(e, scroll);
  return e;
}

/** prepareTarget on the selector's first match. */
export function actionTarget(selector: string, needs: Needs, scroll: number): Element | TargetProblem {
  const e = queryFirst(selector);
  return e ? prepareTarget(e, needs, scroll) : { code: 'no-match' };
}

/** A click point not there yet, with the target's preview for the message once the budget is spent. */
export type ClickPointProblem = PointProblem & { preview: string };

const withPreview = (e: Element, found: Point | PointProblem): Point | ClickPointProblem => ('code' in found ? { ...found, preview: previewNode(e) } : found);

/** The click point a frame after prepareTarget scrolled `e` into view (the host moved the page's time). */
export function clickPoint(e: Element, quads?: Quad[]): Point | ClickPointProblem {
  return withPreview(e, settledPoint(e, quads));
}

/** clickPoint at the next real animation frame (a page on the wall clock). */
export async function clickPointAfterFrame(e: Element, quads?: Quad[]): Promise<Point | ClickPointProblem> {
  return withPreview(e, await settledPointAfterFrame(e, quads));
}

/** For a wait_for_state that matched nothing: the first `limit` data-state values on the page. */
export function dataStates(limit: number): string[] {
  return Array.from(document.querySelectorAll('[data-state]'), (el) => el.getAttribute('data-state') || '').slice(0, limit);
}
