/**
 * Runs the normalized action list (src/actionVocabulary.ts owns the vocabulary) on a
 * Puppeteer page, with Playwright's semantics where the original relied on
 * them. Each action gets ACTION_BUDGET_MS; a failure names the action's index,
 * kind and selector.
 */
import type { ElementHandle, KeyInput, Page } from 'puppeteer';
import type { CdpSession } from '../../cdp/types';
import { stateSelector, type CaptureAction } from '../actionVocabulary';
import { ACTION_BUDGET_MS, ACTION_GUARD_GRACE_MS, ACTION_NAVIGATION_SETTLE_MS, withDeadline } from '../deadline';
import { FRAME_MS, letTimePass } from './pageClock';

export class ActionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ActionError';
  }
}

/** Lets a capture type (the trace) wrap each action; the default just runs it. */
export type ActionWrapper = (index: number, action: CaptureAction, run: () => Promise<void>) => Promise<void>;

const POLL_MS = 50;

function describeAction(index: number, action: CaptureAction): string {
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

/** Runs every action in order; the first failure stops the capture. */
export async function runActions(page: Page, actions: CaptureAction[], options: RunActionsOptions = {}): Promise<void> {
  const { wrap, budgetMs = ACTION_BUDGET_MS } = options;
  const watch = options.session ? await NavigationWatch.start(options.session) : null;
  try {
    for (let index = 0; index < actions.length; index++) {
      const action = actions[index];
      const run = () => runOneAction(page, action, budgetMs, watch);
      try {
        if (wrap) await wrap(index, action, run);
        else await run();
      } catch (err) {
        throw new ActionError(`${describeAction(index, action)} failed: ${reason(err)}`);
      }
    }
  } finally {
    watch?.stop();
  }
}

/** One action within its budget; waits it started are cancelled when the budget ends. */
export async function runOneAction(page: Page, action: CaptureAction, budgetMs = ACTION_BUDGET_MS, watch: NavigationWatch | null = null): Promise<void> {
  const controller = new AbortController();
  const deadline = Date.now() + budgetMs;
  const budget = { signal: controller.signal, deadline, budgetMs };
  const work = watch && INPUT_ACTIONS.has(action.do) ? watch.around(() => perform(page, action, budget), budget) : perform(page, action, budget);
  try {
    await withDeadline(work, budgetMs + ACTION_GUARD_GRACE_MS, () => {
      controller.abort();
      return new Error(`did not finish within the ${budgetMs} ms action budget`);
    });
  } finally {
    controller.abort();
  }
}

interface Budget {
  signal: AbortSignal;
  deadline: number;
  budgetMs: number;
}

function remaining(budget: Budget): number {
  return Math.max(1, budget.deadline - Date.now());
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Selector syntax only Puppeteer reads (its P-selectors and query handlers): handed to Puppeteer as is. */
const PUPPETEER_SYNTAX = /::-p-|>>>|^(?:pierce|text|aria|xpath)\//;

/**
 * The first element matching a CSS selector, looking into open shadow roots
 * too when the light DOM has none — as Playwright's CSS engine does, so
 * selectors written for the original keep working on web components.
 * Runs in the page.
 */
export function deepQuerySelector(selector: string): Element | null {
  const light = document.querySelector(selector);
  if (light) return light;
  const search = (root: Document | ShadowRoot): Element | null => {
    for (const host of Array.from(root.querySelectorAll('*'))) {
      const shadow = host.shadowRoot;
      if (!shadow) continue;
      const found = shadow.querySelector(selector) ?? search(shadow);
      if (found) return found;
    }
    return null;
  };
  return search(document);
}

/** The element the selector names, once it is in the DOM. */
async function present(page: Page, selector: string, budget: Budget): Promise<ElementHandle<Element>> {
  try {
    if (PUPPETEER_SYNTAX.test(selector)) {
      const handle = await page.waitForSelector(selector, { timeout: remaining(budget), signal: budget.signal });
      if (!handle) throw new Error('no element');
      return handle;
    }
    const invalid = await page.evaluate((text) => {
      try {
        document.createDocumentFragment().querySelector(text);
        return '';
      } catch (err) {
        return (err as Error).message;
      }
    }, selector);
    if (invalid) throw new Error(`'${selector}' is not a valid selector (${invalid})`);
    // Polled from here, letting the page's time pass between looks: the wait ends at the same virtual instant on every capture.
    for (;;) {
      const found = await page.evaluateHandle(deepQuerySelector, selector);
      const element = found.asElement();
      if (element) return element as ElementHandle<Element>;
      await found.dispose();
      if (budget.signal.aborted || Date.now() + POLL_MS >= budget.deadline) throw new Error('no element matches the selector within the budget');
      await letTimePass(page, POLL_MS);
    }
  } catch (err) {
    if (isTimeout(err) || /within the budget/.test((err as Error).message)) throw new Error(`no element matches the selector within ${budget.budgetMs} ms`);
    throw err;
  }
}

/**
 * The element once present, visible and (for form controls) enabled — and,
 * for fill, editable — like Playwright's actionability wait.
 */
async function actionable(
  page: Page,
  selector: string,
  budget: Budget,
  need: { editable?: boolean; stable?: boolean } = {},
): Promise<ElementHandle<Element>> {
  let lastState = '';
  for (;;) {
    // Re-queried each round: a page that re-renders replaces the element.
    let handle: ElementHandle<Element>;
    try {
      handle = await present(page, selector, budget);
    } catch (err) {
      // Seen before but never ready: say why, not that it is missing.
      if (lastState && /no element matches/.test((err as Error).message)) throw new Error(`element is ${lastState} (waited ${budget.budgetMs} ms)`);
      throw err;
    }
    let state = await handle.evaluate((el, editable) => {
      if (!el.isConnected) return 'detached from the document';
      const style = getComputedStyle(el);
      const rect = el.getBoundingClientRect();
      if (style.visibility === 'hidden' || style.visibility === 'collapse' || rect.width === 0 || rect.height === 0) return 'not visible';
      if ((el as HTMLInputElement).disabled || el.closest('fieldset:disabled')) return 'disabled';
      if (editable && (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) && el.readOnly) return 'read-only';
      return 'ok';
    }, !!need.editable);
    if (state === 'ok' && need.stable && !(await sameBoxOverFrames(page, handle))) state = 'still moving';
    if (state === 'ok') return handle;
    lastState = state;
    await handle.dispose();
    if (Date.now() + POLL_MS >= budget.deadline) throw new Error(`element is ${state} (waited ${budget.budgetMs} ms)`);
    await letTimePass(page, POLL_MS);
  }
}

/** Same box over two animation frames, as Playwright waits for before a click; the frames pass through the page's clock. */
async function sameBoxOverFrames(page: Page, handle: ElementHandle<Element>): Promise<boolean> {
  const box = () => handle.evaluate((el) => { const r = el.getBoundingClientRect(); return [r.x, r.y, r.width, r.height].join(); });
  const before = await box();
  await letTimePass(page, FRAME_MS);
  return before === (await box());
}

function isTimeout(err: unknown): boolean {
  return err instanceof Error && (err.name === 'TimeoutError' || /timed? ?out|waiting for selector/i.test(err.message));
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
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.min(ACTION_NAVIGATION_SETTLE_MS, remaining(budget)));
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = null;
  }

  stop(): void {
    for (const [event, handler] of this.handlers) this.session.off?.(event, handler);
  }
}

