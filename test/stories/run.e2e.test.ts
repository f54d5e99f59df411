/**
 * `stories FOLDER --run --out RUN_ROOT` through the built bin, on the
 * committed fixture served by the command itself: the run folder made and
 * marked, one capture per story, the manifest's lines valid and naming their
 * story, the run report written; run again, it resumes (nothing captured
 * twice).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { readManifest } from '../../src/manifest';
import { readTraceArchive } from '../../src/compare/traceArchive';
import { servePages } from '../helpers/browser';
import { FIXTURE, filesUnder, runStories, startStories } from './harness';

jest.setTimeout(180_000);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-stories-run-'));

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function manifestOf(root: string) {
  return readManifest(path.join(root, 'evidence', 'manifest.jsonl'));
}

test('a run: every selected story captured into a new run folder, the manifest and the report written; a second run resumes', async () => {
  const root = path.join(tmp, 'run-1');
  const first = await runStories([FIXTURE, '--run', '--out', root, '--viewport', '640x480', '--include', 'Components/Button', '--include', 'Components/Card']);
  expect(first.stderr).toContain('5 stories selected');
  expect(first.code).toBe(0);
  expect(first.stdout).toContain('done: 5 captures, 5 captured, 0 failed');
  expect(fs.readFileSync(path.join(root, 'plan.md'), 'utf8')).toContain('stories --run');
  const evidence = filesUnder(path.join(root, 'evidence'));
  expect(evidence).toContain('stories/components-button--primary/640x480@1-light.png');
  expect(evidence).toContain('stories/components-button--primary/640x480@1-light.probe.json');
  expect(evidence.filter((f) => f.endsWith('.png'))).toHaveLength(5);
  const manifest = manifestOf(root);
  expect(manifest.facts).toEqual([]);
  expect(manifest.entries).toHaveLength(5);
  const primary = manifest.entries.find((e) => e.artifact === 'stories/components-button--primary/640x480@1-light.png')!;
  expect(primary.result).toBe('captured');
  expect(primary.raw.story).toEqual({ id: 'components-button--primary', title: 'Components/Button', name: 'Primary', variant: '640x480@1-light' });
  expect(fs.existsSync(path.join(root, 'report', 'index.html'))).toBe(true);
  // The run report points to the story index, which groups the stories by component.
  expect(fs.readFileSync(path.join(root, 'report', 'index.html'), 'utf8')).toContain('<a href="../stories/index.html">The stories, grouped by component</a>');
  expect(fs.existsSync(path.join(root, 'stories', 'index.html'))).toBe(true);
  expect(first.stdout).toContain(`report: ${path.join(root, 'report', 'index.html')}`);
  expect(
    fs
      .readFileSync(path.join(root, 'stories', 'plan.jsonl'), 'utf8')
      .trim()
      .split('\n'),
  ).toHaveLength(5);

  const pngBefore = fs.statSync(path.join(root, 'evidence', 'stories/components-button--primary/640x480@1-light.png')).mtimeMs;
  const second = await runStories([FIXTURE, '--run', '--out', root, '--viewport', '640x480', '--include', 'Components/Button', '--include', 'Components/Card']);
  expect(second.code).toBe(0);
  expect(second.stdout).toContain('done: 5 captures, 0 captured, 0 failed, 5 already there');
  expect(fs.statSync(path.join(root, 'evidence', 'stories/components-button--primary/640x480@1-light.png')).mtimeMs).toBe(pngBefore);
  expect(manifestOf(root).entries).toHaveLength(5);

  // Killed between writing a capture and its manifest line, or in the middle of the line: both captured again.
  const manifestFile = path.join(root, 'evidence', 'manifest.jsonl');
  const kept = fs.readFileSync(manifestFile, 'utf8').split('\n').slice(0, 4);
  fs.writeFileSync(manifestFile, `${kept.slice(0, 3).join('\n')}\n${kept[3].slice(0, 40)}`);
  const third = await runStories([FIXTURE, '--run', '--out', root, '--viewport', '640x480', '--include', 'Components/Button', '--include', 'Components/Card']);
  expect(third.code).toBe(0);
  expect(third.stdout).toContain('done: 5 captures, 2 captured, 0 failed, 3 already there');
  const healed = manifestOf(root);
  expect(healed.facts).toEqual([]);
  expect(new Set(healed.entries.map((e) => e.artifact)).size).toBe(5);
  expect(healed.entries).toHaveLength(5);
});

test('stories switched in kept previews (the default) give the evidence of --fresh-loads byte for byte', async () => {
  const args = ['--viewport', '640x480', '--viewport', '800x600', '--types', 'screenshot,a11y tree', '--exclude', '*--broken'];
  const switched = path.join(tmp, 'switched');
  const fresh = path.join(tmp, 'fresh');
  const [a, b] = [
    await runStories([FIXTURE, '--run', '--out', switched, ...args]),
    await runStories([FIXTURE, '--run', '--out', fresh, '--fresh-loads', ...args]),
  ];
  expect([a.code, b.code]).toEqual([0, 0]);
  expect(a.stdout).toContain('done: 24 captures, 24 captured, 0 failed');
  const files = filesUnder(path.join(switched, 'evidence', 'stories'));
  expect(files).toHaveLength(36);
  expect(filesUnder(path.join(fresh, 'evidence', 'stories'))).toEqual(files);
  // The probe names the page's URL, whose port is each run's own server.
  const read = (root: string, file: string) => fs.readFileSync(path.join(root, 'evidence', 'stories', file), 'utf8').replace(/127\.0\.0\.1:\d+/g, 'HOST');
  const differing = files.filter((file) =>
    file.endsWith('.png')
      ? !fs.readFileSync(path.join(switched, 'evidence', 'stories', file)).equals(fs.readFileSync(path.join(fresh, 'evidence', 'stories', file)))
      : read(switched, file) !== read(fresh, file),
  );
  expect(differing).toEqual([]);
});

test('every story of the fixture: the play story shows the state after play, the throwing story is failed with its message (exit 1)', async () => {
  const root = path.join(tmp, 'run-all');
  const run = await runStories([FIXTURE, '--run', '--out', root, '--viewport', '640x480', '--types', 'screenshot,a11y tree']);
  expect(run.code).toBe(1);
  expect(run.stdout).toContain('done: 14 captures, 12 captured, 2 failed');
  expect(run.stdout).toContain(
    "✗ components-badge--broken (640x480@1-light, screenshot): Storybook could not render story 'components-badge--broken': Badge needs a text: the fixture story throws on purpose",
  );
  const entries = manifestOf(root).entries;
  const broken = entries.filter((e) => (e.raw.story as { id: string }).id === 'components-badge--broken');
  expect(broken.map((e) => [e.result, e.raw.error])).toEqual([
    ['failed', "Storybook could not render story 'components-badge--broken': Badge needs a text: the fixture story throws on purpose"],
    ['failed', "Storybook could not render story 'components-badge--broken': Badge needs a text: the fixture story throws on purpose"],
  ]);
  expect(filesUnder(path.join(root, 'evidence', 'stories', 'components-badge--broken'))).toEqual([]);
  const opened = entries.find((e) => e.artifact === 'stories/components-card--opened/640x480@1-light.a11y.json')!;
  expect(opened.observed_state).toBe('open');
  const tree = JSON.parse(fs.readFileSync(path.join(root, 'evidence', opened.artifact), 'utf8')).tree as string;
  expect(tree).toContain('button "Hide details"');
  const page = fs.readFileSync(path.join(root, 'stories', 'index.html'), 'utf8');
  expect(page).toContain('3 components, 7 stories, 14 captures, 2 failed');
  expect(page).toContain('failed: Storybook could not render story &#39;components-badge--broken&#39;: Badge needs a text');
  expect(page).toContain('<details><summary>aria tree</summary><pre>');
  expect(page).toContain('button &#34;Hide details&#34;');
  // Skipped: the docs page and the opted-out story have no evidence.
  expect(fs.readdirSync(path.join(root, 'evidence', 'stories')).sort()).toEqual(
    [
      'components-button--large',
      'components-button--primary',
      'components-button--secondary',
      'components-card--closed',
      'components-card--opened',
      'components-badge--default',
    ].sort(),
  );
});

test('a run killed part way resumes where it stopped: what it wrote is kept, the rest captured, one manifest line each', async () => {
  const root = path.join(tmp, 'run-killed');
  const args = [FIXTURE, '--run', '--out', root, '--viewport', '640x480', '--viewport', '800x600', '--exclude', '*--broken', '--parallel', '1'];
  const started = startStories(args);
  const manifest = path.join(root, 'evidence', 'manifest.jsonl');
  const lineCount = () => (fs.existsSync(manifest) ? fs.readFileSync(manifest, 'utf8').trim().split('\n').filter(Boolean).length : 0);
  const deadline = Date.now() + 60_000;
  while (lineCount() < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  started.child.kill('SIGKILL');
  await started.finished;
  const kept = lineCount();
  expect(kept).toBeGreaterThanOrEqual(3);
  expect(kept).toBeLessThan(12);

  const resumed = await runStories(args);
  expect(resumed.code).toBe(0);
  // A capture killed mid-write left no file, so it is captured again; the rest is kept.
  const match = /done: 12 captures, (\d+) captured, 0 failed, (\d+) already there/.exec(resumed.stdout);
  expect(match).not.toBeNull();
  expect(Number(match![1]) + Number(match![2])).toBe(12);
  expect(Number(match![2])).toBeGreaterThanOrEqual(kept);
  const entries = manifestOf(root).entries;
  expect(new Set(entries.map((e) => e.artifact)).size).toBe(12);
  expect(entries).toHaveLength(12);
});

test('--design FILE: every capture bound to the declared scales; a card radius off the scale is a finding on its element', async () => {
  const root = path.join(tmp, 'run-design');
  const design = path.join(tmp, 'design.json');
  fs.writeFileSync(design, JSON.stringify({ fontSizes: [14, 16, 20], colors: ['#0b6bcb', '#ffffff', '#1a1a1a', '#5c5c5c', '#d0d0d0'], radii: [4] }));
  const run = await runStories([FIXTURE, '--run', '--out', root, '--viewport', '640x480', '--include', 'Components/Card', '--design', design]);
  expect(run.code).toBe(0);
  const sidecar = JSON.parse(fs.readFileSync(path.join(root, 'evidence', 'stories/components-card--closed/640x480@1-light.probe.json'), 'utf8'));
  expect(sidecar.renderTokens.findings).toEqual([
    expect.objectContaining({
      axis: 'radii',
      rule: 'radius-off-scale',
      value: '8px',
      samples: [expect.objectContaining({ selector: 'div#storybook-root > section.card' })],
    }),
  ]);
  for (const entry of manifestOf(root).entries) expect(entry.request?.design).toEqual(JSON.parse(fs.readFileSync(design, 'utf8')));
});

test('a running Storybook given by URL is run as a built folder is; a trace shows nothing fetched but from it', async () => {
  const storybook = await servePages(FIXTURE);
  try {
    const root = path.join(tmp, 'run-url');
    const run = await runStories([
      `${storybook.origin}/`,
      '--run',
      '--out',
      root,
      '--viewport',
      '640x480',
      '--include',
      'Components/Card',
      '--types',
      'interaction trace',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('done: 2 captures, 2 captured, 0 failed');
    const trace = await readTraceArchive(path.join(root, 'evidence', 'stories/components-card--opened/640x480@1-light.trace.zip'));
    const urls = trace.network.map((resource) => String((resource as { request?: { url?: string } }).request?.url));
    expect(urls.length).toBeGreaterThan(3);
    expect(urls.filter((url) => !url.startsWith(`${storybook.origin}/`))).toEqual([]);
  } finally {
    await storybook.close();
  }
});
