/**
 * Runs a capture plan: every line through the same boundary as a tool call
 * (executeCapturePlan's checks, in its order), a fixed number at once. A bad
 * line becomes a failed result carrying its line number; the rest still run.
 *
 * Before any line runs, every line is checked once by the boundary itself
 * (executeCapturePlan with a stand-in provider that captures nothing and
 * only notes the target the boundary resolved): two lines that would write
 * the same file — the same artifact after the tool's normalization and
 * containment, or a screenshot's probe sidecar — are a plan error. The first
 * line keeps the artifact; each later one is refused with both line numbers
 * and never runs, so which capture ends up on disk never depends on timing.
 *
 * --skip-existing: a screenshot counts as there only with its probe sidecar
 * (the runtime writes `<leaf>.probe.json` beside every screenshot, whichever
 * provider captured it). A PNG alone is incomplete evidence: the line is run
 * as without --skip-existing, so it is refused as existing unless it says
 * `overwrite: true`, and the reason is said.
 *
 * Stopping has two steps, as Ctrl-C has: `stop()` starts no new line and lets
 * the captures in flight end; `abandon()` marks those still in flight as
 * abandoned (the caller then closes the browsers under them, so they fail at
 * once and the runtime discards what they staged: no partial file).
 */
import * as fs from 'fs';
import * as path from 'path';
import { executeCapturePlan, executeCapturePlanUnlessPresent, type ExecuteOptions, type SkippedCapture } from '../execute';
import { CAPTURE_TYPE_SPECS, captureFiles } from '../capture/types';
import { failedResult, type CaptureResult } from '../result';
import { isPlainObject } from '../contract';
import { parseRuntimeFields } from '../request';
import { captureToolDeclaration, TOOL_NAME } from '../toolDeclaration';
import type { CaptureContext, CaptureProvider, ProviderPayload } from '../provider';
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

/** The files a line would write, as the boundary resolved them (the artifact, and a screenshot's sidecar). */
interface Claim {
  artifact: string;
  files: string[];
}

const PREFLIGHT_STOP = 'plan check: nothing is captured';

/**
 * Stands in for the provider while the plan is checked: the boundary hands
 * it the target it resolved (only a line that passed every check gets this
 * far), it notes the files and captures nothing.
 */
class TargetRecorder implements CaptureProvider {
  readonly toolName = TOOL_NAME;
  claim: Claim | null = null;

  describe() {
    return captureToolDeclaration();
  }

  async capture(_args: Record<string, unknown>, context: CaptureContext): Promise<ProviderPayload> {
    const files = captureFiles(CAPTURE_TYPE_SPECS[context.fields.type], context.writtenPath).map((file) => file.path);
    this.claim = { artifact: context.fields.artifactPath, files };
    return { result: 'failed', error: PREFLIGHT_STOP };
  }
}

/** A sidecar of the line's type beside `writtenPath` that is missing (null when none is). */
function missingSidecar(args: unknown, writtenPath: string): string | null {
  if (!isPlainObject(args)) return null;
  let type;
  try {
    type = parseRuntimeFields(args).type;
  } catch {
    return null;
  }
  for (const file of captureFiles(CAPTURE_TYPE_SPECS[type], writtenPath).slice(1)) {
    try {
      if (!fs.lstatSync(file.path).isFile()) return file.path;
    } catch {
      return file.path;
    }
  }
  return null;
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
    await this.checkTargets();
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
   * Every line through the boundary once, capturing nothing: the files each
   * would write. A line that claims a file an earlier line claimed is refused.
   */
  private async checkTargets(): Promise<void> {
    const owners = new Map<string, { line: number; artifact: string }>();
    for (const item of this.lines) {
      if ('unreadable' in item) continue;
      const recorder = new TargetRecorder();
      const options: ExecuteOptions = { provider: recorder };
      if (this.options.env) options.env = this.options.env;
      try {
        // The same entry point the run uses: a line skipped as present writes nothing and claims nothing.
        await this.throughBoundary(item.args, options);
      } catch {
        // Refused by the boundary: the run reports it the same way, and it writes nothing.
      }
      const claim = recorder.claim;
      if (!claim) continue;
      const clash = claim.files.map((file, index) => ({ file, index, owner: owners.get(file) })).find((c) => c.owner);
      if (clash?.owner) {
        const own = clash.index === 0 ? `artifact_path ${claim.artifact}` : `artifact_path ${claim.artifact} (its probe sidecar ${path.basename(clash.file)})`;
        const theirs = clash.owner.artifact === claim.artifact ? '' : ` (artifact_path ${clash.owner.artifact})`;
        const error = `line ${item.line}: ${own} is also written by line ${clash.owner.line}${theirs}; each artifact is written once per plan, so this line was not run (line ${clash.owner.line} keeps it)`;
        this.duplicates.set(item.line, { line: item.line, ...failedResult({ artifact: claim.artifact, error }) });
        continue;
      }
      for (const file of claim.files) owners.set(file, { line: item.line, artifact: claim.artifact });
    }
  }

  /** One line through the boundary, with --skip-existing's rule for screenshots (a PNG without its sidecar is not there). */
  private async throughBoundary(args: unknown, options: ExecuteOptions): Promise<CaptureResult | SkippedCapture> {
    if (!this.options.skipExisting) return executeCapturePlan(args, options);
    const payload = await executeCapturePlanUnlessPresent(args, options);
    const incomplete = payload.result === 'skipped' ? missingSidecar(args, payload.written_path) : null;
    if (!incomplete) return payload;
    // A screenshot without its sidecar is not there yet: the line runs as if --skip-existing were not given.
    const why = `--skip-existing did not skip it: ${payload.written_path} is there but its probe sidecar ${path.basename(incomplete)} is not`;
    const ran = await executeCapturePlan(args, options);
    if (ran.result === 'captured') return { ...ran, warnings: [...ran.warnings, `${why}; both were captured again (overwrite: true)`] };
    if (ran.error === PREFLIGHT_STOP) return ran;
    return { ...ran, error: `${ran.error} (${why}; pass overwrite: true to capture both again)` };
  }

  private async runLine(item: PlanLine): Promise<LineResult> {
    if ('unreadable' in item) return { line: item.line, ...failedResult({ artifact: '', error: item.unreadable }), isError: true };
    const duplicate = this.duplicates.get(item.line);
    if (duplicate) return duplicate;
    const options: ExecuteOptions = { provider: this.options.provider };
    if (this.options.env) options.env = this.options.env;
    try {
      const payload = await this.throughBoundary(item.args, options);
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
