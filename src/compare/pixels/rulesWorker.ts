/**
 * The rules worker's program (a worker thread's entry, never imported by the
 * server): it runs pixelmatch's rules on the rows a job sends and answers
 * with the marks and cells. scripts/build-workers.js bundles it into a
 * string (generated/rulesWorker.ts) that rulesWorkerPool.ts starts with
 * `eval`, so dist/, the bundles and the tests all start the same code
 * without a file to find.
 */
import { parentPort } from 'worker_threads';
import { newCellGrid } from './regions';
import { runRowRules, sharedChunks, type RulesJob, type RulesReply } from './rowRules';

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
  port.on('message', (job: RulesJob) => {
    try {
      const { reply, transfer } = answer(job);
      port.postMessage(reply, transfer);
    } catch (err) {
      port.postMessage({ id: job.id, error: err instanceof Error ? err.stack || err.message : String(err) } satisfies RulesReply);
    }
  });
  port.postMessage({ ready: true });
}
