/**
 * Runs the normalized action list on a Puppeteer page: ACTION_RUNS below
 * says how each kind runs (the other half of the action table; its fields,
 * parser, words and trace call are src/contract/actions.ts's), with
 * Playwright's semantics where the original relied on them:
 *
 * - every selector is a Playwright selector, resolved by the selector engine
 *   (cdp/selectorEngine.ts) in the page's selector world, first match in
 *   document order; its syntax is checked before the page is touched.
 *   Puppeteer's own syntax (`::-p-…`, `>>>`, `pierce/`…) is resolved by
 *   Puppeteer instead, as a documented extension;
 * - Playwright's actionability: click and type wait until the target is
 *   attached, visible, enabled and stable (the same box a frame later), scroll
 *   it into view and check that the click point reaches it (else the element
 *   that would receive the click is named, and the click is retried); hover
 *   the same but enabled; focus, and press on a selector, for attached only;
 *   fill waits for visible, enabled and editable; select_option for visible
 *   and enabled; wait_for_selector and wait_for_state for visible;
 * - every wait lets the page's time pass through letTimePass (pageClock.ts),
 *   so under the virtual clock the same capture ends at the same instant and
 *   nothing waits on a frame that never comes; the stable check's frame is
 *   FRAME_MS of virtual time there, and the next real animation frame (in the
 *   selector world) on the wall clock;
 * - an input action takes page time (afterAction, ACTION_STEP_MS) after it
 *   acts, so two actions never read the same instant.
 *
 * The page runtime answers in typed codes (`{code: 'not-visible', preview}`,
 * `{code: 'intercepted', hit}`); this module words them, as Playwright's call
 * log does. Each action gets ACTION_BUDGET_MS and ends early when its capture
 * ends (the capture's progress signal); a failure names the action's index,
 * kind and selector, and why.
 */
import type { KeyInput, Page } from 'puppeteer-core';
import type { CdpSession } from '../../../cdp/types';
import { nearMisses, resolveBackendNode } from '../../../cdp/selectorEngine';
import { checkSelectorSyntax, usesPuppeteerSyntax } from '../../../cdp/selectorSyntax';
import { callRuntime, callRuntimeForHandle, callRuntimeOn, releaseObject } from '../../../cdp/utilityWorld';
import { isDocumentGone } from '../../../cdp/failureKinds';
import type { ClickPointProblem, TargetProblem } from '../../../cdp/injected/selectors/engine';
import type { FillProblem, MissingState, Needs, PointProblem } from '../../../cdp/injected/selectors/actionability';
import { stateWaitSelector, textOf, type ActionKind, type ActionOf, type CaptureAction } from '../../contract/actions';
import { InputNavigations } from './inputNavigations';
import { ACTION_BUDGET_MS, ACTION_GUARD_GRACE_MS, ACTION_POLL_MS, withDeadline, FRAME_MS } from '../../common/time';
import { afterAction, letTimePass, PageClock } from '../page/pageClock';
import { CaptureProgress } from './progress';
import { EvidenceError } from '../../common/errors';

export class ActionError extends EvidenceError<'action-failed'> {
  constructor(message: string) {
    super('action-failed', message);
    this.name = 'ActionError';
  }
}

/** Lets a capture type (the trace) wrap each action; the default just runs it. */
export type ActionWrapper = (index: number, action: CaptureAction, run: () => Promise<void>) => Promise<void>;

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
  /** The capture's progress: each action is a step of it, and ends when the capture does. */
  progress?: CaptureProgress;
  /** A secret's value by name (--secrets), asked when the action that names it types. */
  secretValue?: SecretValue;
}

/** A secret's value by its name. */
export type SecretValue = (name: string) => string;

