/**
 * The pixel rules worker (src/compare/pixels/rulesWorkerPool.ts): a large
 * comparison shares its rows between the calling thread and a worker thread,
 * and the result is the same as on one thread — counts equal to pixelmatch's,
 * the same regions and the same diff image bytes; chunks the worker took and
 * did not finish are run by the caller; a worker that fails a job says so.
 */
import { comparePngBytes, stopRulesWorker, type PixelComparison } from '../../src/compare/pixels';
import * as pool from '../../src/compare/pixels/rulesWorkerPool';
import { RulesWorker } from '../../src/compare/pixels/rulesWorkerPool';
import type { KernelRulesJob, RulesJob } from '../../src/compare/pixels/rowRules';
import { blank, clone, disc, fillRect, noise, pixelmatchCount, pngOf, strokes, type Rgba } from './pixelFixtures';

afterEach(async () => {
  jest.restoreAllMocks();
  await stopRulesWorker();
});

/** A tall page of text-like strokes, and the same page with every line redrawn (as a font-size change does). */
function reflowedPair(): [Rgba, Rgba] {
  const width = 320;
  const height = 900;
  const a = blank(width, height, [250, 250, 250]);
  const b = clone(a);
  for (let y = 10, seed = 1; y + 40 < height; y += 50, seed++) {
    strokes(a, 10, y, width - 20, 4, seed);
    strokes(b, 10, y + 1, width - 30, 4, seed + 100);
  }
  disc(a, 100, 400, 30);
  disc(b, 101, 401, 30);
  noise(a, 200, 600, 60, 60, 3);
  noise(b, 200, 600, 60, 60, 4);
  fillRect(b, 0, 880, width, 20, [21, 101, 192]);
  return [a, b];
}

function summary(c: PixelComparison) {
  return { result: { ...c.result, diffImage: null }, diff: c.diffPng?.toString('base64') };
}

test.each(['auto', 'never'] as const)(
  'a comparison shared with the worker equals the one-thread comparison and pixelmatch (wasmKernels %s)',
  async (wasmKernels) => {
    const [a, b] = reflowedPair();
    for (const colorType of [2, 6] as const) {
      const pa = pngOf(a, colorType, [2, 2, 2, 4, 1]);
      const pb = pngOf(b, colorType, [2, 2, 2, 4, 1]);
      const alone = await comparePngBytes(pa, pb, { rulesWorker: 'never', diffImage: true, wasmKernels });
      const shared = await comparePngBytes(pa, pb, { rulesWorker: 'always', diffImage: true, wasmKernels });
      expect(alone.result.changedPixels).toBe(pixelmatchCount(a, b, { threshold: 0 }));
      expect(alone.result.changedPixels).toBeGreaterThan(10_000);
      expect(alone.result.antiAliasedPixels).toBeGreaterThan(0);
      expect(summary(shared)).toEqual(summary(alone));
      // includeAA and a threshold go through the worker too.
      const aaAlone = await comparePngBytes(pa, pb, {
        rulesWorker: 'never',
        includeAA: true,
        threshold: 0.1,
        ignore: [{ x: 0, y: 0, width: 100, height: 300 }],
        wasmKernels,
      });
      const aaShared = await comparePngBytes(pa, pb, {
        wasmKernels,
        rulesWorker: 'always',
        includeAA: true,
        threshold: 0.1,
        ignore: [{ x: 0, y: 0, width: 100, height: 300 }],
      });
      expect(aaShared.result).toEqual(aaAlone.result);
    }
  },
);

test('images of different sizes and formats share their rows the same way', async () => {
  const [a, b] = reflowedPair();
  const wider = blank(360, 950, [250, 250, 250]);
  for (let y = 0; y < b.height; y++) b.data.copy(wider.data, y * wider.width * 4, y * b.width * 4, (y + 1) * b.width * 4);
  for (const [pa, pb] of [
    [pngOf(a, 2), pngOf(wider, 2)],
    [pngOf(a, 6), pngOf(b, 2)],
    [pngOf(wider, 2, [0, 1, 3]), pngOf(a, 6, [4])],
  ]) {
    const alone = await comparePngBytes(pa, pb, { rulesWorker: 'never', diffImage: true });
    const shared = await comparePngBytes(pa, pb, { rulesWorker: 'always', diffImage: true });
    expect(alone.result.changedPixels).toBeGreaterThan(10_000);
    expect(summary(shared)).toEqual(summary(alone));
  }
});

test('comparisons at once share the one worker and each gets its own result', async () => {
  const [a, b] = reflowedPair();
  const pairs: Array<[Buffer, Buffer]> = [
    [pngOf(a, 2), pngOf(b, 2)],
    [pngOf(b, 6), pngOf(a, 6)],
    [pngOf(a, 2), pngOf(fillRect(clone(a), 0, 0, 320, 400, [0, 0, 0]), 2)],
  ];
  const alone = [];
  for (const [pa, pb] of pairs) alone.push(summary(await comparePngBytes(pa, pb, { rulesWorker: 'never', diffImage: true })));
  const together = await Promise.all(pairs.map(([pa, pb]) => comparePngBytes(pa, pb, { rulesWorker: 'always', diffImage: true })));
  expect(together.map(summary)).toEqual(alone);
});

