/**
 * The actions, as one table keyed by kind (ACTION_SPECS): for each, the
 * fields it takes (what docs/reference.md's Actions table prints), how its fields
 * are read and refused (`parse`, in the contract's words), what it does in a
 * few words, and how the interaction trace shows it (`trace`: the Playwright
 * call that does the same thing). The kinds, the CaptureAction union, the
 * input schema and the `do` pattern are derived from it; how each kind runs
 * in the browser is the other table, ACTION_RUNS in
 * src/browser/capture/actionRunner.ts, which the compiler holds to these
 * kinds. Adding an action is an entry in each.
 *
 * Nothing here loads Puppeteer: the boundary reads it at start-up. The
 * provider runs the normalized form; it never re-validates. Time budgets live
 * in src/common/time.ts; a wait may not ask for more than the per-action
 * budget.
 */
import { z } from 'zod';
import { ToolInputError } from '../common/errors';
import { isPlainObject, nonEmptyString } from './argumentValues';
import { ACTION_BUDGET_MS, DEFAULT_WAIT_MS } from '../common/time';
import { isPlainCss, usesPuppeteerSyntax } from '../../cdp/selectorSyntax';
import type { TraceCall } from '../../cdp/trace/traceCalls';
import { SECRET_NAME, secretPlaceholder } from '../common/secrets';

/** What an action's parser reads its fields with: worded refusals, aliases read when their field is absent. */
interface FieldReader {
  /** The raw action object. */
  raw: Record<string, unknown>;
  /** `actions[N]`, as refusals name the action. */
  at: string;
  /** The selector; required ones are refused when absent or blank. */
  selector(required: boolean): string | undefined;
  /** A string field, else its alias; undefined when neither is present. */
  string(name: string, alias: string): string | undefined;
}

/** One action kind: its fields, its parser, its words, and its trace call. */
export interface ActionSpec<Fields extends object> {
  /** Fields that must be given (`a|b`: either). */
  required: readonly string[];
  optional: readonly string[];
  /** field -> the other name it may be given under (src/contract/compatibility.ts: kept from the original). */
  aliases?: Readonly<Record<string, string>>;
  /** What it does on the page, in a few words (how each waits is src/browser/capture/actionRunner.ts's). */
  does: string;
  /** The action's fields, normalized, or a ToolInputError in the contract's words. */
  parse(read: FieldReader, kind: string): Fields;
  /** How the trace viewer shows it: the Playwright call that does the same thing, on the selector the run uses. */
  trace(action: Fields): TraceCall;
}

const spec = <Fields extends object>(s: ActionSpec<Fields>): ActionSpec<Fields> => s;

/** A Frame call on an element: an input (a snapshot with the target marked, an input event). */
const elementCall = (method: string, selector: string, params: Record<string, unknown> = {}, pointsAtTarget = false): TraceCall => ({
  class: 'Frame',
  method,
  params: { selector, ...params },
  target: selector,
  isInput: true,
  ...(pointsAtTarget ? { pointsAtTarget } : {}),
});

/** A wait for a selector, as Playwright's waitForSelector records it. */
const selectorWait = (selector: string): TraceCall => ({ class: 'Frame', method: 'waitForSelector', params: { selector, state: 'attached' }, isInput: false });

/** wait and sleep: page time passes. */
const pause = spec({
  required: [],
  optional: ['ms'],
  aliases: { ms: 'timeout_ms' },
  does: `lets ms of page time pass (default ${DEFAULT_WAIT_MS}, at most ${ACTION_BUDGET_MS})`,
  parse: ({ raw, at }) => {
    const field = raw.ms !== undefined && raw.ms !== null ? 'ms' : raw.timeout_ms !== undefined && raw.timeout_ms !== null ? 'timeout_ms' : undefined;
    const ms = field === undefined ? DEFAULT_WAIT_MS : raw[field];
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
      throw new ToolInputError(`${at}.${field} must be a non-negative number of milliseconds`);
    }
    if (ms > ACTION_BUDGET_MS) {
      throw new ToolInputError(`${at}.${field} must be at most ${ACTION_BUDGET_MS} (the per-action budget)`);
    }
    return { ms };
  },
  trace: (a) => ({ class: 'Frame', method: 'waitForTimeout', params: { waitTimeout: a.ms }, isInput: false }),
});

/** The kinds that may name a secret instead of giving a value (`"secret": "NAME"`, src/common/secrets.ts). */
export const SECRET_KINDS = ['fill', 'type'] as const;

/** fill and type's fields: the text given, or the name of the secret whose value is typed (resolved by the action runner, at the last moment). */
export type TextEntry = { selector: string; value: string; secret?: undefined } | { selector: string; secret: string; value?: undefined };

