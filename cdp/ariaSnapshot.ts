/**
 * Playwright-format aria snapshot of the page a CDP session is attached to,
 * without Playwright: the text `page.ariaSnapshot()` returns (default mode,
 * rooted at the first body or frameset; iframes appear as `- iframe` without
 * their content, as in Playwright's default mode).
 *
 * One protocol call: Runtime.evaluate, in an isolated world, of the DOM walk
 * (injected/aria/domWalk.ts, bundled into cdp/generated/ariaWalk.ts at build time), which reads reading order, text, generated content,
 * field values, roles, accessible names and the attributes states come from
 * in the page, over the live DOM and its computed styles. The snapshot
 * format defines every one of these facts by DOM rules (its names follow
 * accname as Playwright computes them, not Chromium's accessibility tree);
 * docs/aria-snapshot-differences.md explains the choice and what can still
 * differ. The caller needs no domain enabled first.
 */
import type { CdpSession } from './types';
import type { WalkResult } from './injected/aria/domWalk';
import { source as ARIA_WALK_SOURCE } from './generated/ariaWalk';
import { buildAriaTree } from './aria/tree';
import { renderAriaYaml } from './aria/yaml';

export { renderAriaYaml, quoteKey, quoteValue, needsYamlQuotes } from './aria/yaml';
export type { AriaNode } from './aria/yaml';

const WALK_EXPRESSION = `(${ARIA_WALK_SOURCE}).walkDocumentJson()`;

/**
 * The walk runs in an isolated world of the main frame: same DOM, but built-ins
 * (JSON, Map, Array methods) the page cannot have patched. One world per
 * session and document; a navigation destroys it and the next call makes a new one.
 */
const isolatedWorlds = new WeakMap<CdpSession, number>();
const WORLD_NAME = 'design-playbook-aria-snapshot';

async function evaluateWalk(session: CdpSession): Promise<any> {
  for (let attempt = 1; ; attempt++) {
    let contextId = isolatedWorlds.get(session);
    if (contextId === undefined) {
      const { frameTree } = await session.send('Page.getFrameTree');
      const world = await session.send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: WORLD_NAME });
      contextId = world.executionContextId as number;
      isolatedWorlds.set(session, contextId);
    }
    try {
      return await session.send('Runtime.evaluate', { expression: WALK_EXPRESSION, contextId, returnByValue: true });
    } catch (error) {
      // The world went away with its document (navigation): make a new one, once.
      isolatedWorlds.delete(session);
      if (attempt >= 2) throw error;
    }
  }
}

/** The snapshot text of the session's page (main frame). */
export async function ariaSnapshotText(session: CdpSession): Promise<string> {
  const walk = await evaluateWalk(session);
  if (walk.exceptionDetails) throw new Error('aria snapshot: DOM walk failed: ' + (walk.exceptionDetails.exception?.description || walk.exceptionDetails.text));
  const result = JSON.parse(walk.result.value as string) as WalkResult;
  if (!result.root) return '';
  return renderAriaYaml(buildAriaTree(result.root).children);
}
