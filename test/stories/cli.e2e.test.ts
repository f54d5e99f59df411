/**
 * `stories SOURCE` without --run, through the built bin: the fixture's
 * stories listed (docs and opted-out ones marked skipped), a plan written for
 * a running Storybook's URL, and bad input — a folder that is not a
 * Storybook, a URL nothing answers at, a filter that leaves nothing, an
 * unknown story id, flags that do not go together — refused with exit 2, the
 * rule in words and nothing written.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { servePages, type PageServer } from '../helpers/browser';
import { closedPort } from '../e2e/harness';
import { FIXTURE, filesUnder, runStories } from './harness';

jest.setTimeout(60_000);

let storybook: PageServer;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-stories-cli-'));

beforeAll(async () => {
  storybook = await servePages(FIXTURE);
});

afterAll(async () => {
  await storybook?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('--list: the stories as JSON lines, the docs page and the opted-out story marked skipped', async () => {
  const { code, stdout, stderr } = await runStories([FIXTURE, '--list']);
  expect(code).toBe(0);
  const rows = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect(rows.filter((r) => !r.skipped).map((r) => r.id)).toHaveLength(7);
  expect(rows.find((r) => r.id === 'components-button--primary')).toEqual({
    id: 'components-button--primary',
    title: 'Components/Button',
    name: 'Primary',
    tags: ['dev', 'test', 'manifest'],
  });
  expect(rows.filter((r) => r.skipped).map((r) => [r.id, r.skipped])).toEqual([
    ['introduction--docs', 'docs'],
    ['components-badge--animated', 'opted out'],
  ]);
  expect(stderr).toContain('index.json (v5): 7 stories selected; skipped 1 docs, 1 opted out, 0 filtered');
});

test("a running Storybook's URL: the plan on stdout, one line per story × type × viewport × scheme, pointing at it", async () => {
  const { code, stdout } = await runStories([
    `${storybook.origin}/`,
    '--include',
    'Components/Card',
    '--types',
    'screenshot,a11y tree',
    '--viewport',
    '640x480',
    '--color-scheme',
    'light',
    '--color-scheme',
    'dark',
    '--globals',
    'theme:dark',
  ]);
  expect(code).toBe(0);
  const lines = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect(lines).toHaveLength(2 * 2 * 2);
  expect(lines[0]).toEqual({
    schemaVersion: 1,
    url: `${storybook.origin}/iframe.html?id=components-card--closed&viewMode=story&globals=theme:dark`,
    type: 'screenshot',
    state: 'default',
    actions: [],
    artifact_path: 'evidence/stories/components-card--closed/640x480@1-light.png',
    viewport: { width: 640, height: 480, devicePixelRatio: 1, colorScheme: 'light' },
  });
  expect(lines.map((l) => l.artifact_path)).toContain('evidence/stories/components-card--opened/640x480@1-dark.a11y.json');
  // A size or scheme given twice is planned once.
  const twice = await runStories([
    `${storybook.origin}/`,
    '--include',
    'Components/Card',
    '--viewport',
    '640x480',
    '--viewport',
    '640x480@1',
    '--color-scheme',
    'dark',
    '--color-scheme',
    'dark',
  ]);
  expect(twice.stdout.trim().split('\n')).toHaveLength(2);
});

test('--plan FILE and --design FILE: the plan written to the file, every line bound to the scales', async () => {
  const design = path.join(tmp, 'design.json');
  fs.writeFileSync(design, JSON.stringify({ fontSizes: [14, 16, 20], radii: [4, 8] }));
  const plan = path.join(tmp, 'plan.jsonl');
  const { code, stdout } = await runStories([FIXTURE, '--base-url', storybook.origin, '--design', design, '--plan', plan]);
  expect(code).toBe(0);
  expect(stdout).toBe('');
  const lines = fs
    .readFileSync(plan, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect(lines).toHaveLength(7);
  for (const line of lines) expect(line.design).toEqual({ fontSizes: [14, 16, 20], radii: [4, 8] });
  expect(lines[0].url).toBe(`${storybook.origin}/iframe.html?id=components-badge--default&viewMode=story`);
});

test('bad input: exit 2, the rule in words, nothing written', async () => {
  const dir = path.join(tmp, 'bad');
  fs.mkdirSync(dir);
  const notStorybook = path.join(dir, 'not-a-storybook');
  fs.mkdirSync(notStorybook);
  fs.writeFileSync(path.join(notStorybook, 'index.html'), '<!doctype html>');
  const port = await closedPort();
  const out = path.join(dir, 'run');
  const cases: Array<[string[], RegExp]> = [
    [[notStorybook, '--run', '--out', out], /is not a built Storybook: it has no index.json \(or stories.json\) and no iframe.html/],
    [[`http://127.0.0.1:${port}/`, '--run', '--out', out], new RegExp(`the Storybook at http://127.0.0.1:${port}/ cannot be reached \\(ECONNREFUSED\\)`)],
    [[`${storybook.origin}/nothing/`, '--list'], /is not a Storybook: it serves no story index \(tried index.json \(404\), stories.json \(404\)\)/],
    [[FIXTURE, '--run', '--out', out, '--include', 'Nothing/*'], /no story left to capture: 9 index entries, 1 docs, 1 opted out, 7 filtered/],
    [[FIXTURE, '--run', '--out', out, '--story', 'components-nope--x'], /--story components-nope--x: no such story in the index/],
    [[FIXTURE, '--run'], /--run needs --out RUN_ROOT/],
    [[FIXTURE], /is a built folder, served only while --run runs/],
    [[FIXTURE, '--run', '--out', out, '--types', 'video'], /--types takes a comma list of 'screenshot', 'a11y tree', 'interaction trace'/],
    [[FIXTURE, '--run', '--out', out, '--globals', 'theme=dark'], /--globals must be key:value pairs/],
    [[FIXTURE, '--run', '--out', out, '--design', path.join(dir, 'none.json')], /--design .*none.json cannot be read: no such file/],
    [[FIXTURE, '--run', '--out', out, '--baseline', dir], /--baseline .* is not an earlier run: it has no evidence\/manifest.jsonl/],
    [[FIXTURE, '--run', '--out', notStorybook], /holds files but no plan.md/],
    [[FIXTURE, '--base-url', storybook.origin, '--plan', path.join(dir, 'no', 'such', 'plan.jsonl')], /--plan .*plan.jsonl cannot be written: ENOENT/],
  ];
  for (const [args, message] of cases) {
    const { code, stdout, stderr } = await runStories(args, { cwd: dir });
    expect({ args, code, stderr }).toEqual({ args, code: 2, stderr: expect.stringMatching(message) });
    expect(stdout).toBe('');
  }
  expect(fs.existsSync(out)).toBe(false);
  expect(filesUnder(notStorybook)).toEqual(['index.html']);
  expect(fs.readdirSync(dir).sort()).toEqual(['not-a-storybook']);
});