/** fill and type: a selector and the text, or a secret's name. */
const textEntry = (does: string, method: 'fill' | 'type', param: 'value' | 'text') =>
  spec({
    required: ['selector', 'value'],
    optional: [],
    aliases: { value: 'text' },
    does,
    parse: (read, kind): TextEntry => {
      const selector = read.selector(true)!;
      const value = read.string('value', 'text');
      const secret = read.raw.secret;
      if (secret !== undefined && secret !== null) {
        if (typeof secret !== 'string' || !SECRET_NAME.test(secret)) {
          throw new ToolInputError(`${read.at}.secret must be a secret's name (letters, digits and _, as in the secrets file)`);
        }
        if (value !== undefined) throw new ToolInputError(`${read.at}: give ${kind} a value or a secret, not both`);
        return { selector, secret };
      }
      if (value === undefined) throw new ToolInputError(`${read.at}.value must be a string (pass value or text for ${kind})`);
      return { selector, value };
    },
    // A secret is recorded by its name, never its value.
    trace: (a) => elementCall(method, a.selector, { [param]: a.secret !== undefined ? secretPlaceholder(a.secret) : a.value }),
  });

export const ACTION_SPECS = {
  click: spec({
    required: ['selector'],
    optional: [],
    does: 'clicks the first match once it is actionable',
    parse: (read) => ({ selector: read.selector(true)! }),
    trace: (a) => elementCall('click', a.selector, {}, true),
  }),
  hover: spec({
    required: ['selector'],
    optional: [],
    does: 'moves the mouse to the centre of the first match once it is visible and stable (scrolled into view, the point reaching it), so its `:hover` styles apply',
    parse: (read) => ({ selector: read.selector(true)! }),
    trace: (a) => elementCall('hover', a.selector, {}, true),
  }),
  focus: spec({
    required: ['selector'],
    optional: [],
    does: 'focuses the first match as it is (attached), so its `:focus` styles apply',
    parse: (read) => ({ selector: read.selector(true)! }),
    trace: (a) => elementCall('focus', a.selector),
  }),
  fill: textEntry("replaces an editable field's value, as one text input", 'fill', 'value'),
  type: textEntry('clicks the first match, then types the text key by key', 'type', 'text'),
  press: spec({
    required: ['key'],
    optional: ['selector'],
    aliases: { key: 'value' },
    does: 'presses a key or combination (`Enter`, `Shift+Tab`, `ControlOrMeta+a`), in the match when a selector is given (focused first)',
    parse: (read): { key: string; selector?: string } => {
      const key = read.string('key', 'value');
      if (key === undefined || key === '') throw new ToolInputError(`${read.at}.key required for press`);
      const selector = read.selector(false);
      return selector === undefined ? { key } : { key, selector };
    },
    trace: (a): TraceCall =>
      a.selector ? elementCall('press', a.selector, { key: a.key }) : { class: 'Page', method: 'keyboardPress', params: { key: a.key }, isInput: true },
  }),
  select_option: spec({
    required: ['selector', 'value|label'],
    optional: [],
    does: 'chooses the option of a `<select>` with that value or label',
    parse: (read): { selector: string; value?: string; label?: string } => {
      const selector = read.selector(true)!;
      const value = read.string('value', 'value');
      const label = read.string('label', 'label');
      if (value === undefined && label === undefined) throw new ToolInputError(`${read.at}.value or label required for select_option`);
      const fields: { selector: string; value?: string; label?: string } = { selector };
      if (value !== undefined) fields.value = value;
      if (label !== undefined) fields.label = label;
      return fields;
    },
    trace: (a) => elementCall('selectOption', a.selector, { options: [a.value !== undefined ? { value: a.value } : { label: a.label }] }),
  }),
  wait_for_selector: spec({
    required: ['selector'],
    optional: [],
    does: 'waits until the first match is visible',
    parse: (read) => ({ selector: read.selector(true)! }),
    trace: (a) => selectorWait(a.selector),
  }),
  wait_for_state: spec({
    required: ['state'],
    optional: ['selector'],
    does: 'waits until an element (inside the selector) with `data-state` equal to state is visible',
    parse: (read): { state: string; selector?: string } => {
      if (!nonEmptyString(read.raw.state)) throw new ToolInputError(`${read.at}.state required for wait_for_state`);
      const selector = read.selector(false);
      const state = read.raw.state.trim();
      return selector === undefined ? { state } : { state, selector };
    },
    trace: (a) => selectorWait(stateWaitSelector(a)),
  }),
  wait: pause,
  sleep: { ...pause, does: 'the same as wait' },
};

export type ActionKind = keyof typeof ACTION_SPECS;

/** The kinds, in the table's order (the order refusals, the README and docs/reference.md list them in). */
export const ACTION_KINDS = Object.keys(ACTION_SPECS) as ActionKind[];

/** One normalized action: `do` and the fields its spec's parser returns. */
export type CaptureAction = { [K in ActionKind]: { do: K } & ReturnType<(typeof ACTION_SPECS)[K]['parse']> }[ActionKind];

/** The action of one kind. */
export type ActionOf<K extends ActionKind> = Extract<CaptureAction, { do: K }>;

