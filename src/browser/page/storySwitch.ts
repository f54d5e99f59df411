/**
 * Switching stories in a Storybook preview kept loaded, for `stories --run`
 * (BrowserFlags.storySwitching): after a story's capture its page stays
 * loaded (../fleet/storyPreviews.ts), and the next story of the same
 * variant is rendered there by Storybook's own channel
 * (`setCurrentStory`), as the Storybook UI and storycap do, instead of a
 * fresh context and a load of the whole preview.
 *
 * The evidence must be what a fresh load shows, so this module owns every
 * rule that keeps it so:
 *
 * - Which captures may switch (storySwitchKey): a story's page, screenshot
 *   or aria snapshot (a trace records its load), no actions, no session or
 *   secrets, no `args` in the URL (Storybook applies them to the story it
 *   loads first), the freeze on (its virtual clock restarts page time); and only
 *   into a page of the same variant: the same preview URL but for the id,
 *   pixel ratio, colour scheme, freeze and fixed clock. The viewport's size
 *   may differ: the page is set to the capture's size before the story is
 *   rendered, so the story mounts at that size as on a fresh load.
 * - Before the switch (switchStory): the freeze sheet is taken out of force
 *   (a play function runs with its animations, as on a fresh load), page
 *   time starts again as in a new document (Date at the capture's instant, a
 *   seeded Math.random at the start of its sequence), focus, selection and
 *   scroll are reset. The story the page shows already (another size, or
 *   another capture type) is mounted again (Storybook's `forceRemount`, its
 *   play function run again), never taken as it was left.
 * - After the story rendered (previewFingerprint): what a story can leave
 *   behind outside its root — elements added to <head> or <body>, classes
 *   and attributes of <html> and <body> other than Storybook's own,
 *   enabled adopted sheets, storage, cookies, the title — must read exactly
 *   as after the page's own fresh load. When it does not (a story left a
 *   portal or a global style, a story file brought its own CSS), the switch
 *   is abandoned (StorySwitchStale) and the story is captured on a fresh
 *   load, which then becomes the preview kept loaded.
 */
import type { Page } from 'puppeteer-core';
import type { CaptureRequestSnapshot } from '../../contract/captureContract';
import type { RuntimeFields } from '../../contract/toolArguments';
import { EvidenceError } from '../../common/errors';
import type { FixedTime } from '../options';
import { REMOUNT_MARK, storyIdOf } from './storyRest';
import { PageClock } from './pageClock';

/**
 * Stories one kept preview serves before it is closed and loaded afresh: what
 * a long run of stories leaves in one page's memory (caches, listeners) stays bounded.
 */
export const STORY_PREVIEW_MAX_STORIES = 50;

/** The capture types a switched story may serve: neither records the page's load. */
const SWITCHABLE_TYPES: ReadonlySet<string> = new Set(['screenshot', 'a11y tree']);

/** The switched story's page did not read as its fresh load did: the capture goes on with a fresh load. */
export class StorySwitchStale extends EvidenceError<'story-switch-stale'> {
  override name = 'StorySwitchStale';
  constructor(message: string) {
    super('story-switch-stale', message);
  }
}

export interface StorySwitchInputs {
  fields: RuntimeFields;
  request: CaptureRequestSnapshot;
  fixed: FixedTime | null;
  /** A session or secrets make the capture's page its own. */
  ownState: boolean;
}

/**
 * The variant a story capture may share a kept preview with, or null when
 * it must load on its own: everything that shapes the preview but the story id.
 */
export function storySwitchKey({ fields, request, fixed, ownState }: StorySwitchInputs): string | null {
  if (ownState || fields.actions.length || !SWITCHABLE_TYPES.has(fields.type) || !request.freeze.enabled) return null;
  if (storyIdOf(fields.url) === null) return null;
  const preview = new URL(fields.url);
  // Storybook applies a URL's args to the story it loads first only.
  if (preview.searchParams.has('args')) return null;
  preview.searchParams.delete('id');
  preview.searchParams.delete('viewMode');
  preview.hash = '';
  // Not the size: a preview is set to each capture's before its story mounts (CaptureAttempt.openContext).
  const { devicePixelRatio, colorScheme } = request.viewport;
  return JSON.stringify([preview.href, devicePixelRatio, colorScheme, request.freeze, fixed?.epochMs ?? null]);
}

/** What a story left outside its root, as read after it rendered. */
export interface PreviewState {
  /** What a story may leave behind outside its root, as one string (previewStateInPage). */
  fingerprint: string;
  /** <body>'s class attribute as it reads (Storybook's classes in the order it added them). */
  bodyClass: string;
}

/**
 * In the page, one round trip: null where Storybook's preview cannot be
 * told to switch (Storybook 7+: a preview with render phases, and its
 * channel); else what a story may leave behind outside its root, as one
 * string, and <body>'s classes. Storybook's own elements (its roots,
 * wrappers, scripts) and its `sb-` classes are left out of the fingerprint:
 * it sets them per story on a fresh load too.
 */
