/**
 * The browser layer's pure parts: where the browser comes from (in order,
 * with explicit paths never silently skipped), attach addresses, the env
 * limits, key combos, the CLI's viewport and argument mapping, the limiter.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  findBrowser,
  BrowserNotFoundError,
  compareBuildIds,
  isHeadlessShell,
  puppeteerInstalledBrowsers,
  systemLocations,
} from '../../src/browser/fleet/findBrowser';
import { attachTarget, parseCdpUrl, captureTimeoutMs, maxParallel } from '../../src/browser/options';
import { splitKeyCombo } from '../../src/browser/capture/actionRunner';
import { Limiter } from '../../src/browser/fleet/limiter';
import { captureArguments, parseViewportFlag } from '../../src/cli/capture';
import { takeBrowserFlags } from '../../src/cli/args';

describe('findBrowser', () => {
  let dir: string;
  const exe = (name: string) => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, '#!/bin/sh\n');
    fs.chmodSync(p, 0o755);
    return p;
  };
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-find-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('takes the first source in the documented order', () => {
    const all = {
      flag: exe('flag'),
      dp: exe('dp'),
      pup: exe('pup'),
      chrome: exe('chrome'),
      system: exe('system'),
      cache: exe('cache'),
    };
    const base = { locations: [all.system], puppeteerBrowsers: () => [all.cache] };
    const env = { DESIGN_PLAYBOOK_CHROME_PATH: all.dp, PUPPETEER_EXECUTABLE_PATH: all.pup, CHROME_PATH: all.chrome };
    expect(findBrowser({ ...base, executablePath: all.flag, env })).toEqual({ executablePath: all.flag, source: '--executable-path', headlessShell: false });
    expect(findBrowser({ ...base, env })).toEqual({ executablePath: all.dp, source: 'DESIGN_PLAYBOOK_CHROME_PATH', headlessShell: false });
    expect(findBrowser({ ...base, env: { PUPPETEER_EXECUTABLE_PATH: all.pup, CHROME_PATH: all.chrome } }).source).toBe('PUPPETEER_EXECUTABLE_PATH');
    expect(findBrowser({ ...base, env: { CHROME_PATH: all.chrome } }).source).toBe('CHROME_PATH');
    expect(findBrowser({ ...base, env: {} })).toEqual({ executablePath: all.system, source: 'system location', headlessShell: false });
    expect(findBrowser({ locations: [path.join(dir, 'absent')], puppeteerBrowsers: () => [all.cache], env: {} })).toEqual({
      executablePath: all.cache,
      source: "Puppeteer's browser cache",
      headlessShell: false,
    });
  });

  test('a headless shell comes before the full browser on Linux, but a named path is used as named', () => {
    const locations = systemLocations('linux');
    expect(locations.indexOf('/usr/bin/chromium-headless-shell')).toBeLessThan(locations.indexOf('/usr/bin/chromium'));
    expect(locations.indexOf('/usr/bin/chrome-headless-shell')).toBeLessThan(locations.indexOf('/usr/bin/google-chrome'));
    const fsDir = fs.mkdtempSync(path.join(dir, 'shell-'));
    const shell = path.join(fsDir, 'chromium-headless-shell');
    const full = path.join(fsDir, 'chromium');
    for (const p of [shell, full]) {
      fs.writeFileSync(p, '#!/bin/sh\n');
      fs.chmodSync(p, 0o755);
    }
    expect(findBrowser({ env: {}, locations: [shell, full], puppeteerBrowsers: () => [] })).toEqual({
      executablePath: shell,
      source: 'system location',
      headlessShell: true,
    });
    expect(findBrowser({ env: { DESIGN_PLAYBOOK_CHROME_PATH: full }, locations: [shell, full], puppeteerBrowsers: () => [] })).toEqual({
      executablePath: full,
      source: 'DESIGN_PLAYBOOK_CHROME_PATH',
      headlessShell: false,
    });
    expect(isHeadlessShell('C:\\Chrome\\chrome-headless-shell.exe'.replace(/\\/g, '/'))).toBe(true);
    expect(isHeadlessShell('/opt/chrome-headless-shell-linux64/chrome-headless-shell')).toBe(true);
    expect(isHeadlessShell('/usr/bin/google-chrome')).toBe(false);
  });

  (process.platform === 'linux' && process.arch === 'x64' ? test : test.skip)(
    "Puppeteer's cache: a headless shell before Chrome, newest build first, this platform's only",
    () => {
      const cache = fs.mkdtempSync(path.join(dir, 'cache-'));
      const put = (rel: string) => {
        const p = path.join(cache, rel);
        fs.mkdirSync(path.dirname(p), { recursive: true });
        fs.writeFileSync(p, '#!/bin/sh\n');
        fs.chmodSync(p, 0o755);
        return p;
      };
      const chrome = put('chrome/linux-130.0.6723.58/chrome-linux64/chrome');
      // 99 before 131 as text, after it as a version: the newer build comes first.
      const shellOld = put('chrome-headless-shell/linux-99.0.4844.51/chrome-headless-shell-linux64/chrome-headless-shell');
      const shellNew = put('chrome-headless-shell/linux-131.0.6778.85/chrome-headless-shell-linux64/chrome-headless-shell');
      // Another platform's build, and a folder that is no build, are not offered.
      put('chrome-headless-shell/mac_arm-132.0.6834.83/chrome-headless-shell-mac-arm64/chrome-headless-shell');
      put('chrome-headless-shell/notabuild/chrome-headless-shell');
      expect(puppeteerInstalledBrowsers({ PUPPETEER_CACHE_DIR: cache })).toEqual([shellNew, shellOld, chrome]);
      expect(findBrowser({ env: { PUPPETEER_CACHE_DIR: cache }, locations: [] })).toEqual({
        executablePath: shellNew,
        source: "Puppeteer's browser cache",
        headlessShell: true,
      });
    },
  );

  test('a cache that does not exist or cannot be read offers no browser', () => {
    expect(puppeteerInstalledBrowsers({ PUPPETEER_CACHE_DIR: path.join(dir, 'no-cache-here') })).toEqual([]);
    const damaged = fs.mkdtempSync(path.join(dir, 'damaged-'));
    fs.mkdirSync(path.join(damaged, 'chrome', 'linux-131.0.6778.85'), { recursive: true });
    fs.writeFileSync(path.join(damaged, 'chrome', '.metadata'), '{not json');
    expect(puppeteerInstalledBrowsers({ PUPPETEER_CACHE_DIR: damaged })).toEqual([]);
  });

  test('build ids order part by part as numbers', () => {
    expect(compareBuildIds('131.0.6778.85', '99.0.4844.51')).toBe(1);
    expect(compareBuildIds('131.0.6778.9', '131.0.6778.85')).toBe(-1);
    expect(compareBuildIds('131.0.6778.85', '131.0.6778.85')).toBe(0);
    expect(compareBuildIds('131.0', '131.0.1')).toBe(-1);
  });

  const debianShell = fs.existsSync('/usr/lib/chromium/chromium-headless-shell') && fs.existsSync('/usr/bin/chromium-headless-shell');
  (debianShell ? test : test.skip)("Debian's headless-shell wrapper, named, launches the binary it runs (a signal must reach the browser)", () => {
    expect(findBrowser({ env: { DESIGN_PLAYBOOK_CHROME_PATH: '/usr/bin/chromium-headless-shell' } })).toEqual({
      executablePath: '/usr/lib/chromium/chromium-headless-shell',
      source: 'DESIGN_PLAYBOOK_CHROME_PATH',
      headlessShell: true,
    });
  });

  test('a named path that is missing is an error naming its source, not a fall-through', () => {
    const system = exe('system');
    expect(() => findBrowser({ env: { DESIGN_PLAYBOOK_CHROME_PATH: path.join(dir, 'nope') }, locations: [system], puppeteerBrowsers: () => [] })).toThrow(
      /DESIGN_PLAYBOOK_CHROME_PATH names .*nope, which is not an executable file/,
    );
    const plain = path.join(dir, 'not-executable');
    fs.writeFileSync(plain, '');
    fs.chmodSync(plain, 0o644);
    expect(() => findBrowser({ executablePath: plain, env: {}, locations: [system], puppeteerBrowsers: () => [] })).toThrow(/--executable-path/);
  });

  test('none found: the error says how to get one', () => {
    let error: unknown;
    try {
      findBrowser({ env: {}, locations: [path.join(dir, 'absent')], puppeteerBrowsers: () => [] });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(BrowserNotFoundError);
    const message = (error as Error).message;
    expect(message).toContain('apt-get install chromium');
    expect(message).toContain('--executable-path');
    expect(message).toContain('--browser-url');
    expect(message).toContain('DESIGN_PLAYBOOK_CDP_URL');
  });
});

describe('attach addresses and limits', () => {
  test('either CDP URL form is read, flags outrank the environment', () => {
    expect(parseCdpUrl('http://127.0.0.1:9222', 'x')).toEqual({ kind: 'browser-url', url: 'http://127.0.0.1:9222', source: 'x' });
    expect(parseCdpUrl('localhost:9222', 'x')).toEqual({ kind: 'browser-url', url: 'http://localhost:9222', source: 'x' });
    expect(parseCdpUrl(' ws://127.0.0.1:9222/devtools/browser/abc ', 'x')).toEqual({
      kind: 'ws-endpoint',
      url: 'ws://127.0.0.1:9222/devtools/browser/abc',
      source: 'x',
    });
    expect(() => parseCdpUrl('ftp://nope', 'DESIGN_PLAYBOOK_CDP_URL')).toThrow(/DESIGN_PLAYBOOK_CDP_URL must be/);
    const env = { DESIGN_PLAYBOOK_CDP_URL: 'ws://127.0.0.1:1/devtools/browser/x' };
    expect(attachTarget({}, env)?.source).toBe('DESIGN_PLAYBOOK_CDP_URL');
    expect(attachTarget({ browserUrls: ['http://127.0.0.1:2'] }, env)).toEqual({ kind: 'browser-url', url: 'http://127.0.0.1:2', source: '--browser-url' });
    expect(attachTarget({}, {})).toBeNull();
  });

  test('the budget and parallelism come from the environment, with defaults', () => {
    expect(captureTimeoutMs({})).toBe(50000);
    expect(captureTimeoutMs({ DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS: '2500' })).toBe(2500);
    expect(maxParallel({})).toBe(4);
    expect(maxParallel({ DESIGN_PLAYBOOK_MAX_PARALLEL: '2' })).toBe(2);
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(maxParallel({ DESIGN_PLAYBOOK_MAX_PARALLEL: 'lots' })).toBe(4);
    expect(stderr).toHaveBeenCalledWith(expect.stringContaining('DESIGN_PLAYBOOK_MAX_PARALLEL=lots'));
    stderr.mockRestore();
  });
});

test('key combos split like Playwright', () => {
  expect(splitKeyCombo('Enter')).toEqual(['Enter']);
  expect(splitKeyCombo('Shift+ArrowDown')).toEqual(['Shift', 'ArrowDown']);
  expect(splitKeyCombo('+')).toEqual(['+']);
  expect(splitKeyCombo('Shift++')).toEqual(['Shift', '+']);
  expect(splitKeyCombo('ControlOrMeta+a')).toEqual([process.platform === 'darwin' ? 'Meta' : 'Control', 'a']);
});

test('the limiter never runs more than its limit and serves waiters in order', async () => {
  const limiter = new Limiter(2);
  let running = 0;
  let peak = 0;
  const order: number[] = [];
  const gates = Array.from({ length: 5 }, () => {
    let open!: () => void;
    const promise = new Promise<void>((resolve) => (open = resolve));
    return { promise, open };
  });
  const jobs = gates.map(async (gate, i) => {
    const release = await limiter.acquire();
    order.push(i);
    running++;
    peak = Math.max(peak, running);
    await gate.promise;
    running--;
    release();
  });
  await new Promise((resolve) => setImmediate(resolve));
  expect(limiter.running).toBe(2);
  expect(limiter.queued).toBe(3);
  for (const gate of gates) {
    gate.open();
    await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all(jobs);
  expect(peak).toBe(2);
  expect(order).toEqual([0, 1, 2, 3, 4]);
  expect(limiter.running).toBe(0);
});

describe('CLI argument mapping', () => {
  test('viewport flag', () => {
    expect(parseViewportFlag('1280x800')).toEqual({ width: 1280, height: 800, devicePixelRatio: 1 });
    expect(parseViewportFlag('390x844@3')).toEqual({ width: 390, height: 844, devicePixelRatio: 3 });
    expect(parseViewportFlag('800x600@1.5')).toEqual({ width: 800, height: 600, devicePixelRatio: 1.5 });
    expect(() => parseViewportFlag('wide')).toThrow(/--viewport must look like/);
  });

  test('capture flags become tool arguments', () => {
    const args = captureArguments([
      '--url',
      'http://127.0.0.1:1/',
      '--out',
      'evidence/x.png',
      '--action',
      '{"do":"click","selector":"#a"}',
      '--action=[{"do":"wait","ms":5},{"do":"press","key":"Enter"}]',
      '--color-scheme',
      'dark',
      '--run-root',
      'rel/run',
      '--design',
      '{"radii":[4]}',
      '--overwrite',
      '--network-idle',
    ]);
    expect(args).toEqual({
      schemaVersion: 1,
      url: 'http://127.0.0.1:1/',
      type: 'screenshot',
      state: 'default',
      actions: [
        { do: 'click', selector: '#a' },
        { do: 'wait', ms: 5 },
        { do: 'press', key: 'Enter' },
      ],
      artifact_path: 'evidence/x.png',
      viewport: { width: 1280, height: 800, devicePixelRatio: 1, colorScheme: 'dark' },
      freeze: { enabled: true, waitFonts: true, networkIdle: true },
      overwrite: true,
      run_root: path.resolve('rel/run'),
      design: { radii: [4] },
    });
    expect(() => captureArguments(['--url', 'x'])).toThrow(/--out is required/);
    expect(() => captureArguments(['--url', 'x', '--out', 'y', '--bogus'])).toThrow(/unknown option --bogus/);
    expect(() => captureArguments(['--url', 'x', '--out', 'y', '--action', '{oops'])).toThrow(/--action is not valid JSON/);
  });

  test('browser flags are taken from anywhere in argv', () => {
    expect(takeBrowserFlags(['--browser-url', 'http://h:1', 'capture', '--executable-path=/c', '--url', 'u'])).toEqual({
      browser: { 'browser-url': ['http://h:1'], 'ws-endpoint': [], 'connect-per-capture': false, 'browser-session': false, 'executable-path': '/c' },
      rest: ['capture', '--url', 'u'],
    });
    // Endpoints repeat (a pool), in the order given; --connect-per-capture is a switch.
    expect(
      takeBrowserFlags(['run', '--browser-url=http://a:1', 'p.jsonl', '--connect-per-capture', '--browser-url', 'http://b:2', '--ws-endpoint', 'ws://c:3/x'])
        .browser,
    ).toEqual({
      'browser-url': ['http://a:1', 'http://b:2'],
      'ws-endpoint': ['ws://c:3/x'],
      'connect-per-capture': true,
      'browser-session': false,
    });
    expect(() => takeBrowserFlags(['--connect-per-capture=yes'])).toThrow(/takes no value/);
    expect(() => takeBrowserFlags(['--ws-endpoint'])).toThrow(/needs a value/);
  });
});
