/**
 * Starting the server loads no browser code: the capture-type table the
 * boundary reads names each type's browser module instead of importing it,
 * and the bundled provider loads Puppeteer with the first capture
 * (src/app/providerRegistry.ts). Checked on the built package in a fresh
 * process: the library, a server answering tools/list, and a call planned to
 * the point of capture leave puppeteer-core unloaded; the first capture loads it.
 */
import { spawnSync } from 'child_process';
import * as path from 'path';
import { REPO, assertBuilt, makeRunRoot } from './harness';

beforeAll(() => assertBuilt());

/** Runs `script` in a fresh node and returns what it printed last (JSON). */
function probe(script: string): Record<string, unknown> {
  const run = spawnSync(process.execPath, ['-e', script], { cwd: REPO, encoding: 'utf8', timeout: 60_000 });
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout.trim().split('\n').pop()!);
}

test('the library, tools/list and a planned call load no Puppeteer; a capture does', () => {
  const root = makeRunRoot('startup');
  const args = {
    schemaVersion: 1,
    url: 'about:blank',
    type: 'screenshot',
    state: 'blank',
    artifact_path: 'evidence/startup.png',
    viewport: { width: 320, height: 200, devicePixelRatio: 1, colorScheme: 'light' },
    run_root: root,
  };
  const out = probe(`
    const loaded = () => Object.keys(require.cache).some((m) => m.includes(${JSON.stringify(path.sep + 'puppeteer-core' + path.sep)}));
    const lib = require('./dist/src/index.js');
    const { planCapture } = require('./dist/src/boundary/plan.js');
    const provider = lib.activeCaptureProvider();
    const listed = provider.describe().name;
    lib.createServer(provider);
    const planned = planCapture(${JSON.stringify(args)}).kind;
    const before = loaded();
    lib.executeCapturePlan(${JSON.stringify(args)}).then(async (result) => {
      const after = loaded();
      await lib.closeBundledBrowser();
      console.log(JSON.stringify({ listed, planned, before, after, result: result.result, error: result.error }));
    });
  `);
  expect(out).toEqual({ listed: 'execute_capture_plan', planned: 'plan', before: false, after: true, result: 'captured', error: '' });
});