test.each(['auto', 'never'] as const)('chunks the worker took but did not finish are run by the caller (wasmKernels %s)', async (wasmKernels) => {
  const [a, b] = reflowedPair();
  const pa = pngOf(a, 2);
  const pb = pngOf(b, 2);
  const alone = await comparePngBytes(pa, pb, { rulesWorker: 'never', diffImage: true, wasmKernels });
  let claimed = 0;
  let kinds = '';
  // A worker that takes the first three chunks from the shared counter, then fails: a job over shared bands, or over kernel memory.
  const takeThreeAndFail = (job: { counter: Int32Array }, kind: string) => {
    kinds += kind;
    claimed = Atomics.add(job.counter, 0, 3) === 0 ? 3 : 0;
    return Promise.reject(new Error('the pixel rules worker exited (code 1)'));
  };
  const failing = {
    ready: true,
    run: (job: Omit<RulesJob, 'id'>) => takeThreeAndFail(job, 'band'),
    runInKernel: (job: Omit<KernelRulesJob, 'id'>) => takeThreeAndFail(job, 'kernel'),
  } as unknown as RulesWorker;
  jest.spyOn(pool, 'rulesWorker').mockReturnValue(failing);
  const recovered = await comparePngBytes(pa, pb, { rulesWorker: 'always', diffImage: true, wasmKernels });
  expect(kinds).toBe(wasmKernels === 'auto' ? 'kernel' : 'band');
  expect(claimed).toBe(3);
  expect(summary(recovered)).toEqual(summary(alone));
});

test('the worker runs the rules kernel in the comparison’s own memory: given every chunk, it gives the one-thread result', async () => {
  const [a, b] = reflowedPair();
  for (const colorType of [2, 6] as const) {
    const pa = pngOf(a, colorType, [2, 2, 1]);
    const pb = pngOf(b, colorType, [2, 4, 2]);
    const alone = await comparePngBytes(pa, pb, { rulesWorker: 'never', diffImage: true, ignore: [{ x: 10, y: 10, width: 50, height: 200 }] });
    const real = RulesWorker.prototype.runInKernel;
    let workerTally = 0;
    // The calling thread waits (Atomics.wait) until the worker has taken every chunk, so the worker's kernel does all the rows.
    const spy = jest.spyOn(RulesWorker.prototype, 'runInKernel').mockImplementation(function (this: RulesWorker, job: Omit<KernelRulesJob, 'id'>) {
      const answer = real.call(this, job).then((reply) => {
        workerTally = reply.tally.changed + reply.tally.antialiased;
        return reply;
      });
      const chunks = Math.ceil(job.count / job.chunkRows);
      const nap = new Int32Array(new SharedArrayBuffer(4));
      const until = Date.now() + 10_000;
      while (Atomics.load(job.counter, 0) < chunks && Date.now() < until) Atomics.wait(nap, 0, 0, 2);
      return answer;
    });
    const shared = await comparePngBytes(pa, pb, { rulesWorker: 'always', diffImage: true, ignore: [{ x: 10, y: 10, width: 50, height: 200 }] });
    expect(spy).toHaveBeenCalledTimes(1);
    expect(workerTally).toBe(alone.result.changedPixels + alone.result.antiAliasedPixels);
    expect(summary(shared)).toEqual(summary(alone));
    spy.mockRestore();
  }
});

test('a job the worker cannot run is refused with the reason, and the worker keeps serving', async () => {
  const worker = pool.rulesWorker(true)!;
  const bad = { input: null, rows: new Int32Array([0]), counter: new Int32Array(new SharedArrayBuffer(4)), chunkRows: 1 } as unknown as Omit<RulesJob, 'id'>;
  await expect(worker.run(bad)).rejects.toThrow(/^the pixel rules worker failed: TypeError/);
  const [a, b] = reflowedPair();
  const shared = await comparePngBytes(pngOf(a, 2), pngOf(b, 2), { rulesWorker: 'always' });
  expect(shared.result.changedPixels).toBe(pixelmatchCount(a, b, { threshold: 0 }));
  expect(pool.rulesWorker(false)).toBe(worker);
});

test('small comparisons stay on the calling thread; rulesWorker is checked', async () => {
  const spy = jest.spyOn(pool, 'rulesWorker');
  const a = blank(40, 40);
  await comparePngBytes(pngOf(a, 2), pngOf(fillRect(clone(a), 0, 0, 4, 4, [0, 0, 0]), 2));
  expect(spy.mock.calls.every(([start]) => start === false)).toBe(true);
  expect(pool.rulesWorker(false)).toBeNull();
  await expect(comparePngBytes(pngOf(a, 2), pngOf(a, 6), { rulesWorker: 'sometimes' as never })).rejects.toThrow(
    "rulesWorker must be 'auto', 'always' or 'never' (got sometimes)",
  );
});
