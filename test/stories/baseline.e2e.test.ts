/**
 * `stories --run --baseline RUN` through the built bin: two builds of the
 * fixture that differ by one CSS token (the committed build, and a copy whose
 * built CSS changes --color-muted) are compared. Each story that uses the
 * token is found changed and attributed to its element and property; the
 * stories that do not report nothing; stories added and removed are listed
 * new and gone per component; the exit status is compare's (0 / 1), and the
 * comparison is in <run root>/compare/.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { FIXTURE, runStories } from './harness';

jest.setTimeout(240_000);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-stories-baseline-'));
const baseline = path.join(tmp, 'baseline');
const COMMON = ['--viewport', '640x480', '--exclude', '*--broken'];

beforeAll(async () => {
  const run = await runStories([FIXTURE, '--run', '--out', baseline, ...COMMON]);
  expect(run.code).toBe(0);
});

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A copy of the built fixture whose built style sheet gives one token another value. */
function buildWithToken(name: string, from: string, to: string): string {
  const copy = path.join(tmp, `static-${name}`);
  fs.cpSync(FIXTURE, copy, { recursive: true });
  const sheets = fs.readdirSync(path.join(copy, 'assets')).filter((f) => f.endsWith('.css'));
  const holding = sheets.filter((f) => fs.readFileSync(path.join(copy, 'assets', f), 'utf8').includes(from));
  expect(holding).toHaveLength(1);
  const file = path.join(copy, 'assets', holding[0]);
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(from, to));
  return copy;
}

test('one token changed: the stories using it changed, attributed to the element and property; the others report nothing (exit 1)', async () => {
  const changed = buildWithToken('muted', '--color-muted: #5c5c5c', '--color-muted: #8a2be2');
  const root = path.join(tmp, 'muted');
  const run = await runStories([changed, '--run', '--out', root, '--baseline', baseline, ...COMMON]);
  expect(run.code).toBe(1);
  const report = run.stdout.slice(run.stdout.indexOf('against the baseline'));
  expect(report).toContain('against the baseline: changed: 6 compared, 2 changed, 4 unchanged, 0 new, 0 gone, 0 not comparable');
  expect(report).toContain('Components/Badge:\n  changed: Default [components-badge--default, 640x480@1-light] (screenshot):');
  expect(report).toContain('div#storybook-root > span.badge: background-color #5c5c5c → #8a2be2');
  expect(report).toContain('Components/Card:\n  changed: Opened [components-card--opened, 640x480@1-light] (screenshot):');
  expect(report).toContain('div#storybook-root > section.card > p.card__details: color #5c5c5c → #8a2be2');
  // The buttons and the closed card (its details hidden) do not use the token: not a word about them.
  expect(report).not.toContain('Button');
  expect(report).not.toContain('Closed');
  const result = JSON.parse(fs.readFileSync(path.join(root, 'compare', 'compare.json'), 'utf8'));
  expect(result.summary).toMatchObject({ compared: 6, changed: 2, unchanged: 4 });
  for (const item of result.items.filter((i: { status: string }) => i.status === 'unchanged')) {
    expect(item.summary.filter((line: string) => !line.startsWith('anti-aliasing only'))).toEqual([]);
  }
  expect(fs.existsSync(path.join(root, 'compare', 'index.html'))).toBe(true);
  expect(run.stdout).toContain(`compare: ${path.join(root, 'compare')}`);
  // The story index page: by component, a thumbnail per story, what changed since the baseline.
  const page = fs.readFileSync(path.join(root, 'stories', 'index.html'), 'utf8');
  expect(page).toContain('3 components, 6 stories, 6 captures, 0 failed, 2 changed since the baseline (<a href="../compare/index.html">comparison</a>)');
  expect(page.indexOf('<h2>Components/Badge</h2>')).toBeLessThan(page.indexOf('<h2>Components/Button</h2>'));
  expect(page).toContain('<img loading="lazy" src="../evidence/stories/components-badge--default/640x480%401-light.png"');
  expect(page).toContain('div#storybook-root &#62; span.badge: background-color #5c5c5c → #8a2be2');
  expect(page.match(/since the baseline: unchanged/g)).toHaveLength(4);
});

test('the same build again: unchanged, exit 0; stories left out and added are gone and new, per component', async () => {
  const same = await runStories([FIXTURE, '--run', '--out', path.join(tmp, 'same'), '--baseline', baseline, ...COMMON]);
  expect(same.code).toBe(0);
  expect(same.stdout).toContain('against the baseline: unchanged: 6 compared, 0 changed, 6 unchanged, 0 new, 0 gone, 0 not comparable');

  const other = await runStories([
    FIXTURE,
    '--run',
    '--out',
    path.join(tmp, 'other'),
    '--baseline',
    baseline,
    ...COMMON,
    '--exclude',
    'Components/Card',
    '--opted-out',
  ]);
  expect(other.code).toBe(1);
  expect(other.stdout).toContain('4 compared, 0 changed, 4 unchanged, 1 new, 2 gone');
  expect(other.stdout).toContain('Components/Badge:\n  new: Animated [components-badge--animated, 640x480@1-light] (screenshot)');
  expect(other.stdout).toContain(
    'Components/Card:\n  gone: Closed [components-card--closed, 640x480@1-light] (screenshot)\n  gone: Opened [components-card--opened, 640x480@1-light] (screenshot)',
  );
});

test("--globals and --args reach Storybook through its URL: the dark theme's surface and the new label, against the baseline", async () => {
  const run = await runStories([
    FIXTURE,
    '--run',
    '--out',
    path.join(tmp, 'dark'),
    '--baseline',
    baseline,
    ...COMMON,
    '--include',
    'Components/Button',
    '--globals',
    'theme:dark',
    '--args',
    'label:Hello',
  ]);
  expect(run.code).toBe(1);
  expect(run.stdout).toContain('3 compared, 3 changed, 0 unchanged, 0 new, 3 gone');
  expect(run.stdout).toContain('html > body.sb-main-padded.sb-show-main: background-color #ffffff → #1a1a1a');
  expect(run.stdout).toContain('div#storybook-root > button.button.button--primary: name "Save" → "Hello"');
});