async function perform(page: Page, action: CaptureAction, budget: Budget): Promise<void> {
  switch (action.do) {
    case 'click':
      return clickWhenActionable(page, action.selector, budget);
    case 'fill':
      return fill(page, action.selector, action.value, budget);
    case 'type':
      await clickWhenActionable(page, action.selector, budget);
      await page.keyboard.type(action.value);
      return;
    case 'press': {
      if (action.selector) {
        const handle = await present(page, action.selector, budget);
        await handle.focus();
      }
      await pressCombo(page, action.key);
      return;
    }
    case 'select_option':
      return selectOption(page, action.selector, action.value, action.label, budget);
    case 'wait_for_selector':
      await present(page, action.selector, budget);
      return;
    case 'wait_for_state': {
      const selector = stateSelector(action);
      try {
        await (await present(page, selector, budget)).dispose();
      } catch (err) {
        if (!/no element matches/.test((err as Error).message)) throw err;
        const seen = await page
          .evaluate(() => Array.from(document.querySelectorAll('[data-state]'), (el) => el.getAttribute('data-state')).slice(0, 5))
          .catch(() => []);
        const note = seen.length ? `; data-state values on the page: ${seen.map((s) => `'${s}'`).join(', ')}` : '; no element carries data-state';
        throw new Error(`no element matches ${selector} within ${budget.budgetMs} ms${note}`);
      }
      return;
    }
    case 'wait':
    case 'sleep':
      await letTimePass(page, action.ms);
      return;
  }
}