/** The trace call of any action (its kind's `trace`). */
export function traceCallOf(action: CaptureAction): TraceCall {
  return (ACTION_SPECS[action.do] as ActionSpec<object>).trace(action);
}

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
  const read: FieldReader = {
    raw,
    at,
    selector(required) {
      if (raw.selector === undefined || raw.selector === null) {
        if (required) throw new ToolInputError(`${at}.selector required for ${kind}`);
        return undefined;
      }
      if (!nonEmptyString(raw.selector)) {
        if (required) throw new ToolInputError(`${at}.selector required for ${kind}`);
        throw new ToolInputError(`${at}.selector must be a non-empty string`);
      }
      return raw.selector;
    },
    string(name, alias) {
      const given = raw[name] !== undefined && raw[name] !== null ? name : raw[alias] !== undefined && raw[alias] !== null ? alias : undefined;
      if (given === undefined) return undefined;
      if (typeof raw[given] !== 'string') throw new ToolInputError(`${at}.${given} must be a string`);
      return raw[given] as string;
    },
  };
  if (raw.secret !== undefined && raw.secret !== null && !(SECRET_KINDS as readonly string[]).includes(kind)) {
    throw new ToolInputError(`${at}.secret is not allowed on ${kind}: only ${SECRET_KINDS.join(' and ')} may name a secret, in place of their value`);
  }
  const fields = (ACTION_SPECS[kind as ActionKind] as ActionSpec<object>).parse(read, kind);
  return { do: kind, ...fields } as CaptureAction;
}

export function parseActions(value: unknown): CaptureAction[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new ToolInputError('actions must be an array of objects');
  return value.map((raw, index) => parseAction(raw, index));
}

/**
 * The first action naming a secret the store does not hold, worded for the
 * caller (the known names, never a value), or null. `known` is undefined
 * when no secrets file is configured.
 */
export function secretNameProblem(actions: readonly CaptureAction[], known: readonly string[] | undefined): string | null {
  for (const [index, action] of actions.entries()) {
    const secret = 'secret' in action ? action.secret : undefined;
    if (secret === undefined) continue;
    const at = `actions[${index}].secret`;
    if (known === undefined)
      return `${at} names ${secret}, but no secrets file is configured (start the server with --secrets FILE or DESIGN_PLAYBOOK_SECRETS)`;
    if (!known.includes(secret)) {
      return `${at}: no secret named ${secret}; the secrets file names ${known.length ? known.join(', ') : 'none'}`;
    }
  }
  return null;
}

/** The action's text: its value, or its secret's value from `secretValue` (the action runner's, at the last moment). */
export function textOf(action: TextEntry, secretValue: (name: string) => string): string {
  return action.secret !== undefined ? secretValue(action.secret) : action.value;
}

/** The `secret` field of an action, as the input schema shows it once a secrets file is configured. */
export const SECRET_FIELD_SCHEMA = z
  .string()
  .regex(SECRET_NAME)
  .optional()
  .describe(
    `fill/type: the name of a secret from the server's secrets file, typed in place of value (the value never appears in the call, the result or the evidence)`,
  );

/**
 * `SEL[data-state="S"]`, or `[data-state="S"]` without SEL: the contract's
 * string concatenation, exactly what the original hands to Playwright
 * (src/contract/compatibility.ts).
 */
export function stateSelector(action: { state: string; selector?: string }): string {
  const quoted = JSON.stringify(action.state);
  return action.selector ? `${action.selector}[data-state=${quoted}]` : `[data-state=${quoted}]`;
}

/**
 * The one selector wait_for_state waits for, which the trace records too:
 * the concatenation (stateSelector) when SEL is one CSS selector or absent;
 * for any other SEL (`text=…`, `role=…`, a `>>` chain…), where concatenation
 * would change what SEL means, SEL's matches that carry the state:
 * `SEL >> internal:and="[data-state=\"S\"]"`. Puppeteer's own syntax is
 * Puppeteer's to resolve, so it is concatenated as given.
 */
export function stateWaitSelector(action: { state: string; selector?: string }): string {
  if (!action.selector || usesPuppeteerSyntax(action.selector) || isPlainCss(action.selector)) return stateSelector(action);
  return `${action.selector} >> internal:and=${JSON.stringify(stateSelector({ state: action.state }))}`;
}

/** `do` as the parser reads it: one of ACTION_KINDS in any case, surrounding whitespace allowed (JSON Schema patterns take no flags). */
const DO_PATTERN = new RegExp(
  `^\\s*(?:${ACTION_KINDS.map((kind) => [...kind].map((c) => (c === '_' ? c : `[${c}${c.toUpperCase()}]`)).join('')).join('|')})\\s*$`,
);

/** The kinds that must be given a selector, as the schema's description names them. */
const SELECTOR_REQUIRED = ACTION_KINDS.filter((kind) => ACTION_SPECS[kind].required.includes('selector'));

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
        `Playwright selector (CSS, text=, role=, xpath=, id=, data-testid=, >> chains, nth=…; first match); required for ${SELECTOR_REQUIRED.join(', ')}`,
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
