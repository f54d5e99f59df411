/**
 * Runs a plan file (./planFile.ts): every line through the same boundary as a tool call
 * (planCapture's checks, in its order, then performCapture), a fixed number
 * at once. A bad line becomes a failed result carrying its line number; the
 * rest still run.
 *
 * Before any line runs, every line is planned once (src/boundary/plan.ts:
 * no browser, nothing written): two lines whose plans write the same file —
 * the same artifact after the tool's normalization and containment, or a
 * sidecar its capture type writes beside it — are a plan error. The first
 * line keeps the file; each later one is refused with both line numbers and
 * never runs, so which capture ends up on disk never depends on timing.
 *
 * --skip-existing: a line counts as there only with every file its capture
 * type writes (a screenshot's probe sidecar beside its PNG: the runtime
 * writes it whichever provider captured it). An artifact alone is incomplete
 * evidence: the line is planned as without --skip-existing, so it is refused
 * as existing unless it says `overwrite: true`, and the reason is said.
 *
 * Stopping has two steps, as Ctrl-C has: `stop()` starts no new line and lets
 * the captures in flight end; `abandon()` marks those still in flight as
 * abandoned (the caller then closes the browsers under them, so they fail at
 * once and the runtime discards what they staged: no partial file).
 */
import * as fs from 'fs';
import * as path from 'path';
import type { SecretStore } from '../common/secrets';
import type { SessionSettings } from '../contract/sessions';
import { planCapture, performCapture, type PlanOutcome, type SkippedCapture } from '../boundary';
import { failedResult, type CaptureResult } from '../contract/result';
import { isPlainObject } from '../contract/captureContract';
import type { CaptureProvider } from '../contract/captureProvider';
import type { PlanLine } from './planFile';

/** A refusal the tool reports as `isError: true` (unknown fields, runtime fields, a line that is not JSON). */
export type ToolErrorResult = CaptureResult & { isError: true };

export type LineResult = { line: number } & (CaptureResult | ToolErrorResult | SkippedCapture);

export interface BatchOptions {
  /** Lines in flight at once. */
  concurrency: number;
  /** A line whose artifact is already on disk is skipped (re-running a half-finished plan). */
  skipExisting?: boolean;
  /** The provider that captures every line (the command passes the program's active one). */
  provider: CaptureProvider;
  env?: NodeJS.ProcessEnv;
  /** The secrets actions may name (--secrets); every line's plan checks its names against them. */
  secrets?: SecretStore;
  /** Where a line's `session` comes from (the command passes the flags' and the environment's); absent: the environment's. */
  sessions?: SessionSettings;
  /** Each line's result, in the order they finish. */
  onResult?(result: LineResult): void;
}

export interface BatchCounts {
  total: number;
  captured: number;
  failed: number;
  skipped: number;
  inFlight: number;
}

export interface BatchSummary {
  lines: number;
  captured: number;
  failed: number;
  skipped: number;
  /** Lines never started (the run was stopped first). */
  not_run: number;
  interrupted: boolean;
  seconds: number;
  /** Artifacts captured per second of the run. */
  captures_per_second: number;
  failed_lines: number[];
}

export const ABANDONED_MESSAGE = 'interrupted: the capture was abandoned before it finished; nothing was written';

function artifactEcho(args: unknown): string {
  return isPlainObject(args) && typeof args.artifact_path === 'string' ? args.artifact_path.trim() : '';
}

function isFile(p: string): boolean {
  try {
    return fs.lstatSync(p).isFile();
  } catch {
    return false;
  }
}

/**
 * What a line will do: its plan, a refusal, or (--skip-existing) the skip.
 * `incomplete`: why a line --skip-existing found on disk is planned anyway,
 * and what its capture writes again (`both` files).
 */
interface LinePlan {
  planned: PlanOutcome;
  incomplete?: { why: string; files: string };
}

export class PlanRunner {
  private next = 0;
  private stopped = false;
  private abandoned = false;
  private readonly inFlight = new Set<number>();
  private readonly startedAt = Date.now();
  private captured = 0;
  private failed = 0;
  private skipped = 0;
  private abandonedCount = 0;
  private readonly failedLines: number[] = [];
  /** Lines refused before the run because an earlier line writes the same file. */
  private readonly duplicates = new Map<number, LineResult>();

