/**
 * The MCP server: one tool, served by the capture provider it is given. The
 * SDK does the JSON-RPC dispatch; argument checking is executeCapturePlan's,
 * so the SDK's own argument validation is not used (its wording would replace
 * the contract's). Serving on stdio and shutting down are the program's
 * (src/app/main.ts).
 *
 * Owned here: which protocol version initialize answers (a version the SDK
 * supports is echoed, any other gets the newest; none named gets what the
 * original answered), that a malformed request's params are -32602 naming
 * the field (the SDK would answer -32603 with a zod dump), and how a result
 * reaches the client (the JSON text, structuredContent, `isError: false`
 * as the original says it, and a resource_link per file written).
 *
 * A call is watched as MCP says: the SDK's request signal (aborted on
 * `notifications/cancelled` and when the transport closes) cancels the
 * capture, which then writes nothing, and the SDK sends no response for it;
 * with `_meta.progressToken` each step of the capture goes out as a
 * `notifications/progress` (its message, `progress` counting up, `total` when
 * the provider knows it).
 */
import * as path from 'path';
import { pathToFileURL } from 'url';
import { z } from 'zod';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestParamsSchema,
  ErrorCode,
  InitializeRequestParamsSchema,
  LATEST_PROTOCOL_VERSION,
  PaginatedRequestParamsSchema,
  PingRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolResult,
  type ResourceLink,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { planCapture, performCapture, type PerformedCapture, type PerformOptions } from '../boundary';
import type { CaptureProvider } from '../contract/captureProvider';
import type { CaptureFile } from '../contract/captureTypes';
import { invalidParamsMessage } from './transport';
import { COMPARE_TOOL_NAME, SERVER_NAME, withDeclarationOptions } from '../contract/toolDeclaration';
import { sessionSettings, type SessionSettings } from '../contract/sessions';
import { echoJson } from '../contract/captureContract';
import { isPlainObject } from '../contract/argumentValues';
import { dropNullKey, UNNAMED_PROTOCOL_VERSION } from '../contract/compatibility';
import { log } from '../common/log';
import { maskSecretValues, type SecretStore } from '../common/secrets';
import { packageVersion } from '../common/version';

/**
 * The version initialize answers: the client's when the SDK supports it
 * (2024-11-05 through the newest), else the newest supported, as the spec
 * asks; the original's answer when the client names none.
 */
export function negotiateProtocolVersion(requested: string | undefined): string {
  const wanted = requested ?? UNNAMED_PROTOCOL_VERSION;
  return SUPPORTED_PROTOCOL_VERSIONS.includes(wanted) ? wanted : LATEST_PROTOCOL_VERSION;
}

/** A JSON-RPC -32602 answer; the SDK sends an error's `code` and `message` as they are. */
class InvalidParams extends Error {
  readonly code = ErrorCode.InvalidParams;
}

/**
 * The request schema a handler is registered with: `params` is checked
 * against `paramsSchema` (after `normalize`) and a failure throws
 * InvalidParams naming the field. The params object itself is handed on, not
 * zod's copy, so the tool's arguments stay the very object the transport
 * parsed (src/common/pythonJson.ts marks float literals on it).
 */
function checkedRequest<M extends string>(method: M, paramsSchema: z.ZodType, normalize: (params: unknown) => unknown = (params) => params) {
  return z.object({
    method: z.literal(method),
    params: z
      .unknown()
      .optional()
      .transform((raw) => {
        const params = normalize(raw);
        const checked = paramsSchema.safeParse(params);
        if (!checked.success)
          throw new InvalidParams(
            invalidParamsMessage(
              method,
              checked.error.issues.map((issue) => ({ ...issue, path: ['params', ...issue.path] })),
            ),
          );
        return params as Record<string, unknown> | undefined;
      }),
  });
}

/** initialize: every field may be missing (the original's callers send `{protocolVersion}` alone, or no params); a present one must have its shape. */
const initializeRequest = checkedRequest('initialize', InitializeRequestParamsSchema.partial(), (params) => params ?? {});
/** tools/call: `arguments: null` reads as absent, as the original read it; the tool's arguments are the boundary's to check. */
const callToolRequest = checkedRequest('tools/call', CallToolRequestParamsSchema, (params) => {
  if (isPlainObject(params)) dropNullKey(params, 'arguments');
  return params;
});
const listToolsRequest = checkedRequest('tools/list', PaginatedRequestParamsSchema.optional());
const pingRequest = checkedRequest('ping', PingRequestSchema.shape.params);

/** A file the call wrote, as a link the client can open. */
function resourceLink(file: CaptureFile): ResourceLink {
  return { type: 'resource_link', uri: pathToFileURL(file.path).href, name: path.basename(file.path), mimeType: file.mimeType, description: file.description };
}

/** What the SDK hands a request handler besides the request (the fields a call is watched with). */
type HandlerExtra = {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number };
  sendNotification(notification: ServerNotification): Promise<void>;
};

/**
 * How one tools/call watches its capture: the request's signal, and, when the
 * call carries a progress token, a notifications/progress per step. A
 * notification that cannot be sent (the client went away) is dropped.
 */
