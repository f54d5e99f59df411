/** The trace viewer's node encoding: text, or [name, attributes, ...children]. */
export type EncodedNode = string | [string, Record<string, string>, ...EncodedNode[]];
