/**
 * Playwright-format aria snapshot of the page a CDP session is attached to,
 * without Playwright: the text `page.ariaSnapshot()` returns (default mode,
 * rooted at the first body or frameset; iframes appear as `- iframe` without
 * their content, as in Playwright's default mode).
 *
 * One protocol call: the page runtime's DOM walk (injected/aria/domWalk.ts,
 * called as `ariaWalk` in the main frame's utility world, utilityWorld.ts),
 * which reads reading order, text, generated content, field values, roles,
 * accessible names and the attributes states come from in the page, over the
 * live DOM and its computed styles. The snapshot format defines every one of
 * these facts by DOM rules (its names follow accname as Playwright computes
 * them, not Chromium's accessibility tree); docs/aria-snapshot-differences.md
 * explains the choice and what can still differ. The caller needs no domain
 * enabled first.
 */
import type { CdpSession } from './types';
import { callRuntime, PageScriptError, parseJson } from './utilityWorld';
import { buildAriaTree } from './aria/tree';
import { renderAriaYaml } from './aria/yaml';

export { renderAriaYaml, quoteKey, quoteValue, needsYamlQuotes } from './aria/yaml';
export type { AriaNode } from './aria/yaml';

/** The snapshot text of the session's page (main frame). */
export async function ariaSnapshotText(session: CdpSession): Promise<string> {
  let walk;
  try {
    walk = parseJson(await callRuntime(session, 'ariaWalk', []));
  } catch (error) {
    if (error instanceof PageScriptError) throw new Error('aria snapshot: DOM walk failed: ' + error.description);
    throw error;
  }
  if (!walk.root) return '';
  return renderAriaYaml(buildAriaTree(walk.root).children);
}