function callOptionsOf(extra: HandlerExtra): PerformOptions & { sent: () => Promise<unknown> } {
  const progressToken = extra._meta?.progressToken;
  const pending: Array<Promise<unknown>> = [];
  // The SDK's notification takes several microtasks to reach the transport; the answer must not overtake it
  // (a client forgets a call's progress handler once its answer arrives, and would drop the commit's notice).
  const sent = () => Promise.all(pending);
  if (progressToken === undefined) return { signal: extra.signal, sent };
  return {
    signal: extra.signal,
    sent,
    onProgress: ({ message, progress, total }) => {
      const params = total === undefined ? { progressToken, progress, message } : { progressToken, progress, total, message };
      pending.push(extra.sendNotification({ method: 'notifications/progress', params }).catch(() => undefined));
    },
  };
}

const INSTRUCTIONS =
  'One tool, execute_capture_plan: writes one evidence artifact per call under <run root>/evidence/. ' +
  'Check written_path and warnings to confirm where evidence landed.';

export interface ServerOptions {
  /** Offer the opt-in compare_evidence tool too (the compareTool setting; off: tools/list is the original's one tool). */
  compareTool?: boolean;
  /** The secrets file's store (--secrets): actions may name its secrets, and the tool's schema says so. */
  secrets?: SecretStore;
  /** Where sessions come from (flags and environment); absent: the environment's. A sessions folder offers the `session` argument. */
  sessions?: SessionSettings;
}

/** The opt-in tool's module (the comparison, its images, its page) loads only when the tool is on. */
const compareTool = () => import('../compare/tool');

/** One compare_evidence call: its refusals are tool errors, as the capture tool's are; a fault is logged and answered likewise. */
async function answerCompare(args: unknown): Promise<CallToolResult> {
  try {
    return (await (await compareTool()).callCompareTool(args)) as CallToolResult;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    log(`compare_evidence failed: ${err instanceof Error ? err.stack : message}`);
    return { isError: true, content: [{ type: 'text', text: message }] };
  }
}

/** The server over `provider`: each call is planned, then performed (src/boundary/). */
export function createServer(provider: CaptureProvider, options: ServerOptions = {}): Server {
  const serverInfo = { name: SERVER_NAME, version: packageVersion() };
  const capabilities = { tools: {} };
  const server = new Server(serverInfo, { capabilities, instructions: INSTRUCTIONS });
  const sessions = options.sessions ?? sessionSettings({}, process.env);
  // `session` and the actions' `secret` are offered only when a sessions folder and a secrets file make them usable.
  const declare = () => withDeclarationOptions(provider.describe(), { sessions: !!sessions.sessionsDir, secrets: !!options.secrets });
  // Answered here, as the SDK's own initialize answers, with the negotiated version. The client's capabilities are
  // not recorded (the SDK keeps them privately): this server sends the client no request that would need them.
  server.setRequestHandler(initializeRequest, async (request) => {
    const params = request.params ?? {};
    const requested = typeof params.protocolVersion === 'string' ? params.protocolVersion : undefined;
    return { protocolVersion: negotiateProtocolVersion(requested), capabilities, serverInfo, instructions: INSTRUCTIONS };
  });
  server.setRequestHandler(pingRequest, async () => ({}));
  server.setRequestHandler(listToolsRequest, async () => ({
    tools: options.compareTool ? [declare(), (await compareTool()).compareToolDeclaration()] : [declare()],
  }));
  server.setRequestHandler(callToolRequest, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params as { name: string; arguments?: unknown };
    if (options.compareTool && name === COMPARE_TOOL_NAME) return answerCompare(args);
    if (name !== provider.toolName) return { isError: true, content: [{ type: 'text', text: `unknown tool: ${name}` }] };
    let outcome: PerformedCapture;
    try {
      const planned = planCapture(args, process.env, { secrets: options.secrets, sessions });
      // The boundary's refusal of the arguments is a tool error; every other outcome is a payload.
      if (planned.kind === 'input') return { isError: true, content: [{ type: 'text', text: planned.message }] };
      if (planned.kind === 'plan') {
        const options = callOptionsOf(extra);
        outcome = await performCapture(planned, provider, options);
        await options.sent();
      } else {
        outcome = { result: planned.result, written: [] };
      }
    } catch (err) {
      // Not a refusal: something broke. Logged for the operator, answered as a tool error.
      // No secret's value in the log or the answer, whatever the fault quoted.
      const message = maskSecretValues(err instanceof Error ? err.message : String(err), options.secrets);
      log(`tool call failed: ${maskSecretValues(err instanceof Error ? (err.stack ?? message) : message, options.secrets)}`);
      return { isError: true, content: [{ type: 'text', text: message }] };
    }
    return {
      content: [{ type: 'text', text: echoJson(outcome.result, 2) }, ...outcome.written.map(resourceLink)],
      structuredContent: outcome.result as unknown as Record<string, unknown>,
      isError: false,
    };
  });
  return server;
}
