/**
 * Runs the normalized action list (src/actionVocabulary.ts owns the vocabulary) on a
 * Puppeteer page, with Playwright's semantics where the original relied on
 * them:
 *
 * - every selector is a Playwright selector, resolved by the selector engine
 *   (cdp/selectorEngine.ts) in the page's selector world, first match in
 *   document order; its syntax is checked before the page is touched.
 *   Puppeteer's own syntax (`::-p-…`, `>>>`, `pierce/`…) is resolved by
 *   Puppeteer instead, as a documented extension;
 * - Playwright's actionability: click and type wait until the target is
 *   attached, visible, enabled and stable (the same box a frame later), scroll
 *   it into view and check that the click point reaches it (else the element
 *   that would receive the click is named, and the click is retried); fill
 *   waits for visible, enabled and editable; select_option for visible and
 *   enabled; wait_for_selector and wait_for_state for visible;
 * - every wait lets the page's time pass through letTimePass (pageClock.ts),
 *   so under the virtual clock the same capture ends at the same instant and
 *   nothing waits on a frame that never comes; the stable check's frame is
 *   FRAME_MS of virtual time there, and the next real animation frame (in the
 *   selector world) on the wall clock.
 *
 * Each action gets ACTION_BUDGET_MS; a failure names the action's index,
 * kind and selector, and why.
 */
import type { KeyInput, Page } from 'puppeteer-core';
import type { CdpSession } from '../../cdp/types';
import {
  callEngineOn,
  checkSelectorSyntax,
  evaluateWithEngine,
  nearMisses,
  releaseObject,
  resolveBackendNode,
  usesPuppeteerSyntax,
} from '../../cdp/selectorEngine';
import { parseSelector } from '../../cdp/injected/selectors/parse';
import { stateSelector, type CaptureAction } from '../actionVocabulary';
import { ACTION_BUDGET_MS, ACTION_GUARD_GRACE_MS, ACTION_NAVIGATION_SETTLE_MS, withDeadline, withinOr } from '../deadline';
import { FRAME_MS, letTimePass, PageClock } from './pageClock';

export class ActionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ActionError';
  }
}

/** Lets a capture type (the trace) wrap each action; the default just runs it. */
export type ActionWrapper = (index: number, action: CaptureAction, run: () => Promise<void>) => Promise<void>;

const POLL_MS = 50;

/** An action as errors name it (`actions[0] click '#boom'`): the runner's own failures and a crash during the action alike. */
export function describeAction(index: number, action: CaptureAction): string {
  const selector = 'selector' in action && action.selector ? ` '${action.selector}'` : '';
  return `actions[${index}] ${action.do}${selector}`;
}

function reason(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/\s+/g, ' ').trim();
}

export interface RunActionsOptions {
  /** Lets a capture type (the trace) wrap each action. */
  wrap?: ActionWrapper;
  /** Per-action budget (tests shorten it). */
  budgetMs?: number;
  /** A CDP session on the page: input actions that navigate then wait for the new document. */
  session?: CdpSession;
}

/**
 * Throws "selector syntax error at position N: …" when the action's selector
 * is not a Playwright selector (Puppeteer syntax is Puppeteer's to judge).
 */
export function checkActionSelector(action: CaptureAction): void {
  if (!('selector' in action) || !action.selector || usesPuppeteerSyntax(action.selector)) return;
  checkSelectorSyntax(action.selector);
}

/** Runs every action in order; the first failure stops the capture. Every selector's syntax is checked first. */
export async function runActions(page: Page, actions: CaptureAction[], options: RunActionsOptions = {}): Promise<void> {
  const { wrap, budgetMs = ACTION_BUDGET_MS } = options;
  actions.forEach((action, index) => {
    try {
      checkActionSelector(action);
    } catch (err) {
      throw new ActionError(`${describeAction(index, action)} failed: ${reason(err)}`);
    }
  });
  const own = options.session ? null : await page.createCDPSession();
  const session = options.session ?? own!;
  const watch = options.session ? await NavigationWatch.start(options.session) : null;
  try {
    for (let index = 0; index < actions.length; index++) {
      const action = actions[index];
      const run = () => runOneAction(page, action, budgetMs, watch, session);
      try {
        if (wrap) await wrap(index, action, run);
        else await run();
      } catch (err) {
        throw new ActionError(`${describeAction(index, action)} failed: ${reason(err)}`);
      }
    }
  } finally {
    watch?.stop();
    await own?.detach().catch(() => undefined);
  }
}

