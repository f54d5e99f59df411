/**
 * ACTION_SPECS (what docs/reference.md's Actions table prints) says what
 * parseAction does: each required field is refused when missing, each alias
 * stands for its field, each optional field is kept.
 */
import { ACTION_KINDS, ACTION_SPECS, parseAction, stateWaitSelector, traceCallOf } from '../../src/contract/actions';
import { ToolInputError } from '../../src/common/errors';

const SAMPLE: Record<string, unknown> = { selector: '#x', value: 'v', label: 'L', key: 'Enter', state: 'ready', ms: 5 };

/** The action with every required field (the first of `a|b`) and no optional one. */
function minimal(kind: string): Record<string, unknown> {
  const action: Record<string, unknown> = { do: kind };
  for (const field of ACTION_SPECS[kind as keyof typeof ACTION_SPECS].required) action[field.split('|')[0]] = SAMPLE[field.split('|')[0]];
  return action;
}

test('every action kind has a spec', () => {
  expect(Object.keys(ACTION_SPECS).sort()).toEqual([...ACTION_KINDS].sort());
});

describe.each(ACTION_KINDS.map((kind) => [kind]))('%s', (kind) => {
  const spec = ACTION_SPECS[kind];

  test('the required fields are enough', () => {
    expect(() => parseAction(minimal(kind), 0)).not.toThrow();
  });

  test('without a required field it is refused, naming the field', () => {
    for (const field of spec.required) {
      const action = minimal(kind);
      for (const name of field.split('|')) delete action[name];
      let error: unknown;
      try {
        parseAction(action, 0);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ToolInputError);
      expect((error as Error).message).toContain(`actions[0].${field.split('|')[0]}`);
    }
  });

  test('each alias stands for its field, and optional fields are kept', () => {
    for (const [field, alias] of Object.entries(spec.aliases ?? {})) {
      const action = { ...minimal(kind), [field]: undefined, [alias]: SAMPLE[field] };
      expect(parseAction(action, 0)).toEqual(parseAction({ ...minimal(kind), [field]: SAMPLE[field] }, 0));
    }
    for (const field of spec.optional) expect(parseAction({ ...minimal(kind), [field]: SAMPLE[field] }, 0)).toMatchObject({ [field]: SAMPLE[field] });
  });
});

describe('hover and focus', () => {
  test.each([['hover'], ['focus']])('%s takes a selector, required, trimmed of nothing', (kind) => {
    expect(parseAction({ do: ` ${kind.toUpperCase()} `, selector: 'text=Menu' }, 0)).toEqual({ do: kind, selector: 'text=Menu' });
    expect(() => parseAction({ do: kind }, 2)).toThrow(new ToolInputError(`actions[2].selector required for ${kind}`));
    expect(() => parseAction({ do: kind, selector: '  ' }, 0)).toThrow(`actions[0].selector required for ${kind}`);
    expect(() => parseAction({ do: kind, selector: 5 }, 0)).toThrow(`actions[0].selector required for ${kind}`);
  });

  test('they are in the supported list a refusal names', () => {
    expect(() => parseAction({ do: 'drag' }, 0)).toThrow(/^actions\[0\]: unsupported do='drag'; supported: click, hover, focus, fill, /);
  });

  test('the trace shows them as the Playwright calls, on the element, as inputs', () => {
    expect(traceCallOf({ do: 'hover', selector: '#menu' })).toEqual({
      class: 'Frame',
      method: 'hover',
      params: { selector: '#menu' },
      target: '#menu',
      isInput: true,
      pointsAtTarget: true,
    });
    expect(traceCallOf({ do: 'focus', selector: '#email' })).toEqual({
      class: 'Frame',
      method: 'focus',
      params: { selector: '#email' },
      target: '#email',
      isInput: true,
    });
  });
});

describe('wait_for_state: one selector, waited for and traced', () => {
  test.each<[string | undefined, string]>([
    [undefined, '[data-state="open"]'],
    ['#dlg', '#dlg[data-state="open"]'],
    ['div.panel > section', 'div.panel > section[data-state="open"]'],
    ['text=Dialog', 'text=Dialog >> internal:and="[data-state=\\"open\\"]"'],
    ['role=dialog[name="Settings"]', 'role=dialog[name="Settings"] >> internal:and="[data-state=\\"open\\"]"'],
    ['css=#dlg', 'css=#dlg >> internal:and="[data-state=\\"open\\"]"'],
    ['#app >> .dlg', '#app >> .dlg >> internal:and="[data-state=\\"open\\"]"'],
  ])('selector %p waits for %s, and the trace records that selector', (selector, waited) => {
    const action = parseAction(selector === undefined ? { do: 'wait_for_state', state: 'open' } : { do: 'wait_for_state', state: 'open', selector }, 0);
    expect(stateWaitSelector(action as { state: string; selector?: string })).toBe(waited);
    expect(traceCallOf(action)).toEqual({ class: 'Frame', method: 'waitForSelector', params: { selector: waited, state: 'attached' }, isInput: false });
  });
});
