/**
 * `design-playbook-evidence run PLAN.jsonl`: a capture plan in bulk. Each
 * line is one execute_capture_plan call, judged by the tool's own boundary.
 * stdout: one JSON line per plan line as it finishes (`{"line": N, ...the
 * tool's payload}`), then `{"summary": {...}}`. stderr: progress.
 * Exit status: 0 every line captured (or skipped), 1 some failed, 2 the plan
 * or the command line could not be read, 130 interrupted.
 */
import * as path from 'path';
import { flagRows, flagSpec, helpRows, parseFlags, single, UsageError, BROWSER_FLAGS_HELP } from './args';
import { ENVIRONMENT } from '../common/settings';
import { flagsOf } from './flags';
import { readPlan, PlanUnreadable } from '../batch/planFile';
import { PlanRunner, type BatchSummary, type LineResult } from '../batch/runner';
import { ProgressReporter, formatDuration } from '../batch/progress';
import { resolveRunRoot } from '../boundary/runRoot';
import { echoJson } from '../contract/captureContract';
import { sessionSettings } from '../contract/sessions';
import { ABANDON_GRACE_MS, ABANDON_POLL_MS, LINGER_AFTER_SUMMARY_MS } from '../common/time';
import { attachTargets, maxParallel } from '../browser/options';
import type { Program } from './program';

export const RUN_USAGE = `Usage: design-playbook-evidence run PLAN.jsonl [--run-root DIR] [--parallel N] [--skip-existing]

Runs a capture plan: one execute_capture_plan argument object per line, each
checked exactly as the tool checks it. A bad line is reported with its line
number and the rest still run. Never writes manifest.jsonl.

stdout   one JSON line per plan line, in the order they finish:
           {"line": N, ...the tool's result payload}
         (a refusal the tool reports as an error carries "isError": true;
         a skipped line has "result": "skipped"), then a last line
           {"summary": {lines, captured, failed, skipped, not_run, interrupted, ...}}
stderr   progress: a live line on a terminal, else a plain line every few seconds

${helpRows([['PLAN.jsonl', "the plan file ('-' reads standard input)"], ...flagRows(flagsOf('run', { browser: false }))])}
Ctrl-C stops starting new lines and lets the captures in flight finish; a
second Ctrl-C abandons them (nothing partial is written); a third leaves at
once (lines still in flight count as not run). The summary is printed each
time.

Two lines that would write the same file (the same artifact once the tool
has resolved it, or a screenshot's probe sidecar) are a plan error: the
first keeps it, each later one is refused with both line numbers before any
capture starts. With --skip-existing a screenshot counts as there only when
its .probe.json sidecar is there too.

Exit status: 0 every line captured or skipped, 1 some failed, 2 the plan
could not be read (or a usage error), 130 interrupted.

${BROWSER_FLAGS_HELP}`;

const SPEC = flagSpec('run');

export const EXIT_INTERRUPTED = 130;

function parseParallel(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\s*\d+\s*$/.test(text) || !Number.isInteger(value) || value < 1) throw new UsageError(`--parallel must be a positive integer (got '${text}')`);
  return value;
}

/** The run root a line without run_root uses, checked by the same rule as the tool's run_root. */
function runRootEnv(dir: string | undefined): NodeJS.ProcessEnv {
  if (dir === undefined) return process.env;
  const absolute = path.resolve(dir);
  const checked = resolveRunRoot(absolute, process.env);
  if (!checked.ok) throw new UsageError(`--run-root: ${checked.error}`);
  return { ...process.env, [ENVIRONMENT.runRoot.name]: checked.root };
}

function exitStatus(summary: BatchSummary): number {
  if (summary.interrupted) return EXIT_INTERRUPTED;
  return summary.failed > 0 ? 1 : 0;
}

function humanSummary(summary: BatchSummary): string {
  const parts = [`${summary.captured} captured`, `${summary.failed} failed`];
  if (summary.skipped) parts.push(`${summary.skipped} skipped`);
  if (summary.not_run) parts.push(`${summary.not_run} not run`);
  const failedLines = summary.failed_lines.length ? `; failed lines: ${summary.failed_lines.join(', ')}` : '';
  const head = summary.interrupted ? 'interrupted' : 'done';
  return `${head}: ${summary.lines} lines, ${parts.join(', ')} in ${formatDuration(summary.seconds)} (${summary.captures_per_second} captures/s)${failedLines}`;
}

