/**
 * Corpus pages whose snapshot is known to differ from Playwright's, by page
 * and category. Mirrors docs/aria-snapshot-differences.md: a page listed here
 * must differ (or the entry is stale), a page that differs must be listed.
 */
export type DifferenceCategory =
  /** CSS `content: "x" / "alt"` alternative text: Chromium joins it to the element's text with a space. */
  | 'css-alt-text-spacing';

export const KNOWN_DIFFERENCES: Record<string, DifferenceCategory> = {
  'buttons-icons.html': 'css-alt-text-spacing',
};
