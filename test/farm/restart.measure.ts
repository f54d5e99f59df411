/**
 * A measurement, not a test (jest's testMatch does not pick it up): a
 * 30-line plan through the built runner with --connect-per-capture against
 * the stand-in farm, without an outage and with the farm restarting for 4 s
 * and 10 s once six lines are done. Prints, per run: lines captured / lost,
 * lines captured again after losing their connection, when the farm was back
 * and when the pool found it answering, and the plan's time. A correctness
 * figure (no line lost); the times are only as good as the machine is idle.
 *
 *   npm run build && npx jest --testMatch '**\/restart.measure.ts' --runInBand test/farm/restart.measure.ts
 *   (OUTAGES=0,4000,10000 by default)
 */
import * as fs from 'fs';
import * as path from 'path';
import { servePages } from '../helpers/browser';
import { makeRunRoot, PAGES } from '../e2e/harness';
import { planLine, startRun, waitUntil, writePlan } from '../batch/harness';
import { startBrowser } from '../batch/browsers';
import { farmFor } from './standInFarm';

jest.setTimeout(900_000);

test('a 30-line plan through a farm restart', async () => {
  let inFlight = 0;
  const pages = await servePages(PAGES, {
    '/m.html': (_req, res) => {
      inFlight++;
      setTimeout(() => {
        inFlight--;
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<body data-state="m"><h1>measured</h1></body>');
      }, 300);
    },
  });
  const browser = await startBrowser('measure');
  const types = ['screenshot', 'a11y tree', 'interaction trace'];
  const rows: string[] = [];
  try {
    for (const outage of (process.env.OUTAGES ?? '0,4000,10000').split(',').map(Number)) {
      const farm = await farmFor(browser, { token: 'measure-token', concurrency: 10, queue: 10 });
      const root = makeRunRoot('measure');
      try {
        const file = path.join(root, 'plan.jsonl');
        writePlan(
          file,
          Array.from({ length: 30 }, (_, i) => planLine(pages.url(`/m.html?${i}`), types[i % 3], `m-${i + 1}`)),
        );
        const started = Date.now();
        const at = () => ((Date.now() - started) / 1000).toFixed(1);
        const run = startRun([file, '--run-root', root, '--parallel', '4', '--connect-per-capture', '--ws-endpoint', farm.wsUrl()]);
        let answered = '';
        run.child.stderr!.on('data', () => {
          if (!answered && run.stderr().includes('answers again')) answered = at();
        });
        let cutAt = '';
        let backAt = '';
        if (outage) {
          await waitUntil(() => run.results().length >= 6 && inFlight > 0, 120_000, 'six lines done and a page on its way');
          cutAt = at();
          await farm.down(outage);
          backAt = at();
        }
        await run.exited;
        const timeline = outage
          ? `down at ${cutAt} s for ${outage / 1000} s, back at ${backAt} s, answering again for the pool at ${answered || '?'} s`
          : 'no outage';
        const results = run.results();
        const summary = results.pop()!.summary;
        const lines = new Set(results.filter((r) => r.result === 'captured').map((r) => r.line));
        const again = results.filter((r) => r.warnings.some((w: string) => w.includes('captured again'))).length;
        rows.push(
          `${timeline}: ${lines.size}/30 lines captured (${30 - lines.size} lost, ${summary.failed} failed), ${again} captured again after a lost connection, plan ${at()} s`,
        );
      } finally {
        await farm.close();
        fs.rmSync(root, { recursive: true, force: true });
      }
    }
  } finally {
    await browser.stop();
    await pages.close();
  }
  process.stdout.write(rows.join('\n') + '\n');
});
