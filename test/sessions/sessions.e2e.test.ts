/**
 * Sessions through the built program: `login` saves two roles, `doctor`
 * lists them (no value), the server started with --sessions-dir offers
 * `session` and captures each role through the MCP SDK client, refuses an
 * unknown one and keeps serving; without the flag tools/list is the
 * original's; `capture --session` and a `run` plan with `session` per line.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { execFile } from 'child_process';
import { BIN, captureArgs, closedPort, makeRunRoot, startServer, type RunningServer } from '../e2e/harness';
import { CHROMIUM_PATH } from '../helpers/browser';
import { captureToolDeclaration } from '../../src/contract/toolDeclaration';
import { serveSignInApp, UNTIL_CHECKED, type SignInApp } from './signInApp';

jest.setTimeout(180_000);

const VIEWPORT = { width: 800, height: 600, devicePixelRatio: 1, colorScheme: 'light' };

let app: SignInApp;
let dir: string;
let root: string;
const servers: RunningServer[] = [];

function bin(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, DESIGN_PLAYBOOK_CHROME_PATH: CHROMIUM_PATH, ...env } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const loginArgs = (user: string, file: string) => [
  'login',
  '--url',
  app.url('/login'),
  '--action',
  JSON.stringify({ do: 'fill', selector: '#user', value: user }),
  '--action',
  JSON.stringify({ do: 'fill', selector: '#password', value: app.passwords[user] }),
  '--action',
  JSON.stringify([
    { do: 'click', selector: '#go' },
    { do: 'wait_for_selector', selector: 'body[data-state="signed-in"]' },
  ]),
  '--save-storage',
  file,
];

/** Every value a saved state holds (cookie values, storage values): none may be printed. */
function valuesOf(file: string): string[] {
  const state = JSON.parse(fs.readFileSync(file, 'utf8'));
  return [
    ...state.cookies.map((c: { value: string }) => c.value),
    ...state.origins.flatMap((o: { localStorage: Array<{ value: string }> }) => o.localStorage.map((i) => i.value)),
  ];
}

beforeAll(async () => {
  app = await serveSignInApp();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-sessions-e2e-'));
  root = makeRunRoot('sessions-e2e');
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close().catch(() => undefined)));
  await app?.close();
});

test('login saves each role in Playwright format, mode 0600, printing origins and counts only', async () => {
  for (const user of ['admin', 'member']) {
    const file = path.join(dir, `${user}.json`);
    const { code, stdout, stderr } = await bin(loginArgs(user, file));
    expect({ code, stderr: stderr.replace(/^\[design-playbook-evidence\] launched .*\n/gm, '') }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(stdout)).toMatchObject({ saved: file, origins: [app.origin], cookies: 1, indexeddb_origins: 1, earliest_expiry: expect.any(String) });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    for (const value of valuesOf(file)) expect(stdout + stderr).not.toContain(value);
  }
  expect(fs.readdirSync(dir).sort()).toEqual(['admin.json', 'member.json']);
});

test('login that fails writes nothing and says why', async () => {
  const file = path.join(dir, 'nobody.json');
  const args = loginArgs('member', file);
  args[2] = `http://127.0.0.1:${await closedPort()}/login`;
  const { code, stderr } = await bin(args);
  expect(code).toBe(1);
  expect(stderr).toMatch(/login: the sign-in failed, nothing was written: /);
  expect(fs.existsSync(file)).toBe(false);
  expect(fs.readdirSync(dir).filter((f) => f.startsWith('.'))).toEqual([]);
});

test('login with --secrets types the password by name: signed in, and the value is in no output; an unknown name is refused before any browser', async () => {
  const secretsFile = path.join(dir, 'app.env');
  fs.writeFileSync(secretsFile, `ADMIN_PASSWORD=${app.passwords.admin}\n`, { mode: 0o600 });
  const file = path.join(dir, 'by-name', 'admin.json');
  fs.mkdirSync(path.dirname(file));
  const args = loginArgs('admin', file);
  args[args.indexOf(JSON.stringify({ do: 'fill', selector: '#password', value: app.passwords.admin }))] = JSON.stringify({
    do: 'fill',
    selector: '#password',
    secret: 'ADMIN_PASSWORD',
  });
  const { code, stdout, stderr } = await bin([...args, '--secrets', secretsFile]);
  expect({ code, stderr: stderr.replace(/^\[design-playbook-evidence\] launched .*\n/gm, '') }).toEqual({ code: 0, stderr: '' });
  expect(JSON.parse(stdout)).toMatchObject({ saved: file, origins: [app.origin], cookies: 1 });
  expect(stdout + stderr).not.toContain(app.passwords.admin);

  const unknown = loginArgs('admin', path.join(dir, 'by-name', 'never.json'));
  unknown[unknown.indexOf(JSON.stringify({ do: 'fill', selector: '#password', value: app.passwords.admin }))] = JSON.stringify({
    do: 'fill',
    selector: '#password',
    secret: 'ROOT_PASSWORD',
  });
  // A browser that cannot start shows the refusal comes before any browser would.
  const refused = await bin([...unknown, '--secrets', secretsFile], { DESIGN_PLAYBOOK_CHROME_PATH: '/nonexistent/chromium' });
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain('actions[1].secret: no secret named ROOT_PASSWORD; the secrets file names ADMIN_PASSWORD');
  expect(refused.stderr).not.toContain(app.passwords.admin);
  expect(fs.readdirSync(path.join(dir, 'by-name'))).toEqual(['admin.json']);
});

