/**
 * Capture contract v1: the write-side parser's messages and normalization,
 * the read-side snapshot facts, and (through executeCapturePlan) that a
 * contract failure comes back as a failed payload with written_path "" and no
 * request, before any path work or provider call.
 */
import * as fs from 'fs';
import * as path from 'path';
import {
  parseCaptureContract,
  validateCaptureSnapshot,
  requestSnapshotSchema,
  FREEZE_DEFAULTS,
  FREEZE_RULES,
  VIEWPORT_RULES,
  type CaptureRequestSnapshot,
} from '../../src/contract/captureContract';
import { executeCapturePlan } from '../../src/boundary';
import { parseJsonText } from '../../src/common/pythonJson';
import { captureResultSchema } from '../../src/contract/result';
import { FakeProvider } from '../helpers/fakeProvider';
import { makeRunFixture, validArgs, VIEWPORT, listFiles, type RunFixture } from './fixtures';

const RECAPTURE = 'recapture with capture contract schemaVersion=1';

/** [case, argument overrides, phrase the error must contain] in contract-facts order. */
const CONTRACT_FAILURES: Array<[string, Record<string, unknown>, string]> = [
  ['schemaVersion missing', { schemaVersion: undefined }, `capture contract schemaVersion is required; ${RECAPTURE}`],
  ['schemaVersion null', { schemaVersion: null }, `capture contract schemaVersion is required; ${RECAPTURE}`],
  ['schemaVersion 99', { schemaVersion: 99 }, `unsupported capture schemaVersion 99; ${RECAPTURE}`],
  // Worded as the original (Python) words the value: True, not true.
  ['schemaVersion true (not 1)', { schemaVersion: true }, `unsupported capture schemaVersion True; ${RECAPTURE}`],
  ['schemaVersion false', { schemaVersion: false }, `unsupported capture schemaVersion False; ${RECAPTURE}`],
  ['schemaVersion "1" (a string)', { schemaVersion: '1' }, 'unsupported capture schemaVersion '],
  ['schemaVersion 1.5', { schemaVersion: 1.5 }, 'unsupported capture schemaVersion 1.5'],
  ['viewport missing', { viewport: undefined }, `viewport object is required for schemaVersion=1; ${RECAPTURE}`],
  ['viewport an array', { viewport: [800, 600] }, 'viewport object is required for schemaVersion=1'],
  ['viewport a string', { viewport: '800x600' }, 'viewport object is required for schemaVersion=1'],
  ['viewport.width missing', { viewport: { ...VIEWPORT, width: undefined } }, 'viewport.width must be a positive integer'],
  ['viewport.width "800"', { viewport: { ...VIEWPORT, width: '800' } }, 'viewport.width must be a positive integer'],
  ['viewport.width 1.5', { viewport: { ...VIEWPORT, width: 1.5 } }, 'viewport.width must be a positive integer'],
  ['viewport.width -1', { viewport: { ...VIEWPORT, width: -1 } }, 'viewport.width must be a positive integer'],
  ['viewport.height 0', { viewport: { ...VIEWPORT, height: 0 } }, 'viewport.height must be a positive integer'],
  ['viewport.height 1.5', { viewport: { ...VIEWPORT, height: 1.5 } }, 'viewport.height must be a positive integer'],
  ['viewport.height true', { viewport: { ...VIEWPORT, height: true } }, 'viewport.height must be a positive integer'],
  ['dpr 0.05', { viewport: { ...VIEWPORT, devicePixelRatio: 0.05 } }, 'viewport.devicePixelRatio must be a number greater than or equal to 0.1'],
  ['dpr 0', { viewport: { ...VIEWPORT, devicePixelRatio: 0 } }, 'viewport.devicePixelRatio must be a number greater than or equal to 0.1'],
  ['dpr NaN', { viewport: { ...VIEWPORT, devicePixelRatio: NaN } }, 'viewport.devicePixelRatio must be a number greater than or equal to 0.1'],
  ['dpr Infinity', { viewport: { ...VIEWPORT, devicePixelRatio: Infinity } }, 'viewport.devicePixelRatio must be a number greater than or equal to 0.1'],
  ['dpr "NaN"', { viewport: { ...VIEWPORT, devicePixelRatio: 'NaN' } }, 'viewport.devicePixelRatio must be a number greater than or equal to 0.1'],
  ['dpr "2"', { viewport: { ...VIEWPORT, devicePixelRatio: '2' } }, 'viewport.devicePixelRatio must be a number greater than or equal to 0.1'],
  ['dpr missing', { viewport: { ...VIEWPORT, devicePixelRatio: undefined } }, 'viewport.devicePixelRatio must be a number greater than or equal to 0.1'],
  // The original's order (it lists them sorted).
  [
    'colorScheme "sepia"',
    { viewport: { ...VIEWPORT, colorScheme: 'sepia' } },
    "viewport.colorScheme must be one of ['dark', 'light', 'no-preference'] (got 'sepia')",
  ],
  ['colorScheme null', { viewport: { ...VIEWPORT, colorScheme: null } }, "viewport.colorScheme must be one of ['dark', 'light', 'no-preference'] (got None)"],
  ['colorScheme "Light" (case matters)', { viewport: { ...VIEWPORT, colorScheme: 'Light' } }, 'viewport.colorScheme must be one of'],
  ['colorScheme missing', { viewport: { ...VIEWPORT, colorScheme: undefined } }, 'viewport.colorScheme must be one of'],
  ['viewport unknown key', { viewport: { ...VIEWPORT, zoom: 2 } }, "'zoom'"],
  ['freeze not an object', { freeze: true }, 'freeze must be an object when provided'],
  ['freeze an array', { freeze: [true] }, 'freeze must be an object when provided'],
  ['freeze null', { freeze: null }, 'freeze must be an object when provided'],
  ['freeze.enabled non-boolean', { freeze: { enabled: 'yes' } }, 'freeze.enabled must be a boolean'],
  ['freeze.waitFonts non-boolean', { freeze: { waitFonts: 1 } }, 'freeze.waitFonts must be a boolean'],
  ['freeze.networkIdle non-boolean', { freeze: { networkIdle: null } }, 'freeze.networkIdle must be a boolean (got None)'],
  ['freeze unknown key', { freeze: { enabled: true, settle: true } }, "'settle'"],
];

