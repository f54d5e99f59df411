/**
 * The runner and the MCP server (the built bin) against the stand-in farm
 * (test/farm/standInFarm.ts) in front of a real Chromium, with
 * --connect-per-capture and a token:
 *   - a 30-line plan rides out a 4 s farm restart mid-plan: every line
 *     captured, once; the captures cut by the restart are captured again
 *     over a new connection; the rest wait for the farm instead of failing;
 *   - a 429 storm (--parallel 8 against a farm of 2) finishes every line,
 *     the farm never asked for more than it takes at once;
 *   - a bad token fails every line at once, worded;
 *   - the token is in no stdout, stderr, result, written file (evidence
 *     JSON, PNG, trace ZIP entries), report, `doctor` output or MCP answer.
 */
import * as fs from 'fs';
import * as path from 'path';
import { execFileSync } from 'child_process';
import JSZip from 'jszip';
import { servePages, type PageServer } from '../helpers/browser';
import { BIN, captureArgs, makeRunRoot, PAGES, runBin, startServer } from '../e2e/harness';
import { filesUnder, planLine, startRun, waitUntil, writePlan, EXTENSION } from '../batch/harness';
import { startBrowser, type TestBrowser } from '../batch/browsers';
import { farmFor } from './standInFarm';

jest.setTimeout(300_000);

const TOKEN = 'farm-s3cret-Zq81x';
const WRONG = 'wrong-t0ken-Kp44';
const TYPES = ['screenshot', 'a11y tree', 'interaction trace'];

let pages: PageServer;
let browser: TestBrowser;
/** Page requests by URL, and how many are being answered now. */
const loads: string[] = [];
let inFlight = 0;

beforeAll(async () => {
  pages = await servePages(PAGES, {
    // Answers after 300 ms, so captures overlap and a restart cuts some mid-capture.
    '/farmed.html': (req, res) => {
      loads.push(req.url ?? '');
      inFlight++;
      setTimeout(() => {
        inFlight--;
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(`<!doctype html><title>farmed</title><body data-state="farmed"><h1>Farmed page</h1><button id="go">go</button><p>${req.url}</p></body>`);
      }, 300);
    },
  });
  browser = await startBrowser('farm-e2e');
});

afterAll(async () => {
  await browser?.stop();
  await pages?.close();
});

function plan(root: string, count: number, label: string): string {
  const file = path.join(root, 'plan.jsonl');
  writePlan(
    file,
    Array.from({ length: count }, (_, i) => planLine(pages.url(`/farmed.html?${label}=${i + 1}`), TYPES[i % TYPES.length], `${label}-${i + 1}`)),
  );
  return file;
}

/** Every artifact a plan of `count` lines writes (a screenshot with its sidecar). */
function expectedFiles(label: string, count: number): string[] {
  const files: string[] = [];
  for (let i = 0; i < count; i++) {
    const type = TYPES[i % TYPES.length];
    files.push(`${label}-${i + 1}.${EXTENSION[type]}`);
    if (type === 'screenshot') files.push(`${label}-${i + 1}.probe.json`);
  }
  return files.sort();
}

/** Every written file's bytes and, for a ZIP, every entry's: where a token could hide. */
async function writtenText(dir: string): Promise<string> {
  let text = '';
  for (const rel of filesUnder(dir)) {
    const bytes = fs.readFileSync(path.join(dir, rel));
    text += `\n${rel}\n${bytes.toString('latin1')}`;
    if (rel.endsWith('.zip')) {
      const zip = await JSZip.loadAsync(bytes);
      for (const name of Object.keys(zip.files)) text += `\n${rel}!${name}\n${await zip.files[name].async('string')}`;
    }
  }
  return text;
}

function expectNoToken(where: string, text: string): void {
  for (const secret of [TOKEN, WRONG]) {
    if (text.includes(secret)) throw new Error(`${where} holds the token: …${text.slice(Math.max(0, text.indexOf(secret) - 120), text.indexOf(secret) + 40)}…`);
  }
}

