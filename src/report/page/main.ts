/**
 * The report page's script (built into one script by scripts/build-report-page.js and
 * inlined into the report). The page reads completely without it; this adds
 * the filters, screenshot zoom and finding-box toggles, aria tree folding
 * and search, the copy buttons, and the comparison page's before/after slider.
 */
import { setUpFilters } from './filters';
import { setUpScreenshots } from './screenshots';
import { setUpTrees } from './trees';
import { setUpCopyButtons } from './copy';
import { setUpSliders } from './compare';

export function start(): void {
  setUpFilters(document);
  setUpScreenshots(document);
  setUpTrees(document);
  setUpCopyButtons(document);
  setUpSliders(document);
}

start();
