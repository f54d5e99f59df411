/**
 * --auto-connect and --browser-session as options: the platform's Chrome
 * folder, the DevToolsActivePort file read as chrome-devtools-mcp reads it,
 * the targets and the refusals; and how a failed auto-connect is worded.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { attachTargets, autoConnectTarget, browserSessionMode, defaultChromeUserDataDir } from '../../src/browser/options';
import { autoConnectFailure, ConnectFailure, readDevToolsActivePort } from '../../src/browser/fleet/endpointConnection';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-auto-connect-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

test("the platform's Chrome folder: Linux google-chrome (chromium when only it runs with a port file), macOS, Windows", () => {
  const none = () => false;
  expect(defaultChromeUserDataDir({}, 'linux', '/home/u', none)).toBe('/home/u/.config/google-chrome');
  expect(defaultChromeUserDataDir({}, 'linux', '/home/u', (f) => f === '/home/u/.config/chromium/DevToolsActivePort')).toBe('/home/u/.config/chromium');
  expect(defaultChromeUserDataDir({}, 'darwin', '/Users/u', none)).toBe('/Users/u/Library/Application Support/Google/Chrome');
  expect(defaultChromeUserDataDir({ LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, 'win32', 'C:\\Users\\u', none)).toBe(
    'C:\\Users\\u\\AppData\\Local\\Google\\Chrome\\User Data',
  );
});

test('DevToolsActivePort: the port on its first line and the browser path on its second make the ws address on 127.0.0.1', () => {
  const file = path.join(tmp, 'DevToolsActivePort');
  fs.writeFileSync(file, '9333\n/devtools/browser/1f2e-3d\n');
  expect(readDevToolsActivePort(file)).toBe('ws://127.0.0.1:9333/devtools/browser/1f2e-3d');
  fs.writeFileSync(file, 'x\n/devtools/browser/1\n');
  expect(() => readDevToolsActivePort(file)).toThrow(/first line is not a port/);
  fs.writeFileSync(file, '9333\n');
  expect(() => readDevToolsActivePort(file)).toThrow(/second line/);
  expect(() => readDevToolsActivePort(path.join(tmp, 'none', 'DevToolsActivePort'))).toThrow(/does not exist/);
});

test('the targets: --auto-connect DIR, the variable (a folder or 1), and the combinations refused', () => {
  const flagged = attachTargets({ autoConnect: tmp }, {});
  expect(flagged).toEqual([
    expect.objectContaining({ kind: 'auto-connect', source: '--auto-connect', file: path.join(tmp, 'DevToolsActivePort'), userDataDir: tmp }),
  ]);
  expect(autoConnectTarget({}, { DESIGN_PLAYBOOK_AUTO_CONNECT: tmp })).toMatchObject({ source: 'DESIGN_PLAYBOOK_AUTO_CONNECT', userDataDir: tmp });
  expect(autoConnectTarget({}, { DESIGN_PLAYBOOK_AUTO_CONNECT: '1' })).toMatchObject({ userDataDir: defaultChromeUserDataDir({}) });
  expect(autoConnectTarget({}, { DESIGN_PLAYBOOK_AUTO_CONNECT: '0' })).toBeNull();
  expect(autoConnectTarget({}, {})).toBeNull();
  expect(() => attachTargets({ autoConnect: true, browserUrls: ['http://127.0.0.1:9222'] }, {})).toThrow(/--auto-connect finds the browser itself/);
  expect(() => attachTargets({}, { DESIGN_PLAYBOOK_AUTO_CONNECT: '1', DESIGN_PLAYBOOK_CDP_URL: '127.0.0.1:9222' })).toThrow(/both set/);
  // A flag outranks the other variable.
  expect(attachTargets({ browserUrls: ['http://127.0.0.1:9222'] }, { DESIGN_PLAYBOOK_AUTO_CONNECT: '1' })).toEqual([
    expect.objectContaining({ kind: 'browser-url' }),
  ]);
});

test('the browser session: asked for with an attached browser, implied by --auto-connect, refused without one', () => {
  expect(browserSessionMode({}, {})).toBe(false);
  expect(browserSessionMode({ browserUrls: ['http://127.0.0.1:9222'] }, {})).toBe(false);
  expect(browserSessionMode({ browserUrls: ['http://127.0.0.1:9222'], browserSession: true }, {})).toBe(true);
  expect(browserSessionMode({}, { DESIGN_PLAYBOOK_CDP_URL: '127.0.0.1:9222', DESIGN_PLAYBOOK_BROWSER_SESSION: '1' })).toBe(true);
  expect(browserSessionMode({ autoConnect: tmp }, {})).toBe(true);
  expect(() => browserSessionMode({ browserSession: true }, {})).toThrow(/--browser-session .*--browser-url.*--auto-connect/);
  expect(() => browserSessionMode({}, { DESIGN_PLAYBOOK_BROWSER_SESSION: '1' })).toThrow(/no browser is attached/);
});

test('a failed auto-connect names the file and what to do; a refused port is called stale', () => {
  const file = path.join(tmp, 'DevToolsActivePort');
  fs.writeFileSync(file, '9\n/devtools/browser/x\n');
  const stale = autoConnectFailure(file, new ConnectFailure({ kind: 'refused', address: '127.0.0.1:9', code: 'ECONNREFUSED' }));
  expect(stale.message).toContain(`${file} names a port (ws://127.0.0.1:9) where no Chrome answers`);
  expect(stale.message).toContain('stale');
  expect(stale.message).toContain('--remote-debugging-port=9222');
  expect(stale.message).toContain('chrome://inspect/#remote-debugging');
  expect(stale.summary).not.toContain('chrome://inspect');
});
