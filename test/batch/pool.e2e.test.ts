/**
 * A pool of browser endpoints, for the runner and the MCP server alike, over
 * Chromium processes this test starts with --remote-debugging-port=0: the
 * captures spread over all of them; one killed mid-run loses no line and
 * captures none twice; an endpoint that does not answer is taken out while
 * the others carry on; --connect-per-capture opens one DevTools connection
 * per capture and closes it after; the browsers keep exactly their own tabs.
 */
import * as fs from 'fs';
import * as path from 'path';
import { servePages, type PageServer } from '../helpers/browser';
import { closedPort, makeRunRoot, PAGES, startServer, captureArgs } from '../e2e/harness';
import { filesUnder, planLine, startRun, waitUntil, writePlan } from './harness';
import { countingRelay, startBrowser, type TestBrowser } from './browsers';

jest.setTimeout(300_000);

let pages: PageServer;
/** Which browser (by its user agent's `ua-<name>`) loaded which page. */
const loads: Array<{ browser: string; page: string }> = [];
const browsers: TestBrowser[] = [];
const stalled: Array<import('http').ServerResponse> = [];

beforeAll(async () => {
  pages = await servePages(PAGES, {
    // Answers after 300 ms, so captures overlap and a browser can be lost mid-capture.
    '/pooled.html': (req, res) => {
      const browser = /ua-(\w+)/.exec(req.headers['user-agent'] ?? '')?.[1] ?? 'unknown';
      loads.push({ browser, page: req.url ?? '' });
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(`<!doctype html><title>pooled</title><body data-state="pooled"><h1>Pooled page</h1><p>${req.url}</p></body>`);
      }, 300);
    },
    // Never answers (until the tests end): a capture that only its budget ends.
    '/stalled.html': (req, res) => {
      const browser = /ua-(\w+)/.exec(req.headers['user-agent'] ?? '')?.[1] ?? 'unknown';
      loads.push({ browser, page: req.url ?? '' });
      stalled.push(res);
    },
  });
  for (const name of ['alpha', 'beta', 'gamma']) browsers.push(await startBrowser(name));
});

afterAll(async () => {
  for (const res of stalled) res.destroy();
  for (const browser of browsers) await browser.stop();
  await pages?.close();
});

const loadedBy = (name: string) => loads.filter((l) => l.browser === name).length;

