/**
 * The MCP server: one tool, served by the capture provider it is given. The
 * SDK does the JSON-RPC dispatch; argument checking is executeCapturePlan's,
 * so the SDK's own argument validation is not used (its wording would replace
 * the contract's). Serving on stdio and shutting down are the program's
 * (src/main.ts).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { runBoundary, type BoundaryOutcome } from './execute';
import type { CaptureProvider } from './provider';
import { SERVER_NAME } from './toolDeclaration';
import { log } from './log';
import { packageVersion } from './version';

/**
 * `execute` runs one call through the boundary (the program passes its own:
 * src/main.ts).
 */
export function createServer(
  provider: CaptureProvider,
  execute: (args: unknown) => Promise<BoundaryOutcome> = (args) => runBoundary(args, { provider }),
): Server {
  const server = new Server(
    { name: SERVER_NAME, version: packageVersion() },
    {
      capabilities: { tools: {} },
      instructions:
        'One tool, execute_capture_plan: writes one evidence artifact per call under <run root>/evidence/. ' +
        'Check written_path and warnings to confirm where evidence landed.',
    },
  );
  // Existing callers expect their protocolVersion echoed back.
  const sdkInitialize = (server as unknown as { _oninitialize(r: unknown): Promise<Record<string, unknown>> })._oninitialize.bind(server);
  server.setRequestHandler(InitializeRequestSchema, async (request) => {
    const result = await sdkInitialize(request);
    if (typeof request.params?.protocolVersion === 'string') result.protocolVersion = request.params.protocolVersion;
    return result as never;
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [provider.describe()] }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    if (name !== provider.toolName) return { isError: true, content: [{ type: 'text', text: `unknown tool: ${name}` }] };
    let outcome: BoundaryOutcome;
    try {
      outcome = await execute(args);
    } catch (err) {
      // Not a refusal: something broke. Logged for the operator, answered as a tool error.
      const message = err instanceof Error ? err.message : String(err);
      log(`tool call failed: ${err instanceof Error ? err.stack : message}`);
      return { isError: true, content: [{ type: 'text', text: message }] };
    }
    // The boundary's refusal of the arguments is a tool error; every other outcome is a payload.
    if (outcome.kind === 'input') return { isError: true, content: [{ type: 'text', text: outcome.message }] };
    return {
      content: [{ type: 'text', text: JSON.stringify(outcome.result, null, 2) }],
      structuredContent: outcome.result as unknown as Record<string, unknown>,
    };
  });
  return server;
}
