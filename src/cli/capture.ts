/**
 * `design-playbook-evidence capture`: one capture from the shell, through the
 * same boundary as the MCP tool (executeCapturePlan). Prints the result
 * payload as JSON; exits 0 when captured, 1 when failed, 2 on a usage or
 * argument error.
 */
import * as path from 'path';
import type { Program } from './program';
import { echoJson } from '../contract/captureContract';
import { ToolInputError } from '../common/errors';
import { flagHelp, flagSpec, parseFlags, single, UsageError, BROWSER_FLAGS_HELP } from './args';
import { flagsOf } from './flags';

export const CAPTURE_USAGE = `Usage: design-playbook-evidence capture --url URL --out evidence/NAME [options]

Captures one artifact and prints the result payload (JSON) on stdout.
Exit status: 0 captured, 1 failed, 2 usage or argument error.

${flagHelp(flagsOf('capture', { browser: false }))}
${BROWSER_FLAGS_HELP}`;

const SPEC = flagSpec('capture');

export function parseViewportFlag(text: string): { width: number; height: number; devicePixelRatio: number } {
  const match = /^\s*(\d+)\s*[xX×]\s*(\d+)\s*(?:@\s*([0-9]*\.?[0-9]+)\s*x?)?\s*$/.exec(text);
  if (!match) throw new UsageError(`--viewport must look like 1280x800 or 1280x800@2 (got '${text}')`);
  return { width: Number(match[1]), height: Number(match[2]), devicePixelRatio: match[3] ? Number(match[3]) : 1 };
}

function parseJson(flag: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--${flag} is not valid JSON (${(err as Error).message}): ${text}`);
  }
}

/** The tool arguments a capture command line stands for. */
export function captureArguments(argv: string[]): Record<string, unknown> {
  const flags = parseFlags(argv, SPEC);
  if (flags.positionals.length) throw new UsageError(`unexpected argument '${flags.positionals[0]}'`);
  const url = single(flags, 'url');
  const out = single(flags, 'out');
  if (!url) throw new UsageError('--url is required');
  if (!out) throw new UsageError('--out is required (an artifact path under evidence/, e.g. evidence/home.png)');
  const actions: unknown[] = [];
  for (const text of flags.values.action ?? []) {
    const value = parseJson('action', text);
    if (Array.isArray(value)) actions.push(...value);
    else actions.push(value);
  }
  const viewport = {
    ...parseViewportFlag(single(flags, 'viewport') ?? '1280x800@1'),
    colorScheme: single(flags, 'color-scheme') ?? 'light',
  };
  const args: Record<string, unknown> = {
    schemaVersion: 1,
    url,
    type: single(flags, 'type') ?? 'screenshot',
    state: single(flags, 'state') ?? 'default',
    actions,
    artifact_path: out,
    viewport,
    freeze: { enabled: !flags.switches.has('no-freeze'), waitFonts: !flags.switches.has('no-wait-fonts'), networkIdle: flags.switches.has('network-idle') },
  };
  const session = single(flags, 'session');
  if (session !== undefined) args.session = session;
  if (flags.switches.has('overwrite')) args.overwrite = true;
  const runRoot = single(flags, 'run-root');
  if (runRoot !== undefined) args.run_root = path.resolve(runRoot);
  const design = single(flags, 'design');
  if (design !== undefined) args.design = parseJson('design', design);
  return args;
}

export async function runCapture(argv: string[], program: Program): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(CAPTURE_USAGE);
    return 0;
  }
  let args: Record<string, unknown>;
  try {
    args = captureArguments(argv);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`capture: ${err.message}\n\n${CAPTURE_USAGE}`);
      return 2;
    }
    throw err;
  }
  try {
    const payload = await program.executeCapturePlan(args);
    process.stdout.write(echoJson(payload, 2) + '\n');
    return payload.result === 'captured' ? 0 : 1;
  } catch (err) {
    if (err instanceof ToolInputError) {
      process.stderr.write(`capture: ${err.message}\n`);
      return 2;
    }
    throw err;
  } finally {
    await program.close();
  }
}
