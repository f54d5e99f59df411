/**
 * Sessions without a browser: the storageState reader's refusals (the file
 * and the field named, never a value), the expiry warning, the plan's
 * refusals of `session` (not offered, unknown, missing folder, malformed
 * file: nothing written), and tools/list with and without a sessions folder.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  parseStorageState,
  summarizeStorageState,
  expiryWarning,
  StorageStateError,
  cookiesOfHosts,
  type StorageCookie,
} from '../../src/contract/storageState';
import { chooseSession, sessionNames, sessionSettings } from '../../src/contract/sessions';
import { captureToolDeclaration } from '../../src/contract/toolDeclaration';
import { planCapture } from '../../src/boundary/plan';
import { captureArgs, makeRunRoot } from '../e2e/harness';
import { checkManifestLine } from '../../src/manifest';

const SECRET = 'sekret-cookie-value-91';
const now = Date.now() / 1000;

function cookie(extra: Record<string, unknown> = {}) {
  return { name: 'sid', value: SECRET, domain: '127.0.0.1', path: '/', expires: now + 3600, httpOnly: true, secure: false, sameSite: 'Lax', ...extra };
}

const GOOD = {
  cookies: [cookie()],
  origins: [
    {
      origin: 'http://127.0.0.1:8080',
      localStorage: [{ name: 'bearer', value: SECRET }],
      indexedDB: [
        {
          name: 'app',
          version: 1,
          stores: [{ name: 'profile', autoIncrement: false, records: [{ key: 'me', valueEncoded: { o: [{ k: 'user', v: 'admin' }], id: 1 } }], indexes: [] }],
        },
      ],
    },
  ],
};

function refusal(state: unknown, file = '/x/admin.json'): string {
  try {
    parseStorageState(typeof state === 'string' ? state : JSON.stringify(state), file);
  } catch (err) {
    expect(err).toBeInstanceOf(StorageStateError);
    return (err as Error).message;
  }
  throw new Error('not refused');
}

describe("the storageState reader: Playwright's shape, refusals naming the file and the field", () => {
  test("Playwright's shape reads, IndexedDB included", () => {
    const state = parseStorageState(JSON.stringify(GOOD), 'admin.json');
    expect(state.cookies[0]).toMatchObject({ name: 'sid', httpOnly: true, sameSite: 'Lax' });
    expect(state.origins[0].indexedDB?.[0].stores[0].records).toHaveLength(1);
  });

  test.each([
    ['not JSON', `{"cookies": [${SECRET}`, /^storage state \/x\/admin\.json: not JSON/],
    ['an array', [], /must be a JSON object \(got an array\)/],
    ['no cookies', { origins: [] }, /: cookies must be an array \(got nothing\)/],
    ['a cookie without a domain', { cookies: [cookie({ domain: undefined })], origins: [] }, /: cookies\[0\]\.domain must be a string/],
    ['a bad sameSite', { cookies: [cookie({ sameSite: SECRET })], origins: [] }, /: cookies\[0\]\.sameSite must be one of Strict, Lax, None/],
    ['a bad expiry', { cookies: [cookie({ expires: 'soon' })], origins: [] }, /: cookies\[0\]\.expires must be -1/],
    [
      'an origin with a path',
      { cookies: [], origins: [{ origin: 'http://a.test/x', localStorage: [] }] },
      /: origins\[0\]\.origin must be an http\(s\) origin/,
    ],
    [
      'a storage item not a string',
      { cookies: [], origins: [{ origin: 'http://a.test', localStorage: [{ name: 'x', value: 1 }] }] },
      /origins\[0\]\.localStorage\[0\]\.value must be a string/,
    ],
    [
      'an IndexedDB record without a value',
      {
        cookies: [],
        origins: [
          {
            origin: 'http://a.test',
            localStorage: [],
            indexedDB: [{ name: 'a', version: 1, stores: [{ name: 's', autoIncrement: false, records: [{ key: 1 }], indexes: [] }] }],
          },
        ],
      },
      /origins\[0\]\.indexedDB\[0\]\.stores\[0\]\.records\[0\]\.value is missing/,
    ],
  ])('%s is refused, the file and field named, no value in the words', (_, state, words) => {
    const message = refusal(state);
    expect(message).toMatch(words);
    expect(message).toContain('/x/admin.json');
    expect(message).not.toContain(SECRET);
  });

  test('expired cookies: a warning naming how many and the earliest expiry, never a value', () => {
    const state = parseStorageState(JSON.stringify({ cookies: [cookie({ expires: 1767225600 }), cookie({ name: 'b', expires: -1 })], origins: [] }), 'x');
    const summary = summarizeStorageState(state);
    expect(summary).toMatchObject({ cookies: 2, expired: 1, earliestExpiry: 1767225600 });
    expect(expiryWarning("session 'admin'", summary)).toBe(
      "session 'admin': 1 of 2 cookies expired (earliest 2026-01-01T00:00:00Z); the capture may not be signed in: save the session again",
    );
    expect(expiryWarning('x', summarizeStorageState(parseStorageState(JSON.stringify(GOOD), 'x')))).toBeNull();
  });
});

describe('cookiesOfHosts: the cookies a browser sends the given hosts', () => {
  const cookie = (name: string, domain: string): StorageCookie => ({
    name,
    value: 'v',
    domain,
    path: '/',
    expires: -1,
    httpOnly: false,
    secure: false,
    sameSite: 'Lax',
  });
  const jar = [
    cookie('host-only', 'app.example.com'),
    cookie('parent-domain', '.example.com'),
    cookie('sibling', 'mail.example.com'),
    cookie('other-site', '.other.example'),
    cookie('suffix-lookalike', '.ample.com'),
    cookie('loopback', '127.0.0.1'),
  ];
  const names = (hosts: string[]) => cookiesOfHosts(jar, hosts).map((c) => c.name);

  test('a host-only cookie goes to its host alone; a domain cookie to the domain and its subdomains', () => {
    expect(names(['app.example.com'])).toEqual(['host-only', 'parent-domain']);
    expect(names(['example.com'])).toEqual(['parent-domain']);
    expect(names(['deep.app.example.com'])).toEqual(['parent-domain']);
    expect(names(['127.0.0.1'])).toEqual(['loopback']);
  });

  test('matching is by whole labels, case-blind; no host keeps nothing', () => {
    expect(names(['EXAMPLE.COM'])).toEqual(['parent-domain']);
    expect(names(['notexample.com'])).toEqual([]);
    expect(names([])).toEqual([]);
  });
});

describe("the plan's refusals of session", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-sessions-unit-'));
  fs.writeFileSync(path.join(dir, 'admin.json'), JSON.stringify(GOOD));
  fs.writeFileSync(path.join(dir, 'member.json'), JSON.stringify(GOOD));
  fs.writeFileSync(path.join(dir, 'broken.json'), JSON.stringify({ cookies: [cookie({ httpOnly: 'yes' })], origins: [] }));
  fs.writeFileSync(path.join(dir, 'expired.json'), JSON.stringify({ cookies: [cookie({ expires: 1767225600 })], origins: [] }));
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'not a session');
  const root = makeRunRoot('sessions-unit');
  const args = (extra: Record<string, unknown> = {}) => captureArgs(root, 'http://127.0.0.1:9/app', `s-${Math.random()}.png`, extra);
  const evidence = () => (fs.existsSync(path.join(root, 'evidence')) ? fs.readdirSync(path.join(root, 'evidence')) : []);

  test('the folder lists NAME.json files only, sorted', () => {
    expect(sessionNames(dir)).toEqual(['admin', 'broken', 'expired', 'member']);
  });

  test('without a sessions folder, session is an unknown field, worded as for any other', () => {
    const planned = planCapture(args({ session: 'admin' }), {}, { sessions: {} });
    expect(planned).toEqual({
      kind: 'input',
      message: expect.stringMatching(/^unknown field 'session': provider accepts Runtime Object fields only \(schemaVersion, /),
    });
    expect((planned as { message: string }).message).not.toContain('session)');
  });

  test('an unknown session is refused naming the known names; a path is no name', () => {
    for (const given of ['nobody', '../admin', 42]) {
      const planned = planCapture(args({ session: given }), {}, { sessions: { sessionsDir: dir } });
      expect(planned).toEqual({
        kind: 'input',
        message: `session must name a saved session: one of 'admin', 'broken', 'expired', 'member' (got ${typeof given === 'string' ? `'${given}'` : given})`,
      });
    }
    expect(evidence()).toEqual([]);
  });

  test('a missing sessions folder is refused, naming it and the setting', () => {
    const planned = planCapture(args({ session: 'admin' }), {}, { sessions: { sessionsDir: path.join(dir, 'gone') } });
    expect(planned.kind).toBe('failed');
    expect((planned as { result: { error: string } }).result.error).toBe(
      `sessions folder ${path.join(dir, 'gone')} is missing (--sessions-dir or DESIGN_PLAYBOOK_SESSIONS_DIR)`,
    );
  });

  test('a session file out of shape fails the call naming the file and the field; no value in any word', () => {
    const planned = planCapture(args({ session: 'broken' }), {}, { sessions: { sessionsDir: dir } });
    expect(planned.kind).toBe('failed');
    const { result } = planned as { result: { error: string } };
    expect(result.error).toBe(
      `storage state ${path.join(dir, 'broken.json')}: cookies[0].httpOnly must be a boolean (got a string); expected Playwright's storageState shape`,
    );
    expect(JSON.stringify(planned)).not.toContain(SECRET);
  });

  test('an expired session plans with a warning naming the expiry; the request echoes the name only', () => {
    const planned = planCapture(args({ session: 'expired' }), {}, { sessions: { sessionsDir: dir } });
    expect(planned.kind).toBe('plan');
    if (planned.kind !== 'plan') return;
    expect(planned.warnings).toContain(
      "session 'expired': 1 of 1 cookie expired (earliest 2026-01-01T00:00:00Z); the capture may not be signed in: save the session again",
    );
    expect(planned.request.session).toBe('expired');
    expect(planned.start?.state.cookies).toHaveLength(1);
  });

  test('--storage-state applies to every call without a session; a session outranks it', () => {
    const file = path.join(dir, 'admin.json');
    const both = { storageState: file, sessionsDir: dir };
    expect(chooseSession({}, both)).toMatchObject({ ok: true, start: { label: 'storage state' } });
    expect(chooseSession({ session: 'member' }, both)).toMatchObject({ ok: true, start: { label: "session 'member'", session: 'member' } });
    expect(chooseSession({}, { storageState: path.join(dir, 'none.json') })).toEqual({
      ok: false,
      kind: 'failed',
      error: `storage state ${path.join(dir, 'none.json')}: no such file`,
    });
  });

  test('the flags outrank the environment; relative paths resolve against the working directory', () => {
    const env = { DESIGN_PLAYBOOK_SESSIONS_DIR: '/env/sessions', DESIGN_PLAYBOOK_STORAGE_STATE: 'state.json' };
    expect(sessionSettings({}, env)).toEqual({ sessionsDir: '/env/sessions', storageState: path.resolve('state.json') });
    expect(sessionSettings({ sessionsDir: '/flag/sessions' }, env).sessionsDir).toBe('/flag/sessions');
  });
});

describe('tools/list', () => {
  test('without a sessions folder the declaration is the original, byte for byte', () => {
    expect(JSON.stringify(captureToolDeclaration({}))).toBe(JSON.stringify(captureToolDeclaration()));
    expect(JSON.stringify(captureToolDeclaration())).not.toContain('session');
  });

  test('with one, session is offered in the input and echoed in the output request, nothing else changes', () => {
    const plain = captureToolDeclaration();
    const offered = captureToolDeclaration({ sessions: true });
    const input = offered.inputSchema as unknown as { properties: Record<string, { type?: string; pattern?: string }> };
    expect(input.properties.session).toMatchObject({ type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' });
    const output = offered.outputSchema as unknown as { properties: { request: { properties: Record<string, unknown> } } };
    expect(Object.keys(output.properties.request.properties)).toContain('session');
    const strip = (d: typeof plain) => ({ ...d, inputSchema: undefined, outputSchema: undefined });
    expect(strip(offered)).toEqual(strip(plain));
    const { session, ...rest } = input.properties;
    expect(session).toBeDefined();
    expect(rest).toEqual((plain.inputSchema as unknown as { properties: unknown }).properties);
  });
});

describe('the manifest line', () => {
  const line = (request: Record<string, unknown>) => ({
    criterion: 'L6.3',
    artifact: 'L6.3-admin.png',
    observed_state: 'signed-in',
    result: 'captured',
    ts: '2026-12-07T12:00:00Z',
    capture: { provider: 'design-playbook-evidence', type: 'screenshot', state: 'admin settings', artifact_path: 'evidence/L6.3-admin.png' },
    request: {
      schemaVersion: 1,
      viewport: { width: 800, height: 600, devicePixelRatio: 1, colorScheme: 'light' },
      freeze: { enabled: true, waitFonts: true, networkIdle: false },
      ...request,
    },
  });

  test("records the session by name, as the result's request echoes it; a path is no name", () => {
    expect(checkManifestLine(line({}))).toEqual([]);
    expect(checkManifestLine(line({ session: 'admin' }))).toEqual([]);
    expect(checkManifestLine(line({ session: '../admin.json' })).length).toBeGreaterThan(0);
  });
});