const noSecrets: SecretValue = (name) => {
  throw new Error(`no secret named ${name} is loaded`);
};

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
  const { wrap, budgetMs = ACTION_BUDGET_MS, progress } = options;
  actions.forEach((action, index) => {
    try {
      checkActionSelector(action);
    } catch (err) {
      throw new ActionError(`${describeAction(index, action)} failed: ${reason(err)}`);
    }
  });
  const own = options.session ? null : await page.createCDPSession();
  const session = options.session ?? own!;
  const navigations = options.session ? await InputNavigations.start(options.session) : null;
  try {
    for (let index = 0; index < actions.length; index++) {
      const action = actions[index];
      progress?.enter('action', describeAction(index, action), { index, total: actions.length });
      const run = () => runOneAction(page, action, budgetMs, navigations, session, progress, options.secretValue);
      try {
        if (wrap) await wrap(index, action, run);
        else await run();
      } catch (err) {
        // The capture ended (overrun, crash, shutdown, cancellation): its reason is the answer, not this action's.
        if (progress?.aborted) throw progress.signal.reason;
        throw new ActionError(`${describeAction(index, action)} failed: ${reason(err)}`);
      }
    }
  } finally {
    navigations?.stop();
    await own?.detach().catch(() => undefined);
  }
}

/** One action within its budget, on a share of the capture's progress: waits it started end when the budget ends or the capture does. */
export async function runOneAction(
  page: Page,
  action: CaptureAction,
  budgetMs = ACTION_BUDGET_MS,
  navigations: InputNavigations | null = null,
  session?: CdpSession,
  capture?: CaptureProgress,
  secretValue: SecretValue = noSecrets,
): Promise<void> {
  checkActionSelector(action);
  const own = session ? null : await page.createCDPSession();
  const progress = CaptureProgress.share(capture, budgetMs);
  const ctx: Ctx = { page, session: session ?? own!, progress, secretValue };
  const run = runOf(action);
  const work = (async () => {
    if (!run.input) return run.run(ctx, action);
    const navigated = navigations ? await navigations.around(() => run.run(ctx, action), progress.deadline) : (await run.run(ctx, action), false);
    // An input action takes page time, as real input does (ACTION_STEP_MS): what it set off runs before the
    // next. Not on a document it replaced: the new one's time starts with its own settle.
    if (!navigated) await afterAction(page, progress.signal);
  })();
  const overrun = new Error(`did not finish within the ${budgetMs} ms action budget`);
  try {
    await withDeadline(work, budgetMs + ACTION_GUARD_GRACE_MS, () => {
      progress.abort(overrun);
      return overrun;
    });
  } finally {
    progress.abort(new Error('the action ended'));
    progress.finish();
    await own?.detach().catch(() => undefined);
  }
}

/** What one action works with: the page, a CDP session on it (for the selector world), its share of the capture's progress. */
interface Ctx {
  page: Page;
  session: CdpSession;
  progress: CaptureProgress;
  secretValue: SecretValue;
}
/** A resolved target: an object of the utility world. */
type Found = { objectId: string };

/** What was wrong at the last look: the runtime's code, with the target's preview when it had one. */
type Unready = TargetProblem | ClickPointProblem | { code: 'not-attached'; preview?: string };

/** Playwright's words for an element fill can never edit. */
const NOT_EDITABLE_ELEMENT = 'Element is not an <input>, <textarea>, <select> or [contenteditable] and does not have a role allowing [aria-readonly]';

/**
 * The action runner's words for what was wrong at the last look (Playwright's
 * call log wording); no match and an intercepted click are worded on their own.
 */
const NOT_READY: Record<MissingState | Exclude<PointProblem['code'], 'intercepted'> | 'not-editable-element', string> = {
  'not-attached': 'element is not attached to the DOM',
  'not-visible': 'element is not visible',
  'not-enabled': 'element is not enabled',
  inert: 'element is inert',
  'read-only': 'element is not editable (it is read-only)',
  'not-stable': 'element is not stable',
  'outside-viewport': 'element is outside of the viewport',
  'not-editable-element': NOT_EDITABLE_ELEMENT,
};

