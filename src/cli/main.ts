/**
 * CLI dispatch. No subcommand: serve MCP on stdio (returns undefined and the
 * process lives until input ends). Subcommands print JSON or text and return
 * an exit code. Browser flags (--executable-path, --browser-url,
 * --ws-endpoint) are accepted in every mode, server included.
 */
import { serveStdio } from '../server';
import { configureBrowser, fixedTime } from '../browser/options';
import { takeBrowserFlags, UsageError, BROWSER_FLAGS_HELP } from './args';

export interface Subcommand {
  summary: string;
  /** Loaded on use, so serving MCP loads none of the subcommands. */
  run(argv: string[]): Promise<number>;
}

/* eslint-disable @typescript-eslint/no-require-imports */
export const SUBCOMMANDS: Record<string, Subcommand> = {
  capture: {
    summary: 'capture one artifact from the shell and print the result JSON',
    run: (argv) => (require('./capture') as typeof import('./capture')).runCapture(argv),
  },
  run: {
    summary: 'run PLAN.jsonl [--run-root DIR] [--parallel N] [--skip-existing]: a capture plan in bulk, results as JSON lines',
    run: (argv) => (require('./run') as typeof import('./run')).runPlan(argv),
  },
  doctor: {
    summary: 'which browser, does it launch, where captures land',
    run: (argv) => (require('./doctor') as typeof import('./doctor')).runDoctor(argv),
  },
  demo: {
    summary: 'capture the shipped demo page into ./demo-run and print where the files are',
    run: (argv) => (require('./demo') as typeof import('./demo')).runDemo(argv),
  },
  manifest: {
    summary: 'manifest check <path> [--json]: check manifest.jsonl lines against the v1 schema',
    run: async (argv) => (require('./manifest') as typeof import('./manifest')).runManifestCli(argv),
  },
  // Further subcommands: one entry each.
};
/* eslint-enable @typescript-eslint/no-require-imports */

export function usage(): string {
  const width = Math.max(...Object.keys(SUBCOMMANDS).map((name) => name.length));
  const commands = Object.entries(SUBCOMMANDS)
    .map(([name, sub]) => `  design-playbook-evidence ${name.padEnd(width)}  ${sub.summary}`)
    .join('\n');
  return `design-playbook-evidence — evidence capture MCP server

Usage:
  design-playbook-evidence [browser flags]   serve MCP (execute_capture_plan) on stdio
${commands}
  design-playbook-evidence --help            this help (each subcommand takes --help too)

${BROWSER_FLAGS_HELP}
Environment: DESIGN_PLAYBOOK_RUN_ROOT, DESIGN_PLAYBOOK_CHROME_PATH, DESIGN_PLAYBOOK_CDP_URL,
DESIGN_PLAYBOOK_MAX_PARALLEL (default 4), DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS (default 60000),
DESIGN_PLAYBOOK_FIXED_TIME (an ISO 8601 instant: a fixed clock for every capture).
`;
}

/** Kept for callers of the foundation's name. */
export const USAGE = usage();

export async function runCli(argv: string[]): Promise<number | undefined> {
  let rest: string[];
  try {
    const taken = takeBrowserFlags(argv);
    rest = taken.rest;
    configureBrowser({
      executablePath: taken.browser['executable-path'],
      browserUrl: taken.browser['browser-url'],
      wsEndpoint: taken.browser['ws-endpoint'],
      fixedTime: taken.browser['fixed-time'],
    });
    // A malformed fixed clock stops the start (doctor reports it instead), rather than failing every capture later.
    if (taken.rest[0] !== 'doctor') {
      try {
        fixedTime();
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
    }
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${err.message}\n\n${usage()}`);
    return 2;
  }
  const [command, ...args] = rest;
  if (command === undefined) {
    await serveStdio();
    return undefined;
  }
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(usage());
    return 0;
  }
  const sub = SUBCOMMANDS[command];
  if (!sub) {
    process.stderr.write(`unknown command: ${command}\n\n${usage()}`);
    return 2;
  }
  try {
    return await sub.run(args);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${command}: ${err.message}\n`);
    return 2;
  }
}
