/**
 * In-page entry: the part of the runtime (runtime.ts) a trace snapshot calls
 * in a frame no selector runs in (a subframe): the frame serializer and the
 * frame-owner lookup, about 4 KB instead of the whole runtime's 58 KB.
 * cdp/utilityWorld.ts picks the part by the method called.
 */
export { frameOwner, serializeTraceFrame } from './runtime';
