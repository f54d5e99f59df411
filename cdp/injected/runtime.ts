/**
 * In-page entry: the one runtime our Node code calls in a page — Playwright's
 * selector engine and actionability checks (selectors/), the aria snapshot's
 * DOM walk (aria/) and the trace snapshot's frame serializer (trace/).
 * scripts/build-injected.js bundles it into cdp/generated/runtime.ts; the
 * utility world (cdp/utilityWorld.ts) installs it once per isolated world
 * of a frame and calls these exports by name, typed from this module
 * (`PageRuntime`). The virtual clock is not here: it runs in the page's main
 * world (virtualClock.ts).
 *
 * Results are data: elements (handed back as remote objects), JSON values,
 * and typed codes saying what is wrong (`{code: 'not-visible', preview}`);
 * the sentences a caller reads are written on the Node side. A large result
 * crosses as one JSON string (`Json<T>`), which is several times faster than
 * a deep object returned by value.
 */
import { walkDocumentInPage, type WalkResult } from './aria/domWalk';
import { serializeFrame, type SerializedFrame, type SerializeOptions } from './trace/serializeFrame';

export { actionTarget, clickPoint, clickPointAfterFrame, count, dataStates, describeNearMisses, prepareTarget, queryFirst } from './selectors/engine';
export { focusTarget, prepareFill, selectOption } from './selectors/actionability';
export { frameOwner } from './trace/serializeFrame';

/** A JSON string known to encode a T (the Node side parses it back as one). */
export type Json<T> = string & { readonly __json?: T };

/** The aria snapshot's walk of the document (cdp/aria/tree.ts builds the snapshot from it). */
export function ariaWalk(): Json<WalkResult> {
  return JSON.stringify(walkDocumentInPage());
}

/** The trace snapshot of this frame; `targetElement` is the action's element when the caller resolved it (else null). */
export function serializeTraceFrame(targetElement: Element | null, options: SerializeOptions): Json<SerializedFrame> {
  return JSON.stringify(serializeFrame(options, targetElement));
}
