/**
 * A Storybook story at rest is a story rendered. When the capture's URL is a
 * story's own page (`…/iframe.html?id=…`, viewMode story or none), the
 * settle first waits for Storybook to say it is done with the story — its
 * render, loaders and play function — and only then for the page's usual
 * rest. What Storybook says is read from the page, as its own test runner
 * and storycap read it:
 *
 * - `window.__STORYBOOK_PREVIEW__.currentRender.phase` (Storybook 7+): the
 *   story is done at `completed` or `finished` (after its play function and
 *   `afterEach`), failed at `errored`;
 * - the classes Storybook puts on <body>: `sb-show-errordisplay` when the
 *   story threw, its play function threw, or no story has that id, with the
 *   message in `#error-message`; `sb-show-nopreview` when nothing is shown;
 *   `sb-show-main` when it rendered (all a Storybook 6 page tells).
 *
 * A story that errors, throws or is missing fails the capture with
 * Storybook's own message (StoryFailed), so its error overlay is never taken
 * for evidence. Every other URL is untouched: ordinary captures are as they
 * were. Waiting lets the page's time pass (letTimePass), so under the virtual
 * clock a play function's timers run; it follows the wall clock only while a
 * request of the page is in flight (a story's loaders, a module still coming).
 */
import type { Page } from 'puppeteer-core';
import { EvidenceError } from '../../common/errors';
import { STORY_PLAY_POLL_MS, STORY_POLL_MS, STORY_RENDER_MS } from '../../common/time';
import { letTimePass } from './pageClock';

/** Storybook reported the story failed (or never reported it done): the capture fails with its words. */
export class StoryFailed extends EvidenceError<'story-failed'> {
  override name = 'StoryFailed';
  constructor(message: string) {
    super('story-failed', message);
  }
}

/**
 * The page-side mark of a story mounted again in a kept preview (storySwitch.ts: Storybook's `forceRemount`): until
 * Storybook starts that render, its phase is still the last one's, so the
 * story's wait (storyStatusInPage) reads it as pending.
 */
export const REMOUNT_MARK = '__designPlaybookRemount';

/** The story id when `url` is a Storybook story's own page, else null. */
export function storyIdOf(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (!/\/iframe\.html$/i.test(parsed.pathname)) return null;
  const id = parsed.searchParams.get('id');
  const viewMode = parsed.searchParams.get('viewMode') ?? 'story';
  return id && viewMode === 'story' ? id : null;
}

/** What the page says about its story. */
export type StoryStatus = { state: 'not-storybook' } | { state: 'pending'; phase: string } | { state: 'done' } | { state: 'error'; message: string };

/** The in-page read (runs in the page's main world, where Storybook's globals are); exported so a test can run it. */
export function storyStatusInPage(switchedTo: string | null = null, remountMark = ''): StoryStatus {
  const w = window as unknown as Record<string, any>;
  const body = document.body;
  const has = (name: string) => !!body && body.classList.contains(name);
  const text = (selector: string) => (document.querySelector(selector)?.textContent ?? '').trim();
  if (has('sb-show-errordisplay')) {
    const message = text('#error-message') || text('.sb-errordisplay') || 'Storybook shows its error display';
    return { state: 'error', message: message.replace(/\s+/g, ' ').slice(0, 500) };
  }
  if (has('sb-show-nopreview')) return { state: 'error', message: (text('.sb-nopreview') || 'No Preview').replace(/\s+/g, ' ').slice(0, 300) };
  const preview = w.__STORYBOOK_PREVIEW__;
  const storybook = preview || w.__STORYBOOK_ADDONS_CHANNEL__ || w.__STORYBOOK_CLIENT_API__ || w.__STORYBOOK_STORY_STORE__;
  if (!storybook) return document.readyState === 'loading' ? { state: 'pending', phase: 'loading the page' } : { state: 'not-storybook' };
  const render = preview?.currentRender;
  // Switched to in a kept preview: until Storybook takes the request, its render is the last story's.
  if (switchedTo !== null && render?.id !== switchedTo) return { state: 'pending', phase: 'switching' };
  const remount = remountMark ? w[remountMark] : undefined;
  if (switchedTo !== null && remount?.storyId === switchedTo && !remount.started) return { state: 'pending', phase: 'remounting' };
  const phase = typeof render?.phase === 'string' ? render.phase : undefined;
  if (phase === 'completed' || phase === 'finished') return { state: 'done' };
  if (phase === 'errored') return { state: 'error', message: 'Storybook reported the story errored' };
  // A Storybook without render phases (6.x) says only that it shows the story.
  if (!preview && has('sb-show-main')) return { state: 'done' };
  return { state: 'pending', phase: phase ?? 'preparing' };
}

/**
 * When `url` is a story's page: waits until Storybook says the story is
 * done, or throws StoryFailed with its message (or, past STORY_RENDER_MS of
 * page time, with the phase it was still in). Anything else returns at once.
 */
export async function waitForStory(page: Page, url: string, signal?: AbortSignal, options: { switched?: boolean } = {}): Promise<void> {
  const id = storyIdOf(url);
  if (id === null) return;
  for (let waited = 0; ;) {
    const status = await page.evaluate(storyStatusInPage, options.switched ? id : null, REMOUNT_MARK);
    if (status.state === 'done' || status.state === 'not-storybook') return;
    if (status.state === 'error') throw new StoryFailed(`Storybook could not render story '${id}': ${status.message}`);
    if (waited >= STORY_RENDER_MS) {
      throw new StoryFailed(
        `Storybook did not finish story '${id}' within ${STORY_RENDER_MS} ms of page time (still ${status.phase}); a play function that never ends keeps it there`,
      );
    }
    const step = status.phase === 'playing' ? STORY_PLAY_POLL_MS : STORY_POLL_MS;
    // Storybook's own steps between polls are promises and timers: time leaps unless a request is in flight.
    await letTimePass(page, step, signal, { leapWhileIdle: true });
    waited += step;
  }
}