function withViewportCleaned(overrides: Record<string, unknown>): Record<string, unknown> {
  // `{...VIEWPORT, width: undefined}` means "key absent", not "key holds undefined".
  const out = { ...overrides };
  if (out.viewport && typeof out.viewport === 'object' && !Array.isArray(out.viewport)) {
    out.viewport = Object.fromEntries(Object.entries(out.viewport).filter(([, v]) => v !== undefined));
  }
  return out;
}

describe('parseCaptureContract (write side)', () => {
  test.each(CONTRACT_FAILURES)('%s', (_name, overrides, phrase) => {
    const parsed = parseCaptureContract(validArgs(undefined, withViewportCleaned(overrides)));
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toContain(phrase);
  });

  test('viewport unknown keys: every one named', () => {
    const parsed = parseCaptureContract(validArgs(undefined, { viewport: { ...VIEWPORT, zoom: 2, scale: 1 } }));
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(/'zoom'.*'scale'/);
  });

  test('checks run in order: schemaVersion before viewport before freeze', () => {
    const all = validArgs(undefined, { schemaVersion: 2, viewport: 'bad', freeze: 'bad' });
    expect(parseCaptureContract(all)).toMatchObject({ ok: false, error: expect.stringContaining('unsupported capture schemaVersion 2') });
    const viewportAndFreeze = validArgs(undefined, { viewport: { ...VIEWPORT, width: 0 }, freeze: 'bad' });
    expect(parseCaptureContract(viewportAndFreeze)).toMatchObject({ ok: false, error: expect.stringContaining('viewport.width') });
    const widthAndDpr = validArgs(undefined, { viewport: { ...VIEWPORT, width: 0, devicePixelRatio: 0 } });
    expect(parseCaptureContract(widthAndDpr)).toMatchObject({ ok: false, error: expect.stringContaining('viewport.width') });
  });

  test('normalizes: full viewport, freeze defaults filled in, no design key when unbound', () => {
    const parsed = parseCaptureContract(validArgs(undefined, { viewport: { width: 1280, height: 800, devicePixelRatio: 2, colorScheme: 'dark' } }));
    expect(parsed).toEqual({
      ok: true,
      request: {
        schemaVersion: 1,
        viewport: { width: 1280, height: 800, devicePixelRatio: 2, colorScheme: 'dark' },
        freeze: { enabled: true, waitFonts: true, networkIdle: false },
      },
    });
    if (parsed.ok) expect('design' in parsed.request).toBe(false);
  });

  test('partial freeze keeps the caller values and fills the rest', () => {
    const parsed = parseCaptureContract(validArgs(undefined, { freeze: { networkIdle: true, enabled: false } }));
    expect(parsed.ok && parsed.request.freeze).toEqual({ enabled: false, waitFonts: true, networkIdle: true });
  });

  test('dpr exactly 0.1 and fractional dpr are accepted as floats', () => {
    for (const dpr of [0.1, 1.25, 3]) {
      const parsed = parseCaptureContract(validArgs(undefined, { viewport: { ...VIEWPORT, devicePixelRatio: dpr } }));
      expect(parsed.ok && parsed.request.viewport.devicePixelRatio).toBe(dpr);
    }
  });

  test('a bound design travels into the request echo as given', () => {
    const design = { fontSizes: [14, '16px'], colors: ['#fff'], radii: [] };
    const parsed = parseCaptureContract(validArgs(undefined, { design }));
    expect(parsed.ok && parsed.request.design).toEqual(design);
  });

  test.each([
    ['null', null, 'design must be an object'],
    ['a scalar axis', { fontSizes: 16 }, 'design.fontSizes must be an array'],
    ['an unknown axis', { spacing: [4] }, "'spacing'"],
  ])('a malformed design (%s) fails the contract', (_n, design, phrase) => {
    const parsed = parseCaptureContract(validArgs(undefined, { design }));
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toContain(phrase);
  });
});

