/**
 * The batch runner's parts without a browser: plan parsing, the run loop over
 * a fake provider (concurrency, stop, abandon, skip-existing through the
 * boundary), and the progress line's wording in both forms.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parsePlan } from '../../src/batch/planFile';
import { PlanRunner, ABANDONED_MESSAGE, type LineResult } from '../../src/batch/runner';
import { ProgressReporter, formatDuration, progressFigures } from '../../src/batch/progress';
import { FakeProvider, writes, FAKE_PNG } from '../helpers/fakeProvider';
import { makeRunFixture, type RunFixture } from '../foundation/fixtures';

let run: RunFixture;
beforeEach(() => {
  run = makeRunFixture();
});
afterEach(() => run.cleanup());

function line(leaf: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    schemaVersion: 1,
    url: 'http://127.0.0.1:1/x.html',
    type: 'screenshot',
    state: 'ready',
    artifact_path: `evidence/${leaf}`,
    viewport: { width: 10, height: 10, devicePixelRatio: 1, colorScheme: 'light' },
    run_root: run.root,
    ...extra,
  };
}

const numbered = (args: unknown[]) => args.map((a, i) => ({ line: i + 1, args: a }));

test('plan lines keep their file line numbers; blank lines, a BOM and CRLF are not lines of their own', () => {
  const plan = parsePlan('\uFEFF{"a":1}\r\n\n   \n[1,2]\r\n{"b":\nnull\n');
  expect(plan).toEqual([
    { line: 1, args: { a: 1 } },
    { line: 4, args: [1, 2] },
    { line: 5, unreadable: expect.stringContaining('line 5 is not a JSON value') },
    { line: 6, args: null },
  ]);
});

test('every line goes through the boundary: refusals come back line-numbered, the rest are captured', async () => {
  const provider = new FakeProvider();
  const results: LineResult[] = [];
  const batch = new PlanRunner(
    [
      ...numbered([line('a.png'), { ...line('b.png'), criterion: 'L6.1' }, line('c.png', { overwrite: 'yes' }), [1, 2], line('evidence/../x.png')]),
      { line: 6, unreadable: 'line 6 is not a JSON value' },
      { line: 7, args: line('manifest.jsonl') },
    ],
    { concurrency: 3, provider, onResult: (r) => results.push(r) },
  );
  const summary = await batch.run();
  expect(summary).toMatchObject({ lines: 7, captured: 1, failed: 6, skipped: 0, not_run: 0, interrupted: false, failed_lines: [2, 3, 4, 5, 6, 7] });
  const byLine = new Map(results.map((r) => [r.line, r]));
  // Every line here was checked or captured (none skipped), so each result has an error field.
  const errorOf = (line: number) => (byLine.get(line) as { error?: string } | undefined)?.error;
  expect(byLine.get(1)).toMatchObject({ result: 'captured', artifact: 'evidence/a.png' });
  expect(byLine.get(2)).toMatchObject({ isError: true, artifact: 'evidence/b.png' });
  expect(errorOf(2)).toContain('provider accepts Runtime Object fields only');
  expect(byLine.get(3)).toMatchObject({ isError: true, error: expect.stringContaining('overwrite') });
  expect(byLine.get(4)).toMatchObject({ isError: true, error: 'execute_capture_plan arguments must be a JSON object' });
  // Containment and manifest refusals are failed results, not tool errors, exactly as the tool answers them.
  expect(byLine.get(5)).not.toHaveProperty('isError');
  expect(errorOf(5)).toBe("artifact_path must not contain '..' segments");
  expect(errorOf(7)).toBe('provider never writes manifest.jsonl');
  expect(provider.calls).toHaveLength(1);
});

test('at most `concurrency` lines run at once', async () => {
  let running = 0;
  let most = 0;
  const provider = new FakeProvider(async (args, context) => {
    running++;
    most = Math.max(most, running);
    await new Promise((resolve) => setTimeout(resolve, 20));
    running--;
    return writes()(args, context);
  });
  const summary = await new PlanRunner(numbered(Array.from({ length: 12 }, (_, i) => line(`c${i}.png`))), { concurrency: 3, provider }).run();
  expect(summary.captured).toBe(12);
  expect(most).toBe(3);
});

test('stop() starts no new line; abandon() reports what was in flight as abandoned', async () => {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const provider = new FakeProvider(async (args, context) => {
    await gate;
    if (String(args.artifact_path).includes('fail')) return { result: 'failed', error: 'Target closed' };
    return writes()(args, context);
  });
  const batch = new PlanRunner(numbered([line('ok.png'), line('fail.png'), line('never1.png'), line('never2.png')]), { concurrency: 2, provider });
  const done = batch.run();
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(batch.counts().inFlight).toBe(2);
  batch.stop();
  batch.abandon();
  release();
  const summary = await done;
  expect(summary).toMatchObject({ captured: 1, failed: 1, not_run: 2, interrupted: true, failed_lines: [2] });
  expect(provider.calls).toHaveLength(2);
  expect(fs.existsSync(path.join(run.evidence, 'fail.png'))).toBe(false);
});

test('an abandoned line carries the reason it ended with', async () => {
  const provider = new FakeProvider(async () => ({ result: 'failed', error: 'Target closed' }));
  const seen: LineResult[] = [];
  const batch = new PlanRunner(numbered([line('x.png')]), { concurrency: 1, provider, onResult: (r) => seen.push(r) });
  batch.abandon();
  // Abandoned before it started: the line never runs.
  expect((await batch.run()).not_run).toBe(1);
  const inFlight = new PlanRunner(numbered([line('y.png')]), {
    concurrency: 1,
    provider: new FakeProvider(async () => {
      inFlight.abandon();
      return { result: 'failed', error: 'Target closed' };
    }),
    onResult: (r) => seen.push(r),
  });
  await inFlight.run();
  expect(seen).toHaveLength(1);
  expect(seen[0].line).toBe(1);
  expect((seen[0] as { error: string }).error).toBe(`${ABANDONED_MESSAGE} (Target closed)`);
});

test('skip-existing skips an artifact already there, after the same checks, even with overwrite', async () => {
  fs.writeFileSync(path.join(run.evidence, 'there.png'), 'earlier');
  fs.writeFileSync(path.join(run.evidence, 'there.probe.json'), '{}');
  const provider = new FakeProvider();
  const seen: LineResult[] = [];
  const summary = await new PlanRunner(numbered([line('there.png', { overwrite: true }), line('missing.png'), { ...line('there.png'), criterion: 'x' }]), {
    concurrency: 1,
    provider,
    skipExisting: true,
    onResult: (r) => seen.push(r),
  }).run();
  expect(summary).toMatchObject({ captured: 1, skipped: 1, failed: 1, failed_lines: [3] });
  expect(seen[0]).toEqual({ line: 1, result: 'skipped', artifact: 'evidence/there.png', written_path: path.join(run.evidence, 'there.png'), warnings: [] });
  expect(fs.readFileSync(path.join(run.evidence, 'there.png'), 'utf8')).toBe('earlier');
  expect(fs.readFileSync(path.join(run.evidence, 'missing.png'))).toEqual(FAKE_PNG);
  expect(provider.calls.map((c) => c.context.fields.artifactPath)).toEqual(['evidence/missing.png']);
});

describe('progress', () => {
  const source = (counts: { captured: number; failed: number; skipped: number; total: number }, elapsedMs: number) => ({
    counts: () => ({ ...counts, inFlight: 0 }),
    elapsedMs: () => elapsedMs,
  });

  test('figures: rate of captures, time left from the pace of every line that ran', () => {
    expect(progressFigures(source({ captured: 8, failed: 2, skipped: 5, total: 35 }, 5_000))).toEqual({
      done: 15,
      total: 35,
      failed: 2,
      rate: 1.6,
      secondsLeft: 10,
    });
    expect(progressFigures(source({ captured: 0, failed: 0, skipped: 0, total: 3 }, 1_000)).secondsLeft).toBeUndefined();
    expect([formatDuration(0.4), formatDuration(59), formatDuration(75), formatDuration(3725)]).toEqual(['0s', '59s', '1m15s', '1h02m']);
  });

  test('plain: one line per interval and one at the end; live: redrawn in place, lifted off for other text', () => {
    let text = '';
    const stream = { write: (t: string) => (text += t) };
    const plain = new ProgressReporter(stream, source({ captured: 2, failed: 1, skipped: 0, total: 4 }, 2_000), { live: false, intervalMs: 60_000 });
    expect(text).toBe('');
    plain.finish();
    expect(text).toBe('progress: 3/4 done, 1 failed, 1.0 captures/s, 1s left\n');

    text = '';
    const live = new ProgressReporter({ ...stream, isTTY: true, columns: 100 }, source({ captured: 1, failed: 0, skipped: 0, total: 4 }, 1_000), {
      intervalMs: 60_000,
    });
    expect(text).toBe('\r\x1b[2K[########......................] 1/4 done, 0 failed, 1.0 captures/s, 3s left');
    live.update(); // unchanged: not drawn again
    live.clear();
    expect(text.endsWith('left\r\x1b[2K')).toBe(true);
    live.note('a note');
    expect(text.endsWith('a note\n\r\x1b[2K[########......................] 1/4 done, 0 failed, 1.0 captures/s, 3s left')).toBe(true);
    live.finish();
    expect(text.endsWith('\n')).toBe(true);
  });
});

describe('one writer per artifact', () => {
  test('a later line naming an artifact an earlier line writes is refused with both line numbers before any capture; the first keeps it', async () => {
    fs.mkdirSync(path.join(run.evidence, 'sub'));
    const provider = new FakeProvider();
    const seen: LineResult[] = [];
    const lines = [
      { line: 3, args: line('x.png', { overwrite: true }) },
      // The same file after the boundary's normalization: whitespace, './' and a folder that leads back.
      { line: 5, args: line('./x.png', { artifact_path: '  evidence/./x.png ' }) },
      { line: 8, args: line('sub/../x.png') },
      { line: 9, args: { ...line('y.png'), type: 'a11y tree', artifact_path: 'evidence/x.probe.json' } },
      { line: 12, args: line('x.png', { overwrite: true }) },
      // A line the boundary refuses claims nothing; the valid line after it keeps its artifact.
      { line: 14, args: { ...line('z.png'), criterion: 'L1' } },
      { line: 15, args: line('z.png') },
    ];
    const summary = await new PlanRunner(lines, { concurrency: 4, provider, onResult: (r) => seen.push(r) }).run();
    const byLine = new Map(seen.map((r) => [r.line, r as LineResult & { error: string }]));
    expect(byLine.get(3)!.result).toBe('captured');
    expect(byLine.get(15)!.result).toBe('captured');
    expect(byLine.get(14)!.result).toBe('failed');
    // '..' is a containment refusal of its own, not a duplicate.
    expect(byLine.get(8)!.error).toBe("artifact_path must not contain '..' segments");
    expect(byLine.get(12)).toMatchObject({ result: 'failed', artifact: 'evidence/x.png', written_path: '' });
    expect(byLine.get(12)!.error).toBe(
      'line 12: artifact_path evidence/x.png is also written by line 3; each artifact is written once per plan, so this line was not run (line 3 keeps it)',
    );
    expect(byLine.get(5)!.error).toMatch(/^line 5: artifact_path evidence\/\.\/x\.png is also written by line 3 \(artifact_path evidence\/x\.png\)/);
    // An aria snapshot named like a screenshot's sidecar collides with that sidecar.
    expect(byLine.get(9)!.error).toMatch(/^line 9: artifact_path evidence\/x\.probe\.json is also written by line 3/);
    expect(summary).toMatchObject({ captured: 2, failed: 5, failed_lines: [5, 8, 9, 12, 14] });
    expect(provider.calls.map((c) => c.context.fields.artifactPath)).toEqual(['evidence/x.png', 'evidence/z.png']);
  });

  test('a screenshot whose probe sidecar an earlier line writes is refused, naming the sidecar', async () => {
    const provider = new FakeProvider();
    const seen: LineResult[] = [];
    const lines = [
      { line: 1, args: { ...line('q.json'), type: 'a11y tree', artifact_path: 'evidence/q.probe.json' } },
      { line: 2, args: line('q.png') },
    ];
    const summary = await new PlanRunner(lines, { concurrency: 2, provider, onResult: (r) => seen.push(r) }).run();
    expect(summary).toMatchObject({ captured: 1, failed: 1, failed_lines: [2] });
    expect((seen.find((r) => r.line === 2) as { error: string }).error).toBe(
      'line 2: artifact_path evidence/q.png (its probe sidecar q.probe.json) is also written by line 1 (artifact_path evidence/q.probe.json); each artifact is written once per plan, so this line was not run (line 1 keeps it)',
    );
    expect(fs.readdirSync(run.evidence)).toEqual(['q.probe.json']);
  });

  test('the check captures nothing and writes nothing, and a plan without duplicates runs as before', async () => {
    const provider = new FakeProvider();
    const summary = await new PlanRunner(numbered([line('a.png'), line('b.png')]), { concurrency: 1, provider }).run();
    expect(summary).toMatchObject({ captured: 2, failed: 0 });
    expect(provider.calls).toHaveLength(2);
    expect(fs.readdirSync(run.evidence).sort()).toEqual(['a.png', 'a.probe.json', 'b.png', 'b.probe.json']);
  });
});

test('skip-existing: a screenshot counts as there only with its probe sidecar (the runtime writes one for every provider)', async () => {
  const provider = new FakeProvider();
  // Complete: the PNG and its sidecar.
  fs.writeFileSync(path.join(run.evidence, 'whole.png'), 'earlier');
  fs.writeFileSync(path.join(run.evidence, 'whole.probe.json'), '{}');
  // A PNG alone (an interrupted copy, a file put there by hand).
  fs.writeFileSync(path.join(run.evidence, 'half.png'), 'earlier');
  fs.writeFileSync(path.join(run.evidence, 'half-ow.png'), 'earlier');
  // Other types have no sidecar: the artifact alone is enough.
  fs.writeFileSync(path.join(run.evidence, 'tree.json'), '{}');
  const seen: LineResult[] = [];
  const summary = await new PlanRunner(
    numbered([line('whole.png'), line('half.png'), line('half-ow.png', { overwrite: true }), { ...line('tree.json'), type: 'a11y tree' }]),
    { concurrency: 1, provider, skipExisting: true, onResult: (r) => seen.push(r) },
  ).run();
  expect(summary).toMatchObject({ skipped: 2, captured: 1, failed: 1, failed_lines: [2] });
  const byLine = new Map(seen.map((r) => [r.line, r as LineResult & { error: string; warnings: string[] }]));
  expect(byLine.get(1)!.result).toBe('skipped');
  expect(byLine.get(4)!.result).toBe('skipped');
  // Without overwrite the PNG is not replaced; the reason names the missing sidecar.
  expect(byLine.get(2)!.result).toBe('failed');
  const half = path.join(run.evidence, 'half.png');
  expect(byLine.get(2)!.error).toBe(
    `artifact already exists: ${half} (pass overwrite=true to replace) (--skip-existing did not skip it: ${half} is there but its probe sidecar half.probe.json is not; pass overwrite: true to capture both again)`,
  );
  expect(fs.readFileSync(path.join(run.evidence, 'half.png'), 'utf8')).toBe('earlier');
  // With overwrite: both captured again.
  expect(byLine.get(3)!.result).toBe('captured');
  expect(byLine.get(3)!.warnings).toEqual([
    `--skip-existing did not skip it: ${path.join(run.evidence, 'half-ow.png')} is there but its probe sidecar half-ow.probe.json is not; both were captured again (overwrite: true)`,
  ]);
  expect(fs.readFileSync(path.join(run.evidence, 'half-ow.png'))).toEqual(FAKE_PNG);
  expect(fs.existsSync(path.join(run.evidence, 'half-ow.probe.json'))).toBe(true);
  expect(provider.calls.map((c) => c.context.fields.artifactPath)).toEqual(['evidence/half-ow.png']);
});