/** Playwright's words for what fill refuses. */
function fillRefusal(problem: FillProblem): string {
  switch (problem.code) {
    case 'input-type-not-fillable':
      return `Input of type "${problem.type}" cannot be filled`;
    case 'not-a-number':
      return 'Cannot type text into input[type=number]';
    case 'malformed-value':
      return `Malformed value for input of type "${problem.type}": '${problem.value}'`;
    case 'not-a-text-field':
      return 'Element is not an <input>, <textarea> or [contenteditable] element';
  }
}

/** A wait that ran out of its budget, with what was wrong at the last look. */
class NotReady extends EvidenceError<'not-ready'> {
  constructor(
    message: string,
    readonly last: Unready,
  ) {
    super('not-ready', message);
  }
}

/** A target the action can never use (fill on a <div>): the action fails at once. */
function refuseAtOnce(problem: Unready): void {
  if (problem.code === 'not-editable-element') throw new Error(NOT_EDITABLE_ELEMENT);
}

/**
 * The selector's first match, once it has `needs` (scrolled into view with
 * alignment `scroll` when scroll >= 0), as one protocol call on the engine
 * path; Puppeteer syntax is resolved by Puppeteer and handed to the
 * utility world by backend node id.
 */
async function findTarget(ctx: Ctx, selector: string, needs: Needs, scroll: number): Promise<Found | TargetProblem> {
  if (usesPuppeteerSyntax(selector)) {
    const handle = await ctx.page.$(selector);
    if (!handle) return { code: 'no-match' };
    let objectId: string | null;
    try {
      objectId = await resolveBackendNode(ctx.session, await handle.backendNodeId());
    } finally {
      await handle.dispose().catch(() => undefined);
    }
    if (!objectId) return { code: 'no-match' };
    const ready = await callRuntimeOn(ctx.session, objectId, 'prepareTarget', [needs, scroll]);
    if ('code' in ready) {
      releaseObject(ctx.session, objectId);
      return ready;
    }
    return { objectId };
  }
  return callRuntimeForHandle(ctx.session, 'actionTarget', [selector, needs, scroll]);
}

/** The failure once the budget is spent, worded for the caller: what was wrong at the last look. */
async function failure(ctx: Ctx, selector: string, last: Unready): Promise<Error> {
  const ms = ctx.progress.budgetMs;
  if (last.code === 'no-match') {
    let hint = '';
    if (!usesPuppeteerSyntax(selector)) {
      const similar = await nearMisses(ctx.session, selector).catch(() => [] as string[]);
      if (similar.length) hint = `; elements like it on the page: ${similar.join(', ')}`;
    }
    return new NotReady(`no element matches the selector within ${ms} ms${hint}`, last);
  }
  if (last.code === 'intercepted') {
    const hit = last.subtreeOf ? `${last.hit} from ${last.subtreeOf} subtree` : last.hit;
    return new NotReady(`${hit} intercepts pointer events (retried for ${ms} ms; the target is ${last.preview ?? "the selector's first match"})`, last);
  }
  const preview = 'preview' in last ? last.preview : undefined;
  return new NotReady(`${NOT_READY[last.code]} (waited ${ms} ms${preview ? `; the selector resolves to ${preview}` : ''})`, last);
}

function outOfTime(ctx: Ctx): boolean {
  return ctx.progress.aborted || Date.now() + ACTION_POLL_MS >= ctx.progress.deadline;
}

/**
 * Waits for the target's states; with `point`, also for a stable box and a
 * click point that reaches it, scrolling it into view (alternating the
 * alignment on retries, as Playwright does). Returns the target and the point.
 */
