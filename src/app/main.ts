/**
 * The composition root: the one place the program is put together and the
 * only module that holds process-wide state. It builds
 *   options (browser flags from the command line, the environment)
 *   -> providers (the registry; its bundled default owns the browser session)
 *   -> the boundary over the active provider (executeCapturePlan)
 *   -> the MCP server on stdio, or a CLI subcommand
 *   -> shutdown: close() on the providers, then exit.
 * Everything below it takes what it needs as arguments.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CaptureProvider } from '../contract/captureProvider';
import { browserSessionMode, fixedTime, type BrowserFlags } from '../browser/options';
import { ProviderRegistry, createLazyPuppeteerProvider } from './providerRegistry';
import { executeCapturePlan as executeWithProvider, type PerformOptions } from '../boundary';
import type { CaptureResult } from '../contract/result';
import { createServer as createServerFor } from '../mcp/server';
import { DualFramingStdioTransport } from '../mcp/transport';
import { SHUTDOWN_REPLY_MS, withDeadline } from '../common/time';
import { sweepStaleProfiles, sweepStaleSingletonFolders, SINGLETON_PREFIX } from '../browser/fleet/profiles';
import { SERVER_NAME } from '../contract/toolDeclaration';
import { browserFlagsFrom, takeBrowserFlags, UsageError } from '../cli/args';
import { runCommand, usage } from '../cli/commands';
import type { Program, ProgramStart } from '../cli/program';
import { log } from '../common/log';
import { envValue, ENVIRONMENT } from '../common/settings';
import { loadSecrets, SecretsFileError, type SecretStore } from '../common/secrets';
import { sessionSettings, type SessionSettings } from '../contract/sessions';

/** Browser flags from the command line; read whenever the bundled provider starts a browser. */
let browserFlags: BrowserFlags = {};
/** The secrets file's names and values (--secrets, else DESIGN_PLAYBOOK_SECRETS), read once at start; undefined: none configured. */
let secrets: SecretStore | undefined;
/** How the bin loaded the program (runMain's caller says). */
let programStart: ProgramStart | undefined;

const providers = new ProviderRegistry(() => createLazyPuppeteerProvider({ flags: () => browserFlags }));

/** Makes `provider` the one the server advertises and calls (call before serving). */
export function registerCaptureProvider(provider: CaptureProvider): void {
  providers.register(provider);
}

/** Forgets registered providers (tests). */
export function clearCaptureProviders(): void {
  providers.clear();
}

/** The provider the server serves: the last registered, else the bundled one. */
export function activeCaptureProvider(): CaptureProvider {
  return providers.active();
}

/** The provider that serves `toolName` (the bundled one answers `execute_capture_plan`), or undefined. */
export function findCaptureProvider(toolName: string): CaptureProvider | undefined {
  return providers.find(toolName);
}

/**
 * findCaptureProvider under the name the seed promises for name-based
 * discovery (`probe_capture_provider`), kept for callers written against it
 * (src/contract/compatibility.ts lists what is kept of the original).
 */
export const probeCaptureProvider = findCaptureProvider;

/**
 * The boundary every capture passes (src/boundary/), over the active
 * provider unless the caller names one; `signal` cancels the call (nothing
 * is written), `onProgress` hears each step.
 */
export function executeCapturePlan(
  args: unknown,
  options: { provider?: CaptureProvider; env?: NodeJS.ProcessEnv; secrets?: SecretStore; sessions?: SessionSettings } & PerformOptions = {},
): Promise<CaptureResult> {
  return executeWithProvider(args, {
    secrets,
    sessions: sessionSettings(browserFlags, options.env ?? process.env),
    ...options,
    provider: options.provider ?? providers.active(),
  });
}

/**
 * Reads the secrets file the flags or the environment name (--secrets
 * outranks DESIGN_PLAYBOOK_SECRETS); a file others may read is warned about
 * on stderr. Throws SecretsFileError (its line, never a value).
 */
function loadConfiguredSecrets(flags: BrowserFlags, env: NodeJS.ProcessEnv = process.env): SecretStore | undefined {
  const fromEnv = envValue(env, 'secrets');
  const file = flags.secrets ?? (fromEnv !== undefined && fromEnv.trim() !== '' ? fromEnv.trim() : undefined);
  if (file === undefined) return undefined;
  return loadSecrets(file, log);
}

/** Serve the opt-in compare_evidence tool too: `--compare-tool`, else DESIGN_PLAYBOOK_COMPARE_TOOL=1. */
let compareToolFlag = false;

function compareToolOn(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = envValue(env, 'compareTool');
  return compareToolFlag || (value !== undefined && ['1', 'true', 'yes', 'on'].includes(value.trim().toLowerCase()));
}

/** The MCP server over `provider` (default: the active one); `compareTool` and `secrets` default to the settings. */
export function createServer(provider: CaptureProvider = providers.active(), options: { compareTool?: boolean; secrets?: SecretStore } = {}): Server {
  return createServerFor(provider, {
    compareTool: options.compareTool ?? compareToolOn(),
    secrets: options.secrets ?? secrets,
    sessions: sessionSettings(browserFlags, process.env),
  });
}