/** One action within its budget; waits it started are cancelled when the budget ends. */
export async function runOneAction(
  page: Page,
  action: CaptureAction,
  budgetMs = ACTION_BUDGET_MS,
  watch: NavigationWatch | null = null,
  session?: CdpSession,
): Promise<void> {
  checkActionSelector(action);
  const own = session ? null : await page.createCDPSession();
  const controller = new AbortController();
  const deadline = Date.now() + budgetMs;
  const ctx: Ctx = { page, session: session ?? own!, signal: controller.signal, deadline, budgetMs };
  const work = watch && INPUT_ACTIONS.has(action.do) ? watch.around(() => perform(ctx, action), ctx) : perform(ctx, action);
  try {
    await withDeadline(work, budgetMs + ACTION_GUARD_GRACE_MS, () => {
      controller.abort();
      return new Error(`did not finish within the ${budgetMs} ms action budget`);
    });
  } finally {
    controller.abort();
    await own?.detach().catch(() => undefined);
  }
}

/** What one action works with: the page, a CDP session on it (for the selector world), its budget. */
interface Ctx {
  page: Page;
  session: CdpSession;
  signal: AbortSignal;
  deadline: number;
  budgetMs: number;
}
type Budget = Pick<Ctx, 'signal' | 'deadline' | 'budgetMs'>;

