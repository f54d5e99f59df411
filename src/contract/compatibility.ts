/**
 * What this server keeps of the original adapter (the Python MCP server the
 * seed describes) that a design of its own would not choose, and why: each
 * is something callers written against the original already depend on.
 * Kept here:
 *
 * - an `initialize` that names no protocolVersion (the original's callers
 *   send `{protocolVersion}` alone, or no params) is answered with the
 *   version the original answered, UNNAMED_PROTOCOL_VERSION;
 * - `params: null` on a JSON-RPC message, and `arguments: null` on
 *   tools/call, read as absent (the original's reader treated them so),
 *   through `dropNullKey`;
 * - a message without `jsonrpc` is taken as 2.0 (ASSUMED_JSONRPC_VERSION).
 *
 * Kept where the rule they belong to lives (each names this module):
 *
 * - integers and floats as Python's json reads and writes them: `1.0` is
 *   refused where an integer is required, and the request echo writes
 *   `devicePixelRatio` as `1.0` (src/common/pythonJson.ts, FLOAT_KEYS in
 *   src/contract/captureContract.ts);
 * - a refused value quoted as Python's repr quotes it (`'x'`, `True`,
 *   `None`, `1.0`: describeValue, src/contract/argumentValues.ts), and the
 *   colour schemes listed sorted, as the original's enum lists them;
 * - a refusal of the arguments themselves is a tool error (`isError: true`,
 *   the original raised), every later failure a `failed` payload, and a
 *   payload says `isError: false` (ToolInputError, src/common/errors.ts;
 *   src/mcp/server.ts);
 * - the action aliases (`text` for fill/type's `value`, `value` for press's
 *   `key`, `timeout_ms` for wait/sleep's `ms`) and wait_for_state's
 *   `SEL[data-state="S"]` concatenation for a CSS selector
 *   (src/contract/actions.ts);
 * - name-based provider discovery, which the seed promises under
 *   `probe_capture_provider`: `probeCaptureProvider` (src/app/main.ts);
 * - in-process adapters written against `capture_and_probe`
 *   (`captureAndProbe`, its outcome's names) and the seed's rule that a
 *   bound call to one that predates `design` fails closed
 *   (src/app/inProcessAdapter.ts).
 */

/** What the original answered to an initialize that names no protocolVersion. */
export const UNNAMED_PROTOCOL_VERSION = '2024-11-05';

/** The JSON-RPC version a message that names none is taken to speak. */
export const ASSUMED_JSONRPC_VERSION = '2.0';

/** Removes `key` from `record` when its value is null (the original read a null as the key left out). */
export function dropNullKey(record: Record<string, unknown>, key: string): void {
  if (record[key] === null) delete record[key];
}