/**
 * Closes the bundled provider's browser, for library users who capture with
 * executeCapturePlan without serving (the server closes it on exit itself).
 * Nothing happens when no capture made one.
 */
export async function closeBundledBrowser(): Promise<void> {
  await providers.closeBundled();
}

/**
 * Serves MCP on stdin/stdout until end of input or a signal, then closes
 * what the providers opened and exits 0. stdout carries protocol only.
 */
export async function serveStdio(options: { provider?: CaptureProvider } = {}): Promise<void> {
  // Anything that tries to print to stdout would corrupt the protocol stream.
  console.log = (...parts: unknown[]) => log(parts.map(String).join(' '));
  console.info = console.log;
  const provider = options.provider ?? providers.active();
  const server = createServer(provider);
  const transport = new DualFramingStdioTransport();
  let exiting = false;
  const exit = async (code: number) => {
    if (exiting) return;
    exiting = true;
    // Closing the providers ends the captures in flight: each is answered `failed` with
    // "the server is shutting down" (ShutdownError) and leaves nothing behind; those replies
    // go out before the process exits.
    await Promise.allSettled([providers.closeAll(), options.provider?.close?.()]);
    await withDeadline(transport.whenIdle(), SHUTDOWN_REPLY_MS, 'the replies to calls in flight').catch(() => undefined);
    await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
    process.exit(code);
  };
  transport.onclose = () => void exit(0);
  process.on('SIGTERM', () => void exit(0));
  process.on('SIGINT', () => void exit(0));
  process.stdout.on('error', () => void exit(0));
  await server.connect(transport);
  log(`serving ${SERVER_NAME} on stdio`);
  // Off the start-up path: the server already answers while the temp folder is swept.
  setImmediate(() => void sweepTempFolder());
}

/**
 * Removes what killed servers and browsers left in the temp folder: profile
 * folders whose owner is gone, and Chromium singleton folders no live
 * browser uses (src/browser/fleet/profiles.ts says how each is told).
 */
async function sweepTempFolder(): Promise<void> {
  const plural = (n: number) => (n === 1 ? '' : 's');
  try {
    const profiles = await sweepStaleProfiles();
    if (profiles.length) log(`removed ${profiles.length} stale browser profile folder${plural(profiles.length)} left by a server that was killed`);
    const singletons = await sweepStaleSingletonFolders();
    if (singletons.length)
      log(`removed ${singletons.length} stale Chromium singleton folder${plural(singletons.length)} (${SINGLETON_PREFIX}*) left by a browser that was killed`);
  } catch {
    // a sweep that fails leaves things as they were; the next start tries again
  }
}

/** What the CLI subcommands get: the boundary over the active provider, the flags, and closing. */
const program: Program = {
  executeCapturePlan: (args) => executeCapturePlan(args),
  get browserFlags() {
    return browserFlags;
  },
  configureBrowser(flags) {
    browserFlags = { ...flags };
  },
  activeProvider: () => providers.active(),
  get secrets() {
    return secrets;
  },
  close: () => providers.closeAll(),
  get start() {
    return programStart;
  },
  signIn: async (url, actions, startState, headed) => {
    const store = secrets;
    return (await import('../browser/capture/signIn')).signIn({
      url,
      actions,
      flags: browserFlags,
      env: process.env,
      ...(startState ? { startState } : {}),
      ...(store ? { secretValue: (name: string) => store.value(name) } : {}),
      ...(headed ? { headed: true, until: headed.until } : {}),
    });
  },
};

/**
 * The bin's entry. Browser flags are taken out of argv in every mode; no
 * subcommand serves MCP (returns undefined: the process lives until input
 * ends); a subcommand returns its exit code. `start` is how the bin loaded
 * the program (doctor reports it).
 */
export async function runMain(argv: string[], start?: ProgramStart): Promise<number | undefined> {
  programStart = start;
  let rest: string[];
  try {
    const taken = takeBrowserFlags(argv);
    rest = taken.rest;
    browserFlags = browserFlagsFrom(taken.browser);
    // A malformed fixed clock stops the start (doctor reports it instead), rather than failing every capture later.
    if (taken.rest[0] !== 'doctor') {
      try {
        fixedTime(browserFlags);
        // --browser-session without an attached browser, or --auto-connect beside an address, stops the start too.
        browserSessionMode(browserFlags);
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
    }
    try {
      secrets = loadConfiguredSecrets(browserFlags);
    } catch (err) {
      if (!(err instanceof SecretsFileError)) throw err;
      const source = browserFlags.secrets !== undefined ? '--secrets' : ENVIRONMENT.secrets.name;
      throw new UsageError(`${source}: ${err.message}`);
    }
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${err.message}\n\n${usage()}`);
    return 2;
  }
  // The one serving flag that is not a browser flag.
  if (rest.includes('--compare-tool') && rest.every((arg) => arg === '--compare-tool')) {
    compareToolFlag = true;
    rest = [];
  }
  if (rest.length === 0) {
    await serveStdio();
    return undefined;
  }
  return runCommand(rest, program);
}
