/**
 * The action vocabulary: one owner for which actions exist, what each needs
 * and the wording of their refusals. The provider runs the normalized form;
 * it never re-validates. Time budgets live in src/common/time.ts; a wait may not
 * ask for more than the per-action budget.
 */
import { z } from 'zod';
import { ToolInputError } from '../common/errors';
import { isPlainObject, nonEmptyString } from './argumentValues';
import { ACTION_BUDGET_MS, DEFAULT_WAIT_MS } from '../common/time';

export const ACTION_KINDS = ['click', 'fill', 'type', 'press', 'select_option', 'wait_for_selector', 'wait_for_state', 'wait', 'sleep'] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

/** One action's fields, as the parser reads them: `required` names must be given, an `alias` is read when its field is absent. */
export interface ActionSpec {
  required: readonly string[];
  optional: readonly string[];
  /** field -> the other name it may be given under. */
  aliases?: Readonly<Record<string, string>>;
  /** What it does on the page, in a few words (how each waits is src/browser/capture/actionRunner.ts's). */
  does: string;
}

/**
 * What each action takes, for the docs (the README's Actions table) and the
 * test that holds parseAction to it (test/foundation/actionVocabulary.test.ts).
 */
export const ACTION_SPECS: Readonly<Record<ActionKind, ActionSpec>> = {
  click: { required: ['selector'], optional: [], does: 'clicks the first match once it is actionable' },
  fill: { required: ['selector', 'value'], optional: [], aliases: { value: 'text' }, does: "replaces an editable field's value, as one text input" },
  type: { required: ['selector', 'value'], optional: [], aliases: { value: 'text' }, does: 'clicks the first match, then types the text key by key' },
  press: {
    required: ['key'],
    optional: ['selector'],
    aliases: { key: 'value' },
    does: 'presses a key or combination (`Enter`, `Shift+Tab`, `ControlOrMeta+a`), in the match when a selector is given (focused first)',
  },
  select_option: { required: ['selector', 'value|label'], optional: [], does: 'chooses the option of a `<select>` with that value or label' },
  wait_for_selector: { required: ['selector'], optional: [], does: 'waits until the first match is visible' },
  wait_for_state: {
    required: ['state'],
    optional: ['selector'],
    does: 'waits until an element (inside the selector) with `data-state` equal to state is visible',
  },
  wait: {
    required: [],
    optional: ['ms'],
    aliases: { ms: 'timeout_ms' },
    does: `lets ms of page time pass (default ${DEFAULT_WAIT_MS}, at most ${ACTION_BUDGET_MS})`,
  },
  sleep: { required: [], optional: ['ms'], aliases: { ms: 'timeout_ms' }, does: 'the same as wait' },
};

export type CaptureAction =
  | { do: 'click'; selector: string }
  | { do: 'fill' | 'type'; selector: string; value: string }
  | { do: 'press'; key: string; selector?: string }
  | { do: 'select_option'; selector: string; value?: string; label?: string }
  | { do: 'wait_for_selector'; selector: string }
  | { do: 'wait_for_state'; state: string; selector?: string }
  | { do: 'wait' | 'sleep'; ms: number };

