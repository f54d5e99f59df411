/**
 * The report page's script (built into one script by scripts/build-report-page.js and
 * inlined into the report). The page reads completely without it; this adds
 * the filters, screenshot zoom and finding-box toggles, aria tree folding
 * and search, and the copy buttons.
 */
import { setUpFilters } from './filters';
import { setUpScreenshots } from './screenshots';
import { setUpTrees } from './trees';
import { setUpCopyButtons } from './copy';

export function start(): void {
  setUpFilters(document);
  setUpScreenshots(document);
  setUpTrees(document);
  setUpCopyButtons(document);
}

start();
