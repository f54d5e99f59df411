/**
 * `design-playbook-evidence run PLAN.jsonl` against the system Chromium: a
 * plan mixing the three capture types with bad lines, re-running it with
 * --skip-existing, progress on a terminal and in a log, and Ctrl-C (once:
 * the captures in flight finish; twice: they are abandoned), each time with
 * no partial file and the summary printed.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { execFile } from 'child_process';
import type * as http from 'http';
import { servePages, CHROMIUM_PATH, type PageServer } from '../helpers/browser';
import { BIN, makeRunRoot, pngSize, PAGES, PROFILE_PREFIX } from '../e2e/harness';
import { filesUnder, planLine, startRun, waitUntil, writePlan, EXTENSION } from './harness';

jest.setTimeout(180_000);

let pages: PageServer;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-run-tmp-'));
const slowRequests: http.ServerResponse[] = [];
let stalledRequests = 0;

beforeAll(async () => {
  pages = await servePages(PAGES, {
    // Answers after a second: long enough to interrupt a run mid-capture.
    '/slow.html': (_req, res) => {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<!doctype html><body data-state="slow"><p>slow page</p></body>');
      }, 1_000);
    },
    // Never answers (until the tests end): a capture that will not finish on its own.
    '/stalled.html': (_req, res) => {
      stalledRequests++;
      slowRequests.push(res);
    },
  });
});

afterAll(async () => {
  for (const res of slowRequests) res.destroy();
  await pages?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** 30 lines: the three types over several pages, both colour schemes, actions on some; lines 7 and 19 are bad. */
function mixedPlan(): Array<Record<string, unknown>> {
  const sources: Array<[string, Record<string, unknown>]> = [
    ['/plain.html', {}],
    ['/scheme.html', { viewport: { width: 640, height: 400, devicePixelRatio: 1, colorScheme: 'dark' } }],
    ['/tall.html', {}],
    ['/markers.html', {}],
    ['/disclosure.html', { actions: [{ do: 'click', selector: '#toggle' }] }],
    [
      '/delayed.html',
      {
        actions: [
          { do: 'click', selector: '#go' },
          { do: 'wait_for_state', state: 'done' },
        ],
      },
    ],
    ['/link.html', {}],
  ];
  const types = ['screenshot', 'a11y tree', 'interaction trace'];
  const lines: Array<Record<string, unknown>> = [];
  for (let i = 1; i <= 30; i++) {
    const [page, extra] = sources[i % sources.length];
    lines.push(planLine(pages.url(page), types[i % 3], `line-${i}`, extra));
  }
  // A criterion id is an unknown field; 'video' is no capture type: both are refusals the tool reports as errors.
  lines[6] = { ...lines[6], criterion: 'L6.7' };
  lines[18] = { ...lines[18], type: 'video' };
  return lines;
}