test('doctor lists the sessions: names, origins, cookie counts, earliest expiry, never a value', async () => {
  const { stdout } = await bin(['doctor', '--json', '--sessions-dir', dir]);
  const report = JSON.parse(stdout);
  expect(report.sessions.sessionsDir.sessions.map((s: { name: string; origins: string[]; cookies: number }) => [s.name, s.origins, s.cookies])).toEqual([
    ['admin', [app.origin], 1],
    ['member', [app.origin], 1],
  ]);
  expect(report.sessions.sessionsDir.sessions[0].earliestExpiry).toMatch(/^\d{4}-\d\d-\d\dT/);
  const text = (await bin(['doctor', '--sessions-dir', dir])).stdout;
  expect(text).toContain(`sessions:  2 in ${dir}`);
  for (const value of [...valuesOf(path.join(dir, 'admin.json')), ...valuesOf(path.join(dir, 'member.json'))]) expect(stdout + text).not.toContain(value);
});

describe('the server', () => {
  test('without a sessions folder tools/list is the original, byte for byte', async () => {
    const server = await startServer();
    servers.push(server);
    const { tools } = await server.client.listTools();
    expect(JSON.stringify(tools[0].inputSchema)).toBe(JSON.stringify(captureToolDeclaration().inputSchema));
    expect(JSON.stringify(tools[0].outputSchema)).toBe(JSON.stringify(captureToolDeclaration().outputSchema));
    expect(JSON.stringify(tools)).not.toContain('session');
    const refused = await server.client.callTool({
      name: 'execute_capture_plan',
      arguments: captureArgs(root, app.url('/app'), 'x.png', { session: 'admin' }),
    });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain("unknown field 'session'");
  });

  test('with --sessions-dir: session offered, each role captured signed in, per call; an unknown one refused naming the known; the server keeps serving', async () => {
    const server = await startServer({ args: ['--sessions-dir', dir] });
    servers.push(server);
    const { tools } = await server.client.listTools();
    expect((tools[0].inputSchema.properties as Record<string, unknown>).session).toMatchObject({ type: 'string' });
    const shot = (leaf: string, extra: Record<string, unknown> = {}) =>
      server.capture(captureArgs(root, app.url('/app'), leaf, { viewport: VIEWPORT, actions: UNTIL_CHECKED, ...extra }));
    const admin = await shot('e2e-admin.png', { session: 'admin' });
    const none = await shot('e2e-none.png');
    const member = await shot('e2e-member.png', { session: 'member' });
    expect([admin.observed_state, none.observed_state, member.observed_state]).toEqual(['signed-in', 'signed-out', 'signed-in']);
    expect([admin.request?.session, none.request?.session, member.request?.session]).toEqual(['admin', undefined, 'member']);
    const refused = await server.client.callTool({
      name: 'execute_capture_plan',
      arguments: captureArgs(root, app.url('/app'), 'e2e-x.png', { session: 'root' }),
    });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain("session must name a saved session: one of 'admin', 'member' (got 'root')");
    expect(fs.existsSync(path.join(root, 'evidence', 'e2e-x.png'))).toBe(false);
    expect((await shot('e2e-after.png', { session: 'admin' })).observed_state).toBe('signed-in');
    for (const value of [...valuesOf(path.join(dir, 'admin.json')), ...valuesOf(path.join(dir, 'member.json'))]) expect(server.stderr()).not.toContain(value);
  });
});

test('capture --session and a run plan with session per line', async () => {
  const viewport = ['--viewport', '800x600'];
  const captured = await bin([
    'capture',
    '--url',
    app.url('/app'),
    '--out',
    'evidence/cli-member.png',
    '--run-root',
    root,
    ...viewport,
    '--action',
    JSON.stringify(UNTIL_CHECKED),
    '--session',
    'member',
    '--sessions-dir',
    dir,
  ]);
  expect(JSON.parse(captured.stdout)).toMatchObject({ result: 'captured', observed_state: 'signed-in', request: { session: 'member' } });
  const plan = path.join(root, 'plan.jsonl');
  const line = (leaf: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify(captureArgs(root, app.url('/app'), leaf, { viewport: VIEWPORT, actions: UNTIL_CHECKED, ...extra }));
  fs.writeFileSync(plan, [line('run-admin.png', { session: 'admin' }), line('run-none.png'), line('run-member.png', { session: 'member' })].join('\n') + '\n');
  const ran = await bin(['run', plan, '--sessions-dir', dir]);
  const results = ran.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .filter((r) => r.line !== undefined)
    .sort((a, b) => a.line - b.line);
  expect(results.map((r) => [r.line, r.observed_state])).toEqual([
    [1, 'signed-in'],
    [2, 'signed-out'],
    [3, 'signed-in'],
  ]);
});

test('login --storage-state starts from a saved session and saves it again (a refresh): still signed in, the same sign-in', async () => {
  const other = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-sessions-refresh-'));
  const file = path.join(other, 'admin.json');
  const wait = JSON.stringify({ do: 'wait_for_selector', selector: 'body[data-state="signed-in"]' });
  const { code, stdout, stderr } = await bin([
    'login',
    '--url',
    app.url('/app'),
    '--action',
    wait,
    '--storage-state',
    path.join(dir, 'admin.json'),
    '--save-storage',
    file,
  ]);
  expect(stderr.replace(/^\[design-playbook-evidence\] launched .*\n/gm, '')).toBe('');
  expect(code).toBe(0);
  expect(JSON.parse(stdout)).toMatchObject({ saved: file, cookies: 1, indexeddb_origins: 1 });
  expect(valuesOf(file)).toEqual(valuesOf(path.join(dir, 'admin.json')));
});