async function actionable(ctx: Ctx, selector: string, needs: Needs, point: boolean): Promise<{ objectId: string; x: number; y: number }> {
  let retry = 0;
  let last: Unready = { code: 'no-match' };
  let preview: string | undefined;
  for (;;) {
    let found: Found | Unready;
    try {
      found = await findTarget(ctx, selector, needs, point ? retry : -1);
    } catch (err) {
      if (!isDocumentGone(err)) throw err;
      found = { code: 'not-attached' };
    }
    let frameSpent = false;
    if ('objectId' in found) {
      if (!point) return { objectId: found.objectId, x: 0, y: 0 };
      // One frame later, the same box and a click point that reaches the element. On the virtual
      // clock the frame is a frame of the page's time; on the wall clock, the next real frame.
      const virtual = !!PageClock.of(ctx.page);
      if (virtual) await letTimePass(ctx.page, FRAME_MS, ctx.progress.signal);
      frameSpent = true;
      let settled: { x: number; y: number } | ClickPointProblem | { code: 'not-attached'; preview?: string };
      try {
        // The element's boxes as Playwright reads them (one per fragment: a checkbox inside a label is its first).
        const quads = await contentQuads(ctx.session, found.objectId);
        settled = virtual
          ? await callRuntimeOn(ctx.session, found.objectId, 'clickPoint', [quads])
          : await callRuntimeOn(ctx.session, found.objectId, 'clickPointAfterFrame', [quads], { awaitPromise: true });
      } catch (err) {
        if (!isDocumentGone(err)) throw err;
        settled = { code: 'not-attached', preview };
      }
      // Rounded to 1/100 px, as Playwright rounds its click point.
      if (!('code' in settled)) return { objectId: found.objectId, x: Math.round(settled.x * 100) / 100, y: Math.round(settled.y * 100) / 100 };
      if (settled.code === 'intercepted' || settled.code === 'outside-viewport') retry++;
      preview = settled.preview ?? preview;
      releaseObject(ctx.session, found.objectId);
      last = { ...settled, preview } as Unready;
    } else {
      refuseAtOnce(found);
      last = found;
    }
    if (outOfTime(ctx)) throw await failure(ctx, selector, last);
    // A box that moved is looked at again a frame later; anything else is polled.
    if (!(frameSpent && last.code === 'not-stable')) await letTimePass(ctx.page, ACTION_POLL_MS, ctx.progress.signal);
  }
}

/**
 * The element's content quads (DOM.getContentQuads, as Playwright's click point
 * reads them); undefined when the protocol cannot describe it (the page then
 * uses the element's client rects).
 */
