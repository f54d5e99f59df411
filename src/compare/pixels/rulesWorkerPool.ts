/**
 * The rules worker: one worker thread per process, started by the first
 * comparison large enough to want it and kept for the next ones, so a page
 * whose text reflowed (a million changed pixels) is compared on two cores.
 *
 * It never holds the process open while idle (unref'd between jobs) and
 * never makes a comparison wrong: a job it fails (an error, the thread gone)
 * is run on the calling thread instead, and after two failures this process
 * stops using it.
 */
import { Worker } from 'worker_threads';
import { source } from './generated/rulesWorker';
import type { KernelRulesJob, RulesJob, RulesReply } from './rowRules';

type Answer = Exclude<RulesReply, { error: string }>;
type KernelAnswer = Extract<Answer, { kind: 'kernel' }>;
type BandAnswer = Exclude<Answer, { kind: 'kernel' }>;

/** Failures after which this process stops starting the worker. */
const MAX_FAILURES = 2;

export class RulesWorker {
  ready = false;
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve(reply: Answer): void; reject(err: Error): void }>();
  private nextId = 1;
  private gone = false;

  constructor(private readonly onGone: (worker: RulesWorker) => void) {
    this.worker = new Worker(source, { eval: true, name: 'design-playbook-evidence pixel rules' });
    this.worker.unref();
    this.worker.on('message', (message: RulesReply | { ready: true }) => {
      if ('ready' in message) {
        this.ready = true;
        return;
      }
      const job = this.pending.get(message.id);
      if (!job) return;
      this.pending.delete(message.id);
      if (!this.pending.size) this.worker.unref();
      if ('error' in message) job.reject(new Error(`the pixel rules worker failed: ${message.error}`));
      else job.resolve(message);
    });
    this.worker.on('error', (err) => this.end(err));
    this.worker.on('exit', (code) => this.end(new Error(`the pixel rules worker exited (code ${code})`)));
  }

  /** Runs a job over shared bands (its id is set here); `transfer` lists buffers handed over rather than copied. */
  run(job: Omit<RulesJob, 'id'>, transfer: ArrayBuffer[] = []): Promise<BandAnswer> {
    return this.post({ ...job, id: this.nextId++ }, transfer) as Promise<BandAnswer>;
  }

  /** Runs a job over kernel memory (its id is set here): the answer is the worker's tally; its marks and cells are in that memory. */
  runInKernel(job: Omit<KernelRulesJob, 'id'>): Promise<KernelAnswer> {
    return this.post({ ...job, id: this.nextId++ }, []) as Promise<KernelAnswer>;
  }

  private post(full: RulesJob | KernelRulesJob, transfer: ArrayBuffer[]): Promise<Answer> {
    if (this.gone) return Promise.reject(new Error('the pixel rules worker is gone'));
    const id = full.id;
    return new Promise<Answer>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // Held open while a job is out: the caller awaits nothing else.
      this.worker.ref();
      this.worker.postMessage(full, transfer);
    });
  }

  /** Ends the thread; jobs still out are rejected (their callers run them themselves). */
  async stop(): Promise<void> {
    this.gone = true;
    for (const job of this.pending.values()) job.reject(new Error('the pixel rules worker was stopped'));
    this.pending.clear();
    await this.worker.terminate();
  }

  private end(err: Error): void {
    if (this.gone) return;
    this.gone = true;
    for (const job of this.pending.values()) job.reject(err);
    this.pending.clear();
    this.onGone(this);
  }
}

/** The process's worker (one of the documented exceptions to "no module state", test/architecture/layering.ts). */
let running: RulesWorker | null = null;
/** Its failures so far in this process. */
let failures = 0;

/**
 * The worker when one is running (ready or still starting), starting one when
 * `start` is true and none runs; null when this process no longer uses it.
 */
export function rulesWorker(start: boolean): RulesWorker | null {
  if (running || !start || failures >= MAX_FAILURES) return running;
  running = new RulesWorker((gone) => {
    if (running === gone) running = null;
    failures++;
  });
  return running;
}

/**
 * Shared buffers jobs' bands were copied into, kept for the next jobs: a
 * fresh 8 MB SharedArrayBuffer costs more in page faults than copying into
 * it. At most two (a job's A and B) of at most KEEP_BAND_BYTES each.
 */
const idleBands: SharedArrayBuffer[] = [];
const KEEP_BAND_BYTES = 64 * 1024 * 1024;

/** A shared buffer of `bytes` for a job's band; release() it once the worker has answered (or failed). */
export function bandBuffer(bytes: number): { view: Uint8Array; release(): void } {
  const at = idleBands.findIndex((buffer) => buffer.byteLength >= bytes);
  const buffer = at >= 0 ? idleBands.splice(at, 1)[0] : new SharedArrayBuffer(bytes);
  let released = false;
  return {
    view: new Uint8Array(buffer, 0, bytes),
    release() {
      if (released || buffer.byteLength > KEEP_BAND_BYTES) return;
      released = true;
      idleBands.push(buffer);
      idleBands.sort((p, q) => q.byteLength - p.byteLength);
      idleBands.length = Math.min(idleBands.length, 2);
    },
  };
}

/** Stops the worker (tests; a process may also just exit). The next large comparison starts another. */
export async function stopRulesWorker(): Promise<void> {
  const worker = running;
  running = null;
  if (worker) await worker.stop();
}
