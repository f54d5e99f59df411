/**
 * The warm browser's life through the built server: a page that hangs its
 * main thread fails within the whole-capture budget and the server keeps
 * serving; a browser killed with SIGKILL is replaced on the next capture; on
 * stdin end or SIGTERM the server exits 0 leaving no Chromium and no
 * temporary profile; stdout carries protocol only.
 */
import * as fs from 'fs';
import * as path from 'path';
import { spawn } from 'child_process';
import { servePages, CHROMIUM_PATH, type PageServer } from '../helpers/browser';
import { BIN, captureArgs, isAlive, launchedBrowser, makeRunRoot, processList, profileDirOf, startServer, waitFor, PAGES, type RunningServer } from './harness';

jest.setTimeout(120_000);

// Small enough to keep the hang test short, large enough for a relaunch on a loaded machine.
const BUDGET_MS = 25_000;
let pages: PageServer;
let root: string;
/**
 * /held answers only once the server has had the chance to show its
 * parallelism: a request waits until DESIGN_PLAYBOOK_MAX_PARALLEL (2) of them
 * are in flight, then HOLD_MS more (room for a third to appear if the limit
 * leaked), or until it is the last of the burst. So the peak does not depend
 * on how fast a loaded machine opens the second capture's page.
 */
const HOLD_MS = 400;
const PARALLEL = 2;
const BURST = 5;
let waitingServedAt = 0;
const held = { inFlight: 0, peak: 0, total: 0, waiting: [] as Array<() => void> };
function releaseHeld(): void {
  for (const release of held.waiting.splice(0)) release();
}
beforeAll(async () => {
  pages = await servePages(PAGES, {
    // Answers after 5 s: long enough to kill the browser while a capture waits for it.
    '/slow': (_req, res) => {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<body data-state="slow">slow</body>');
      }, 5_000);
    },
    // Served at once; the capture then waits on an action that never succeeds (the SIGTERM test).
    '/waiting': (_req, res) => {
      waitingServedAt = Date.now();
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<body data-state="waiting"><p>nothing to wait for</p></body>');
    },
    '/held': (_req, res) => {
      held.inFlight++;
      held.total++;
      held.peak = Math.max(held.peak, held.inFlight);
      held.waiting.push(() => {
        held.inFlight--;
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<body data-state="served">held</body>');
      });
      if (held.inFlight >= PARALLEL) setTimeout(releaseHeld, HOLD_MS);
      else if (held.total === BURST) releaseHeld();
    },
  });
  root = makeRunRoot('lifecycle');
});

afterAll(async () => {
  await pages?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

describe('one server with a small capture budget and two captures at a time', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ env: { DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS: String(BUDGET_MS), DESIGN_PLAYBOOK_MAX_PARALLEL: '2' } });
  });

  test('calls that arrive together run in parallel up to DESIGN_PLAYBOOK_MAX_PARALLEL, the rest queue', async () => {
    const payloads = await Promise.all(Array.from({ length: BURST }, (_, i) => server.capture(captureArgs(root, pages.url('/held'), `held-${i}.png`))));
    for (const payload of payloads) expect(payload.observed_state).toBe('served');
    expect(held.total).toBe(BURST);
    expect(held.peak).toBe(PARALLEL);
  });
  afterAll(async () => {
    await server?.close();
  });

  test('a page hanging its main thread fails within the budget, and the next capture succeeds', async () => {
    const started = Date.now();
    const hung = await server.capture(captureArgs(root, pages.url('/hang.html'), 'hang.png'));
    const elapsed = Date.now() - started;
    expect(hung.result).toBe('failed');
    expect(hung.observed_state).toBe('unknown');
    expect(hung.error).toContain(`${BUDGET_MS} ms whole-capture budget`);
    expect(hung.error).toContain('DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS');
    expect(fs.existsSync(hung.written_path)).toBe(false);
    // Not a timing assertion on speed: only that the budget, not some longer wait, ended it.
    expect(elapsed).toBeLessThan(BUDGET_MS + 20_000);

    const next = await server.capture(captureArgs(root, pages.url('/plain.html'), 'after-hang.png'));
    expect(next.error).toBe('');
    expect(next.result).toBe('captured');
    expect(next.observed_state).toBe('plain');
  });

  test('a browser killed with SIGKILL is replaced on the next capture', async () => {
    const first = await server.capture(captureArgs(root, pages.url('/plain.html'), 'before-kill.png'));
    expect(first.result).toBe('captured');
    const browser = launchedBrowser(server.pid);
    expect(browser).toBeDefined();
    process.kill(browser!.pid, 'SIGKILL');
    await waitFor(() => !isAlive(browser!.pid) || !processList().some((p) => p.pid === browser!.pid && p.ppid === server.pid), 10_000, 'the browser to die');

    const next = await server.capture(captureArgs(root, pages.url('/plain.html'), 'after-kill.png'));
    expect(next.error).toBe('');
    expect(next.result).toBe('captured');
    const replacement = launchedBrowser(server.pid);
    expect(replacement).toBeDefined();
    expect(replacement!.pid).not.toBe(browser!.pid);
    // The killed browser's profile folder was cleaned up once it was gone.
    await waitFor(() => !fs.existsSync(profileDirOf(browser!)), 10_000, 'the old profile folder to go');
  });

  test('a browser killed during a capture fails that capture cleanly; the next one relaunches', async () => {
    const warm = await server.capture(captureArgs(root, pages.url('/plain.html'), 'warm-before-midkill.png'));
    expect(warm.result).toBe('captured');
    const browser = launchedBrowser(server.pid);
    expect(browser).toBeDefined();
    const inFlight = server.capture(captureArgs(root, pages.url('/slow'), 'midkill.png'));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    process.kill(browser!.pid, 'SIGKILL');
    const failed = await inFlight;
    expect(failed.result).toBe('failed');
    expect(failed.observed_state).toBe('unknown');
    expect(failed.error).not.toBe('');
    expect(fs.existsSync(path.join(root, 'evidence', 'midkill.png'))).toBe(false);
    expect(fs.existsSync(path.join(root, 'evidence', 'midkill.probe.json'))).toBe(false);
    expect(fs.readdirSync(path.join(root, 'evidence')).filter((f) => f.endsWith('.partial'))).toEqual([]);

    const next = await server.capture(captureArgs(root, pages.url('/plain.html'), 'after-midkill.png'));
    expect(next.error).toBe('');
    expect(next.result).toBe('captured');
    expect(launchedBrowser(server.pid)!.pid).not.toBe(browser!.pid);
  });
});

