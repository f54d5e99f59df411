/**
 * A story at rest is a story rendered, against a real Chromium through the
 * library API, on the committed Storybook fixture: the story's page is
 * captured once Storybook says its play function finished (with the freeze
 * and without it, where nothing else would wait), a story that throws or an
 * id no story has is `failed` with Storybook's own message and writes
 * nothing, and a URL that is not a story's page is left alone.
 */
import * as fs from 'fs';
import * as path from 'path';
import { executeCapturePlan, closeBundledBrowser } from '../../src/index';
import { storyIdOf } from '../../src/browser/page/storyRest';
import { STORY_RENDER_MS } from '../../src/common/time';
import { PNG } from 'pngjs';
import { chromium } from 'playwright-core';
import { CHROMIUM_PATH, CHROMIUM_TEST_ARGS, servePages, type PageServer } from '../helpers/browser';
import { captureArgs, makeRunRoot } from '../e2e/harness';
import { FIXTURE } from './harness';

jest.setTimeout(120_000);

let storybook: PageServer;
let pages: PageServer;
let root: string;

beforeAll(async () => {
  storybook = await servePages(FIXTURE);
  // A request that never answers: a story's loader waiting on it keeps the story's time on the wall clock.
  pages = await servePages(path.join(__dirname, 'pages'), { '/never-answers': () => undefined });
  root = makeRunRoot('story-rest');
});

afterAll(async () => {
  await closeBundledBrowser();
  await storybook?.close();
  await pages?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const story = (id: string) => storybook.url(`/iframe.html?id=${id}&viewMode=story`);

async function ariaOf(id: string, leaf: string, extra: Record<string, unknown> = {}) {
  const result = await executeCapturePlan(captureArgs(root, story(id), leaf, { type: 'a11y tree', ...extra }));
  return { result, tree: result.result === 'captured' ? (JSON.parse(fs.readFileSync(result.written_path, 'utf8')).tree as string) : '' };
}

test('the play story is captured after its play function: the card open, its details shown', async () => {
  const { result, tree } = await ariaOf('components-card--opened', 'opened.a11y.json');
  expect(result.error).toBe('');
  expect(result.observed_state).toBe('open');
  expect(tree).toContain('button "Hide details"');
  expect(tree).toContain('Version 2 brings a dark theme.');
  // Without the freeze nothing else waits after load: Storybook's word is what holds the capture.
  const unfrozen = await ariaOf('components-card--opened', 'opened-unfrozen.a11y.json', { freeze: { enabled: false, waitFonts: false, networkIdle: false } });
  expect(unfrozen.result.observed_state).toBe('open');
  expect(unfrozen.tree).toContain('button "Hide details"');
  const closed = await ariaOf('components-card--closed', 'closed.a11y.json');
  expect(closed.result.observed_state).toBe('closed');
  expect(closed.tree).toContain('button "Show details"');
});

test("every story's screenshot has Playwright's pixels (same engine; Playwright shoots once Storybook says the story is done)", async () => {
  const ids = [
    'components-badge--default',
    'components-badge--animated',
    'components-button--primary',
    'components-button--secondary',
    'components-button--large',
    'components-card--closed',
    'components-card--opened',
  ];
  const viewport = { width: 640, height: 480 };
  const pw = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_TEST_ARGS });
  const differing: Record<string, number> = {};
  try {
    for (const id of ids) {
      const result = await executeCapturePlan(
        captureArgs(root, story(id), `pixels-${id}.png`, { viewport: { ...viewport, devicePixelRatio: 1, colorScheme: 'light' } }),
      );
      expect(result.error).toBe('');
      const context = await pw.newContext({ viewport, deviceScaleFactor: 1, colorScheme: 'light' });
      const page = await context.newPage();
      await page.goto(story(id));
      await page.waitForFunction(() => {
        const phase = (window as unknown as { __STORYBOOK_PREVIEW__?: { currentRender?: { phase?: string } } }).__STORYBOOK_PREVIEW__?.currentRender?.phase;
        return phase === 'completed' || phase === 'finished';
      });
      const theirs = PNG.sync.read(await page.screenshot({ fullPage: true, animations: 'disabled', caret: 'hide' }));
      await context.close();
      const mine = PNG.sync.read(fs.readFileSync(result.written_path));
      let count = mine.width === theirs.width && mine.height === theirs.height ? 0 : -1;
      for (let i = 0; count >= 0 && i < mine.data.length; i++) if (mine.data[i] !== theirs.data[i]) count++;
      differing[id] = count;
    }
  } finally {
    await pw.close();
  }
  // The opened card (changed by its play function after its first paint) is the case a whole-page repaint broke.
  expect(differing).toEqual(Object.fromEntries(ids.map((id) => [id, 0])));
});

