/**
 * Step 1 (unknown fields) and step 3 (runtime fields, actions): both refuse
 * by throwing ToolInputError, which the server turns into an isError result.
 */
import { executeCapturePlan } from '../../src/boundary';
import { ToolInputError } from '../../src/common/errors';
import { parseRuntimeFields, checkUnknownFields, RUNTIME_OBJECT_FIELDS, captureInputSchema } from '../../src/contract/toolArguments';
import { parseAction, parseActions, stateSelector, ACTION_KINDS } from '../../src/contract/actions';
import { DEFAULT_WAIT_MS } from '../../src/common/time';
import { ACTION_BUDGET_MS, NAVIGATION_BUDGET_MS } from '../../src/common/time';
import { FakeProvider } from '../helpers/fakeProvider';
import { makeRunFixture, validArgs, listFiles, type RunFixture } from './fixtures';

const RUNTIME_PHRASE = 'provider accepts Runtime Object fields only';

async function refusal(args: unknown, provider = new FakeProvider()): Promise<ToolInputError> {
  try {
    await executeCapturePlan(args, { provider, env: {} });
  } catch (err) {
    expect(err).toBeInstanceOf(ToolInputError);
    expect(provider.calls).toHaveLength(0);
    return err as ToolInputError;
  }
  throw new Error(`expected a ToolInputError for ${JSON.stringify(args)}`);
}

let fx: RunFixture;
beforeEach(() => {
  fx = makeRunFixture();
});
afterEach(() => fx.cleanup());

describe('unknown fields (step 1)', () => {
  test.each(['criterion', 'criterion_ref', 'criterion_id'])('%s is refused and named', async (field) => {
    const err = await refusal(validArgs(fx.root, { [field]: 'L6.3' }));
    expect(err.message).toContain(RUNTIME_PHRASE);
    expect(err.message).toContain(`'${field}'`);
    expect(listFiles(fx.evidence)).toEqual([]);
  });

  test('every unknown field is named in one message', async () => {
    const err = await refusal(validArgs(fx.root, { criterion: 'L1', note: 'x', selector: '#a', Url: 'http://x' }));
    for (const name of ['criterion', 'note', 'selector', 'Url']) expect(err.message).toContain(`'${name}'`);
    expect(err.message).toContain(RUNTIME_PHRASE);
  });

  test('prototype-looking keys are plain unknown fields', async () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "constructor": 1, "toString": 2}');
    const err = await refusal({ ...validArgs(fx.root), ...hostile });
    expect(err.message).toContain(RUNTIME_PHRASE);
    for (const name of ['__proto__', 'constructor', 'toString']) expect(err.message).toContain(`'${name}'`);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('unknown fields are refused before the contract is looked at', async () => {
    const err = await refusal({ criterion: 'L1' });
    expect(err.message).toContain(RUNTIME_PHRASE);
  });

  test('the Runtime Object fields are exactly the contract table (seed adds run_root and design)', () => {
    expect([...RUNTIME_OBJECT_FIELDS].sort()).toEqual(
      ['schemaVersion', 'url', 'type', 'state', 'actions', 'artifact_path', 'overwrite', 'viewport', 'freeze', 'run_root', 'design'].sort(),
    );
    expect(checkUnknownFields(validArgs(fx.root, { design: {}, freeze: {} }))).toBeNull();
    expect(checkUnknownFields(validArgs(fx.root, { criterion: 'L6.1' }))).toContain(RUNTIME_PHRASE);
  });

  test.each([[[1]], ['x'], [42], [true]])('arguments that are not an object (%p) are refused', async (args) => {
    await refusal(args);
  });
});