/** Click once the element is visible, enabled and not moving; Puppeteer scrolls it into view and clicks its centre. */
async function clickWhenActionable(page: Page, selector: string, budget: Budget): Promise<void> {
  const handle = await actionable(page, selector, budget, { stable: true });
  try {
    await handle.click();
  } finally {
    await handle.dispose().catch(() => undefined);
  }
}

/** Input types Playwright fills by setting the value (no typing). */
const SET_VALUE_TYPES = ['color', 'date', 'time', 'datetime-local', 'month', 'range', 'week'];
const TYPEABLE_TYPES = ['', 'text', 'search', 'url', 'tel', 'email', 'password', 'number'];

/**
 * Playwright's fill: focus, select the current content, insert the value as
 * one text input (so `input` fires as if typed); types without free text
 * (date, colour, range…) get their value set and `input` + `change` fired.
 */
async function fill(page: Page, selector: string, value: string, budget: Budget): Promise<void> {
  const handle = await actionable(page, selector, budget, { editable: true });
  const mode = await handle.evaluate(
    (el, setTypes, typeable, text) => {
      if (el instanceof HTMLInputElement) {
        const type = el.type.toLowerCase();
        if (setTypes.includes(type)) return 'set';
        if (!typeable.includes(type)) return `error:an input of type "${type}" cannot be filled`;
        if (type === 'number' && text.trim() !== '' && Number.isNaN(Number(text))) return 'error:cannot fill a number input with non-numeric text';
        return 'type';
      }
      if (el instanceof HTMLTextAreaElement) return 'type';
      if ((el as HTMLElement).isContentEditable) return 'type';
      return 'error:the element is not an <input>, <textarea> or [contenteditable] element';
    },
    SET_VALUE_TYPES,
    TYPEABLE_TYPES,
    value,
  );
  if (mode.startsWith('error:')) throw new Error(mode.slice('error:'.length));
  if (mode === 'set') {
    await handle.evaluate((el, text) => {
      const input = el as HTMLInputElement;
      input.focus();
      input.value = text;
      if (input.value !== text) throw new Error(`malformed value for input type "${input.type}": '${text}'`);
      input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
      input.dispatchEvent(new Event('change', { bubbles: true }));
    }, value);
    return;
  }
  await handle.evaluate((el) => {
    (el as HTMLElement).focus();
    if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
      el.select();
    } else {
      const range = document.createRange();
      range.selectNodeContents(el);
      const selection = window.getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
    }
  });
  if (value === '') await page.keyboard.press('Delete');
  else await page.keyboard.sendCharacter(value);
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
 * Chooses on a native <select>: the option whose value (and/or label — its
 * text, as Playwright reads `option.label`) matches, then fires `input` and
 * `change` as a user's choice would. Options that arrive late are waited for.
 */
async function selectOption(page: Page, selector: string, value: string | undefined, label: string | undefined, budget: Budget): Promise<void> {
  const handle = await actionable(page, selector, budget);
  for (;;) {
    const outcome = await handle.evaluate(
      (el, wantValue, wantLabel) => {
        if (!(el instanceof HTMLSelectElement)) return { done: false, fatal: `the element is a <${el.tagName.toLowerCase()}>, not a <select>` };
        const normalize = (s: string) => s.replace(/\s+/g, ' ').trim();
        const options = Array.from(el.options);
        const match = options.find(
          (o) => (wantValue === null || o.value === wantValue) && (wantLabel === null || o.label === wantLabel || normalize(o.label) === normalize(wantLabel)),
        );
        if (!match) return { done: false, fatal: '', options: options.map((o) => `${o.value}=${normalize(o.label)}`).slice(0, 10) };
        if (match.disabled) return { done: false, fatal: '', options: [] as string[] };
        for (const o of options) o.selected = o === match;
        el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
        el.dispatchEvent(new Event('change', { bubbles: true }));
        return { done: true, fatal: '' };
      },
      value ?? null,
      label ?? null,
    );
    if (outcome.done) return;
    if (outcome.fatal) throw new Error(outcome.fatal);
    if (Date.now() + POLL_MS >= budget.deadline) {
      const wanted = [value !== undefined ? `value '${value}'` : '', label !== undefined ? `label '${label}'` : ''].filter(Boolean).join(' and ');
      const listed = outcome.options?.length ? ` (options value=label: ${outcome.options.join(', ')})` : '';
      throw new Error(`no enabled <option> with ${wanted} within ${budget.budgetMs} ms${listed}`);
    }
    await letTimePass(page, POLL_MS);
  }
}
