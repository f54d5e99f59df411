/**
 * The story index, the selection and the plan, on the committed fixture's
 * index.json and on made-up Storybook 6 and 7 indexes: docs pages and
 * stories opted out with tags: ['!test'] are skipped, the filters work on
 * the title or the id, bad input is refused in words, and the plan's lines,
 * names and criteria are what docs/stories.md says.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseStoryIndex, readFolderIndex, storybookBaseUrl, StorySourceError } from '../../src/stories/storyIndex';
import { globPattern, selectStories, StorySelectionError } from '../../src/stories/selectStories';
import { checkUrlPairs, criterionNumber, storyPlan, storyUrl } from '../../src/stories/storyPlan';
import { CRITERION_PATTERN } from '../../src/manifest/schema';

const FIXTURE = path.join(__dirname, '..', 'fixtures', 'storybook', 'static');

test("the fixture's index: seven stories, the docs page and the opted-out story skipped", () => {
  const index = readFolderIndex(FIXTURE);
  expect(index.file).toBe('index.json');
  expect(index.version).toBe(5);
  const selection = selectStories(index.entries);
  expect(selection.stories.map((s) => s.id)).toEqual([
    'components-badge--default',
    'components-badge--broken',
    'components-button--primary',
    'components-button--secondary',
    'components-button--large',
    'components-card--closed',
    'components-card--opened',
  ]);
  expect(selection.skipped.map((s) => [s.entry.id, s.reason])).toEqual([
    ['introduction--docs', 'docs'],
    ['components-badge--animated', 'opted out'],
  ]);
  expect(selectStories(index.entries, { optedOut: true }).stories.map((s) => s.id)).toContain('components-badge--animated');
});

test('filters: globs on the title or the id, tags, exact ids; an empty result and an unknown id are refused', () => {
  const { entries } = readFolderIndex(FIXTURE);
  const ids = (filters: Parameters<typeof selectStories>[1]) => selectStories(entries, filters).stories.map((s) => s.id);
  expect(ids({ include: ['Components/Button'] })).toEqual(['components-button--primary', 'components-button--secondary', 'components-button--large']);
  expect(ids({ include: ['*--primary', 'Components/Card'] })).toEqual(['components-button--primary', 'components-card--closed', 'components-card--opened']);
  expect(ids({ include: ['Components/**'], exclude: ['Components/B*'] })).toEqual(['components-card--closed', 'components-card--opened']);
  expect(ids({ tags: ['play-fn'] })).toEqual(['components-card--opened']);
  expect(ids({ excludeTags: ['play-fn'], include: ['Components/Card'] })).toEqual(['components-card--closed']);
  expect(ids({ stories: ['components-badge--broken'] })).toEqual(['components-badge--broken']);
  expect(() => selectStories(entries, { include: ['Nothing/*'] })).toThrow(StorySelectionError);
  expect(() => selectStories(entries, { include: ['Nothing/*'] })).toThrow(/no story left to capture: 9 index entries, 1 docs, 1 opted out, 7 filtered/);
  expect(() => selectStories(entries, { stories: ['components-nope--x'] })).toThrow(/--story components-nope--x: no such story in the index/);
  expect(globPattern('Components/*').test('Components/Button/Icon')).toBe(false);
  expect(globPattern('Components/**').test('Components/Button/Icon')).toBe(true);
});

test('Storybook 6 stories.json and Storybook 7 index.json (v4, no tags) are read; docs-only pages skipped', () => {
  const v3 = parseStoryIndex(
    {
      v: 3,
      stories: {
        'intro--page': { id: 'intro--page', kind: 'Intro', name: 'Page', parameters: { docsOnly: true } },
        'button--primary': { id: 'button--primary', kind: 'Button', name: 'Primary', parameters: {} },
      },
    },
    'stories.json',
  );
  expect(selectStories(v3.entries).stories).toEqual([{ id: 'button--primary', title: 'Button', name: 'Primary', tags: [], docs: false }]);
  // Storybook 7 resolves no tag negation: its index carries '!test' as written.
  const v4sb7 = parseStoryIndex(
    {
      v: 4,
      entries: {
        'a--b': { id: 'a--b', title: 'A', name: 'B', type: 'story', tags: ['!test', 'story'] },
        'a--c': { id: 'a--c', title: 'A', name: 'C', type: 'story', tags: ['story'] },
      },
    },
    'index.json',
  );
  expect(selectStories(v4sb7.entries).skipped.map((s) => [s.entry.id, s.reason])).toEqual([['a--b', 'opted out']]);
  const v4 = parseStoryIndex(
    {
      v: 4,
      entries: {
        'a--docs': { id: 'a--docs', title: 'A', name: 'Docs', type: 'docs' },
        'a--b': { id: 'a--b', title: 'A', name: 'B', type: 'story', tags: ['story'] },
      },
    },
    'index.json',
  );
  expect(selectStories(v4.entries).stories.map((s) => s.id)).toEqual(['a--b']);
  expect(() => parseStoryIndex({ hello: 1 }, 'x.json')).toThrow(/x.json is not a Storybook index: it has neither "entries"/);
  expect(() => parseStoryIndex([], 'x.json')).toThrow(StorySourceError);
});

test('a folder that is not a Storybook is refused, naming what it lacks', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-not-storybook-'));
  try {
    fs.writeFileSync(path.join(dir, 'index.json'), '{"entries":{}}');
    expect(() => readFolderIndex(dir)).toThrow(/is not a built Storybook: it has no iframe.html/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("base URLs and story URLs, with Storybook's globals and args parameters", () => {
  expect(storybookBaseUrl('http://127.0.0.1:6006').href).toBe('http://127.0.0.1:6006/');
  expect(storybookBaseUrl('http://host/sb/index.html?path=/story/x').href).toBe('http://host/sb/');
  expect(storybookBaseUrl('http://host/sb/iframe.html?id=x').href).toBe('http://host/sb/');
  expect(storybookBaseUrl('http://host/sb').href).toBe('http://host/sb/');
  expect(() => storybookBaseUrl('ftp://host/')).toThrow(/http:\/\/ or https:\/\//);
  expect(storyUrl('http://h/', 'a--b', { globals: 'theme:dark', args: 'label:Hi there;primary:!true' })).toBe(
    'http://h/iframe.html?id=a--b&viewMode=story&globals=theme:dark&args=label:Hi%20there;primary:!true',
  );
  expect(() => checkUrlPairs('globals', 'theme=dark')).toThrow(/--globals must be key:value pairs joined by ';'/);
});

test('the plan: one line per story × type × viewport × scheme, named after the story, with stable criteria', () => {
  const { entries } = readFolderIndex(FIXTURE);
  const stories = selectStories(entries, { include: ['Components/Button'] }).stories;
  const design = { fontSizes: [14, 16, 20], radii: [4, 8] };
  const lines = storyPlan(stories, {
    baseUrl: 'http://127.0.0.1:1234/',
    types: ['screenshot', 'a11y tree'],
    viewports: [
      { width: 800, height: 600, devicePixelRatio: 1 },
      { width: 375, height: 667, devicePixelRatio: 2 },
    ],
    colorSchemes: ['light', 'dark'],
    design,
    runRoot: '/tmp/run',
  });
  expect(lines).toHaveLength(3 * 2 * 2 * 2);
  expect(lines[0].args).toEqual({
    schemaVersion: 1,
    url: 'http://127.0.0.1:1234/iframe.html?id=components-button--primary&viewMode=story',
    type: 'screenshot',
    state: 'default',
    actions: [],
    artifact_path: 'evidence/stories/components-button--primary/800x600@1-light.png',
    viewport: { width: 800, height: 600, devicePixelRatio: 1, colorScheme: 'light' },
    design,
    run_root: '/tmp/run',
  });
  expect(lines[1].args.artifact_path).toBe('evidence/stories/components-button--primary/800x600@1-light.a11y.json');
  // Both types of one variant share the criterion; every variant has its own, valid as a manifest criterion.
  expect(lines[0].criterion).toBe(lines[1].criterion);
  expect(new Set(lines.map((l) => l.criterion)).size).toBe(3 * 2 * 2);
  for (const line of lines) expect(line.criterion).toMatch(new RegExp(CRITERION_PATTERN));
  // The same story and variant is the same criterion whatever else is in the plan.
  const alone = storyPlan([stories[0]], {
    baseUrl: 'http://x/',
    types: ['screenshot'],
    viewports: [{ width: 800, height: 600, devicePixelRatio: 1 }],
    colorSchemes: ['light'],
  });
  expect(alone[0].criterion).toBe(lines[0].criterion);
  expect(criterionNumber('a')).toBeLessThan(2 ** 48);
  expect(() =>
    storyPlan([{ id: '../x', title: 'X', name: 'x', tags: [], docs: false }], {
      baseUrl: 'http://x/',
      types: ['screenshot'],
      viewports: [{ width: 1, height: 1, devicePixelRatio: 1 }],
      colorSchemes: ['light'],
    }),
  ).toThrow(/cannot name an artifact folder/);
});