describe('runtime fields (step 3)', () => {
  test.each<[string, Record<string, unknown>, string | RegExp]>([
    ['url missing', { url: undefined }, 'url must be a non-empty string'],
    ['url empty', { url: '' }, 'url must be a non-empty string'],
    ['url blank', { url: '   ' }, 'url must be a non-empty string'],
    ['url a number', { url: 5 }, 'url must be a non-empty string'],
    ['url ftp:', { url: 'ftp://127.0.0.1/x' }, 'url must start with http://, https://, file:// or about:'],
    [
      'url ftp: the rule, then what to do',
      { url: 'ftp://127.0.0.1/x' },
      "url must start with http://, https://, file:// or about: (got 'ftp://127.0.0.1/x'); serve the page over http:// or https:// (a local server on 127.0.0.1 will do), or capture a local file as file://",
    ],
    [
      'url with no scheme: the same address with one',
      { url: '127.0.0.1:8080/page.html' },
      "url must start with http://, https://, file:// or about: (got '127.0.0.1:8080/page.html'); write the scheme, e.g. 'http://127.0.0.1:8080/page.html'",
    ],
    [
      'url a file path: the file:// URL',
      { url: '/srv/site/page one.html' },
      "url must start with http://, https://, file:// or about: (got '/srv/site/page one.html'); a local file is captured as file://, e.g. 'file:///srv/site/page%20one.html'",
    ],
    ['url javascript:', { url: 'javascript:alert(1)' }, 'url must start with'],
    ['url schemeless', { url: '127.0.0.1/x' }, 'url must start with'],
    ['type missing', { type: undefined }, 'type must be one of'],
    ['type unknown', { type: 'video' }, "type must be one of 'screenshot', 'a11y tree', 'interaction trace'"],
    ['type a11y_tree', { type: 'a11y_tree' }, 'type must be one of'],
    ['state missing', { state: undefined }, 'state must be a non-empty string'],
    ['state empty', { state: '' }, 'state must be a non-empty string'],
    ['state a number', { state: 3 }, 'state must be a non-empty string'],
    ['actions not an array', { actions: { do: 'click' } }, 'actions must be an array of objects'],
    ['actions a string', { actions: 'click' }, 'actions must be an array of objects'],
    ['artifact_path missing', { artifact_path: undefined }, 'artifact_path must be a non-empty string'],
    ['artifact_path empty', { artifact_path: '' }, 'artifact_path must be a non-empty string'],
    ['artifact_path a list', { artifact_path: ['evidence/x.png'] }, 'artifact_path must be a non-empty string'],
    ['overwrite a string', { overwrite: 'yes' }, 'overwrite must be a boolean'],
    ['overwrite 1', { overwrite: 1 }, 'overwrite must be a boolean'],
  ])('%s', async (_n, overrides, phrase) => {
    const err = await refusal(validArgs(fx.root, overrides));
    if (typeof phrase === 'string') expect(err.message).toContain(phrase);
    else expect(err.message).toMatch(phrase);
    expect(listFiles(fx.evidence)).toEqual([]);
  });

  test('runtime fields are checked before the run root (a bad run_root does not mask a bad url)', async () => {
    const err = await refusal(validArgs('not/absolute', { url: 'ftp://x' }));
    expect(err.message).toContain('url must start with');
  });

  test('normalizes: trimmed url/type/state/artifact_path, overwrite default false, actions default []', () => {
    const fields = parseRuntimeFields(
      validArgs(undefined, { url: '  HTTP://127.0.0.1/x ', type: ' a11y tree ', state: ' error ', artifact_path: ' evidence/a.json ' }),
    );
    expect(fields).toEqual({
      ok: true,
      fields: { url: 'HTTP://127.0.0.1/x', type: 'a11y tree', state: 'error', actions: [], artifactPath: 'evidence/a.json', overwrite: false },
    });
  });

  test.each(['http://a', 'https://a', 'file:///tmp/a.html', 'about:blank'])('url scheme %s is accepted', (url) => {
    expect(parseRuntimeFields(validArgs(undefined, { url }))).toMatchObject({ ok: true, fields: { url } });
  });
});

