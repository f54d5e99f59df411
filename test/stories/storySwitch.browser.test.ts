/**
 * Stories switched in a preview kept loaded (src/browser/page/storySwitch.ts,
 * what `stories --run` does unless --fresh-loads), against a real Chromium
 * on the committed Storybook fixture: the evidence of every story is byte
 * for byte what a fresh load gives, the previews are reused, a preview that
 * a story left something in is not switched in (the story loads fresh), and
 * the virtual clock's restart starts page time again as a new document would.
 */
import * as fs from 'fs';
import type { Browser } from 'puppeteer-core';
import { executeCapturePlan } from '../../src/index';
import { PuppeteerCaptureProvider } from '../../src/browser/capture/puppeteerProvider';
import { BrowserSession } from '../../src/browser/fleet/browserSession';
import { fingerprintDifference, storySwitchKey } from '../../src/browser/page/storySwitch';
import { perVariantLimit } from '../../src/browser/fleet/storyPreviews';
import { PageClock } from '../../src/browser/page/pageClock';
import { FRAME_MS, STORY_PREVIEW_WAIT_MS } from '../../src/common/time';
import { parseCaptureContract } from '../../src/contract/captureContract';
import { parseRuntimeFields } from '../../src/contract/toolArguments';
import { CHROMIUM_PATH, launchTestBrowser, servePages, type PageServer } from '../helpers/browser';
import { captureArgs, makeRunRoot } from '../e2e/harness';
import { FIXTURE } from './harness';
import * as path from 'path';

jest.setTimeout(240_000);

// The animated badge is opted out of the runs by its tag; a capture of it still goes through the switch.
const IDS = [
  'components-badge--default',
  'components-badge--animated',
  'components-button--primary',
  'components-button--large',
  'components-card--closed',
  'components-card--opened',
];
const VIEWPORT = { width: 640, height: 480, devicePixelRatio: 1, colorScheme: 'light' };

let storybook: PageServer;
let root: string;
let switching: { session: BrowserSession; provider: PuppeteerCaptureProvider };
let fresh: PuppeteerCaptureProvider;

/** A provider that switches stories in previews of its own session, `parallel` captures at once. */
function switchingProvider(parallel: number): { session: BrowserSession; provider: PuppeteerCaptureProvider } {
  const flags = () => ({ executablePath: CHROMIUM_PATH, storySwitching: true, parallel });
  const session = new BrowserSession(flags);
  return { session, provider: new PuppeteerCaptureProvider({ flags, session }) };
}

/** Counts the pages `browser` opens from now on, until stopped. */
function countPagesOpened(browser: Browser): { opened(): number; stop(): void } {
  let pages = 0;
  const count = (target: { type(): string }) => {
    if (target.type() === 'page') pages++;
  };
  browser.on('targetcreated', count);
  return { opened: () => pages, stop: () => void browser.off('targetcreated', count) };
}

beforeAll(async () => {
  storybook = await servePages(FIXTURE);
  root = makeRunRoot('story-switch');
  switching = switchingProvider(2);
  fresh = new PuppeteerCaptureProvider({ flags: () => ({ executablePath: CHROMIUM_PATH }) });
});