  constructor(
    private readonly lines: PlanLine[],
    private readonly options: BatchOptions,
  ) {
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) throw new RangeError('concurrency must be a positive integer');
  }

  /** Starts no new line; the ones in flight end normally. */
  stop(): void {
    this.stopped = true;
  }

  /** Also gives up on the lines in flight: whatever they return is reported as abandoned. */
  abandon(): void {
    this.stopped = true;
    this.abandoned = true;
  }

  get stopping(): boolean {
    return this.stopped;
  }

  counts(): BatchCounts {
    return { total: this.lines.length, captured: this.captured, failed: this.failed, skipped: this.skipped, inFlight: this.inFlight.size };
  }

  elapsedMs(): number {
    return Date.now() - this.startedAt;
  }

  async run(): Promise<BatchSummary> {
    this.checkTargets();
    const worker = async (): Promise<void> => {
      while (!this.stopped && this.next < this.lines.length) {
        const item = this.lines[this.next++];
        this.inFlight.add(item.line);
        let result: LineResult;
        try {
          result = await this.runLine(item);
        } finally {
          this.inFlight.delete(item.line);
        }
        this.record(result);
      }
    };
    const workers = Math.min(this.options.concurrency, this.lines.length);
    await Promise.all(Array.from({ length: workers }, worker));
    return this.summary();
  }

  /**
   * Every line planned once, capturing nothing: the files each would write.
   * A line that claims a file an earlier line claimed is refused.
   */
  private checkTargets(): void {
    const owners = new Map<string, { line: number; artifact: string }>();
    for (const item of this.lines) {
      if ('unreadable' in item) continue;
      let planned: PlanOutcome;
      try {
        // The same plan the run makes: a line refused, or skipped as present, writes nothing and claims nothing.
        planned = this.planLine(item.args).planned;
      } catch {
        continue; // not a refusal: the run reports it as the server would
      }
      if (planned.kind !== 'plan') continue;
      const artifact = planned.fields.artifactPath;
      const clash = planned.files.map((file) => ({ file, owner: owners.get(file.path) })).find((c) => c.owner);
      if (clash?.owner) {
        const { sidecar, path: clashing } = clash.file;
        const own = sidecar ? `artifact_path ${artifact} (its ${sidecar.name} ${path.basename(clashing)})` : `artifact_path ${artifact}`;
        const theirs = clash.owner.artifact === artifact ? '' : ` (artifact_path ${clash.owner.artifact})`;
        const error = `line ${item.line}: ${own} is also written by line ${clash.owner.line}${theirs}; each artifact is written once per plan, so this line was not run (line ${clash.owner.line} keeps it)`;
        this.duplicates.set(item.line, { line: item.line, ...failedResult({ artifact, error }) });
        continue;
      }
      for (const file of planned.files) owners.set(file.path, { line: item.line, artifact });
    }
  }

  /** A line's plan, with --skip-existing's rule: an artifact on disk counts as there only with every file its type writes. */
  private planLine(args: unknown): LinePlan {
    const env = this.options.env ?? process.env;
    const { secrets, sessions } = this.options;
    if (!this.options.skipExisting) return { planned: planCapture(args, env, { secrets, sessions }) };
    const planned = planCapture(args, env, { skipExisting: true, secrets, sessions });
    if (planned.kind !== 'present') return { planned };
    for (const { path: file, sidecar } of planned.files) {
      if (!sidecar || isFile(file)) continue;
      // Not all there yet: the line is planned as if --skip-existing were not given.
      const why = `--skip-existing did not skip it: ${planned.skipped.written_path} is there but its ${sidecar.name} ${path.basename(file)} is not`;
      return {
        planned: planCapture(args, env, { secrets, sessions }),
        incomplete: { why, files: planned.files.length === 2 ? 'both' : `all ${planned.files.length}` },
      };
    }
    return { planned };
  }

  /** One line, planned and performed; a refusal of its arguments is what the server answers with isError. */
  private async captureLine(args: unknown): Promise<CaptureResult | ToolErrorResult | SkippedCapture> {
    const { planned, incomplete } = this.planLine(args);
    const failedAnyway = (result: CaptureResult): CaptureResult =>
      incomplete ? { ...result, error: `${result.error} (${incomplete.why}; pass overwrite: true to capture ${incomplete.files} again)` } : result;
    switch (planned.kind) {
      case 'input':
        return { ...failedResult({ artifact: artifactEcho(args), error: planned.message }), isError: true };
      case 'present':
        return planned.skipped;
      case 'failed':
        return failedAnyway(planned.result);
      case 'plan': {
        const { result } = await performCapture(planned, this.options.provider);
        if (result.result !== 'captured') return failedAnyway(result);
        return incomplete
          ? { ...result, warnings: [...result.warnings, `${incomplete.why}; ${incomplete.files} were captured again (overwrite: true)`] }
          : result;
      }
    }
  }

  private async runLine(item: PlanLine): Promise<LineResult> {
    if ('unreadable' in item) return { line: item.line, ...failedResult({ artifact: '', error: item.unreadable }), isError: true };
    const duplicate = this.duplicates.get(item.line);
    if (duplicate) return duplicate;
    try {
      const payload = await this.captureLine(item.args);
      if (this.abandoned && payload.result === 'failed' && !('isError' in payload)) {
        this.abandonedCount++;
        return { line: item.line, ...payload, error: `${ABANDONED_MESSAGE} (${payload.error})` };
      }
      return { line: item.line, ...payload };
    } catch (err) {
      // Not a refusal: something broke; the MCP server answers that with isError too.
      const message = err instanceof Error ? err.message : String(err);
      return { line: item.line, ...failedResult({ artifact: artifactEcho(item.args), error: message }), isError: true };
    }
  }

  private record(result: LineResult): void {
    if (result.result === 'captured') this.captured++;
    else if (result.result === 'skipped') this.skipped++;
    else {
      this.failed++;
      this.failedLines.push(result.line);
    }
    this.options.onResult?.(result);
  }

  summary(): BatchSummary {
    const seconds = this.elapsedMs() / 1000;
    const attempted = this.captured + this.failed;
    const notRun = this.lines.length - attempted - this.skipped;
    return {
      lines: this.lines.length,
      captured: this.captured,
      failed: this.failed,
      skipped: this.skipped,
      not_run: notRun,
      interrupted: this.stopped && (notRun > 0 || this.abandonedCount > 0),
      seconds: Math.round(seconds * 100) / 100,
      captures_per_second: seconds > 0 ? Math.round((this.captured / seconds) * 100) / 100 : 0,
      failed_lines: [...this.failedLines].sort((a, b) => a - b),
    };
  }
}