/**
 * The original reads JSON with Python, where `1.0` is a float and its integer
 * fields refuse it; these cases come from JSON text, as they do on the wire.
 */
describe('integers written as floats (arguments from JSON text)', () => {
  /** validArgs as JSON text, with `from` (one exact token of it) rewritten to `to`. */
  function fromText(from: string, to: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
    const text = JSON.stringify(validArgs(undefined, overrides));
    expect(text).toContain(from);
    return parseJsonText(text.replace(from, to)) as Record<string, unknown>;
  }

  test.each([
    ['"schemaVersion":1.0', `unsupported capture schemaVersion 1.0; ${RECAPTURE}`],
    ['"schemaVersion":1e0', `unsupported capture schemaVersion 1.0; ${RECAPTURE}`],
    ['"schemaVersion":1.00', `unsupported capture schemaVersion 1.0; ${RECAPTURE}`],
    ['"schemaVersion":10E-1', `unsupported capture schemaVersion 1.0; ${RECAPTURE}`],
  ])('%s is refused, worded as the original words it', (token, error) => {
    expect(parseCaptureContract(fromText('"schemaVersion":1', token))).toEqual({ ok: false, error });
  });

  test.each([
    ['"width":800', '"width":800.0', 'viewport.width must be a positive integer (got 800.0)'],
    ['"width":800', '"width":8e2', 'viewport.width must be a positive integer (got 800.0)'],
    ['"height":600', '"height":600.0', 'viewport.height must be a positive integer (got 600.0)'],
  ])('viewport %s written as %s is refused', (from, to, error) => {
    expect(parseCaptureContract(fromText(from, to))).toEqual({ ok: false, error });
  });

  test('the same text with integers passes, and a float devicePixelRatio 1.0 is a number as before', () => {
    const parsed = parseCaptureContract(fromText('"devicePixelRatio":1', '"devicePixelRatio":1.0'));
    expect(parsed).toMatchObject({ ok: true, request: { schemaVersion: 1, viewport: { width: 800, height: 600, devicePixelRatio: 1 } } });
  });

  test('a value built in code (no JSON text) is an integer whatever its spelling: 1.0 === 1 in JavaScript', () => {
    expect(parseCaptureContract(validArgs(undefined, { schemaVersion: 1.0 })).ok).toBe(true);
  });

  test('the read side refuses the same snapshots', () => {
    const good = { schemaVersion: 1, viewport: { ...VIEWPORT }, freeze: { ...FREEZE_DEFAULTS } };
    const text = JSON.stringify(good);
    expect(validateCaptureSnapshot(parseJsonText(text))).toBeNull();
    expect(validateCaptureSnapshot(parseJsonText(text.replace('"schemaVersion":1', '"schemaVersion":1.0')))).toBe('unsupported_schema_version');
    expect(validateCaptureSnapshot(parseJsonText(text.replace('"width":800', '"width":800.0')))).toBe('bad_viewport_shape');
  });
});

