#!/usr/bin/env node
/**
 * How fast a cancelled call lets go of the browser: the time from
 * `notifications/cancelled` to the capture's browser context closed.
 * The built server (dist/src/bin.js) is spoken to in raw stdio and attached to
 * a Chromium this script runs (--remote-debugging-port), so the script lists
 * that browser's contexts itself (Target.getBrowserContexts, polled on its own
 * connection). Each round: a screenshot capture with one 8 s `wait` action
 * and a progress token; 1 s after the progress notification for the action,
 * the call is cancelled; timed until the browser lists no context of ours,
 * then until a next plain capture is answered. At the end: no reply ever came
 * for a cancelled call, and nothing was written for one.
 * Prints each round and the medians.
 *
 * Run after `npm run build`: node bench/cancel.js [rounds, default 7]
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');
const { spawn } = require('child_process');
const { performance } = require('perf_hooks');
const puppeteer = require('puppeteer-core');

const DIST = path.join(__dirname, '..', 'dist', 'src');
const { findBrowser, isHeadlessShell } = require(path.join(DIST, 'browser', 'fleet', 'findBrowser.js'));
const { launchArgs } = require(path.join(DIST, 'browser', 'fleet', 'browserSession.js'));

const ROUNDS = Number(process.argv[2] || 7);
const BIN = path.join(DIST, 'bin.js');
const ENGINE = findBrowser({ env: process.env }).executablePath;
// The runtime's own launch flags, so the attached browser runs as a launched one would.
const ARGS = launchArgs();
const VIEWPORT = { width: 1280, height: 800, devicePixelRatio: 1, colorScheme: 'light' };
const CANCEL_AFTER_MS = 1_000;
const PAGE =
  '<!doctype html><html><head><meta charset="utf-8"><title>cancel</title></head><body data-state="ready"><h1>Cancel bench</h1><p>A page at rest.</p></body></html>';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function serve() {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(PAGE);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** A headless Chromium on a DevTools port, as a user would run one to attach to. */
async function startChromium(profile) {
  const child = spawn(
    ENGINE,
    [...ARGS, ...(isHeadlessShell(ENGINE) ? [] : ['--headless']), '--remote-debugging-port=0', `--user-data-dir=${profile}`, 'about:blank'],
    {
      stdio: 'ignore',
      detached: true,
    },
  );
  const activePort = path.join(profile, 'DevToolsActivePort');
  const deadline = Date.now() + 30_000;
  while (!(fs.existsSync(activePort) && fs.readFileSync(activePort, 'utf8').split('\n').length >= 2)) {
    if (Date.now() > deadline) throw new Error('Chromium did not write DevToolsActivePort');
    await sleep(50);
  }
  const [port, wsPath] = fs.readFileSync(activePort, 'utf8').split('\n');
  return { child, url: `http://127.0.0.1:${port.trim()}`, ws: `ws://127.0.0.1:${port.trim()}${wsPath.trim()}` };
}