describe('actions', () => {
  test.each<[string, unknown[], string]>([
    ['not an object', [1], 'actions[0] must be an object'],
    ['an array entry', [['click']], 'actions[0] must be an object'],
    ['null entry', [null], 'actions[0] must be an object'],
    ['do missing', [{ selector: '#a' }], 'actions[0].do is required'],
    ['do blank', [{ do: '  ' }], 'actions[0].do is required'],
    ['do unsupported', [{ do: 'drag', selector: '#a' }], "actions[0]: unsupported do='drag'"],
    ['do unsupported, normalized in the message', [{ do: ' DRAG ' }], "actions[0]: unsupported do='drag'"],
    ['click without selector', [{ do: 'click' }], 'actions[0].selector required for click'],
    ['click with empty selector', [{ do: 'click', selector: '' }], 'actions[0].selector required for click'],
    ['wait_for_selector without selector', [{ do: 'wait_for_selector' }], 'actions[0].selector required for wait_for_selector'],
    ['fill without selector', [{ do: 'fill', value: 'x' }], 'actions[0].selector required for fill'],
    ['fill with a non-string value', [{ do: 'fill', selector: '#a', value: 5 }], 'actions[0].value must be a string'],
    ['fill without value', [{ do: 'fill', selector: '#a' }], 'actions[0].value must be a string'],
    ['type without value', [{ do: 'type', selector: '#a' }], 'actions[0].value must be a string'],
    ['press without key', [{ do: 'press' }], 'actions[0].key required for press'],
    ['press with an empty key', [{ do: 'press', key: '' }], 'actions[0].key required for press'],
    ['wait_for_state without state', [{ do: 'wait_for_state', selector: '#a' }], 'actions[0].state required for wait_for_state'],
    ['select_option without value or label', [{ do: 'select_option', selector: 'select' }], 'actions[0].value or label required for select_option'],
    ['the index is the failing entry', [{ do: 'click', selector: '#a' }, { do: 'press' }], 'actions[1].key required for press'],
  ])('%s', async (_n, actions, phrase) => {
    const err = await refusal(validArgs(fx.root, { actions }));
    expect(err.message).toContain(phrase);
  });

  test('do is trimmed and lower-cased; aliases normalize', () => {
    expect(
      parseActions([
        { do: ' Click ', selector: '#a' },
        { do: 'FILL', selector: '#f', text: 'hello' },
        { do: 'type', selector: '#t', value: 'v' },
        { do: 'press', value: 'Enter' },
        { do: 'press', key: 'Tab', selector: '#t' },
        { do: 'select_option', selector: 'select', label: 'Two' },
        { do: 'select_option', selector: 'select', value: '2' },
        { do: 'wait_for_state', state: ' open ' },
        { do: 'wait_for_state', state: 'open', selector: '#dlg' },
        { do: 'wait' },
        { do: 'sleep', timeout_ms: 50 },
        { do: 'wait', ms: 0 },
      ]),
    ).toEqual([
      { do: 'click', selector: '#a' },
      { do: 'fill', selector: '#f', value: 'hello' },
      { do: 'type', selector: '#t', value: 'v' },
      { do: 'press', key: 'Enter' },
      { do: 'press', key: 'Tab', selector: '#t' },
      { do: 'select_option', selector: 'select', label: 'Two' },
      { do: 'select_option', selector: 'select', value: '2' },
      { do: 'wait_for_state', state: 'open' },
      { do: 'wait_for_state', state: 'open', selector: '#dlg' },
      { do: 'wait', ms: DEFAULT_WAIT_MS },
      { do: 'sleep', ms: 50 },
      { do: 'wait', ms: 0 },
    ]);
    expect(parseActions(undefined)).toEqual([]);
  });

  test('budgets and the default pause are the contract values', () => {
    expect(ACTION_BUDGET_MS).toBe(10_000);
    expect(NAVIGATION_BUDGET_MS).toBe(30_000);
    expect(DEFAULT_WAIT_MS).toBe(200);
    expect([...ACTION_KINDS].sort()).toEqual(
      ['click', 'hover', 'focus', 'fill', 'type', 'press', 'select_option', 'wait_for_selector', 'wait_for_state', 'wait', 'sleep'].sort(),
    );
  });

  test.each([[-1], ['100'], [NaN], [ACTION_BUDGET_MS + 1]])('wait ms %p is refused', (ms) => {
    expect(() => parseAction({ do: 'wait', ms }, 0)).toThrow(ToolInputError);
  });

  test('stateSelector: SEL[data-state="S"], or [data-state="S"] alone', () => {
    expect(stateSelector({ state: 'open' })).toBe('[data-state="open"]');
    expect(stateSelector({ state: 'open', selector: '#dlg' })).toBe('#dlg[data-state="open"]');
    expect(stateSelector({ state: 'a"b' })).toBe('[data-state="a\\"b"]');
  });
});

describe('the advertised input schema', () => {
  test('is strict and lists every Runtime Object field', () => {
    const shape = Object.keys(captureInputSchema.shape).sort();
    expect(shape).toEqual([...RUNTIME_OBJECT_FIELDS].sort());
    expect(captureInputSchema.safeParse({ ...validArgs('/abs'), criterion: 'x' }).success).toBe(false);
    expect(captureInputSchema.safeParse(validArgs('/abs')).success).toBe(true);
  });
});

describe('the input schema and the parser read one rule table', () => {
  const accepts = (args: Record<string, unknown>) => parseRuntimeFields(args).ok;
  const cases: [string, unknown][] = [
    ['url', 'http://127.0.0.1/x'],
    ['url', 'HTTPS://x'],
    ['url', '  file:///tmp/a.html '],
    ['url', 'about:blank'],
    ['url', 'ABOUT:blank'],
    ['url', 'ftp://x'],
    ['url', 'httpx://x'],
    ['url', 'javascript:alert(1)'],
    ['url', ''],
    ['url', '   '],
    ['url', 42],
    ['state', 'ready'],
    ['state', ' ready '],
    ['state', ''],
    ['state', '\t\n'],
    ['state', null],
    ['artifact_path', 'evidence/a.png'],
    ['artifact_path', '  '],
    ['artifact_path', 7],
    ['overwrite', true],
    ['overwrite', false],
    ['overwrite', 'yes'],
    ['overwrite', 1],
    ['actions', [{ do: 'click', selector: '#a' }]],
    ['actions', [{ do: ' CLICK ', selector: '#a' }]],
    ['actions', [{ do: 'Wait_For_State', state: 'x' }]],
    ['actions', [{ do: 'drag', selector: '#a' }]],
    ['actions', [{ do: 'click_', selector: '#a' }]],
    ['actions', [{ do: '', selector: '#a' }]],
  ];
  test.each(cases)('%s = %p: the schema accepts exactly what the parser accepts', (field, value) => {
    const args = { ...validArgs('/abs'), [field]: value };
    expect(captureInputSchema.safeParse(args).success).toBe(accepts(args));
  });
});