describe('validateCaptureSnapshot (read side)', () => {
  const good: CaptureRequestSnapshot = {
    schemaVersion: 1,
    viewport: { width: 1280, height: 800, devicePixelRatio: 1.0, colorScheme: 'light' },
    freeze: { ...FREEZE_DEFAULTS },
  };

  test('a complete snapshot is valid (null) and matches the zod schema', () => {
    expect(validateCaptureSnapshot(good)).toBeNull();
    expect(requestSnapshotSchema.safeParse(good).success).toBe(true);
  });

  test.each<[string, unknown, string]>([
    ['not an object', 'x', 'missing_schema_version'],
    ['null', null, 'missing_schema_version'],
    ['no schemaVersion', { ...good, schemaVersion: undefined }, 'missing_schema_version'],
    ['schemaVersion 2', { ...good, schemaVersion: 2 }, 'unsupported_schema_version'],
    ['schemaVersion true', { ...good, schemaVersion: true }, 'unsupported_schema_version'],
    ['schemaVersion "1"', { ...good, schemaVersion: '1' }, 'unsupported_schema_version'],
    ['no viewport', { ...good, viewport: undefined }, 'missing_viewport'],
    ['viewport partial', { ...good, viewport: { width: 1, height: 1 } }, 'bad_viewport_shape'],
    ['viewport extra key', { ...good, viewport: { ...good.viewport, zoom: 1 } }, 'bad_viewport_shape'],
    ['viewport dpr 0.05', { ...good, viewport: { ...good.viewport, devicePixelRatio: 0.05 } }, 'bad_viewport_shape'],
    ['viewport an array', { ...good, viewport: [] }, 'bad_viewport_shape'],
    ['no freeze', { ...good, freeze: undefined }, 'missing_freeze'],
    ['freeze partial (a record must be complete)', { ...good, freeze: { enabled: true } }, 'bad_freeze_shape'],
    ['freeze extra key', { ...good, freeze: { ...good.freeze, x: true } }, 'bad_freeze_shape'],
    ['freeze non-boolean', { ...good, freeze: { ...good.freeze, waitFonts: 'yes' } }, 'bad_freeze_shape'],
  ])('%s -> %s, without throwing', (_n, snapshot, fact) => {
    const cleaned = snapshot && typeof snapshot === 'object' ? Object.fromEntries(Object.entries(snapshot).filter(([, v]) => v !== undefined)) : snapshot;
    expect(validateCaptureSnapshot(cleaned)).toBe(fact);
  });

  test('hostile values never throw', () => {
    const weird = [undefined, 0, [], Object.create(null), { schemaVersion: 1, viewport: Object.create(null), freeze: {} }];
    for (const value of weird) expect(() => validateCaptureSnapshot(value)).not.toThrow();
  });
});

