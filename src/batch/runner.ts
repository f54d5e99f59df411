/**
 * Runs a capture plan: every line through the same boundary as a tool call
 * (executeCapturePlan's checks, in its order), a fixed number at once. A bad
 * line becomes a failed result carrying its line number; the rest still run.
 *
 * Stopping has two steps, as Ctrl-C has: `stop()` starts no new line and lets
 * the captures in flight end; `abandon()` marks those still in flight as
 * abandoned (the caller then closes the browsers under them, so they fail at
 * once and the runtime discards what they staged: no partial file).
 */
import { executeCapturePlan, executeCapturePlanUnlessPresent, type ExecuteOptions, type SkippedCapture } from '../execute';
import { failedResult, type CaptureResult } from '../result';
import { isPlainObject } from '../contract';
import type { CaptureProvider } from '../provider';
import type { PlanLine } from './plan';

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

export class BatchRun {
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

  private async runLine(item: PlanLine): Promise<LineResult> {
    if ('unreadable' in item) return { line: item.line, ...failedResult({ artifact: '', error: item.unreadable }), isError: true };
    const options: ExecuteOptions = { provider: this.options.provider };
    if (this.options.env) options.env = this.options.env;
    try {
      const payload = this.options.skipExisting ? await executeCapturePlanUnlessPresent(item.args, options) : await executeCapturePlan(item.args, options);
      if (this.abandoned && payload.result === 'failed') {
        this.abandonedCount++;
        return { line: item.line, ...payload, error: `${ABANDONED_MESSAGE} (${payload.error})` };
      }
      return { line: item.line, ...payload };
    } catch (err) {
      // What the MCP server answers with isError: the boundary's refusal (ToolInputError) or a runtime error.
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