test("a story that throws is failed with Storybook's message, and nothing is written", async () => {
  const result = await executeCapturePlan(captureArgs(root, story('components-badge--broken'), 'broken.png'));
  expect(result.result).toBe('failed');
  expect(result.error).toBe("Storybook could not render story 'components-badge--broken': Badge needs a text: the fixture story throws on purpose");
  expect(fs.existsSync(path.join(root, 'evidence', 'broken.png'))).toBe(false);
  expect(fs.existsSync(path.join(root, 'evidence', 'broken.probe.json'))).toBe(false);
});

test("an id no story has is failed with Storybook's message", async () => {
  const result = await executeCapturePlan(captureArgs(root, story('components-nope--x'), 'missing.png'));
  expect(result.result).toBe('failed');
  expect(result.error).toBe("Storybook could not render story 'components-nope--x': Couldn't find story matching 'components-nope--x'.");
  expect(fs.existsSync(path.join(root, 'evidence', 'missing.png'))).toBe(false);
});

test("only a story's own page waits for Storybook", () => {
  expect(storyIdOf('http://h/iframe.html?id=a--b&viewMode=story')).toBe('a--b');
  expect(storyIdOf('http://h/sb/iframe.html?id=a--b')).toBe('a--b');
  expect(storyIdOf('http://h/iframe.html?id=a--docs&viewMode=docs')).toBeNull();
  expect(storyIdOf('http://h/index.html?path=/story/a--b')).toBeNull();
  expect(storyIdOf('http://h/page.html?id=a--b')).toBeNull();
  expect(storyIdOf('about:blank')).toBeNull();
});

test('a play function that never ends fails the capture after the budget, naming the phase', async () => {
  const result = await executeCapturePlan(captureArgs(root, pages.url('/hangs/iframe.html?id=a--b&viewMode=story'), 'hangs.png'));
  expect(result.result).toBe('failed');
  expect(result.error).toBe(
    `Storybook did not finish story 'a--b' within ${STORY_RENDER_MS} ms of page time (still playing); a play function that never ends keeps it there`,
  );
});

test('a Storybook 6 preview rests once <body> shows the story; a page that is not a Storybook is captured as any page', async () => {
  const sb6 = await executeCapturePlan(
    captureArgs(root, pages.url('/sb6/iframe.html?id=a--b'), 'sb6.a11y.json', {
      type: 'a11y tree',
      freeze: { enabled: false, waitFonts: false, networkIdle: false },
    }),
  );
  expect(sb6.error).toBe('');
  expect(sb6.observed_state).toBe('shown');
  const plain = await executeCapturePlan(captureArgs(root, pages.url('/plain/iframe.html?id=a--b&viewMode=story'), 'plain.png'));
  expect(plain.error).toBe('');
  expect(plain.observed_state).toBe('plain');
});

test('a capture whose budget runs out while Storybook renders (a request in flight holds its time to the wall clock) says so', async () => {
  process.env.DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS = '2000';
  try {
    const result = await executeCapturePlan(captureArgs(root, pages.url('/hangs/iframe.html?id=a--b&viewMode=story&load=1'), 'hangs-budget.png'));
    expect(result.result).toBe('failed');
    expect(result.error).toContain("the story's render (Storybook's say-so) and the freeze after navigation");
  } finally {
    delete process.env.DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS;
  }
});