test('a 30-line plan: 28 artifacts, 2 line-numbered errors, exit 1; --skip-existing then captures nothing new', async () => {
  const root = makeRunRoot('run-mixed');
  try {
    const plan = path.join(root, 'plan.jsonl');
    writePlan(plan, mixedPlan());
    const run = startRun([plan, '--run-root', root, '--parallel', '4'], { env: { TMPDIR: tmp } });
    const { code } = await run.exited;
    expect(run.stderr()).not.toContain('Error:');
    expect(code).toBe(1);

    const printed = run.results();
    const summary = printed.pop()!.summary;
    expect(summary).toMatchObject({ lines: 30, captured: 28, failed: 2, skipped: 0, not_run: 0, interrupted: false, failed_lines: [7, 19] });
    // Every line reported exactly once, as {"line": N, ...the tool's payload}.
    expect(printed.map((r) => r.line).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    const byLine = new Map(printed.map((r) => [r.line, r]));
    expect(byLine.get(7)).toMatchObject({ result: 'failed', isError: true, artifact: 'evidence/line-7.json', written_path: '' });
    expect(byLine.get(7)!.error).toContain("unknown field 'criterion': provider accepts Runtime Object fields only");
    expect(byLine.get(19)).toMatchObject({ result: 'failed', isError: true });
    expect(byLine.get(19)!.error).toMatch(/type/);

    const types = ['screenshot', 'a11y tree', 'interaction trace'];
    for (let i = 1; i <= 30; i++) {
      if (i === 7 || i === 19) continue;
      const result = byLine.get(i)!;
      const leaf = `line-${i}.${EXTENSION[types[i % 3]]}`;
      expect(result).toMatchObject({
        result: 'captured',
        error: '',
        artifact: `evidence/${leaf}`,
        written_path: path.join(fs.realpathSync(root), 'evidence', leaf),
      });
      expect(result.request.viewport.width).toBe(640);
    }
    // The dark line saw the dark scheme; the clicked line its clicked state.
    expect(byLine.get(1)!.observed_state).toBe('dark');
    expect(byLine.get(5)!.observed_state).toBe('done');

    const evidence = path.join(root, 'evidence');
    const files = filesUnder(evidence);
    const artifacts = files.filter((f) => !f.endsWith('.probe.json'));
    expect(artifacts).toHaveLength(28);
    // Screenshots carry their sidecar; nothing partial, no manifest.
    expect(files.filter((f) => f.endsWith('.probe.json'))).toHaveLength(artifacts.filter((f) => f.endsWith('.png')).length);
    expect(files.some((f) => f.includes('.partial') || /manifest/i.test(f))).toBe(false);
    expect(pngSize(path.join(evidence, 'line-3.png')).width).toBe(640);
    expect(JSON.parse(fs.readFileSync(path.join(evidence, 'line-4.json'), 'utf8')).format).toBe('aria_snapshot');
    expect(fs.readFileSync(path.join(evidence, 'line-5.trace.zip')).subarray(0, 2).toString('latin1')).toBe('PK');

    // The second run: every artifact is there, so nothing is captured or rewritten.
    const before = new Map(files.map((f) => [f, fs.statSync(path.join(evidence, f)).mtimeMs]));
    const again = startRun([plan, '--run-root', root, '--skip-existing'], { env: { TMPDIR: tmp } });
    const second = await again.exited;
    expect(second.code).toBe(1); // lines 7 and 19 are still bad
    const secondPrinted = again.results();
    const secondSummary = secondPrinted.pop()!.summary;
    expect(secondSummary).toMatchObject({ lines: 30, captured: 0, failed: 2, skipped: 28, not_run: 0, failed_lines: [7, 19] });
    expect(
      secondPrinted
        .filter((r) => r.result === 'skipped')
        .map((r) => r.written_path)
        .sort(),
    ).toEqual(artifacts.map((f) => path.join(fs.realpathSync(root), 'evidence', f)).sort());
    expect(filesUnder(evidence)).toEqual(files);
    for (const [f, mtime] of before) expect(fs.statSync(path.join(evidence, f)).mtimeMs).toBe(mtime);
    // Nothing launched a browser for nothing: no browser profile is left, and none was needed.
    expect(again.stderr()).not.toContain('launched');

    // The good lines alone, re-run: all skipped, exit 0.
    const goodPlan = path.join(root, 'good.jsonl');
    writePlan(
      goodPlan,
      mixedPlan().filter((_, i) => i !== 6 && i !== 18),
    );
    const good = startRun([goodPlan, '--run-root', root, '--skip-existing'], { env: { TMPDIR: tmp } });
    expect((await good.exited).code).toBe(0);
    expect(good.results().pop()!.summary).toMatchObject({ lines: 28, skipped: 28, failed: 0 });
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  // 30 real captures and two re-runs: headroom for a loaded 2-core machine.
}, 480_000);

test('a plan that cannot be read exits 2; a line that is not JSON is reported with its number', async () => {
  const root = makeRunRoot('run-unreadable');
  try {
    const help = startRun(['--help']);
    expect((await help.exited).code).toBe(0);
    expect(help.stdout()).toContain('design-playbook-evidence run PLAN.jsonl');
    const usage = startRun(['--parallel', '0', 'x.jsonl']);
    expect((await usage.exited).code).toBe(2);
    expect(usage.stderr()).toContain('--parallel must be a positive integer');

    const missing = startRun([path.join(root, 'nope.jsonl'), '--run-root', root]);
    expect((await missing.exited).code).toBe(2);
    expect(missing.stderr()).toContain('cannot read the plan');
    expect(missing.stdout()).toBe('');

    // A folder given as the plan: exit 2, said plainly, nothing on stdout.
    const folder = startRun([root, '--run-root', root]);
    expect((await folder.exited).code).toBe(2);
    expect(folder.stderr()).toContain(`run: cannot read the plan ${root}: it is a folder`);
    expect(folder.stdout()).toBe('');

    const empty = path.join(root, 'empty.jsonl');
    fs.writeFileSync(empty, '\n\n');
    const none = startRun([empty, '--run-root', root]);
    expect((await none.exited).code).toBe(2);
    expect(none.stderr()).toContain('holds no lines');

    const noMarker = fs.mkdtempSync(path.join(tmp, 'nomarker-'));
    const badRoot = startRun([empty, '--run-root', noMarker]);
    expect((await badRoot.exited).code).toBe(2);
    expect(badRoot.stderr()).toContain('holds no run marker');

    const plan = path.join(root, 'broken.jsonl');
    writePlan(plan, [
      '',
      '{"schemaVersion": 1,',
      JSON.stringify(planLine(pages.url('/plain.html'), 'a11y tree', 'after-broken')),
      JSON.stringify({ ...planLine(pages.url('/plain.html'), 'a11y tree', 'x'), artifact_path: 'evidence/manifest.jsonl' }),
    ]);
    const broken = startRun([plan, '--run-root', root], { env: { TMPDIR: tmp } });
    expect((await broken.exited).code).toBe(1);
    const printed = broken.results();
    expect(printed.pop()!.summary).toMatchObject({ lines: 3, captured: 1, failed: 2, failed_lines: [2, 4] });
    const line2 = printed.find((r) => r.line === 2)!;
    expect(line2).toMatchObject({ result: 'failed', isError: true });
    expect(line2.error).toContain('line 2 is not a JSON value');
    expect(printed.find((r) => r.line === 3)!.result).toBe('captured');
    expect(printed.find((r) => r.line === 4)!.error).toBe('provider never writes manifest.jsonl');
    expect(fs.existsSync(path.join(root, 'evidence', 'manifest.jsonl'))).toBe(false);

    // Two lines writing one artifact: the later one is refused with both numbers before any capture; the first keeps it.
    const twice = path.join(root, 'twice.jsonl');
    const first = planLine(pages.url('/plain.html?first'), 'screenshot', 'twice', { overwrite: true });
    writePlan(twice, [
      first,
      { ...planLine(pages.url('/plain.html?second'), 'screenshot', 'twice', { overwrite: true }), artifact_path: ' evidence/./twice.png' },
    ]);
    const dup = startRun([twice, '--run-root', root], { env: { TMPDIR: tmp } });
    expect((await dup.exited).code).toBe(1);
    const dupPrinted = dup.results();
    expect(dupPrinted.pop()!.summary).toMatchObject({ lines: 2, captured: 1, failed: 1, failed_lines: [2] });
    expect(dupPrinted.find((r) => r.line === 1)!.result).toBe('captured');
    expect(dupPrinted.find((r) => r.line === 2)!.error).toMatch(
      /^line 2: artifact_path evidence\/\.\/twice\.png is also written by line 1 \(artifact_path evidence\/twice\.png\); each artifact is written once per plan/,
    );
    expect(JSON.parse(fs.readFileSync(path.join(root, 'evidence', 'twice.probe.json'), 'utf8')).page.finalUrl).toContain('?first');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('progress: a live line redrawn on a terminal, plain lines in a log', async () => {
  const root = makeRunRoot('run-progress');
  try {
    const plan = path.join(root, 'plan.jsonl');
    writePlan(
      plan,
      [1, 2, 3].map((i) => planLine(pages.url('/plain.html'), 'a11y tree', `p-${i}`)),
    );

    // Without a terminal (a pipe): plain lines, no carriage return or escape code.
    const piped = startRun([plan, '--run-root', root, '--parallel', '1'], { env: { TMPDIR: tmp } });
    expect((await piped.exited).code).toBe(0);
    expect(piped.stderr()).toMatch(/^progress: 3\/3 done, 0 failed, \d+\.\d captures\/s, 0s left$/m);
    expect(piped.stderr()).not.toMatch(/[\r\x1b]/);
    expect(piped.stderr()).toMatch(/^done: 3 lines, 3 captured, 0 failed/m);

    // On a pseudo-terminal (util-linux script): the bar is drawn in place, and the results stay whole lines.
    const ttyPlan = path.join(root, 'tty.jsonl');
    writePlan(
      ttyPlan,
      [1, 2, 3].map((i) => planLine(pages.url('/plain.html'), 'a11y tree', `tty-${i}`)),
    );
    const command = [process.execPath, BIN, 'run', ttyPlan, '--run-root', root, '--parallel', '1'];
    const quoted = command.map((part) => `'${part.replace(/'/g, `'\\''`)}'`).join(' ');
    const output = await new Promise<{ code: number; text: string }>((resolve) => {
      execFile(
        'script',
        ['-qec', quoted, '/dev/null'],
        { env: { ...process.env, DESIGN_PLAYBOOK_CHROME_PATH: CHROMIUM_PATH, TMPDIR: tmp, COLUMNS: '100' }, timeout: 120_000 },
        (err, stdout) => resolve({ code: err ? Number((err as NodeJS.ErrnoException).code) : 0, text: stdout }),
      );
    });
    expect(output.code).toBe(0);
    expect(output.text).toContain('\r\x1b[2K[');
    expect(output.text).toMatch(/\[#+\] 3\/3 done, 0 failed, \d+\.\d captures\/s, 0s left/);
    expect(output.text).toMatch(/\[\.+\] 0\/3 done, 0 failed, 0\.0 captures\/s, time left unknown/);
    // Each result line arrives whole, on a line of its own, after the bar was lifted off.
    const resultLines = output.text
      .split(/\r?\n/)
      .map((l) => l.split('\r\x1b[2K').pop()!)
      .filter((l) => l.startsWith('{"line"'));
    expect(resultLines).toHaveLength(3);
    for (const line of resultLines) expect(JSON.parse(line).result).toBe('captured');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('Ctrl-C once: no new line starts, the captures in flight finish, the summary is printed, exit 130', async () => {
  const root = makeRunRoot('run-sigint');
  try {
    const plan = path.join(root, 'plan.jsonl');
    writePlan(
      plan,
      Array.from({ length: 12 }, (_, i) => planLine(pages.url(`/slow.html?${i}`), 'screenshot', `slow-${i + 1}`)),
    );
    const run = startRun([plan, '--run-root', root, '--parallel', '2'], { env: { TMPDIR: tmp } });
    await waitUntil(() => run.results().length >= 1, 90_000, 'the first result');
    run.child.kill('SIGINT');
    const { code } = await run.exited;
    expect(code).toBe(130);
    expect(run.stderr()).toContain('interrupted: starting no new line');
    const printed = run.results();
    const summary = printed.pop()!.summary;
    expect(summary.interrupted).toBe(true);
    expect(summary.not_run).toBeGreaterThan(0);
    expect(summary.failed).toBe(0);
    expect(summary.captured).toBe(printed.length);
    expect(summary.captured + summary.not_run).toBe(12);
    expect(run.stderr()).toMatch(/^interrupted: 12 lines, \d+ captured, 0 failed, \d+ not run/m);
    // Exactly the reported artifacts exist, each with its sidecar; nothing partial.
    const expected = printed.flatMap((r) => [path.basename(r.written_path), path.basename(r.written_path).replace(/\.png$/, '.probe.json')]).sort();
    expect(filesUnder(path.join(root, 'evidence'))).toEqual(expected);
    for (const r of printed) expect(pngSize(r.written_path).width).toBe(640);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('Ctrl-C twice: captures that would not finish are abandoned with nothing written; the browser and its profile are gone', async () => {
  const root = makeRunRoot('run-abandon');
  const ownTmp = fs.mkdtempSync(path.join(tmp, 'abandon-'));
  try {
    const plan = path.join(root, 'plan.jsonl');
    writePlan(
      plan,
      Array.from({ length: 5 }, (_, i) => planLine(pages.url(`/stalled.html?${i}`), i % 2 ? 'interaction trace' : 'screenshot', `stalled-${i + 1}`)),
    );
    stalledRequests = 0;
    const run = startRun([plan, '--run-root', root, '--parallel', '2'], { env: { TMPDIR: ownTmp } });
    await waitUntil(() => stalledRequests >= 2, 90_000, 'two captures waiting on their page');
    run.child.kill('SIGINT');
    await waitUntil(() => run.stderr().includes('Ctrl-C again to abandon'), 10_000, 'the first interrupt noted');
    expect(run.stderr()).toContain('waiting for 2 captures in flight');
    run.child.kill('SIGINT');
    const { code } = await run.exited;
    expect(code).toBe(130);
    expect(run.stderr()).toContain('abandoning 2 captures in flight');
    const printed = run.results();
    const summary = printed.pop()!.summary;
    expect(summary).toMatchObject({ lines: 5, captured: 0, failed: 2, not_run: 3, interrupted: true, failed_lines: [1, 2] });
    for (const r of printed) expect(r.error).toContain('interrupted: the capture was abandoned before it finished; nothing was written');
    expect(filesUnder(path.join(root, 'evidence'))).toEqual([]);
    // The launched browser went with the run, and its temporary profile too.
    expect(fs.readdirSync(ownTmp).filter((name) => name.startsWith(PROFILE_PREFIX))).toEqual([]);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
