/**
 * The kept story previews' bookkeeping (src/browser/fleet/storyPreviews.ts),
 * on a fake host: who waits for what, how many previews a variant may have,
 * and which are closed. The real pages are storySwitch.browser.test.ts's.
 */
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import { perVariantLimit, StoryPreviewStore, type StoryPreview } from '../../src/browser/fleet/storyPreviews';
import { STORY_PREVIEW_MAX_STORIES } from '../../src/browser/page/storySwitch';

type Kept = { context: BrowserContext; page: Page };

function fakeBrowser(): Browser {
  return { connected: true } as unknown as Browser;
}

function setUp(parallel = 4) {
  const browser = fakeBrowser();
  const closed: string[] = [];
  const host = { browser: browser as Browser | null, keep: true };
  const store = new StoryPreviewStore<Kept>({
    currentBrowser: () => host.browser,
    mayKeep: () => host.keep,
    parallel: () => parallel,
    close: (context) => closed.push(context.id!),
  });
  let pages = 0;
  const preview = (key: string, stories = 1): StoryPreview<Kept> => {
    const id = `page-${++pages}`;
    return {
      key,
      browser,
      prepared: { context: { id } as BrowserContext, page: { isClosed: () => false } as unknown as Page },
      state: { fingerprint: '', bodyClass: '' },
      stories,
    };
  };
  return { store, browser, closed, host, preview };
}

/** Whether `promise` has settled once the microtasks queued now have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

test('a variant may have one preview per core, within the parallel limit, and at least one', () => {
  expect(perVariantLimit(4, 2)).toBe(2);
  expect(perVariantLimit(1, 8)).toBe(1);
  expect(perVariantLimit(4, 16)).toBe(4);
  expect(perVariantLimit(0, 0)).toBe(1);
});

test('the first capture of a variant loads; the others wait for that load, then take the preview it kept', async () => {
  const { store, browser, preview } = setUp();
  expect(store.take(browser, 'a')).toBeNull();
  expect(store.loading('a')).toBeNull();
  expect(store.hold('a')).toBe(true);
  const waiting = store.loading('a')!;
  expect(await settled(waiting)).toBe(false);
  const page = preview('a');
  store.release('a', { kept: page, loaded: true });
  expect(await settled(waiting)).toBe(true);
  expect(store.loading('a')).toBeNull();
  expect(store.take(browser, 'a')).toBe(page);
  expect(store.take(browser, 'a')).toBeNull();
  // Another variant has none.
  expect(store.take(browser, 'b')).toBeNull();
});

test('a variant with as many previews as it may has its captures wait for one to be given back, not load another', async () => {
  const { store, browser, preview } = setUp(4);
  const limit = perVariantLimit(4);
  const pages = Array.from({ length: limit }, () => preview('a'));
  for (const page of pages) {
    expect(store.full('a')).toBe(false);
    store.hold('a');
    store.release('a', { kept: page, loaded: true });
    expect(store.take(browser, 'a')).toBe(page);
  }
  expect(store.full('a')).toBe(true);
  expect(store.full('b')).toBe(false);
  const freed = store.freed();
  expect(await settled(freed)).toBe(false);
  store.release('a', { kept: { ...pages[0], stories: 2 }, loaded: false });
  expect(await settled(freed)).toBe(true);
  // Kept idle: still counted; closed: no longer.
  expect(store.full('a')).toBe(true);
  store.release('a', { kept: null, closed: pages[1 % limit], loaded: false });
  expect(store.full('a')).toBe(false);
});

test('a load that fails gives its place back: the waiting capture of the variant may load', async () => {
  const { store } = setUp(1);
  store.hold('a');
  expect(store.full('a')).toBe(true);
  const waiting = store.loading('a')!;
  store.release('a', { kept: null, loaded: true });
  expect(await settled(waiting)).toBe(true);
  expect(store.full('a')).toBe(false);
  expect(store.busy()).toBe(false);
});

test('closed, not kept: a preview past its story limit, of another browser, or when previews may not be kept', () => {
  const { store, browser, closed, host, preview } = setUp();
  store.hold('a');
  store.release('a', { kept: preview('a', STORY_PREVIEW_MAX_STORIES), loaded: true });
  expect(closed).toEqual(['page-1']);
  expect(store.take(browser, 'a')).toBeNull();
  host.keep = false;
  store.hold('a');
  store.release('a', { kept: preview('a'), loaded: true });
  expect(closed).toEqual(['page-1', 'page-2']);
  host.keep = true;
  host.browser = fakeBrowser();
  store.hold('a');
  store.release('a', { kept: preview('a'), loaded: true });
  expect(closed).toEqual(['page-1', 'page-2', 'page-3']);
  expect(store.idleOnes()).toHaveLength(0);
  expect(store.full('a')).toBe(false);
});

test('idle previews beyond the parallel limit are closed, oldest first', () => {
  const { store, closed, preview } = setUp(2);
  for (const key of ['a', 'b', 'c']) {
    store.hold(key);
    store.release(key, { kept: preview(key), loaded: true });
  }
  expect(closed).toEqual(['page-1']);
  expect(store.idleOnes().map((p) => p.key)).toEqual(['b', 'c']);
  expect(store.full('a')).toBe(false);
});