export async function runPlan(argv: string[], program: Program): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(RUN_USAGE);
    return 0;
  }
  let lines;
  let env: NodeJS.ProcessEnv;
  let concurrency: number;
  let skipExisting: boolean;
  try {
    const flags = parseFlags(argv, SPEC);
    if (flags.positionals.length !== 1)
      throw new UsageError(flags.positionals.length ? `one plan file, not ${flags.positionals.length}` : 'the plan file is required: run PLAN.jsonl');
    const given = parseParallel(single(flags, 'parallel'));
    if (given !== undefined) program.configureBrowser({ ...program.browserFlags, parallel: given });
    // Enough lines in flight to keep every browser of the pool at its limit.
    let browsers: number;
    try {
      browsers = Math.max(1, attachTargets(program.browserFlags, process.env).length);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    concurrency = maxParallel(process.env, program.browserFlags) * browsers;
    skipExisting = flags.switches.has('skip-existing');
    env = runRootEnv(single(flags, 'run-root'));
    lines = readPlan(flags.positionals[0]);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`run: ${err.message}\n\n${RUN_USAGE}`);
      return 2;
    }
    if (err instanceof PlanUnreadable) {
      process.stderr.write(`run: ${err.message}\n`);
      return 2;
    }
    throw err;
  }

  // A reader that went away (`| head`) must not crash the command.
  process.stdout.on('error', () => undefined);
  const stdoutIsStderr = !!process.stdout.isTTY && !!process.stderr.isTTY;
  let progress: ProgressReporter | null = null;
  const runner = new PlanRunner(lines, {
    concurrency,
    skipExisting,
    provider: program.activeProvider(),
    env,
    secrets: program.secrets,
    sessions: sessionSettings(program.browserFlags, process.env),
    onResult(result: LineResult) {
      // On one terminal the live line is lifted off before a result is printed, then drawn again.
      if (stdoutIsStderr) progress?.clear();
      process.stdout.write(echoJson(result) + '\n');
      progress?.update();
    },
  });
  progress = new ProgressReporter(process.stderr, runner);

  let summaryPrinted = false;
  const printSummary = (summary: BatchSummary) => {
    if (summaryPrinted) return;
    summaryPrinted = true;
    process.stdout.write(JSON.stringify({ summary }) + '\n');
    process.stderr.write(`${humanSummary(summary)}\n`);
  };

  let abandonedAt: Promise<void> | null = null;
  let interrupts = 0;
  const abandon = (why: string) => {
    if (abandonedAt) return;
    const inFlight = runner.counts().inFlight;
    progress?.note(`${why}: abandoning ${inFlight} capture${inFlight === 1 ? '' : 's'} in flight (nothing partial is written)`);
    runner.abandon();
    // Closing the browsers makes the captures in flight fail now; the runtime discards what they staged.
    abandonedAt = program.close().catch(() => undefined);
  };
  const onInterrupt = () => {
    interrupts++;
    if (interrupts === 1) {
      runner.stop();
      const inFlight = runner.counts().inFlight;
      progress?.note(`interrupted: starting no new line; waiting for ${inFlight} capture${inFlight === 1 ? '' : 's'} in flight (Ctrl-C again to abandon them)`);
    } else if (interrupts === 2) abandon('interrupted again');
    else {
      // A third Ctrl-C leaves now; what finished is already on stdout, and the summary still goes out.
      const inFlight = runner.counts().inFlight;
      progress?.note(
        `interrupted a third time: leaving now${inFlight ? ` without waiting for ${inFlight} capture${inFlight === 1 ? '' : 's'} in flight (counted as not run; nothing partial is written)` : ''}`,
      );
      progress?.finish();
      printSummary(runner.summary());
      process.exit(EXIT_INTERRUPTED);
    }
  };
  const onTerminate = () => abandon('terminated');
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onTerminate);

  let summary: BatchSummary;
  let graceRanOut = false;
  try {
    const finished = runner.run();
    // After abandoning, the summary does not wait on a capture that will not let go.
    const graceExpired = new Promise<null>((resolve) => {
      const wait = setInterval(() => {
        if (!abandonedAt) return;
        clearInterval(wait);
        setTimeout(() => resolve(null), ABANDON_GRACE_MS).unref();
      }, ABANDON_POLL_MS);
      wait.unref();
      // Either way: a rejection is the race's to report, not an unhandled one here.
      const stop = () => clearInterval(wait);
      finished.then(stop, stop);
    });
    const settled = await Promise.race([finished, graceExpired]);
    summary = settled ?? runner.summary();
    graceRanOut = settled === null;
  } finally {
    progress.finish();
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onTerminate);
  }
  printSummary(summary);
  await (abandonedAt ?? program.close());
  // A capture that never let go would keep the process alive; the summary is out, so leave.
  if (graceRanOut) process.exit(EXIT_INTERRUPTED);
  const status = exitStatus(summary);
  // Everything is closed; the process ends as soon as nothing is left running. A connection to a
  // browser that stopped answering can still wait out its WebSocket close handshake (30 s): not for us.
  setTimeout(() => process.exit(status), LINGER_AFTER_SUMMARY_MS).unref();
  return status;
}