/** A manifest as an orchestrator writes it from the results, so the report shows what the tool said (errors included). */
function writeManifest(root: string, results: Array<Record<string, any>>): void {
  const lines = results.map((r, i) =>
    JSON.stringify({
      criterion: `L6.${i + 1}`,
      artifact: r.artifact.replace(/^evidence\//, ''),
      observed_state: r.observed_state,
      result: r.result,
      ts: new Date(Date.UTC(2026, 0, 1, 9, 0, i)).toISOString(),
      capture: {
        provider: 'design-playbook-evidence',
        type: TYPES[(r.line - 1) % TYPES.length],
        state: 'farmed',
        url: pages.url('/farmed.html'),
        note: r.error || 'captured',
      },
      request: r.request ?? {
        schemaVersion: 1,
        viewport: { width: 640, height: 400, devicePixelRatio: 1, colorScheme: 'light' },
        freeze: { enabled: true, waitFonts: true, networkIdle: false },
      },
    }),
  );
  fs.mkdirSync(path.join(root, 'evidence'), { recursive: true });
  fs.writeFileSync(path.join(root, 'evidence', 'manifest.jsonl'), lines.join('\n') + '\n');
}

test('a 30-line plan rides out a 4 s farm restart: every line captured once; the token is nowhere in what it wrote or said', async () => {
  const farm = await farmFor(browser, { token: TOKEN, concurrency: 10, queue: 10 });
  const root = makeRunRoot('farm-restart');
  loads.length = 0;
  try {
    const file = plan(root, 30, 'restart');
    const run = startRun([file, '--run-root', root, '--parallel', '4', '--connect-per-capture', '--ws-endpoint', farm.wsUrl()]);
    // Restarted once a few lines are done and pages are on their way (captures in flight are cut).
    await waitUntil(() => run.results().length >= 6 && inFlight > 0, 120_000, 'six lines done and a page on its way');
    const restarted = farm.down(4_000);
    const { code } = await run.exited;
    await restarted;
    const printed = run.results();
    const summary = printed.pop()!.summary;
    expect(printed.filter((r) => r.result !== 'captured').map((r) => `${r.line}: ${r.error}`)).toEqual([]);
    expect(code).toBe(0);
    expect(summary).toMatchObject({ lines: 30, captured: 30, failed: 0, not_run: 0 });
    // Every line once.
    expect(printed.map((r) => r.line).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(filesUnder(path.join(root, 'evidence'))).toEqual(expectedFiles('restart', 30));
    // The captures cut mid-capture were run again over a new connection; the rest waited for the farm.
    const retried = printed.filter((r) =>
      r.warnings.some((w: string) => w.includes(`it was captured again over a new connection to ws://127.0.0.1:${farm.port}/chromium?token=***`)),
    );
    expect(retried.length).toBeGreaterThan(0);
    expect(run.stderr()).toMatch(/chromium\?token=\*\*\* does not answer \(could not attach to the browser at .*: the connection was refused \(ECONNREFUSED\)/);
    expect(run.stderr()).toContain(`ws://127.0.0.1:${farm.port}/chromium?token=*** answers again`);
    // A page is loaded once per attempt: a retried line at most twice, every other line once.
    for (const r of printed) {
      const count = loads.filter((l) => l === `/farmed.html?restart=${r.line}`).length;
      expect(count).toBeLessThanOrEqual(retried.includes(r) ? 2 : 1);
    }

    // The token: not in stdout, stderr, any result, any written file, nor in the report built from the results.
    expectNoToken('stdout', run.stdout());
    expectNoToken('stderr', run.stderr());
    expectNoToken('the evidence', await writtenText(path.join(root, 'evidence')));
    writeManifest(root, printed);
    const reportOut = execFileSync(process.execPath, [BIN, 'report', root], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expectNoToken('the report command', reportOut);
    expectNoToken('the report', await writtenText(path.join(root, 'report')));
  } finally {
    await farm.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a 429 storm: --parallel 8 against a farm of 2 (no queue) finishes every line, never more than 2 at once on the farm', async () => {
  const farm = await farmFor(browser, { token: TOKEN, concurrency: 2, queue: 0 });
  const root = makeRunRoot('farm-storm');
  try {
    const file = plan(root, 16, 'storm');
    const run = startRun([file, '--run-root', root, '--parallel', '8', '--connect-per-capture', '--ws-endpoint', farm.wsUrl()]);
    const { code } = await run.exited;
    const printed = run.results();
    const summary = printed.pop()!.summary;
    expect(printed.filter((r) => r.result !== 'captured').map((r) => `${r.line}: ${r.error}`)).toEqual([]);
    expect(code).toBe(0);
    expect(summary).toMatchObject({ lines: 16, captured: 16, failed: 0 });
    expect(filesUnder(path.join(root, 'evidence'))).toEqual(expectedFiles('storm', 16));
    // The farm said "full" and was believed: fewer at once, the others waited for a slot.
    expect(farm.stats.answered[429]).toBeGreaterThan(0);
    expect(farm.stats.maxRunning).toBeLessThanOrEqual(2);
    expect(farm.stats.sessions).toBe(16);
    expect(run.stderr()).toMatch(
      /chromium\?token=\*\*\* is full \(could not attach to the browser at .*HTTP 429 Too Many Requests.*\); sending it at most [12] captures? at once for now/,
    );
    expectNoToken('stdout', run.stdout());
    expectNoToken('stderr', run.stderr());
  } finally {
    await farm.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a bad token fails every line at once with the cause in words, and neither token is printed', async () => {
  const farm = await farmFor(browser, { token: TOKEN });
  const root = makeRunRoot('farm-bad-token');
  try {
    const file = plan(root, 4, 'badtoken');
    // A long budget: a refusal waiting cannot fix must not wait for it.
    const run = startRun([file, '--run-root', root, '--parallel', '2', '--connect-per-capture', '--ws-endpoint', farm.wsUrl(WRONG)], {
      env: { DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS: '120000' },
    });
    const { code } = await run.exited;
    expect(code).toBe(1);
    const printed = run.results();
    expect(printed.pop()!.summary).toMatchObject({ lines: 4, captured: 0, failed: 4 });
    for (const r of printed) {
      expect(r.error).toContain(
        `could not attach to the browser at ws://127.0.0.1:${farm.port}/chromium?token=*** (--ws-endpoint): it answered HTTP 401 Unauthorized`,
      );
      expect(r.error).toContain('check the token in the address');
      expect(r.error).not.toContain('[object Object]');
    }
    // One attempt per line: nothing waited out.
    expect(farm.stats.answered[401]).toBe(4);
    expect(filesUnder(path.join(root, 'evidence'))).toEqual([]);
    expectNoToken('stdout', run.stdout());
    expectNoToken('stderr', run.stderr());
    writeManifest(root, printed);
    execFileSync(process.execPath, [BIN, 'report', root], { stdio: 'ignore' });
    expectNoToken('the report', await writtenText(path.join(root, 'report')));
  } finally {
    await farm.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('the MCP server and doctor with a farm token: captured, and the token in neither answer nor log', async () => {
  const farm = await farmFor(browser, { token: TOKEN });
  const root = makeRunRoot('farm-server');
  const server = await startServer({ args: ['--connect-per-capture', '--ws-endpoint', farm.wsUrl()] });
  try {
    const shot = await server.capture(captureArgs(root, pages.url('/farmed.html?server'), 'server.png', { actions: [{ do: 'click', selector: '#go' }] }));
    expect(shot.error).toBe('');
    expect(shot).toMatchObject({ result: 'captured', observed_state: 'farmed' });
    const trace = await server.capture(captureArgs(root, pages.url('/farmed.html?server-trace'), 'server.trace.zip', { type: 'interaction trace' }));
    expect(trace.result).toBe('captured');
    expectNoToken('the MCP answers', JSON.stringify([shot, trace]));
    expectNoToken('the evidence', await writtenText(path.join(root, 'evidence')));
  } finally {
    await server.close();
  }
  try {
    expectNoToken('the server log', server.stderr());
    expect(server.stderr()).toContain(`attached to ws://127.0.0.1:${farm.port}/chromium?token=*** (--ws-endpoint)`);
    for (const args of [['--json'], []]) {
      const doctor = await runBin(['doctor', ...args, '--ws-endpoint', farm.wsUrl()], { env: { ...process.env, DESIGN_PLAYBOOK_RUN_ROOT: root } });
      expect(doctor.code).toBe(0);
      expect(doctor.stdout).toContain(`ws://127.0.0.1:${farm.port}/chromium?token=***`);
      expectNoToken('doctor', doctor.stdout + doctor.stderr);
    }
    // A bad token: doctor says why, without either token.
    const refused = await runBin(['doctor', '--ws-endpoint', farm.wsUrl(WRONG)], { env: { ...process.env, DESIGN_PLAYBOOK_RUN_ROOT: root } });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('it answered HTTP 401 Unauthorized');
    expectNoToken('doctor', refused.stdout + refused.stderr);
  } finally {
    await farm.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});
