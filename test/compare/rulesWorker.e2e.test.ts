/**
 * The pixel rules worker through the programs users start: `compare` on a
 * pair large enough to share its rows with the worker (a page whose every
 * line of text was redrawn), from the built bin and from the plugin bundle
 * (which carry the worker's program as a string). The count is pixelmatch's,
 * the exit status 1, and the process ends by itself: an idle worker does not
 * hold it open.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { BIN, REPO } from '../e2e/harness';
import { blank, clone, pixelmatchCount, pngOf, strokes } from './pixelFixtures';

let dir: string;
let expected: number;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-rules-worker-'));
  // 1280 × 1400 with text on every row band: ~1,400 differing rows of 1,280 px, past the size that starts the worker.
  const a = blank(1280, 1400, [250, 250, 250]);
  const b = clone(a);
  for (let y = 4, seed = 1; y + 24 < 1400; y += 24, seed++) {
    strokes(a, 8, y, 1260, 3, seed);
    strokes(b, 8, y + 1, 1250, 3, seed + 500);
  }
  fs.writeFileSync(path.join(dir, 'a.png'), pngOf(a, 2, [2]));
  fs.writeFileSync(path.join(dir, 'b.png'), pngOf(b, 2, [2]));
  expected = pixelmatchCount(a, b, { threshold: 0 });
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test.each([
  ['the built bin', BIN],
  ['the plugin bundle', path.join(REPO, 'plugin', 'server.cjs')],
])('%s compares a reflowed page with the worker and exits on its own', (_name, program) => {
  const out = path.join(dir, `out-${path.basename(program)}`);
  const run = spawnSync(process.execPath, [program, 'compare', path.join(dir, 'a.png'), path.join(dir, 'b.png'), '--json', '--out', out], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.signal).toBeNull();
  expect(run.stderr).toBe('');
  expect(run.status).toBe(1);
  const item = JSON.parse(run.stdout).items[0];
  expect(item.pixels.changedPixels).toBe(expected);
  expect(expected).toBeGreaterThan(100_000);
  expect(fs.existsSync(path.join(out, 'compare.json'))).toBe(true);
});
