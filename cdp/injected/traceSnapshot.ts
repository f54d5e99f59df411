/**
 * In-page entry: the trace snapshot's frame serializer. Bundled into a string
 * at build time (scripts/build-injected.js → cdp/generated/traceSnapshot.ts)
 * and evaluated in an isolated world of each frame by cdp/trace/snapshotter.ts.
 */
import { serializeFrame, type SerializeOptions } from './trace/serializeFrame';

/** One JSON string crosses the protocol much faster than a deep object. */
export function serializeFrameJson(options: SerializeOptions, targetElement?: Element | null): string {
  return JSON.stringify(serializeFrame(options, targetElement));
}
