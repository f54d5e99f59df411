/**
 * The CLI's subcommands and their dispatch. Each prints JSON or text and
 * returns an exit code. Serving MCP (no subcommand) and the browser flags
 * every mode accepts are the program's (src/app/main.ts), which hands each
 * subcommand the Program it built.
 */
import type { Program } from './program';
import { UsageError, BROWSER_FLAGS_HELP, flagRows, helpRows } from './args';
import { ENVIRONMENT, type EnvSetting } from '../common/settings';
import { flagsOf, isFlag } from './flags';
import { packageVersion } from '../common/version';

export interface Subcommand {
  summary: string;
  /** Loaded on use, so serving MCP loads none of the subcommands (doctor loads the browser code). */
  run(argv: string[], program: Program): Promise<number>;
}

export const SUBCOMMANDS: Record<string, Subcommand> = {
  capture: {
    summary: 'capture one artifact from the shell and print the result JSON',
    run: async (argv, program) => (await import('./capture')).runCapture(argv, program),
  },
  run: {
    summary: 'run PLAN.jsonl [--run-root DIR] [--parallel N] [--skip-existing]: a capture plan in bulk, results as JSON lines',
    run: async (argv, program) => (await import('./run')).runPlan(argv, program),
  },
  stories: {
    summary: 'stories SOURCE [--run --out RUN_ROOT] [--baseline RUN]: every story of a Storybook as a capture plan, run, compared',
    run: async (argv, program) => (await import('./stories')).runStoriesCli(argv, program),
  },
  doctor: {
    summary: 'which browser, does it launch, where captures land',
    run: async (argv, program) => (await import('./doctor')).runDoctor(argv, program),
  },
  demo: {
    summary: 'capture the shipped demo page into ./demo-run and print where the files are',
    run: async (argv, program) => (await import('./demo')).runDemo(argv, program),
  },
  manifest: {
    summary: 'manifest check <path> [--json]: check manifest.jsonl lines against the v1 schema',
    run: async (argv) => (await import('./manifest')).runManifestCli(argv),
  },
  report: {
    summary: 'report [RUN_ROOT] [--out DIR]: build the static HTML run report and print where it is',
    run: async (argv) => (await import('./report')).runReportCli(argv),
  },
  compare: {
    summary: 'compare RUN_A RUN_B | --rounds RUN | A B: what changed, where, in which element (exit 0, 1 changed, 2 trouble)',
    run: async (argv) => (await import('./compare')).runCompareCli(argv),
  },
  login: {
    summary: "login --url URL [--action JSON]... --save-storage FILE: sign in headless, save the state in Playwright's storageState format",
    run: async (argv, program) => (await import('./login')).runLogin(argv, program),
  },
  // Further subcommands: one entry each.
};

export function usage(): string {
  const width = Math.max(...Object.keys(SUBCOMMANDS).map((name) => name.length));
  const commands = Object.entries(SUBCOMMANDS)
    .map(([name, sub]) => `  design-playbook-evidence ${name.padEnd(width)}  ${sub.summary}`)
    .join('\n');
  return `design-playbook-evidence — evidence capture MCP server

Usage:
  design-playbook-evidence [browser flags] [--compare-tool]   serve MCP (execute_capture_plan) on stdio
${commands}
  design-playbook-evidence --help            this help (each subcommand takes --help too; also -h)
  design-playbook-evidence --version         the package version (also -v)

${BROWSER_FLAGS_HELP}
Serving:
${helpRows(flagRows(flagsOf('serve', { browser: false }).filter((f) => !['help', 'version'].includes(f.name))))}

Environment (flags outrank it; \`doctor\` shows what is in force):
${environmentHelp()}`;
}

/** One line per environment variable: its name, then what it does and its default. */
function environmentHelp(): string {
  const settings: EnvSetting[] = Object.values(ENVIRONMENT);
  return helpRows(settings.map((e) => [e.name, `${e.meaning.replace(/`/g, '')}${e.default ? ` (default: ${e.default})` : ''}`]));
}

/** Kept for callers of the foundation's name. */
export const USAGE = usage();

/** Runs the subcommand `rest` names (the browser flags already taken out); returns the exit code. */
export async function runCommand(rest: string[], program: Program): Promise<number> {
  const [command, ...args] = rest;
  if (isFlag(command, 'help') || command === 'help') {
    process.stdout.write(usage());
    return 0;
  }
  if (isFlag(command, 'version')) {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  const sub = SUBCOMMANDS[command];
  if (!sub) {
    process.stderr.write(`unknown command: ${command}\n\n${usage()}`);
    return 2;
  }
  try {
    return await sub.run(args, program);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${command}: ${err.message}\n`);
    return 2;
  }
}
