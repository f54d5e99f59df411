/**
 * The rules worker's program (a worker thread's entry, never imported by the
 * server): it runs pixelmatch's rules on the rows a job sends and answers
 * with the marks and cells — or, for a job over kernel memory, runs the
 * rules kernel in that shared memory and answers with the tally. scripts/build-workers.js bundles it into a
 * string (generated/rulesWorker.ts) that rulesWorkerPool.ts starts with
 * `eval`, so dist/, the bundles and the tests all start the same code
 * without a file to find.
 */
import { parentPort } from 'worker_threads';
import { rulesKernelOver } from './kernels';
import { newCellGrid } from './regions';
import { runRowRules, sharedChunks, type KernelRulesJob, type RulesJob, type RulesReply } from './rowRules';

/**
 * A kernel job: the rules kernel over the comparison's shared memory, chunk
 * by chunk from the shared counter. An instance per job (tens of
 * microseconds), so this thread never holds a memory the comparison let go.
 */
function answerInKernel(job: KernelRulesJob): RulesReply {
  const kernel = rulesKernelOver(job.memory);
  if (!kernel) throw new Error('the pixel kernels cannot run in this thread');
  const chunks = sharedChunks(job.counter, job.count, job.chunkRows);
  let k = chunks.next();
  // Nothing is written to the memory before a chunk is taken: a caller that took every chunk does not wait for this answer.
  if (k < 0) return { id: job.id, kind: 'kernel', tally: { changed: 0, antialiased: 0 } };
  kernel.setup(job.offsets);
  for (; k >= 0; k = chunks.next()) {
    const from = k * job.chunkRows;
    kernel.rows(job.rows + from * 4, Math.min(job.chunkRows, job.count - from));
  }
  return { id: job.id, kind: 'kernel', tally: kernel.tally() };
}

function answer(job: RulesJob): { reply: RulesReply; transfer: ArrayBuffer[] } {
  const { input, rows } = job;
  const top = input.a.top;
  const last = rows.length ? rows[rows.length - 1] : top;
  // Row y's marks at (y - top) × width: allocated by the first mark (a job whose chunks were all taken marks nothing).
  let marks = new Uint8Array(0);
  const marked: number[] = [];
  const cells = newCellGrid(input.width, input.height);
  const tally = runRowRules(
    input,
    rows,
    (y) => {
      if (!marks.length) marks = new Uint8Array((last - top + 1) * input.width);
      marked.push(y);
      return marks.subarray((y - top) * input.width, (y - top + 1) * input.width);
    },
    cells,
    undefined,
    sharedChunks(job.counter, rows.length, job.chunkRows),
  );
  const markedRows = Int32Array.from(marked);
  const transfer = [
    marks.buffer,
    markedRows.buffer,
    cells.count.buffer,
    cells.minX.buffer,
    cells.minY.buffer,
    cells.maxX.buffer,
    cells.maxY.buffer,
  ] as ArrayBuffer[];
  return { reply: { id: job.id, tally, top, marks: marks.buffer, markedRows, cells }, transfer };
}

const port = parentPort;
if (port) {
  port.on('message', (job: RulesJob | KernelRulesJob) => {
    try {
      if ('kind' in job && job.kind === 'kernel') {
        port.postMessage(answerInKernel(job));
        return;
      }
      const { reply, transfer } = answer(job as RulesJob);
      port.postMessage(reply, transfer);
    } catch (err) {
      port.postMessage({ id: job.id, error: err instanceof Error ? err.stack || err.message : String(err) } satisfies RulesReply);
    }
  });
  port.postMessage({ ready: true });
}