afterAll(async () => {
  await switching?.provider.close();
  await fresh?.close();
  await storybook?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const story = (id: string) => storybook.url(`/iframe.html?id=${id}&viewMode=story`);

const warningsOf: Record<string, string[] | undefined> = {};

async function capture(provider: PuppeteerCaptureProvider, id: string, type: string, leaf: string, viewport = VIEWPORT): Promise<Buffer> {
  const result = await executeCapturePlan(captureArgs(root, story(id), leaf, { type, viewport }), { provider });
  expect(result.error).toBe('');
  expect(result.result).toBe('captured');
  warningsOf[leaf] = result.warnings;
  return fs.readFileSync(result.written_path);
}

test('every story switched to in a kept preview has the bytes of its fresh load (screenshot and aria snapshot), and the preview is reused', async () => {
  const pages = countPagesOpened(await switching.session.acquire());
  const switched: Record<string, Buffer> = {};
  try {
    for (const id of IDS) {
      switched[`${id}.png`] = await capture(switching.provider, id, 'screenshot', `switched/${id}.png`);
      switched[`${id}.a11y.json`] = await capture(switching.provider, id, 'a11y tree', `switched/${id}.a11y.json`);
    }
  } finally {
    pages.stop();
  }
  // One capture at a time: the first loads, every other switches in that page.
  expect(pages.opened()).toBe(1);
  expect(switching.session.storyPreviews.idleOnes()).toHaveLength(1);
  for (const id of IDS) {
    expect({ id, same: (await capture(fresh, id, 'screenshot', `fresh/${id}.png`)).equals(switched[`${id}.png`]) }).toEqual({ id, same: true });
    const freshTree = await capture(fresh, id, 'a11y tree', `fresh/${id}.a11y.json`);
    expect(switched[`${id}.a11y.json`].toString('utf8')).toBe(freshTree.toString('utf8'));
    for (const leaf of [`${id}.png`, `${id}.a11y.json`])
      expect({ leaf, warnings: warningsOf[`switched/${leaf}`] }).toEqual({ leaf, warnings: warningsOf[`fresh/${leaf}`] });
  }
  // The play story shows its played state after a switch too.
  expect(switched['components-card--opened.a11y.json'].toString('utf8')).toContain('Hide details');
});

test('one kept preview serves every size: each story, taken at three sizes in turn, has the bytes of its fresh load at that size', async () => {
  const { session, provider } = switchingProvider(1);
  const sizes = [VIEWPORT, { ...VIEWPORT, width: 1024, height: 768 }, { ...VIEWPORT, width: 375, height: 667 }];
  try {
    const pages = countPagesOpened(await session.acquire());
    // Story after story, each at every size (the plan's order): the page changes size between captures of one story.
    const switched: Record<string, Buffer> = {};
    for (const id of IDS)
      for (const size of sizes) {
        const leaf = `sizes/${id}-${size.width}.png`;
        switched[leaf] = await capture(provider, id, 'screenshot', leaf, size);
      }
    expect(pages.opened()).toBe(1);
    for (const id of IDS)
      for (const size of sizes) {
        const leaf = `sizes/${id}-${size.width}.png`;
        const freshBytes = await capture(fresh, id, 'screenshot', `sizes-fresh/${id}-${size.width}.png`, size);
        expect({ leaf, same: freshBytes.equals(switched[leaf]) }).toEqual({ leaf, same: true });
        expect({ leaf, warnings: warningsOf[leaf] }).toEqual({ leaf, warnings: warningsOf[`sizes-fresh/${id}-${size.width}.png`] });
      }
    // Another pixel ratio is another variant: a page of its own.
    await capture(provider, 'components-card--closed', 'screenshot', 'sizes/dpr2.png', { ...VIEWPORT, devicePixelRatio: 2 });
    expect(pages.opened()).toBe(2);
  } finally {
    await provider.close();
  }
});

test('a story captured again in the preview that shows it is mounted again (its play function run again), not taken as it was left', async () => {
  const id = 'components-card--opened';
  const first = (await capture(switching.provider, id, 'a11y tree', 'again/first.a11y.json')).toString('utf8');
  const [kept] = switching.session.storyPreviews.idleOnes();
  expect(kept).toBeDefined();
  // What the last capture could have left inside the story: gone once the story mounts again.
  await kept.prepared.page.evaluate(() => {
    const root = document.querySelector('#storybook-root')!;
    root.querySelectorAll('button').forEach((button) => (button.textContent = 'left by the last capture'));
  });
  const phases: string[] = [];
  await kept.prepared.page.exposeFunction('notePhase', (phase: string) => phases.push(phase));
  await kept.prepared.page.evaluate(() => {
    const channel = (window as unknown as { __STORYBOOK_ADDONS_CHANNEL__: { on(e: string, f: (x: { newPhase: string }) => void): void } })
      .__STORYBOOK_ADDONS_CHANNEL__;
    channel.on('storyRenderPhaseChanged', (event) => void (window as unknown as { notePhase(p: string): void }).notePhase(event.newPhase));
  });
  const again = (await capture(switching.provider, id, 'a11y tree', 'again/second.a11y.json')).toString('utf8');
  expect(switching.session.storyPreviews.idleOnes()[0]?.prepared.page).toBe(kept.prepared.page);
  expect(again).not.toContain('left by the last capture');
  expect(again).toBe(first);
  expect(phases).toEqual(expect.arrayContaining(['loading', 'rendering', 'playing', 'completed']));
});

test('captures of one variant that find no idle preview wait for the one being loaded, rather than load one each at once', async () => {
  const { session, provider } = switchingProvider(4);
  try {
    const pages = countPagesOpened(await session.acquire());
    const ids = ['components-button--primary', 'components-button--secondary', 'components-card--closed', 'components-card--opened'];
    const trees = await Promise.all(ids.map((id) => capture(provider, id, 'a11y tree', `together/${id}.a11y.json`)));
    for (const [i, id] of ids.entries())
      expect(trees[i].toString('utf8')).toBe((await capture(fresh, id, 'a11y tree', `together-fresh/${id}.a11y.json`)).toString('utf8'));
    // The first loads; the next takes its page once it is kept; the third loads another (where a second core
    // is free to: perVariantLimit), which the fourth waits for.
    expect(pages.opened()).toBe(Math.min(2, perVariantLimit(4)));
  } finally {
    await provider.close();
  }
});

test("a capture waits for its variant's busy preview only so long: past STORY_PREVIEW_WAIT_MS it loads a page of its own", async () => {
  // One variant (the same preview URL but for the id); the first story keeps its page's main thread busy, so
  // its capture holds the variant's preview until its budget runs out.
  const pages = await servePages(path.join(__dirname, 'pages'));
  const { session, provider } = switchingProvider(2);
  process.env.DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS = String(3 * STORY_PREVIEW_WAIT_MS);
  try {
    const done: string[] = [];
    const run = (id: string) =>
      executeCapturePlan(captureArgs(root, pages.url(`/hangs/iframe.html?id=${id}&viewMode=story`), `wait/${id}.png`, { viewport: VIEWPORT }), {
        provider,
      }).then((result) => {
        done.push(id);
        return result;
      });
    const stuck = run('spin--story');
    while (!session.storyPreviews.busy()) await new Promise((resolve) => setTimeout(resolve, 10));
    const [stuckResult, okResult] = await Promise.all([stuck, run('ok--story')]);
    expect(okResult.error).toBe('');
    expect(okResult.result).toBe('captured');
    expect(stuckResult.result).toBe('failed');
    expect(done).toEqual(['ok--story', 'spin--story']);
  } finally {
    delete process.env.DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS;
    await provider.close();
    await pages.close();
  }
});

test('a story that left something outside its root is not switched after: the next story loads fresh, and its page is kept instead', async () => {
  await capture(switching.provider, 'components-button--primary', 'a11y tree', 'left/first.a11y.json');
  const [kept] = switching.session.storyPreviews.idleOnes();
  expect(kept).toBeDefined();
  // What a story could leave behind: a portal its teardown forgot.
  await kept.prepared.page.evaluate(() => {
    const toast = document.createElement('div');
    toast.setAttribute('role', 'alert');
    toast.textContent = 'left behind by the last story';
    document.body.appendChild(toast);
  });
  const tree = (await capture(switching.provider, 'components-card--closed', 'a11y tree', 'left/next.a11y.json')).toString('utf8');
  expect(tree).not.toContain('left behind');
  expect(tree).toContain('Show details');
  expect(kept.prepared.page.isClosed()).toBe(true);
  const [now] = switching.session.storyPreviews.idleOnes();
  expect(now).toBeDefined();
  expect(now.prepared.page).not.toBe(kept.prepared.page);
  expect(await now.prepared.page.evaluate(() => document.body.innerText)).not.toContain('left behind');
});

test("an attached browser keeps no story preview: in its own session (--browser-session) each story's tab is closed after it", async () => {
  const user = await launchTestBrowser();
  const tabsBefore = (await user.pages()).length;
  const attached = new PuppeteerCaptureProvider({ flags: () => ({ wsEndpoints: [user.wsEndpoint()], browserSession: true, storySwitching: true }) });
  try {
    for (const id of ['components-button--primary', 'components-card--closed']) {
      const tree = (await capture(attached, id, 'a11y tree', `attached/${id}.a11y.json`)).toString('utf8');
      expect(tree).toBe((await capture(fresh, id, 'a11y tree', `attached-fresh/${id}.a11y.json`)).toString('utf8'));
    }
    expect(user.browserContexts()).toHaveLength(1);
    expect((await user.pages()).length).toBe(tabsBefore);
  } finally {
    await attached.close();
    await user.close();
  }
});

test('an abandoned switch says what the story left: the parts of the page that differ from the fresh load', () => {
  const fresh = JSON.stringify({
    title: 't',
    html: 'lang=en',
    body: 'class=',
    head: ['LINK a.css'],
    children: [],
    sheets: 0,
    local: '',
    session: '',
    cookie: '0',
  });
  const after = JSON.stringify({ ...JSON.parse(fresh), head: ['LINK a.css', 'LINK b.css'], local: 'k=1' });
  expect(fingerprintDifference(fresh, after)).toBe("the story left <head>, local storage unlike the preview's fresh load");
  expect(fingerprintDifference(fresh, undefined)).toBe('the preview can no longer switch');
});

test('which captures may switch: story pages of one variant, screenshot or aria, no actions, args, session or unfrozen page', () => {
  const key = (overrides: Record<string, unknown> = {}, url = story('components-card--closed'), ownState = false) => {
    const args = captureArgs(root, url, 'k.png', { viewport: VIEWPORT, ...overrides });
    const contract = parseCaptureContract(args);
    const runtime = parseRuntimeFields(args);
    if (!contract.ok || !runtime.ok) throw new Error(`bad test arguments: ${JSON.stringify([contract, runtime])}`);
    return storySwitchKey({ fields: runtime.fields, request: contract.request, fixed: null, ownState });
  };
  const base = key();
  expect(base).not.toBeNull();
  expect(key({}, story('components-badge--default'))).toBe(base);
  expect(key({ type: 'a11y tree' })).toBe(base);
  // A preview serves every size of its variant; not another pixel ratio or colour scheme.
  expect(key({ viewport: { ...VIEWPORT, width: 800, height: 1200 } })).toBe(base);
  expect(key({ viewport: { ...VIEWPORT, devicePixelRatio: 2 } })).not.toBe(base);
  expect(key({ viewport: { ...VIEWPORT, colorScheme: 'dark' } })).not.toBe(base);
  expect(key({}, `${story('components-card--closed')}&globals=theme:dark`)).not.toBe(base);
  expect(key({ type: 'interaction trace' })).toBeNull();
  expect(key({ actions: [{ do: 'click', selector: 'button' }] })).toBeNull();
  expect(key({ freeze: { enabled: false, waitFonts: false, networkIdle: false } })).toBeNull();
  expect(key({}, `${story('components-card--closed')}&args=label:Hi`)).toBeNull();
  expect(key({}, storybook.url('/index.json'))).toBeNull();
  expect(key({}, story('components-card--closed'), true)).toBeNull();
});

describe("the virtual clock's restart", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchTestBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  test('page time starts again: Date at the given instant, performance.now within a frame, queued timers keep their delay, Math.random from its seed', async () => {
    const page = await browser.newPage();
    const fixed = { epochMs: Date.UTC(2030, 0, 1), iso: '2030-01-01T00:00:00.000Z', source: 'test' };
    await PageClock.install(page, await page.createCDPSession(), fixed);
    const plain = await servePages(path.join(__dirname, 'pages', 'plain'));
    await page.goto(plain.url('/iframe.html'));
    await plain.close();
    const read = () => page.evaluate(() => ({ now: performance.now(), date: Date.now(), fired: (window as unknown as { fired?: number }).fired ?? 0 }));
    type Controls = { advance(ms: number): Promise<unknown>; restart(at: number): void };
    const advance = (ms: number) => page.evaluate((by) => (window as unknown as { __designPlaybookClock: Controls }).__designPlaybookClock.advance(by), ms);
    const firstRandom = await page.evaluate(() => [Math.random(), Math.random()]);
    await page.evaluate(() => setTimeout(() => ((window as unknown as { fired: number }).fired = performance.now()), 1000));
    await advance(750);
    const before = await read();
    expect(before.now).toBeGreaterThanOrEqual(750);
    const restartAt = Date.UTC(2031, 5, 1);
    await page.evaluate((at) => (window as unknown as { __designPlaybookClock: Controls }).__designPlaybookClock.restart(at), restartAt);
    const after = await read();
    expect(after.now).toBeLessThan(FRAME_MS);
    expect(after.date).toBe(restartAt + after.now);
    expect(await page.evaluate(() => [Math.random(), Math.random()])).toEqual(firstRandom);
    // The timer queued 250 ms before its due time still fires 250 ms on.
    await advance(249);
    expect((await read()).fired).toBe(0);
    await advance(1);
    expect((await read()).fired).toBe(after.now + 250);
    await page.close();
  });
});
