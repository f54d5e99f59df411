/**
 * Progress of a batch run on stderr. On a terminal: one live line, redrawn in
 * place (bar, done/total, failures, captures per second, time left). Anywhere
 * else (CI logs, a file): a plain line every few seconds and one at the end,
 * no carriage returns or escape codes.
 */
import type { BatchCounts } from './runner';
import { LIVE_PROGRESS_INTERVAL_MS, PLAIN_PROGRESS_INTERVAL_MS } from '../common/time';

export interface ProgressSource {
  counts(): BatchCounts;
  elapsedMs(): number;
}

export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/** 75 -> "1m15s"; whole seconds, hours when needed. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

export interface ProgressFigures {
  done: number;
  total: number;
  failed: number;
  /** Artifacts captured per second so far. */
  rate: number;
  /** Seconds until the remaining lines are done at that rate; undefined before the first capture ends. */
  secondsLeft: number | undefined;
}

export function progressFigures(source: ProgressSource): ProgressFigures {
  const c = source.counts();
  const done = c.captured + c.failed + c.skipped;
  const attempted = c.captured + c.failed;
  const elapsed = source.elapsedMs() / 1000;
  const rate = elapsed > 0 ? c.captured / elapsed : 0;
  // Time left follows every line that ran, failed ones included: they took their time too.
  const pace = elapsed > 0 ? attempted / elapsed : 0;
  const remaining = c.total - done;
  return { done, total: c.total, failed: c.failed, rate, secondsLeft: remaining === 0 ? 0 : pace > 0 ? remaining / pace : undefined };
}

function describe(f: ProgressFigures): string {
  const left = f.secondsLeft === undefined ? 'time left unknown' : `${formatDuration(f.secondsLeft)} left`;
  return `${f.done}/${f.total} done, ${f.failed} failed, ${f.rate.toFixed(1)} captures/s, ${left}`;
}

export class ProgressReporter {
  private timer: NodeJS.Timeout | null = null;
  private drawn = false;
  /** The live line on screen, so an unchanged one is not drawn again. */
  private shown = '';
  private readonly live: boolean;

  constructor(
    private readonly stream: ProgressStream,
    private readonly source: ProgressSource,
    options: { live?: boolean; intervalMs?: number } = {},
  ) {
    this.live = options.live ?? !!stream.isTTY;
    const interval = options.intervalMs ?? (this.live ? LIVE_PROGRESS_INTERVAL_MS : PLAIN_PROGRESS_INTERVAL_MS);
    this.timer = setInterval(() => this.tick(), interval);
    this.timer.unref();
    if (this.live) this.draw();
  }

  /** A line's result arrived: the live line follows at once; the plain one waits for its interval. */
  update(): void {
    if (this.live) this.draw();
  }

  /** Removes the live line so other text (a result on the same terminal) can be printed cleanly. */
  clear(): void {
    if (this.live && this.drawn) {
      this.stream.write('\r\x1b[2K');
      this.drawn = false;
    }
  }

  /** A message of its own on stderr, above the live line. */
  note(text: string): void {
    this.clear();
    this.stream.write(`${text}\n`);
    if (this.live && this.timer) this.draw();
  }

  /** The last figures, then no more output. */
  finish(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.live) {
      this.draw();
      this.stream.write('\n');
      this.shown = '';
      this.drawn = false;
    } else {
      this.stream.write(`progress: ${describe(progressFigures(this.source))}\n`);
    }
  }

  private tick(): void {
    if (this.live) this.draw();
    else this.stream.write(`progress: ${describe(progressFigures(this.source))}\n`);
  }

  private draw(): void {
    const f = progressFigures(this.source);
    const text = describe(f);
    const columns = this.stream.columns && this.stream.columns > 20 ? this.stream.columns : 80;
    const barWidth = Math.max(10, Math.min(30, columns - text.length - 4));
    const filled = f.total ? Math.round((f.done / f.total) * barWidth) : 0;
    const bar = `[${'#'.repeat(filled)}${'.'.repeat(barWidth - filled)}]`;
    const line = `${bar} ${text}`.slice(0, columns - 1);
    if (this.drawn && line === this.shown) return;
    this.stream.write(`\r\x1b[2K${line}`);
    this.drawn = true;
    this.shown = line;
  }
}