/** Spawns the bin with raw pipes, to see exactly what reaches stdout. */
function spawnRaw() {
  const child = spawn(process.execPath, [BIN], {
    env: { ...process.env, DESIGN_PLAYBOOK_CHROME_PATH: CHROMIUM_PATH, DESIGN_PLAYBOOK_RUN_ROOT: '' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const send = (message: unknown) => child.stdin.write(JSON.stringify(message) + '\n');
  const replyTo = async (id: number) => {
    let found: any;
    await waitFor(
      () =>
        (found = stdout
          .split('\n')
          .filter((l) => l.trim())
          .map((l) => JSON.parse(l))
          .find((m) => m.id === id)) !== undefined,
      90_000,
      `reply ${id}`,
    );
    return found;
  };
  return { child, send, replyTo, exited, stdout: () => stdout, stderr: () => stderr };
}

async function initializeAndCapture(raw: ReturnType<typeof spawnRaw>, leaf: string) {
  raw.send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  await raw.replyTo(1);
  raw.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  raw.send({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'execute_capture_plan', arguments: captureArgs(root, pages.url('/plain.html'), leaf) },
  });
  const reply = await raw.replyTo(2);
  expect(reply.result.structuredContent.error).toBe('');
  expect(reply.result.structuredContent.result).toBe('captured');
}

function assertGone(browserPid: number, profileDir: string) {
  expect(processList().filter((p) => p.args.includes(profileDir))).toEqual([]);
  expect(isAlive(browserPid)).toBe(false);
  expect(fs.existsSync(profileDir)).toBe(false);
}

test('on stdin end the server exits 0, leaving no Chromium and no profile; stdout carried protocol only', async () => {
  const raw = spawnRaw();
  await initializeAndCapture(raw, 'stdin-end.png');
  const browser = launchedBrowser(raw.child.pid!);
  expect(browser).toBeDefined();
  const profileDir = profileDirOf(browser!);
  expect(path.basename(profileDir)).toMatch(/^design-playbook-evidence-profile-/);
  expect(fs.existsSync(profileDir)).toBe(true);

  raw.child.stdin.end();
  const { code } = await raw.exited;
  expect(code).toBe(0);
  assertGone(browser!.pid, profileDir);
  for (const line of raw
    .stdout()
    .split('\n')
    .filter((l) => l.trim())) {
    expect(JSON.parse(line).jsonrpc).toBe('2.0');
  }
});

test('on SIGTERM the server exits 0, leaving no Chromium and no profile', async () => {
  const raw = spawnRaw();
  await initializeAndCapture(raw, 'sigterm.png');
  const browser = launchedBrowser(raw.child.pid!);
  expect(browser).toBeDefined();
  const profileDir = profileDirOf(browser!);
  raw.child.kill('SIGTERM');
  const { code } = await raw.exited;
  expect(code).toBe(0);
  assertGone(browser!.pid, profileDir);
});

test('SIGTERM mid-capture: the call in flight is answered failed, "the server is shutting down", nothing is left, exit 0', async () => {
  const raw = spawnRaw();
  raw.send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  await raw.replyTo(1);
  raw.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  waitingServedAt = 0;
  const args = captureArgs(root, pages.url('/waiting'), 'sigterm-mid.png', { actions: [{ do: 'wait_for_selector', selector: '#never' }] });
  raw.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'execute_capture_plan', arguments: args } });
  await waitFor(() => waitingServedAt > 0, 60_000, 'the page to be served');
  await new Promise((resolve) => setTimeout(resolve, 800)); // the action is waiting now
  const browser = launchedBrowser(raw.child.pid!);
  expect(browser).toBeDefined();
  const signalledAt = Date.now();
  raw.child.kill('SIGTERM');
  const reply = await raw.replyTo(2);
  const answeredIn = Date.now() - signalledAt;
  const payload = reply.result.structuredContent;
  expect(payload.result).toBe('failed');
  expect(payload.error).toBe('the server is shutting down');
  expect(payload.observed_state).toBe('unknown');
  // Well before the action's own 10 s budget.
  expect(answeredIn).toBeLessThan(8_000);
  const { code } = await raw.exited;
  expect(code).toBe(0);
  const left = fs.readdirSync(path.join(root, 'evidence')).filter((f) => f.startsWith('sigterm-mid') || f.includes('.partial'));
  expect(left).toEqual([]);
  assertGone(browser!.pid, profileDirOf(browser!));
});