function remaining(budget: Budget): number {
  return Math.max(1, budget.deadline - Date.now());
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What an action waits for (Playwright's element states). */
interface Needs {
  visible?: boolean;
  enabled?: boolean;
  editable?: boolean;
}

/** A resolved target (an object of the selector world), or why there is none yet. */
type Found = { objectId: string } | { why: string; preview?: string };

/** The page forgot the object: a navigation replaced the document, or the node was collected. */
const isGone = (err: unknown) => /Could not find object|Cannot find context|context with specified id|Execution context was destroyed|Inspected target navigated|No node with given id|Node with given id does not belong/i.test(String((err as Error)?.message ?? err));

function whyOf(text: string): { why: string; preview?: string } {
  const bar = text.indexOf('|');
  return bar === -1 ? { why: text } : { why: text.slice(0, bar), preview: text.slice(bar + 1) };
}

/**
 * The selector's first match, once it has `needs` (scrolled into view with
 * alignment `scroll` when scroll >= 0), as one protocol call on the engine
 * path; Puppeteer syntax is resolved by Puppeteer and handed to the
 * selector world by backend node id.
 */
async function findTarget(ctx: Ctx, selector: string, needs: Needs, scroll: number): Promise<Found> {
  if (usesPuppeteerSyntax(selector)) {
    const handle = await ctx.page.$(selector);
    if (!handle) return { why: 'none' };
    let objectId: string | null;
    try {
      objectId = await resolveBackendNode(ctx.session, await handle.backendNodeId());
    } finally {
      await handle.dispose().catch(() => undefined);
    }
    if (!objectId) return { why: 'none' };
    const out = await callEngineOn(ctx.session, objectId, 'prepareTarget', [needs, scroll]);
    if (typeof out === 'string') {
      releaseObject(ctx.session, objectId);
      return whyOf(out);
    }
    return { objectId };
  }
  const result = await evaluateWithEngine(ctx.session, `engine.actionTarget(${JSON.stringify(selector)}, ${JSON.stringify(needs)}, ${scroll})`, false);
  if (result.type === 'string') return whyOf(result.value as string);
  if (result.subtype === 'node' && result.objectId) return { objectId: result.objectId as string };
  return { why: 'none' };
}

/** The failure once the budget is spent, worded for the caller: what was wrong at the last look. */
async function failure(ctx: Ctx, selector: string, last: { why: string; preview?: string }): Promise<Error> {
  const ms = ctx.budgetMs;
  if (last.why === 'none') {
    let hint = '';
    if (!usesPuppeteerSyntax(selector)) {
      const similar = await nearMisses(ctx.session, selector).catch(() => [] as string[]);
      if (similar.length) hint = `; elements like it on the page: ${similar.join(', ')}`;
    }
    return new Error(`no element matches the selector within ${ms} ms${hint}`);
  }
  if (last.why.startsWith('intercepted:')) {
    return new Error(`${last.why.slice('intercepted:'.length)} intercepts pointer events (retried for ${ms} ms; the target is ${last.preview ?? 'the selector\'s first match'})`);
  }
  return new Error(`${last.why} (waited ${ms} ms${last.preview ? `; the selector resolves to ${last.preview}` : ''})`);
}

function outOfTime(ctx: Ctx): boolean {
  return ctx.signal.aborted || Date.now() + POLL_MS >= ctx.deadline;
}

/**
 * Waits for the target's states; with `point`, also for a stable box and a
 * click point that reaches it, scrolling it into view (alternating the
 * alignment on retries, as Playwright does). Returns the target and the point.
 */
async function actionable(ctx: Ctx, selector: string, needs: Needs, point: boolean): Promise<{ objectId: string; x: number; y: number }> {
  let retry = 0;
  let last: { why: string; preview?: string } = { why: 'none' };
  let preview: string | undefined;
  for (;;) {
    let found: Found;
    try {
      found = await findTarget(ctx, selector, needs, point ? retry : -1);
    } catch (err) {
      if (!isGone(err)) throw err;
      found = { why: 'element is not attached to the DOM' };
    }
    let frameSpent = false;
    if ('objectId' in found) {
      if (!point) return { objectId: found.objectId, x: 0, y: 0 };
      // One frame later, the same box and a click point that reaches the element. On the virtual
      // clock the frame is a frame of the page's time; on the wall clock, the next real frame.
      const virtual = !!PageClock.of(ctx.page);
      if (virtual) await letTimePass(ctx.page, FRAME_MS);
      frameSpent = true;
      let settled: { x: number; y: number } | string;
      try {
        settled = await callEngineOn(ctx.session, found.objectId, virtual ? 'settledPoint' : 'settledPointAfterFrame', [], !virtual);
      } catch (err) {
        if (!isGone(err)) throw err;
        settled = 'element is not attached to the DOM';
      }
      // Rounded to 1/100 px, as Playwright rounds its click point.
      if (typeof settled === 'object') return { objectId: found.objectId, x: Math.round(settled.x * 100) / 100, y: Math.round(settled.y * 100) / 100 };
      if (settled.startsWith('intercepted:') || settled === 'element is outside of the viewport') retry++;
      preview = await callEngineOn(ctx.session, found.objectId, 'previewNode').catch(() => preview);
      releaseObject(ctx.session, found.objectId);
      last = { why: settled, preview };
    } else {
      last = found;
    }
    if (outOfTime(ctx)) throw await failure(ctx, selector, last);
    // A box that moved is looked at again a frame later; anything else is polled.
    if (!(frameSpent && last.why === 'element is not stable')) await letTimePass(ctx.page, POLL_MS);
  }
}

/** Click at the target's click point once it is actionable (Puppeteer's mouse: move, press, release). */
async function clickWhenActionable(ctx: Ctx, selector: string): Promise<void> {
  const target = await actionable(ctx, selector, { visible: true, enabled: true }, true);
  releaseObject(ctx.session, target.objectId);
  await ctx.page.mouse.click(target.x, target.y);
}

/** Until the selector's first match is visible (Playwright's waitForSelector default state). */
async function waitVisible(ctx: Ctx, selector: string): Promise<void> {
  const target = await actionable(ctx, selector, { visible: true }, false);
  releaseObject(ctx.session, target.objectId);
}

/**
 * The selector wait_for_state waits for: `SEL[data-state="S"]` when SEL is one
 * CSS part (the contract's string concatenation, exactly what the original
 * hands to Playwright), `[data-state="S"]` without SEL; for any other SEL
 * (`text=…`, `role=…`, a `>>` chain…), where concatenation would change what
 * SEL means, SEL's matches that carry the state:
 * `SEL >> internal:and="[data-state=\"S\"]"`.
 */
export function stateTarget(action: { state: string; selector?: string }): string {
  if (!action.selector || usesPuppeteerSyntax(action.selector)) return stateSelector(action);
  const parsed = parseSelector(action.selector);
  const eq = action.selector.indexOf('=');
  const named = eq !== -1 && /^[a-zA-Z_0-9-+:*]+$/.test(action.selector.slice(0, eq).trim());
  const plainCss = parsed.parts.length === 1 && parsed.parts[0].kind === 'css' && !named;
  if (plainCss) return stateSelector(action);
  return `${action.selector} >> internal:and=${JSON.stringify(stateSelector({ state: action.state }))}`;
}

/** Actions that act as a user would and so may start a navigation. */
const INPUT_ACTIONS = new Set<CaptureAction['do']>(['click', 'fill', 'type', 'press', 'select_option']);

/**
 * Watches the main frame over raw CDP for navigations an action starts. The
 * browser reports the request (Page.frameRequestedNavigation) before the
 * input that caused it is acknowledged, so none is missed; the wait ends at
 * the new document's DOMContentLoaded, a same-document navigation, or when
 * the frame stops loading (a failed or 204 navigation, a refused download).
 */
export class NavigationWatch {
  private pending = false;
  private wake: (() => void) | null = null;
  private readonly handlers: Array<[string, (params: any) => void]>;

  private constructor(
    private readonly session: CdpSession,
    private readonly mainFrameId: string,
  ) {
    const settle = () => {
      this.pending = false;
      this.wake?.();
    };
    const mainOnly = (fn: () => void) => (params: { frameId?: string }) => {
      if (params.frameId === this.mainFrameId) fn();
    };
    this.handlers = [
      ['Page.frameRequestedNavigation', mainOnly(() => (this.pending = true))],
      ['Page.domContentEventFired', () => this.pending && settle()],
      ['Page.navigatedWithinDocument', mainOnly(settle)],
      ['Page.frameStoppedLoading', mainOnly(settle)],
    ];
  }

  static async start(session: CdpSession): Promise<NavigationWatch | null> {
    if (typeof session.on !== 'function') return null;
    await session.send('Page.enable');
    const { frameTree } = await session.send('Page.getFrameTree');
    const watch = new NavigationWatch(session, frameTree.frame.id);
    for (const [event, handler] of watch.handlers) session.on!(event, handler);
    return watch;
  }

  /** Runs the action; if it started a main-frame navigation, waits for the new document. */
  async around(act: () => Promise<void>, budget: Budget): Promise<void> {
    this.pending = false;
    await act();
    await sleep(0);
    if (!this.pending) return;
    await withinOr(new Promise<void>((resolve) => (this.wake = resolve)), Math.min(ACTION_NAVIGATION_SETTLE_MS, remaining(budget)), undefined);
    this.wake = null;
  }

  stop(): void {
    for (const [event, handler] of this.handlers) this.session.off?.(event, handler);
  }
}


async function perform(ctx: Ctx, action: CaptureAction): Promise<void> {
  const { page } = ctx;
  switch (action.do) {
    case 'click':
      return clickWhenActionable(ctx, action.selector);
    case 'fill':
      return fill(ctx, action.selector, action.value);
    case 'type':
      await clickWhenActionable(ctx, action.selector);
      await page.keyboard.type(action.value);
      return;
    case 'press': {
      if (action.selector) {
        // Playwright focuses the element as it is (attached), without waiting for other states.
        const target = await actionable(ctx, action.selector, {}, false);
        try {
          await callEngineOn(ctx.session, target.objectId, 'focusTarget');
        } finally {
          releaseObject(ctx.session, target.objectId);
        }
      }
      await pressCombo(page, action.key);
      return;
    }
    case 'select_option':
      return selectOption(ctx, action.selector, action.value, action.label);
    case 'wait_for_selector':
      return waitVisible(ctx, action.selector);
    case 'wait_for_state': {
      const selector = stateTarget(action);
      try {
        await waitVisible(ctx, selector);
      } catch (err) {
        const message = (err as Error).message;
        if (!/^no element matches/.test(message)) throw new Error(`${selector}: ${message}`);
        const seen: string[] = await evaluateWithEngine(
          ctx.session,
          `Array.from(document.querySelectorAll('[data-state]'), (el) => el.getAttribute('data-state')).slice(0, 5)`,
          true,
        ).then((r) => r.value as string[], () => []);
        const note = seen.length ? `; data-state values on the page: ${seen.map((s) => `'${s}'`).join(', ')}` : '; no element carries data-state';
        throw new Error(`no element matches ${selector} within ${ctx.budgetMs} ms${note}`);
      }
      return;
    }
    case 'wait':
    case 'sleep':
      await letTimePass(page, action.ms);
      return;
  }
}

/**
 * Playwright's fill: once visible, enabled and editable, the page focuses the
 * field and selects its content, and the value goes in as one text input (so
 * `input` fires as if typed); types without free text (date, colour, range…)
 * get their value set with `input` + `change`. What cannot be filled is
 * refused in Playwright's words.
 */
async function fill(ctx: Ctx, selector: string, value: string): Promise<void> {
  const target = await actionable(ctx, selector, { visible: true, enabled: true, editable: true }, false);
  let mode: string;
  try {
    mode = await callEngineOn(ctx.session, target.objectId, 'prepareFill', [value]);
  } finally {
    releaseObject(ctx.session, target.objectId);
  }
  if (mode === 'done') return;
  if (value === '') await ctx.page.keyboard.press('Delete');
  else await ctx.page.keyboard.sendCharacter(value);
}

/** Playwright-style key combos: `Shift+ArrowDown`, `Control+a`, `ControlOrMeta+Enter`, `+`. */
export function splitKeyCombo(key: string): string[] {
  if (key === '+') return ['+'];
  const parts = key.endsWith('++') ? [...key.slice(0, -2).split('+'), '+'] : key.split('+');
  return parts.map((part) => (part === 'ControlOrMeta' ? (process.platform === 'darwin' ? 'Meta' : 'Control') : part));
}

async function pressCombo(page: Page, key: string): Promise<void> {
  const parts = splitKeyCombo(key);
  const modifiers = parts.slice(0, -1) as KeyInput[];
  const main = parts[parts.length - 1] as KeyInput;
  for (const m of modifiers) await page.keyboard.down(m);
  try {
    await page.keyboard.press(main);
  } finally {
    for (const m of modifiers.reverse()) await page.keyboard.up(m);
  }
}

/**
 * Chooses on a native <select> once it is visible and enabled: the option
 * whose value (and/or label — its text, as Playwright reads `option.label`)
 * matches, then fires `input` and `change` as a user's choice would. Options
 * that arrive late are waited for.
 */
async function selectOption(ctx: Ctx, selector: string, value: string | undefined, label: string | undefined): Promise<void> {
  for (;;) {
    const target = await actionable(ctx, selector, { visible: true, enabled: true }, false);
    let outcome: { done: boolean; fatal: string; options?: string[] };
    try {
      outcome = await callEngineOn(ctx.session, target.objectId, 'selectOption', [value ?? null, label ?? null]);
    } catch (err) {
      if (!isGone(err)) throw err;
      outcome = { done: false, fatal: '' };
    } finally {
      releaseObject(ctx.session, target.objectId);
    }
    if (outcome.done) return;
    if (outcome.fatal) throw new Error(outcome.fatal);
    if (outOfTime(ctx)) {
      const wanted = [value !== undefined ? `value '${value}'` : '', label !== undefined ? `label '${label}'` : ''].filter(Boolean).join(' and ');
      const listed = outcome.options?.length ? ` (options value=label: ${outcome.options.join(', ')})` : '';
      throw new Error(`no enabled <option> with ${wanted} within ${ctx.budgetMs} ms${listed}`);
    }
    await letTimePass(ctx.page, POLL_MS);
  }
}