/** Normalizes one action or throws with the contract's wording. */
export function parseAction(raw: unknown, index: number): CaptureAction {
  const at = `actions[${index}]`;
  if (!isPlainObject(raw)) throw new ToolInputError(`${at} must be an object`);
  if (raw.do === undefined || raw.do === null || (typeof raw.do === 'string' && raw.do.trim() === '')) {
    throw new ToolInputError(`${at}.do is required`);
  }
  if (typeof raw.do !== 'string') throw new ToolInputError(`${at}.do must be a string`);
  const kind = raw.do.trim().toLowerCase();
  if (!(ACTION_KINDS as readonly string[]).includes(kind)) {
    throw new ToolInputError(`${at}: unsupported do='${kind}'; supported: ${ACTION_KINDS.join(', ')}`);
  }
  const selector = (required: boolean): string | undefined => {
    if (raw.selector === undefined || raw.selector === null) {
      if (required) throw new ToolInputError(`${at}.selector required for ${kind}`);
      return undefined;
    }
    if (!nonEmptyString(raw.selector)) {
      if (required) throw new ToolInputError(`${at}.selector required for ${kind}`);
      throw new ToolInputError(`${at}.selector must be a non-empty string`);
    }
    return raw.selector;
  };
  /** `value`, else its alias; undefined when neither is present. */
  const stringField = (name: string, alias: string): string | undefined => {
    const given = raw[name] !== undefined && raw[name] !== null ? name : raw[alias] !== undefined && raw[alias] !== null ? alias : undefined;
    if (given === undefined) return undefined;
    if (typeof raw[given] !== 'string') throw new ToolInputError(`${at}.${given} must be a string`);
    return raw[given] as string;
  };
  switch (kind) {
    case 'click':
    case 'wait_for_selector':
      return { do: kind, selector: selector(true)! };
    case 'fill':
    case 'type': {
      const sel = selector(true)!;
      const value = stringField('value', 'text');
      if (value === undefined) throw new ToolInputError(`${at}.value must be a string (pass value or text for ${kind})`);
      return { do: kind, selector: sel, value };
    }
    case 'press': {
      const key = stringField('key', 'value');
      if (key === undefined || key === '') throw new ToolInputError(`${at}.key required for press`);
      const sel = selector(false);
      return sel === undefined ? { do: 'press', key } : { do: 'press', key, selector: sel };
    }
    case 'select_option': {
      const sel = selector(true)!;
      const value = stringField('value', 'value');
      const label = stringField('label', 'label');
      if (value === undefined && label === undefined) throw new ToolInputError(`${at}.value or label required for select_option`);
      const action: CaptureAction = { do: 'select_option', selector: sel };
      if (value !== undefined) action.value = value;
      if (label !== undefined) action.label = label;
      return action;
    }
    case 'wait_for_state': {
      if (!nonEmptyString(raw.state)) throw new ToolInputError(`${at}.state required for wait_for_state`);
      const sel = selector(false);
      const state = raw.state.trim();
      return sel === undefined ? { do: 'wait_for_state', state } : { do: 'wait_for_state', state, selector: sel };
    }
    default: {
      const field = raw.ms !== undefined && raw.ms !== null ? 'ms' : raw.timeout_ms !== undefined && raw.timeout_ms !== null ? 'timeout_ms' : undefined;
      const ms = field === undefined ? DEFAULT_WAIT_MS : raw[field];
      if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
        throw new ToolInputError(`${at}.${field} must be a non-negative number of milliseconds`);
      }
      if (ms > ACTION_BUDGET_MS) {
        throw new ToolInputError(`${at}.${field} must be at most ${ACTION_BUDGET_MS} (the per-action budget)`);
      }
      return { do: kind as 'wait' | 'sleep', ms };
    }
  }
}

export function parseActions(value: unknown): CaptureAction[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new ToolInputError('actions must be an array of objects');
  return value.map((raw, index) => parseAction(raw, index));
}

/**
 * `SEL[data-state="S"]`, or `[data-state="S"]` without SEL: what `wait_for_state` waits for (the
 * action runner keeps this for a CSS SEL and chains other Playwright selectors, see stateTarget).
 */
export function stateSelector(action: { state: string; selector?: string }): string {
  const quoted = JSON.stringify(action.state);
  return action.selector ? `${action.selector}[data-state=${quoted}]` : `[data-state=${quoted}]`;
}

/** `do` as the parser reads it: one of ACTION_KINDS in any case, surrounding whitespace allowed (JSON Schema patterns take no flags). */
const DO_PATTERN = new RegExp(
  `^\\s*(?:${ACTION_KINDS.map((kind) => [...kind].map((c) => (c === '_' ? c : `[${c}${c.toUpperCase()}]`)).join('')).join('|')})\\s*$`,
);

export const actionInputSchema = z
  .object({
    do: z
      .string()
      .regex(DO_PATTERN)
      .describe(`one of ${ACTION_KINDS.join(', ')} (trimmed and lower-cased before use)`),
    selector: z
      .string()
      .optional()
      .describe(
        'Playwright selector (CSS, text=, role=, xpath=, id=, data-testid=, >> chains, nth=…; first match); required for click, fill, type, select_option, wait_for_selector',
      ),
    value: z.string().optional().describe('fill/type text, press key, select_option value'),
    text: z.string().optional().describe('alias of value for fill/type'),
    key: z.string().optional().describe('key for press, e.g. Enter, Tab, a'),
    label: z.string().optional().describe('select_option: choose the option with this text'),
    state: z.string().optional().describe('wait_for_state: the data-state value to wait for'),
    ms: z.number().min(0).max(ACTION_BUDGET_MS).optional().describe(`wait/sleep duration (default ${DEFAULT_WAIT_MS})`),
    timeout_ms: z.number().min(0).max(ACTION_BUDGET_MS).optional().describe('alias of ms'),
  })
  .passthrough();
