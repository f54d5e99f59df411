/**
 * Corpus pages whose snapshot is known to differ from Playwright's, by page
 * and category. Mirrors docs/aria-snapshot-differences.md: a page listed here
 * must differ (or the entry is stale), a page that differs must be listed.
 * The categories are the ones the document describes; none is triggered by
 * the current corpus.
 */
export type DifferenceCategory = 'css-content-parsing';

export const KNOWN_DIFFERENCES: Record<string, DifferenceCategory> = {};