async function contentQuads(session: CdpSession, objectId: string): Promise<number[][] | undefined> {
  try {
    const { quads } = (await session.send('DOM.getContentQuads', { objectId })) as { quads: number[][] };
    return quads;
  } catch (err) {
    if (isDocumentGone(err)) throw err;
    return undefined;
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

/** How one kind of action runs on the page, and whether it acts as a user would (and so may start a navigation). */
interface ActionRun<K extends ActionKind> {
  input: boolean;
  run(ctx: Ctx, action: ActionOf<K>): Promise<void>;
}

/**
 * How each action runs in the browser, keyed by kind: the other half of the
 * action table (src/contract/actions.ts has its fields, parser, words and
 * trace call); the compiler holds it to every kind there.
 */
const ACTION_RUNS: { [K in ActionKind]: ActionRun<K> } = {
  click: { input: true, run: (ctx, a) => clickWhenActionable(ctx, a.selector) },
  hover: { input: true, run: (ctx, a) => hoverWhenActionable(ctx, a.selector) },
  focus: { input: true, run: (ctx, a) => focusAsIs(ctx, a.selector) },
  // A secret's value is asked for as the text goes in, not before.
  fill: { input: true, run: (ctx, a) => fill(ctx, a.selector, textOf(a, ctx.secretValue)) },
  type: {
    input: true,
    async run(ctx, a) {
      await clickWhenActionable(ctx, a.selector);
      await ctx.page.keyboard.type(textOf(a, ctx.secretValue));
    },
  },
  press: {
    input: true,
    async run(ctx, a) {
      if (a.selector) await focusAsIs(ctx, a.selector);
      await pressCombo(ctx.page, a.key);
    },
  },
  select_option: { input: true, run: (ctx, a) => selectOption(ctx, a.selector, a.value, a.label) },
  wait_for_selector: { input: false, run: (ctx, a) => waitVisible(ctx, a.selector) },
  wait_for_state: { input: false, run: waitForState },
  wait: { input: false, run: (ctx, a) => letTimePass(ctx.page, a.ms, ctx.progress.signal) },
  sleep: { input: false, run: (ctx, a) => letTimePass(ctx.page, a.ms, ctx.progress.signal) },
};

const runOf = (action: CaptureAction) => ACTION_RUNS[action.do] as ActionRun<ActionKind>;

/**
 * Playwright's hover: once the target is visible and stable, scrolled into
 * view with its centre reaching it (the click's hit-target check), the mouse
 * moves there, so the element and its ancestors match `:hover`.
 */
async function hoverWhenActionable(ctx: Ctx, selector: string): Promise<void> {
  const target = await actionable(ctx, selector, { visible: true }, true);
  releaseObject(ctx.session, target.objectId);
  await ctx.page.mouse.move(target.x, target.y);
}

/** Playwright's focus (and press's first step): the element as it is (attached), without waiting for other states, is focused. */
async function focusAsIs(ctx: Ctx, selector: string): Promise<void> {
  const target = await actionable(ctx, selector, {}, false);
  try {
    await callRuntimeOn(ctx.session, target.objectId, 'focusTarget', []);
  } finally {
    releaseObject(ctx.session, target.objectId);
  }
}

/** Until an element carrying the state is visible, on the one selector the contract builds (stateWaitSelector), which the trace records too. */
async function waitForState(ctx: Ctx, action: ActionOf<'wait_for_state'>): Promise<void> {
  const selector = stateWaitSelector(action);
  try {
    await waitVisible(ctx, selector);
  } catch (err) {
    const message = (err as Error).message;
    if (!(err instanceof NotReady && err.last.code === 'no-match')) throw new Error(`${selector}: ${message}`);
    const seen = await callRuntime(ctx.session, 'dataStates', [5]).catch(() => [] as string[]);
    const note = seen.length ? `; data-state values on the page: ${seen.map((s) => `'${s}'`).join(', ')}` : '; no element carries data-state';
    throw new Error(`no element matches ${selector} within ${ctx.progress.budgetMs} ms${note}`);
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
  let mode: Awaited<ReturnType<typeof prepareFillOn>>;
  try {
    mode = await prepareFillOn(ctx, target.objectId, value);
  } finally {
    releaseObject(ctx.session, target.objectId);
  }
  if (mode === 'done') return;
  if (mode !== 'needs-input') throw new Error(fillRefusal(mode));
  if (value === '') await ctx.page.keyboard.press('Delete');
  else await ctx.page.keyboard.sendCharacter(value);
}

const prepareFillOn = (ctx: Ctx, objectId: string, value: string) => callRuntimeOn(ctx.session, objectId, 'prepareFill', [value]);

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
    let outcome: Awaited<ReturnType<typeof selectOn>> | null;
    try {
      outcome = await selectOn(ctx, target.objectId, value ?? null, label ?? null);
    } catch (err) {
      if (!isDocumentGone(err)) throw err;
      outcome = null;
    } finally {
      releaseObject(ctx.session, target.objectId);
    }
    if (outcome?.code === 'selected') return;
    if (outcome?.code === 'not-a-select') throw new Error(`the element is a <${outcome.tag}>, not a <select>`);
    if (outOfTime(ctx)) {
      const wanted = [value !== undefined ? `value '${value}'` : '', label !== undefined ? `label '${label}'` : ''].filter(Boolean).join(' and ');
      const options = outcome?.code === 'no-such-option' ? outcome.options : [];
      const listed = options.length ? ` (options value=label: ${options.join(', ')})` : '';
      throw new Error(`no enabled <option> with ${wanted} within ${ctx.progress.budgetMs} ms${listed}`);
    }
    await letTimePass(ctx.page, ACTION_POLL_MS, ctx.progress.signal);
  }
}

const selectOn = (ctx: Ctx, objectId: string, value: string | null, label: string | null) =>
  callRuntimeOn(ctx.session, objectId, 'selectOption', [value, label]);
