/**
 * What a selector's text says, read in Node without a page: whether it is a
 * Playwright selector at all (the parser is the same module the page runs,
 * so a bad selector fails with "selector syntax error at position N: …"
 * before any protocol call), whether it is Puppeteer's own syntax, and
 * whether it is one plain CSS selector. Pure: the contract (the action
 * table) reads it at start-up.
 */
import { parseSelector } from './injected/selectors/parse';

/** Throws SelectorSyntaxError ("selector syntax error at position N: …") when `selector` is not valid. */
export function checkSelectorSyntax(selector: string): void {
  parseSelector(selector);
}

/**
 * Puppeteer-only syntax (P-selectors `::-p-…`, `>>>`, the `pierce/`, `aria/`, `text/`, `xpath/` query
 * handlers) that this engine does not read and Playwright rejects; the action runner hands such
 * selectors to Puppeteer as an extension (docs/reference.md, "Actions").
 */
export function usesPuppeteerSyntax(selector: string): boolean {
  return /::-p-|>>>|^(?:pierce|aria|text|xpath)\//.test(selector);
}

/**
 * One CSS selector, unnamed (no `css=`, `text=`… engine prefix) and not a
 * `>>` chain: text appended to it (an attribute test) keeps its meaning.
 * False for anything that does not parse.
 */
export function isPlainCss(selector: string): boolean {
  let parts;
  try {
    parts = parseSelector(selector).parts;
  } catch {
    return false;
  }
  const eq = selector.indexOf('=');
  const named = eq !== -1 && /^[a-zA-Z_0-9-+:*]+$/.test(selector.slice(0, eq).trim());
  return parts.length === 1 && parts[0].kind === 'css' && !named;
}
