/**
 * Pages captured at rest, end to end: the BUILT server, spoken to by the MCP
 * SDK's client, with DESIGN_PLAYBOOK_SETTLE_MAX_MS set in its environment.
 * A chart drawn over 1 s is captured complete, a page that fetches its data
 * shows the data, and a perpetual animation stops at the server's bound with
 * the warning — the same bytes on each capture.
 */
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { decodePng } from '../../src/png/decode';
import { servePages, type PageServer } from '../helpers/browser';
import { assertBuilt, captureArgs, makeRunRoot, startServer, type RunningServer } from '../e2e/harness';

jest.setTimeout(300_000);

let pages: PageServer;
let server: RunningServer;
let root: string;

beforeAll(async () => {
  assertBuilt();
  pages = await servePages(path.join(__dirname, 'pages'), {
    '/slow-data': (_req, res) => {
      const timer = setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"value":42}');
      }, 1000);
      res.on('close', () => clearTimeout(timer));
    },
  });
  server = await startServer({ env: { DESIGN_PLAYBOOK_SETTLE_MAX_MS: '2500' } });
  root = makeRunRoot('at-rest-e2e');
});
afterAll(async () => {
  await server?.close();
  await pages?.close();
});

const sha = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const viewport = { width: 400, height: 300, devicePixelRatio: 1, colorScheme: 'light' };
const settleWarnings = (warnings: string[] | undefined) => (warnings ?? []).filter((w) => w.startsWith('settle '));

test('a canvas chart drawn over 1 s of requestAnimationFrame is captured complete, with no warning', async () => {
  const payload = await server.capture(captureArgs(root, pages.url('chart-raf.html'), 'chart.png', { viewport }));
  expect(payload.error).toBe('');
  expect(settleWarnings(payload.warnings)).toEqual([]);
  const { header, pixels } = decodePng(fs.readFileSync(payload.written_path));
  // The top of the tallest bar, at full height.
  const at = 12 * header.rowBytes + 185 * header.pixelBytes;
  expect([pixels[at], pixels[at + 1], pixels[at + 2]].every((v, i) => Math.abs(v - [0x1f, 0x77, 0xb4][i]) <= 8)).toBe(true);
});

test('a page that fetches with a 2 s timeout from a server answering after 1 s shows the data', async () => {
  const payload = await server.capture(captureArgs(root, pages.url('fetch-timeout.html'), 'fetch.json', { type: 'a11y tree', viewport, state: 'loaded' }));
  expect(payload.error).toBe('');
  expect(payload.observed_state).toBe('loaded');
  expect(fs.readFileSync(payload.written_path, 'utf8')).toContain('Data: 42');
});

test("a perpetual animation stops at the server's bound with the warning, and two captures give identical bytes", async () => {
  const hashes: string[] = [];
  for (let i = 0; i < 2; i++) {
    const payload = await server.capture(captureArgs(root, pages.url('raf-canvas.html'), `perpetual-${i}.png`, { viewport }));
    expect(payload.error).toBe('');
    expect(settleWarnings(payload.warnings)).toEqual([
      'settle after load: the page was still busy after 2500 ms of its time (a requestAnimationFrame loop); captured as it stood at that instant — DESIGN_PLAYBOOK_SETTLE_MAX_MS on the server raises the bound',
    ]);
    hashes.push(sha(payload.written_path));
  }
  expect(hashes[0]).toBe(hashes[1]);
});
