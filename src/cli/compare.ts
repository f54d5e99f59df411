/**
 * `design-playbook-evidence compare A B` / `compare --rounds RUN_ROOT`: the
 * comparison of src/compare/run.ts from the shell. Prints a summary (or the
 * result JSON with --json) and where compare.json and the page went; exits as
 * `diff` does: 0 nothing changed, 1 something changed, 2 trouble (input that
 * cannot be compared, said on stderr; nothing is written).
 */
import { compareEvidence, exitStatusOf, type CompareInput } from '../compare/run';
import { CompareInputError } from '../compare/pairing';
import { summaryText } from '../compare/tool';
import { flagRows, flagSpec, helpRows, parseFlags, single, UsageError } from './args';
import { flagsOf } from './flags';
import { isDirectory } from '../common/files';

export const COMPARE_USAGE = `Usage:
  design-playbook-evidence compare RUN_ROOT_A RUN_ROOT_B [options]   two runs, paired by criterion and capture type
  design-playbook-evidence compare --rounds RUN_ROOT [options]       one run, each criterion's captures round by round
  design-playbook-evidence compare A B [options]                     two artifacts of one kind (.png, .probe.json, .json, .trace.zip)

Says what changed, where and in which element, and writes compare.json,
images/ and index.html (a page that opens offline) to --out, else
<run root>/compare/. Exit status: 0 no change, 1 changes, 2 trouble.
Details: docs/compare.md.

${helpRows(flagRows(flagsOf('compare', { browser: false })))}`;

/** Pairs at least this many get a progress bar on a terminal. */
const PROGRESS_FROM = 4;

function rectOf(text: string): { x: number; y: number; width: number; height: number } {
  const parts = text.split(',').map((p) => p.trim());
  const numbers = parts.map(Number);
  if (parts.length !== 4 || numbers.some((n) => !Number.isInteger(n) || n < 0) || numbers[2] < 1 || numbers[3] < 1) {
    throw new UsageError(`--ignore takes X,Y,W,H in device pixels, whole numbers, width and height at least 1 (got '${text}')`);
  }
  return { x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3] };
}

export async function runCompareCli(
  argv: string[],
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WriteStream | NodeJS.WritableStream = process.stderr,
): Promise<number> {
  const flags = parseFlags(argv, flagSpec('compare'));
  if (flags.switches.has('help')) {
    out.write(COMPARE_USAGE);
    return 0;
  }
  const rounds = flags.switches.has('rounds');
  const given = flags.positionals;
  if (rounds && given.length !== 1) throw new UsageError(`--rounds takes one RUN_ROOT, got ${given.length}${given.length ? `: ${given.join(' ')}` : ''}`);
  if (!rounds && given.length !== 2) throw new UsageError(`compare takes two run roots or two artifacts (or --rounds and one run root), got ${given.length}`);
  const thresholdText = single(flags, 'threshold');
  const threshold = thresholdText === undefined ? undefined : Number(thresholdText);
  if (threshold !== undefined && !(threshold >= 0 && threshold <= 1)) throw new UsageError(`--threshold must be a number from 0 to 1 (got '${thresholdText}')`);
  const input: CompareInput = rounds ? { rounds: given[0] } : given.every(isDirectory) ? { runs: [given[0], given[1]] } : { artifacts: [given[0], given[1]] };
  const live = (err as NodeJS.WriteStream).isTTY === true;
  const bar = (done: number, total: number) => {
    if (!live || total < PROGRESS_FROM) return;
    const width = 30;
    const filled = Math.round((done / total) * width);
    err.write(`\r\x1b[2K[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} pairs compared`);
    if (done === total) err.write('\n');
  };
  try {
    const result = await compareEvidence(input, {
      out: single(flags, 'out'),
      threshold,
      includeAA: flags.switches.has('include-aa'),
      ignoreRects: (flags.values.ignore ?? []).map(rectOf),
      ignoreSelectors: flags.values['ignore-selector'] ?? [],
      onProgress: bar,
    });
    out.write(flags.switches.has('json') ? `${JSON.stringify(result, null, 2)}\n` : `${summaryText(result)}\n`);
    return exitStatusOf(result);
  } catch (error) {
    if (error instanceof CompareInputError) {
      err.write(`compare: ${error.message}\n`);
      return 2;
    }
    err.write(`compare: the comparison failed (nothing was written): ${(error as Error).message}\n`);
    return 2;
  }
}
