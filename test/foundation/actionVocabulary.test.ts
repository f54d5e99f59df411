/**
 * ACTION_SPECS (what the README's Actions table prints) says what
 * parseAction does: each required field is refused when missing, each alias
 * stands for its field, each optional field is kept.
 */
import { ACTION_KINDS, ACTION_SPECS, parseAction } from '../../src/contract/actions';
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
