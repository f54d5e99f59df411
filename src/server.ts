/**
 * The MCP server: one tool, served by the active capture provider. The SDK
 * does the JSON-RPC dispatch; argument checking is executeCapturePlan's, so
 * the SDK's own argument validation is not used (its wording would replace
 * the contract's).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { executeCapturePlan } from './execute';
import { activeCaptureProvider, type CaptureProvider } from './provider';
import { SERVER_NAME } from './toolDeclaration';
import { DualFramingStdioTransport } from './transport';
import { log } from './log';

const VERSION: string = (() => {
  try {
    return require('../../package.json').version;
  } catch {
    return '0.0.0';
  }
})();

export function createServer(provider: CaptureProvider = activeCaptureProvider()): Server {
  const server = new Server(
    { name: SERVER_NAME, version: VERSION },
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
    try {
      const payload = await executeCapturePlan(args, { provider });
      return {
        content: [{ type: 'text', text: JSON.stringify(payload, null, 2) }],
        structuredContent: payload as unknown as Record<string, unknown>,
      };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (!(err instanceof Error) || err.name !== 'ToolInputError') log(`tool call failed: ${err instanceof Error ? err.stack : message}`);
      return { isError: true, content: [{ type: 'text', text: message }] };
    }
  });
  return server;
}

type ShutdownHook = () => Promise<void> | void;
const shutdownHooks: ShutdownHook[] = [];

/** Registers work to do before the process exits (closing the browser). */
export function onShutdown(hook: ShutdownHook): void {
  shutdownHooks.push(hook);
}

async function runShutdownHooks(): Promise<void> {
  await Promise.allSettled(shutdownHooks.splice(0).map((hook) => hook()));
}

/**
 * Serves MCP on stdin/stdout until end of input or a signal, then closes
 * what the provider opened and exits 0. stdout carries protocol only.
 */
export async function serveStdio(options: { provider?: CaptureProvider } = {}): Promise<void> {
  // Anything that tries to print to stdout would corrupt the protocol stream.
  console.log = (...parts: unknown[]) => log(parts.map(String).join(' '));
  console.info = console.log;
  const server = createServer(options.provider ?? activeCaptureProvider());
  const transport = new DualFramingStdioTransport();
  let exiting = false;
  const exit = async (code: number) => {
    if (exiting) return;
    exiting = true;
    await runShutdownHooks();
    process.exit(code);
  };
  transport.onclose = () => void exit(0);
  process.on('SIGTERM', () => void exit(0));
  process.on('SIGINT', () => void exit(0));
  process.stdout.on('error', () => void exit(0));
  await server.connect(transport);
  log(`serving ${SERVER_NAME} on stdio`);
}