export function previewStateInPage(): PreviewState | null {
  const w = window as unknown as Record<string, any>;
  if (typeof w.__STORYBOOK_ADDONS_CHANNEL__?.emit !== 'function' || typeof w.__STORYBOOK_PREVIEW__?.currentRender?.phase !== 'string') return null;
  const hash = (text: string) => {
    let h = 0x811c9dc5;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
    return `${text.length}:${h.toString(16)}`;
  };
  const attributes = (element: Element, dropClass: (name: string) => boolean) =>
    Array.from(element.attributes)
      .map((a) =>
        a.name === 'class'
          ? `class=${Array.from(element.classList)
              .filter((c) => !dropClass(c))
              .sort()
              .join(' ')}`
          : `${a.name}=${a.value}`,
      )
      .sort()
      .join(' ');
  const storybooks = (element: Element) =>
    element.tagName === 'SCRIPT' ||
    ['storybook-root', 'storybook-docs', 'storybook-highlights-root', 'root', 'docs-root'].includes(element.id) ||
    Array.from(element.classList).some((c) => c.startsWith('sb-'));
  const storage = (area: () => Storage) => {
    try {
      const s = area();
      const items: string[] = [];
      for (let i = 0; i < s.length; i++) {
        const key = s.key(i)!;
        items.push(`${key}=${hash(s.getItem(key) ?? '')}`);
      }
      return items.sort().join(',');
    } catch {
      return 'unreadable';
    }
  };
  const head = Array.from(document.head?.children ?? []).map(
    (e) => `${e.tagName} ${attributes(e, () => false)}${e.tagName === 'STYLE' ? ` ${hash(e.textContent ?? '')}` : ''}`,
  );
  const body = document.body
    ? Array.from(document.body.children)
        .filter((e) => !storybooks(e))
        .map((e) => hash(e.outerHTML))
    : [];
  const sheets = (document.adoptedStyleSheets ?? []).filter((s) => !s.disabled).length;
  // Storybook titles the preview with the story's id: the same on a fresh load of that story.
  const storyId = w.__STORYBOOK_PREVIEW__.currentRender.id;
  const fingerprint = JSON.stringify({
    title: storyId && document.title === storyId ? '(the story id)' : document.title,
    html: attributes(document.documentElement, () => false),
    body: document.body ? attributes(document.body, (c) => c.startsWith('sb-')) : null,
    head,
    children: body,
    sheets,
    local: storage(() => localStorage),
    session: storage(() => sessionStorage),
    cookie: hash(document.cookie),
  });
  return { fingerprint, bodyClass: document.body?.getAttribute('class') ?? '' };
}

/** Names what differs between two fingerprints (previewStateInPage): `<head>`, `<body>`'s children, storage… */
export function fingerprintDifference(kept: string, now: string | undefined): string {
  const names: Record<string, string> = {
    title: 'the title',
    html: "<html>'s attributes",
    body: "<body>'s attributes",
    head: '<head>',
    children: "<body>'s children",
    sheets: 'adopted style sheets',
    local: 'local storage',
    session: 'session storage',
    cookie: 'cookies',
  };
  if (now === undefined) return 'the preview can no longer switch';
  const [a, b] = [JSON.parse(kept) as Record<string, unknown>, JSON.parse(now) as Record<string, unknown>];
  const differing = Object.keys(names).filter((key) => JSON.stringify(a[key]) !== JSON.stringify(b[key]));
  return `the story left ${differing.map((key) => names[key]).join(', ') || 'the page'} unlike the preview's fresh load`;
}

/** What a story may leave behind outside its root (previewStateInPage), or null where the preview cannot switch. */
export function previewState(page: Page): Promise<PreviewState | null> {
  return page.evaluate(previewStateInPage);
}

/**
 * A switch leaves Storybook's classes on <body> in another order than a
 * fresh load (the same classes): put back in the fresh load's order, since
 * selectors the probe writes name them in order. Only when they are the same set.
 */
export async function matchFreshClassOrder(page: Page, fresh: string): Promise<void> {
  await page.evaluate((freshClass: string) => {
    const body = document.body;
    const now = body?.getAttribute('class') ?? '';
    const set = (text: string) => text.split(/\s+/).filter(Boolean).sort().join(' ');
    if (body && now !== freshClass && set(now) === set(freshClass)) body.setAttribute('class', freshClass);
  }, fresh);
}

/**
 * In the page: resets what the last story left to the user's hands and the
 * clock, then asks Storybook for `storyId`: a switch, or, when it shows that
 * story already, a remount (a switch to it would leave it as it is).
 */
function switchInPage(storyId: string, startTime: number, mark: string): boolean {
  const w = window as unknown as Record<string, any>;
  const channel = w.__STORYBOOK_ADDONS_CHANNEL__;
  const clock = w.__designPlaybookClock;
  if (typeof channel?.emit !== 'function' || typeof clock?.restart !== 'function') return false;
  (document.activeElement as HTMLElement | null)?.blur?.();
  document.getSelection()?.removeAllRanges();
  window.scrollTo(0, 0);
  clock.thaw();
  clock.restart(startTime);
  if (w.__STORYBOOK_PREVIEW__?.currentRender?.id !== storyId) {
    channel.emit('setCurrentStory', { storyId, viewMode: 'story' });
    return true;
  }
  const remount = { storyId, started: false };
  w[mark] = remount;
  // Storybook's first phase of the new render (a render that fails at once says 'errored').
  const onPhase = (event: { storyId?: string; newPhase?: string } | undefined) => {
    if (event?.storyId !== storyId || !['loading', 'errored', 'aborted'].includes(event.newPhase ?? '')) return;
    remount.started = true;
    channel.off('storyRenderPhaseChanged', onPhase);
  };
  channel.on('storyRenderPhaseChanged', onPhase);
  channel.emit('forceRemount', { storyId });
  return true;
}

/**
 * Renders the story of `url` in the preview the page holds: its page time
 * starting at `startTime`. Throws StorySwitchStale when the page cannot
 * switch (the capture then loads it fresh).
 */
export async function switchStory(page: Page, url: string, startTime: number): Promise<void> {
  const id = storyIdOf(url)!;
  if (!(await page.evaluate(switchInPage, id, startTime, REMOUNT_MARK)))
    throw new StorySwitchStale('the kept preview has no Storybook channel or clock to switch with');
  PageClock.of(page)?.storySwitched();
}
