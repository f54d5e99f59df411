/**
 * How a capture action is described to the viewer. The viewer titles a call
 * from its `class.method` and params (Frame.click + selector renders as
 * `Click locator('#submit')`), so each action is recorded as the Playwright
 * API call that does the same thing, with the params that call would take.
 */

export type TracedMethod = 'click' | 'fill' | 'type' | 'press' | 'selectOption' | 'waitForSelector' | 'waitForState' | 'wait';

export interface TracedActionMeta {
  method: TracedMethod;
  selector?: string;
  /**
   * The action's own inputs: `value` (fill, type; `text` also accepted),
   * `key` (press), `value` or `label` (selectOption), `state`
   * (waitForState), `ms` (wait). Other keys are kept as extra params.
   */
  params: Record<string, unknown>;
}

export interface TraceCall {
  class: 'Frame' | 'Page';
  method: string;
  params: Record<string, unknown>;
  /** The selector whose element the "action" snapshot highlights. */
  target?: string;
  /** Whether the action acts on an element (gets an input event and snapshot). */
  isInput: boolean;
}

export function traceCallFor(meta: TracedActionMeta): TraceCall {
  const { selector } = meta;
  const p = meta.params ?? {};
  const rest = omit(p, ['value', 'text', 'key', 'label', 'state', 'ms', 'timeout_ms', 'selector']);
  const text = str(p.value ?? p.text);
  switch (meta.method) {
    case 'click':
      return { class: 'Frame', method: 'click', params: { selector, ...rest }, target: selector, isInput: true };
    case 'fill':
      return { class: 'Frame', method: 'fill', params: { selector, value: text, ...rest }, target: selector, isInput: true };
    case 'type':
      return { class: 'Frame', method: 'type', params: { selector, text, ...rest }, target: selector, isInput: true };
    case 'press': {
      const key = str(p.key ?? p.value);
      if (selector) return { class: 'Frame', method: 'press', params: { selector, key, ...rest }, target: selector, isInput: true };
      return { class: 'Page', method: 'keyboardPress', params: { key, ...rest }, isInput: true };
    }
    case 'selectOption': {
      const option = p.value !== undefined ? { value: str(p.value) } : { label: str(p.label) };
      return { class: 'Frame', method: 'selectOption', params: { selector, options: [option], ...rest }, target: selector, isInput: true };
    }
    case 'waitForSelector':
      return { class: 'Frame', method: 'waitForSelector', params: { selector, state: 'attached', ...rest }, isInput: false };
    case 'waitForState': {
      const stateSelector = `${selector ?? ''}[data-state="${cssString(str(p.state))}"]`;
      return { class: 'Frame', method: 'waitForSelector', params: { selector: stateSelector, state: 'attached', ...rest }, isInput: false };
    }
    case 'wait': {
      const ms = Number(p.ms ?? p.timeout_ms ?? 0);
      return { class: 'Frame', method: 'waitForTimeout', params: { waitTimeout: ms, ...rest }, isInput: false };
    }
    default:
      throw new Error(`trace: unsupported action method '${String((meta as { method: unknown }).method)}'`);
  }
}

function str(v: unknown): string {
  return v === undefined || v === null ? '' : String(v);
}

function cssString(v: string): string {
  return v.replace(/["\\]/g, '\\$&');
}

function omit(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (!keys.includes(k)) out[k] = v;
  return out;
}
