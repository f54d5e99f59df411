/**
 * Deterministic evidence end to end: the BUILT server, spoken to by the MCP
 * SDK's client, with DESIGN_PLAYBOOK_FIXED_TIME set in its environment; and
 * a malformed --fixed-time refused at start.
 */
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { servePages, type PageServer } from '../helpers/browser';
import { BIN, assertBuilt, captureArgs, makeRunRoot, startServer, type RunningServer } from '../e2e/harness';

jest.setTimeout(300_000);

let pages: PageServer;
let server: RunningServer;
let root: string;

beforeAll(async () => {
  assertBuilt();
  pages = await servePages(path.join(__dirname, 'pages'));
  server = await startServer({ env: { DESIGN_PLAYBOOK_FIXED_TIME: '2030-05-17T12:34:56+02:00' } });
  root = makeRunRoot('clock-e2e');
});
afterAll(async () => {
  await server?.close();
  await pages?.close();
});

const sha = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

test.each(['other-motion.html', 'raf-canvas.html'])('%s: five screenshots through the server give one PNG and one sidecar', async (page) => {
  const pngs = new Set<string>();
  const sidecars = new Set<string>();
  for (let i = 0; i < 5; i++) {
    const payload = await server.capture(
      captureArgs(root, pages.url(page), `${page}-${i}.png`, { viewport: { width: 500, height: 300, devicePixelRatio: 1, colorScheme: 'light' } }),
    );
    expect(payload.error).toBe('');
    expect(payload.warnings).toContain(
      `fixed clock: the page's Date started at 2030-05-17T10:34:56.000Z and Math.random was seeded (DESIGN_PLAYBOOK_FIXED_TIME)`,
    );
    pngs.add(sha(payload.written_path));
    sidecars.add(sha(payload.written_path.replace(/\.png$/, '.probe.json')));
  }
  expect({ pngs: pngs.size, sidecars: sidecars.size }).toEqual({ pngs: 1, sidecars: 1 });
});

test('the page printed the fixed instant, formatted by Intl without a date argument', async () => {
  const payload = await server.capture(captureArgs(root, pages.url('other-motion.html'), 'other-motion.json', { type: 'a11y tree' }));
  expect(payload.result).toBe('captured');
  expect(fs.readFileSync(payload.written_path, 'utf8')).toContain('Friday, 17 May 2030 at 10:34:56');
});

test('a malformed --fixed-time stops the server at start with the rule, before serving', () => {
  const run = spawnSync(process.execPath, [BIN, '--fixed-time', '2030-05-17'], { input: '', encoding: 'utf8', timeout: 30_000 });
  expect(run.status).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr).toContain(
    "--fixed-time must be an ISO 8601 instant with a date, a time and an offset, such as 2026-01-01T09:00:00Z or 2026-01-01T09:00:00+02:00 (got '2030-05-17')",
  );
});
