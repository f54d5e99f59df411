/**
 * In-page entry: the aria snapshot's DOM walk. Bundled into a string at build
 * time (scripts/build-injected.js → cdp/generated/ariaWalk.ts) and evaluated in
 * an isolated world by cdp/ariaSnapshot.ts.
 */
import { walkDocumentInPage } from './aria/domWalk';

/** The walk, serialized in the page: returning a large nested object by value is several times slower than a string of it. */
export function walkDocumentJson(): string {
  return JSON.stringify(walkDocumentInPage());
}