/** The server on raw stdio: newline-framed JSON-RPC out, every message it writes kept. */
function startServer(cwd, cdpUrl) {
  const child = spawn(process.execPath, [BIN], { cwd, env: { ...process.env, DESIGN_PLAYBOOK_CDP_URL: cdpUrl }, stdio: ['pipe', 'pipe', 'inherit'] });
  const messages = [];
  const waiters = [];
  let buffer = '';
  child.stdout.on('data', (chunk) => {
    buffer += chunk.toString('utf8');
    let newline;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line.trim()) messages.push(JSON.parse(line));
    }
    for (const wake of waiters.splice(0)) wake();
  });
  const send = (message) => child.stdin.write(JSON.stringify(message) + '\n');
  const until = async (predicate, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = messages.find(predicate);
      if (found) return found;
      if (Date.now() > deadline) throw new Error('timed out waiting for the server');
      await new Promise((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  };
  return { child, messages, send, until };
}

async function main() {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-bench-cancel-')));
  const runRoot = path.join(base, 'run');
  fs.mkdirSync(runRoot);
  fs.writeFileSync(path.join(runRoot, 'plan.md'), '# bench\n');
  const pages = await serve();
  const pageUrl = `http://127.0.0.1:${pages.address().port}/page.html`;
  const chromium = await startChromium(path.join(base, 'profile'));
  const watcher = await puppeteer.connect({ browserWSEndpoint: chromium.ws });
  const cdp = await watcher.target().createCDPSession();
  const contexts = async () => (await cdp.send('Target.getBrowserContexts')).browserContextIds.length;
  const server = startServer(runRoot, chromium.url);
  const args = (leaf, extra = {}) => ({
    schemaVersion: 1,
    url: pageUrl,
    type: 'screenshot',
    state: 'ready',
    artifact_path: `evidence/${leaf}`,
    viewport: VIEWPORT,
    run_root: runRoot,
    ...extra,
  });

  let id = 0;
  const call = (leaf, extra, progressToken) => {
    const requestId = ++id;
    server.send({
      jsonrpc: '2.0',
      id: requestId,
      method: 'tools/call',
      params: { name: 'execute_capture_plan', arguments: args(leaf, extra), ...(progressToken ? { _meta: { progressToken } } : {}) },
    });
    return requestId;
  };
  const result = async (requestId) => (await server.until((m) => m.id === requestId)).result.structuredContent;

  try {
    server.send({
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench-cancel', version: '1' } },
    });
    await server.until((m) => m.id === 'init');
    server.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    // Warm-up: the server connects to the browser and loads its capture code.
    const warm = await result(call('warm.png'));
    if (warm.result !== 'captured') throw new Error(`warm-up capture failed: ${warm.error}`);

    const cancelled = [];
    const rows = [];
    for (let round = 0; round < ROUNDS; round++) {
      if ((await contexts()) !== 0) throw new Error('a context is still open before the round');
      const token = `round-${round}`;
      const requestId = call(`cancelled-${round}.png`, { actions: [{ do: 'wait', ms: 8_000 }] }, token);
      cancelled.push(requestId);
      await server.until((m) => m.method === 'notifications/progress' && m.params.progressToken === token && m.params.message.startsWith('actions[0] wait'));
      await sleep(CANCEL_AFTER_MS);
      const open = await contexts();
      const cancelledAt = performance.now();
      server.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'bench' } });
      while ((await contexts()) > 0) {
        // polled as fast as the browser answers
      }
      const closedMs = performance.now() - cancelledAt;
      const next = await result(call(`next-${round}.png`));
      const nextMs = performance.now() - cancelledAt;
      if (next.result !== 'captured') throw new Error(`the next capture failed: ${next.error}`);
      rows.push({ open, closedMs, nextMs });
      console.log(`round ${round + 1}: cancel -> context closed ${closedMs.toFixed(1)} ms; cancel -> next capture answered ${nextMs.toFixed(0)} ms`);
    }
    // Past the end of the last cancelled wait: still no reply for any cancelled call, and nothing written for one.
    await sleep(8_000);
    const answered = server.messages.filter((m) => cancelled.includes(m.id));
    const written = fs.readdirSync(path.join(runRoot, 'evidence')).filter((f) => f.startsWith('cancelled-') || f.endsWith('.partial'));
    if (rows.some((r) => r.open !== 1)) throw new Error('a capture had no context open when it was cancelled');
    if (answered.length) throw new Error(`cancelled calls were answered: ${JSON.stringify(answered)}`);
    if (written.length) throw new Error(`cancelled calls wrote ${written.join(', ')}`);
    console.log('');
    console.log(
      `engine: ${path.basename(ENGINE)} (attached), ${os.cpus().length} cores, ${ROUNDS} rounds, cancelled ${CANCEL_AFTER_MS} ms into an 8 s wait action`,
    );
    console.log(
      `cancel -> context closed: median ${median(rows.map((r) => r.closedMs)).toFixed(1)} ms (min ${Math.min(...rows.map((r) => r.closedMs)).toFixed(1)}, max ${Math.max(...rows.map((r) => r.closedMs)).toFixed(1)})`,
    );
    console.log(`cancel -> next capture answered: median ${median(rows.map((r) => r.nextMs)).toFixed(0)} ms`);
    console.log('no reply for a cancelled call, nothing written for one');
  } finally {
    server.child.stdin.end();
    await new Promise((resolve) => server.child.once('exit', resolve));
    await cdp.detach().catch(() => undefined);
    await watcher.disconnect();
    try {
      process.kill(-chromium.child.pid, 'SIGKILL');
    } catch {
      chromium.child.kill('SIGKILL');
    }
    pages.close();
    await sleep(200);
    fs.rmSync(base, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