test('run over three browsers: the captures spread over all of them; one killed mid-run loses no line and captures none twice', async () => {
  const [alpha, beta, gamma] = browsers;
  const root = makeRunRoot('pool-run');
  const tabsBefore = [await alpha.tabs(), await gamma.tabs()];
  loads.length = 0;
  try {
    const plan = path.join(root, 'plan.jsonl');
    const types = ['screenshot', 'a11y tree'];
    writePlan(
      plan,
      Array.from({ length: 24 }, (_, i) => planLine(pages.url(`/pooled.html?line=${i + 1}`), types[i % 2], `pooled-${i + 1}`)),
    );
    const run = startRun([
      plan,
      '--run-root',
      root,
      '--parallel',
      '2',
      '--browser-url',
      alpha.url,
      '--browser-url',
      beta.url,
      '--ws-endpoint',
      gamma.wsEndpoint,
    ]);
    // beta goes away once it is busy with captures.
    await waitUntil(() => loadedBy('beta') >= 2, 120_000, 'beta to load pages');
    await beta.kill();
    const { code } = await run.exited;
    expect(run.stderr()).not.toContain('Error:');
    expect(code).toBe(0);

    const printed = run.results();
    const summary = printed.pop()!.summary;
    expect(summary).toMatchObject({ lines: 24, captured: 24, failed: 0 });
    // Every line once, captured.
    expect(printed.map((r) => r.line).sort((a, b) => a - b)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
    expect(printed.every((r) => r.result === 'captured')).toBe(true);
    const artifacts = filesUnder(path.join(root, 'evidence')).filter((f) => !f.endsWith('.probe.json'));
    expect(artifacts).toEqual(Array.from({ length: 24 }, (_, i) => `pooled-${i + 1}.${i % 2 ? 'json' : 'png'}`).sort());
    expect(filesUnder(path.join(root, 'evidence')).some((f) => f.includes('.partial'))).toBe(false);

    // All three took part; after beta died, its lost captures were run again elsewhere.
    for (const name of ['alpha', 'beta', 'gamma']) expect(loadedBy(name)).toBeGreaterThan(0);
    expect(run.stderr()).toContain(`${beta.url} went away during a capture; capturing it again on another browser`);
    // beta was killed while a page it loaded was still on its way (300 ms): that line was captured again elsewhere, once.
    const retried = printed.filter((r) => r.warnings.some((w: string) => w.includes(`the browser at ${beta.url} went away during the capture`)));
    expect(retried.length).toBeGreaterThan(0);
    for (const r of retried) {
      const page = `/pooled.html?line=${r.line}`;
      const by = loads.filter((l) => l.page === page).map((l) => l.browser);
      expect(by[0]).toBe('beta');
      expect(by.slice(1).length).toBe(1);
      expect(['alpha', 'gamma']).toContain(by[1]);
    }
    // The survivors hold exactly the tabs they had.
    expect([await alpha.tabs(), await gamma.tabs()]).toEqual(tabsBefore);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('the MCP server over DESIGN_PLAYBOOK_CDP_URL=a,b: parallel calls use both; an endpoint that does not answer is taken out', async () => {
  const [alpha, , gamma] = browsers;
  const root = makeRunRoot('pool-server');
  const deadPort = await closedPort();
  loads.length = 0;
  const server = await startServer({
    env: { DESIGN_PLAYBOOK_CDP_URL: `${alpha.url}, 127.0.0.1:${deadPort},${gamma.wsEndpoint}`, DESIGN_PLAYBOOK_MAX_PARALLEL: '2' },
  });
  try {
    const payloads = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        server.capture(
          captureArgs(root, pages.url(`/pooled.html?call=${i}`), `call-${i}.png`, {
            viewport: { width: 640, height: 400, devicePixelRatio: 1, colorScheme: 'light' },
          }),
        ),
      ),
    );
    for (const payload of payloads) expect(payload).toMatchObject({ result: 'captured', observed_state: 'pooled' });
    expect(loadedBy('alpha')).toBeGreaterThan(0);
    expect(loadedBy('gamma')).toBeGreaterThan(0);
    expect(server.stderr()).toContain(`127.0.0.1:${deadPort}`);
  } finally {
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('--connect-per-capture: one DevTools connection per capture, closed when it is done (runner and server)', async () => {
  const [alpha] = browsers;
  const relay = await countingRelay(alpha);
  const root = makeRunRoot('pool-per-capture');
  const tabsBefore = await alpha.tabs();
  try {
    const plan = path.join(root, 'plan.jsonl');
    writePlan(
      plan,
      [1, 2, 3].map((i) => planLine(pages.url(`/plain.html?${i}`), i === 2 ? 'interaction trace' : 'screenshot', `farm-${i}`)),
    );
    const run = startRun([plan, '--run-root', root, '--parallel', '2', '--connect-per-capture', '--ws-endpoint', relay.wsEndpoint]);
    const { code } = await run.exited;
    expect(code).toBe(0);
    expect(run.results().pop()!.summary).toMatchObject({ captured: 3, failed: 0 });
    expect(relay.opened).toBe(3);
    expect(relay.open).toBe(0);

    const server = await startServer({ args: ['--connect-per-capture', '--ws-endpoint', relay.wsEndpoint] });
    try {
      for (const i of [1, 2]) {
        const payload = await server.capture(captureArgs(root, pages.url('/plain.html'), `farm-server-${i}.png`));
        expect(payload.result).toBe('captured');
        // Disconnected before the answer: nothing stays open between captures.
        await waitUntil(() => relay.open === 0, 5_000, 'the connection to close');
        expect(relay.opened).toBe(3 + i);
      }
    } finally {
      await server.close();
    }
    expect(await alpha.tabs()).toEqual(tabsBefore);
  } finally {
    await relay.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a failure the page caused is not retried elsewhere: a refused port, an action on a missing selector', async () => {
  const [alpha, , gamma] = browsers;
  const root = makeRunRoot('pool-page-failure');
  const deadPort = await closedPort();
  loads.length = 0;
  try {
    const plan = path.join(root, 'plan.jsonl');
    writePlan(plan, [
      planLine(`http://127.0.0.1:${deadPort}/refused.html`, 'screenshot', 'refused'),
      planLine(pages.url('/pooled.html?missing'), 'a11y tree', 'missing', { actions: [{ do: 'click', selector: '#no-such-element' }] }),
      planLine(pages.url('/pooled.html?good'), 'screenshot', 'good'),
    ]);
    const run = startRun([plan, '--run-root', root, '--parallel', '2', '--browser-url', alpha.url, '--ws-endpoint', gamma.wsEndpoint]);
    const { code } = await run.exited;
    expect(code).toBe(1);
    const printed = run.results();
    expect(printed.pop()!.summary).toMatchObject({ captured: 1, failed: 2, failed_lines: [1, 2] });
    for (const r of printed) expect(r.warnings.join('\n')).not.toContain('captured again');
    // The page with the missing element was loaded once, by one browser: its failure is the capture's result.
    expect(loads.filter((l) => l.page === '/pooled.html?missing')).toHaveLength(1);
    expect(run.stderr()).not.toContain('capturing it again');
    expect(run.stderr()).not.toContain('out of service');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('--connect-per-capture with one farm URL: a capture whose connection was lost is captured again over a new connection', async () => {
  const [alpha] = browsers;
  const relay = await countingRelay(alpha);
  const root = makeRunRoot('pool-farm-retry');
  loads.length = 0;
  try {
    const plan = path.join(root, 'plan.jsonl');
    writePlan(
      plan,
      [1, 2].map((i) => planLine(pages.url(`/pooled.html?farm-retry=${i}`), 'screenshot', `farm-retry-${i}`)),
    );
    const run = startRun([plan, '--run-root', root, '--parallel', '2', '--connect-per-capture', '--ws-endpoint', relay.wsEndpoint]);
    // The farm drops the connections while their pages are on the way (a browser behind it died).
    await waitUntil(() => loads.some((l) => l.page.startsWith('/pooled.html?farm-retry=')), 60_000, 'a farm page to load');
    relay.cut();
    const { code } = await run.exited;
    expect(code).toBe(0);
    const printed = run.results();
    expect(printed.pop()!.summary).toMatchObject({ captured: 2, failed: 0 });
    const retried = printed.filter((r) => r.warnings.some((w: string) => w.includes(`captured again over a new connection to ${relay.wsEndpoint}`)));
    expect(retried.length).toBeGreaterThan(0);
    // One connection per attempt: each line once, each retried line once more.
    expect(relay.opened).toBe(2 + retried.length);
    // The line whose page was on its way when the connection dropped was loaded again; one cut before its page asked was loaded once.
    const loadsOf = (line: number) => loads.filter((l) => l.page === `/pooled.html?farm-retry=${line}`).length;
    for (const r of retried) expect([1, 2]).toContain(loadsOf(r.line));
    expect(retried.some((r) => loadsOf(r.line) === 2)).toBe(true);
    for (const r of printed.filter((p) => !retried.includes(p))) expect(loadsOf(r.line)).toBe(1);
    expect(filesUnder(path.join(root, 'evidence'))).toEqual(['farm-retry-1.png', 'farm-retry-1.probe.json', 'farm-retry-2.png', 'farm-retry-2.probe.json']);
    await waitUntil(() => relay.open === 0, 10_000, 'the connections to close');
  } finally {
    await relay.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a retry gets one more budget, waiting for a browser included; a page that hangs on a browser that answers is not retried', async () => {
  const [, , gamma] = browsers;
  const epsilon = await startBrowser('epsilon');
  const root = makeRunRoot('pool-retry-cap');
  loads.length = 0;
  try {
    const plan = path.join(root, 'plan.jsonl');
    writePlan(
      plan,
      [1, 2].map((i) => planLine(pages.url(`/stalled.html?cap=${i}`), 'screenshot', `cap-${i}`)),
    );
    // One at a time on each: epsilon's lost capture can only be retried on gamma, whose slot holds a page that never answers.
    const run = startRun([plan, '--run-root', root, '--parallel', '1', '--ws-endpoint', epsilon.wsEndpoint, '--ws-endpoint', gamma.wsEndpoint], {
      env: { DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS: '6000' },
    });
    await waitUntil(() => loadedBy('epsilon') >= 1 && loadedBy('gamma') >= 1, 60_000, 'both browsers waiting on their page');
    await epsilon.kill();
    const killedAt = Date.now();
    const { code } = await run.exited;
    const afterKill = Date.now() - killedAt;
    expect(code).toBe(1);
    const printed = run.results();
    expect(printed.pop()!.summary).toMatchObject({ captured: 0, failed: 2 });
    const lineOn = (name: string) => Number(/cap=(\d)/.exec(loads.find((l) => l.browser === name)!.page)![1]);
    const lost = printed.find((r) => r.line === lineOn('epsilon'))!;
    const hung = printed.find((r) => r.line === lineOn('gamma'))!;
    // gamma still answers: its page's hang is the capture's result, not retried.
    expect(hung.error).toContain('whole-capture budget');
    expect(hung.error).not.toContain('first attempt');
    expect(loads.filter((l) => l.page === `/stalled.html?cap=${hung.line}`)).toHaveLength(1);
    // epsilon's capture waited for gamma's slot, then ran out of the one budget its retry had.
    expect(lost.error).toContain(`the capture was run again after its first attempt on ${epsilon.wsEndpoint} lost its browser`);
    expect(lost.error).toContain(
      'did not finish within one more whole-capture budget (6000 ms, DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS), waiting for a free browser included',
    );
    // One budget after the loss, not gamma's budget plus a whole second one.
    expect(afterKill).toBeLessThan(11_000);
    expect(filesUnder(path.join(root, 'evidence'))).toEqual([]);
  } finally {
    await epsilon.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

describe('a browser that stays connected but answers nothing (SIGSTOP)', () => {
  let delta: TestBrowser;
  /** A short budget, so a stuck capture gives up in seconds (still room for a healthy capture on a loaded machine). */
  const env = { DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS: '12000' };

  beforeAll(async () => {
    delta = await startBrowser('delta');
  });
  afterAll(async () => {
    // Continued, killed, and exited before its profile goes.
    await delta?.stop();
  });

  test('stopped mid-run: its captures run out of budget, it does not answer Browser.getVersion, it is taken out, and they are captured once elsewhere', async () => {
    const [alpha, , gamma] = browsers;
    const root = makeRunRoot('pool-stopped');
    loads.length = 0;
    try {
      const plan = path.join(root, 'plan.jsonl');
      const types = ['screenshot', 'a11y tree'];
      writePlan(
        plan,
        Array.from({ length: 24 }, (_, i) => planLine(pages.url(`/pooled.html?stopped=${i + 1}`), types[i % 2], `stopped-${i + 1}`)),
      );
      const started = Date.now();
      const run = startRun(
        [plan, '--run-root', root, '--parallel', '2', '--browser-url', alpha.url, '--ws-endpoint', delta.wsEndpoint, '--ws-endpoint', gamma.wsEndpoint],
        { env },
      );
      await waitUntil(() => loadedBy('delta') >= 2, 120_000, 'delta to load pages');
      delta.freeze();
      let summaryAt = Infinity;
      run.child.stderr!.on('data', () => {
        if (summaryAt === Infinity && /^done: /m.test(run.stderr())) summaryAt = Date.now();
      });
      const { code } = await run.exited;
      const seconds = (Date.now() - started) / 1000;
      // Out soon after its summary: a connection to the stopped browser does not hold the process.
      expect(Date.now() - summaryAt).toBeLessThan(6_000);
      expect(run.stderr()).not.toContain('Error:');
      // Any failed line, with its error, before the exit code.
      expect(
        run
          .results()
          .filter((r) => r.result === 'failed')
          .map((r) => `${r.line}: ${r.error}`),
      ).toEqual([]);
      expect(code).toBe(0);
      const printed = run.results();
      expect(printed.pop()!.summary).toMatchObject({ lines: 24, captured: 24, failed: 0 });
      expect(printed.map((r) => r.line).sort((a, b) => a - b)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
      const artifacts = filesUnder(path.join(root, 'evidence')).filter((f) => !f.endsWith('.probe.json'));
      expect(artifacts).toEqual(Array.from({ length: 24 }, (_, i) => `stopped-${i + 1}.${i % 2 ? 'json' : 'png'}`).sort());

      expect(run.stderr()).toMatch(
        new RegExp(`${delta.wsEndpoint.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} stopped answering \\(no answer to Browser.getVersion within \\d+ ms`),
      );
      const retried = printed.filter((r) =>
        r.warnings.some((w: string) =>
          w.includes(`the browser at ${delta.wsEndpoint} stopped answering during the capture; it was captured again on another browser of the pool`),
        ),
      );
      expect(retried.length).toBeGreaterThan(0);
      for (const r of retried) {
        const by = loads.filter((l) => l.page === `/pooled.html?stopped=${r.line}`).map((l) => l.browser);
        expect(by).toHaveLength(2);
        expect(by[0]).toBe('delta');
        expect(['alpha', 'gamma']).toContain(by[1]);
      }
      // A stuck capture costs its budget, its cleanup and the probe, then one more budget at most: not a minute each.
      expect(seconds).toBeLessThan(120);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test('stopped before the run: connecting to it gives up within the budget and the others carry the plan', async () => {
    const [alpha, , gamma] = browsers;
    const root = makeRunRoot('pool-stopped-start');
    try {
      const plan = path.join(root, 'plan.jsonl');
      writePlan(
        plan,
        Array.from({ length: 6 }, (_, i) => planLine(pages.url(`/plain.html?${i}`), 'a11y tree', `start-${i + 1}`)),
      );
      const run = startRun(
        [plan, '--run-root', root, '--parallel', '2', '--browser-url', alpha.url, '--browser-url', delta.url, '--ws-endpoint', gamma.wsEndpoint],
        { env },
      );
      const { code } = await run.exited;
      expect(code).toBe(0);
      expect(run.results().pop()!.summary).toMatchObject({ captured: 6, failed: 0 });
      expect(run.stderr()).toContain(
        `${delta.url} does not answer (could not attach to the browser at ${delta.url} (--browser-url): no answer within 10000 ms)`,
      );
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test('a third Ctrl-C leaves at once, with the summary', async () => {
    const root = makeRunRoot('pool-third-interrupt');
    const relays: Array<Awaited<ReturnType<typeof countingRelay>>> = [];
    try {
      const plan = path.join(root, 'plan.jsonl');
      writePlan(
        plan,
        Array.from({ length: 4 }, (_, i) => planLine(pages.url(`/plain.html?${i}`), 'screenshot', `third-${i + 1}`)),
      );
      // Only the stopped browser (through a relay, to see the captures reach it): they wait on it, and abandoning them cannot close it either.
      const relay = await countingRelay(delta);
      const run = startRun([plan, '--run-root', root, '--parallel', '2', '--ws-endpoint', relay.wsEndpoint], {
        env: { DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS: '60000' },
      });
      relays.push(relay);
      await waitUntil(() => relay.opened >= 1, 30_000, 'the captures to connect');
      run.child.kill('SIGINT');
      await waitUntil(() => run.stderr().includes('Ctrl-C again to abandon'), 10_000, 'the first interrupt noted');
      run.child.kill('SIGINT');
      await waitUntil(() => run.stderr().includes('abandoning'), 10_000, 'the second interrupt noted');
      const second = Date.now();
      run.child.kill('SIGINT');
      const { code } = await run.exited;
      // Not the 15 s abandon grace: the third leaves now.
      expect(Date.now() - second).toBeLessThan(5_000);
      expect(code).toBe(130);
      expect(run.stderr()).toContain('interrupted a third time: leaving now without waiting for 2 captures in flight');
      const summaries = run.results().filter((r) => r.summary);
      expect(summaries).toHaveLength(1);
      expect(summaries[0].summary).toMatchObject({ lines: 4, captured: 0, not_run: 4, interrupted: true });
      expect(run.stderr()).toMatch(/^interrupted: 4 lines, 0 captured, 0 failed, 4 not run/m);
      expect(filesUnder(path.join(root, 'evidence'))).toEqual([]);
    } finally {
      for (const relay of relays) await relay.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