describe('contract failures through executeCapturePlan', () => {
  let fx: RunFixture;
  beforeEach(() => {
    fx = makeRunFixture();
  });
  afterEach(() => fx.cleanup());

  test.each(CONTRACT_FAILURES)('%s -> failed, written_path "", no request, provider not called', async (_n, overrides, phrase) => {
    const provider = new FakeProvider();
    const result = await executeCapturePlan(validArgs(fx.root, withViewportCleaned(overrides)), { provider, env: {} });
    expect(result.result).toBe('failed');
    expect(result.error).toContain(phrase);
    expect(result.written_path).toBe('');
    expect('request' in result).toBe(false);
    expect(result.observed_state).toBe('unknown');
    expect(result.artifact).toBe('evidence/shot.png');
    expect(captureResultSchema.safeParse(result).success).toBe(true);
    expect(provider.calls).toHaveLength(0);
    expect(listFiles(fx.evidence)).toEqual([]);
  });

  test('the contract fails before any path is resolved (a bad path and a bad run_root do not change the error)', async () => {
    const provider = new FakeProvider();
    const result = await executeCapturePlan(validArgs('relative/root', { schemaVersion: 99, artifact_path: '/etc/passwd' }), { provider, env: {} });
    expect(result.error).toContain('unsupported capture schemaVersion 99');
    expect(result.written_path).toBe('');
    expect(result.artifact).toBe('/etc/passwd');
  });

  test('the contract fails before runtime fields are checked (no isError for a bad url then)', async () => {
    const result = await executeCapturePlan(validArgs(fx.root, { viewport: undefined, url: '', type: 'video' }), { provider: new FakeProvider(), env: {} });
    expect(result.result).toBe('failed');
    expect(result.error).toContain('viewport object is required');
  });

  test('a valid call echoes the normalized request, freeze defaults included', async () => {
    const result = await executeCapturePlan(validArgs(fx.root, { type: 'a11y tree', artifact_path: 'evidence/a.json' }), {
      provider: new FakeProvider(),
      env: {},
    });
    expect(result.result).toBe('captured');
    expect(result.request).toEqual({ schemaVersion: 1, viewport: { ...VIEWPORT }, freeze: { enabled: true, waitFonts: true, networkIdle: false } });
    expect(fs.existsSync(path.join(fx.evidence, 'a.json'))).toBe(true);
  });
});

describe('one rule table drives parser, snapshot validator and schema', () => {
  const FREEZE_FULL = { enabled: true, waitFonts: true, networkIdle: false };
  const bad: Record<string, unknown[]> = {
    width: [0, 1.5, -3, '800', null, true],
    height: [0, 2.25, '600'],
    devicePixelRatio: [0.05, Infinity, NaN, '2', null],
    colorScheme: ['Dark', 'sepia', '', 1],
  };
  test.each(Object.entries(bad).flatMap(([key, values]) => values.map((v) => [key, v] as const)))('viewport.%s = %p is refused by all three', (key, value) => {
    const viewport = { ...VIEWPORT, [key]: value };
    const parsed = parseCaptureContract({ schemaVersion: 1, viewport });
    expect(parsed).toEqual({ ok: false, error: expect.stringContaining(`viewport.${key} ${VIEWPORT_RULES[key as keyof typeof VIEWPORT_RULES].must}`) });
    expect(validateCaptureSnapshot({ schemaVersion: 1, viewport, freeze: FREEZE_FULL })).toBe('bad_viewport_shape');
    expect(requestSnapshotSchema.safeParse({ schemaVersion: 1, viewport, freeze: FREEZE_FULL }).success).toBe(false);
  });
  test.each(Object.keys(FREEZE_RULES))('freeze.%s must be a boolean for all three, and a recorded freeze must name it', (key) => {
    const freeze = { ...FREEZE_FULL, [key]: 'yes' };
    expect(parseCaptureContract({ schemaVersion: 1, viewport: VIEWPORT, freeze })).toEqual({ ok: false, error: `freeze.${key} must be a boolean (got 'yes')` });
    expect(validateCaptureSnapshot({ schemaVersion: 1, viewport: VIEWPORT, freeze })).toBe('bad_freeze_shape');
    expect(requestSnapshotSchema.safeParse({ schemaVersion: 1, viewport: VIEWPORT, freeze }).success).toBe(false);
    const partial: Record<string, boolean> = { ...FREEZE_FULL };
    delete partial[key];
    expect(parseCaptureContract({ schemaVersion: 1, viewport: VIEWPORT, freeze: partial }).ok).toBe(true);
    expect(validateCaptureSnapshot({ schemaVersion: 1, viewport: VIEWPORT, freeze: partial })).toBe('bad_freeze_shape');
  });
});
