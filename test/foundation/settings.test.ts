/**
 * The one flag/environment registry (src/common/settings.ts): every environment
 * variable the program reads is read through it, every name the program or
 * its docs mention is in it, every flag is parsed and documented from it,
 * and `doctor`'s list says which value is in force and where it came from.
 */
import * as fs from 'fs';
import * as path from 'path';
import { ENVIRONMENT, envValue, type EnvKey } from '../../src/common/settings';
import { FLAGS, COMMANDS, flagsOf, settingsInForce } from '../../src/cli/flags';
import { flagSpec, parseFlags, takeBrowserFlags, browserFlagsFrom, UsageError } from '../../src/cli/args';
import { usage } from '../../src/cli/commands';
import { CAPTURE_USAGE } from '../../src/cli/capture';
import { RUN_USAGE } from '../../src/cli/run';
import { STORIES_USAGE } from '../../src/cli/stories';
import { DOCTOR_USAGE } from '../../src/cli/doctor';
import { DEMO_USAGE } from '../../src/cli/demo';
import { REPORT_USAGE } from '../../src/cli/report';
import { COMPARE_USAGE } from '../../src/cli/compare';
import { MANIFEST_USAGE } from '../../src/cli/manifest';
import { LOGIN_USAGE } from '../../src/cli/login';
import { captureTimeoutMs, maxParallel, navigationTimeoutMs, settleMaxMs, connectPerCapture, attachTargets } from '../../src/browser/options';
import { findBrowser, puppeteerCacheDir } from '../../src/browser/fleet/findBrowser';

const REPO = path.resolve(__dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(REPO, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'generated') out.push(...sourceFiles(rel));
    } else if (entry.name.endsWith('.ts')) out.push(rel);
  }
  return out;
}

const SOURCES = [...sourceFiles('src'), ...sourceFiles('cdp')].map((file) => ({ file, text: fs.readFileSync(path.join(REPO, file), 'utf8') }));
const NAMES = new Set<string>(Object.values(ENVIRONMENT).map((e) => e.name));

/** Read from the environment, but system locations (Windows install folders), the browser's own temp folders and the display (`login --headed`), not settings. */
const NOT_SETTINGS = new Set(['PROGRAMFILES', 'PROGRAMFILES(X86)', 'LOCALAPPDATA', 'TMPDIR', 'TMP', 'TEMP', 'DISPLAY', 'WAYLAND_DISPLAY']);

describe('the environment', () => {
  test('no module reads a variable by its name: readers go through envValue', () => {
    const direct: string[] = [];
    for (const { file, text } of SOURCES) {
      if (file === 'src/common/settings.ts') continue;
      for (const match of text.matchAll(/\benv(?:\.([A-Z][A-Z0-9_]*)\b|\[\s*'([^']+)'\s*\])/g)) {
        const name = match[1] ?? match[2];
        if (!NOT_SETTINGS.has(name)) direct.push(`${file}: ${match[0]}`);
      }
    }
    expect(direct).toEqual([]);
  });

  test('every DESIGN_PLAYBOOK_* name in the sources and the docs is a registered setting', () => {
    const docs = [
      'README.md',
      ...fs
        .readdirSync(path.join(REPO, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    const texts = [...SOURCES, ...docs.map((file) => ({ file, text: fs.readFileSync(path.join(REPO, file), 'utf8') }))];
    const unknown: string[] = [];
    for (const { file, text } of texts) {
      for (const [name] of text.matchAll(/\bDESIGN_PLAYBOOK_[A-Z0-9_]+/g)) {
        // The CI clients' variables (scripts/ci-clients.sh) are the test suite's, not the program's.
        if (!NAMES.has(name) && !/^DESIGN_PLAYBOOK_(INSPECTOR|PYTHON)$/.test(name)) unknown.push(`${file}: ${name}`);
      }
    }
    expect(unknown).toEqual([]);
  });

  test('each variable is read by the module the registry names', () => {
    for (const [key, setting] of Object.entries(ENVIRONMENT)) {
      const reader = SOURCES.find((s) => s.file === setting.readBy);
      expect({ key, readBy: reader ? setting.readBy : `${setting.readBy} (missing)` }).toEqual({ key, readBy: setting.readBy });
      expect({ key, reads: new RegExp(`envValue\\([^)]*'${key}'|'${key}'`).test(reader!.text) }).toEqual({ key, reads: true });
    }
  });

  test('the readers take the registered variables and fall back to the registered defaults', () => {
    const env = (key: EnvKey, value: string) => ({ [ENVIRONMENT[key].name]: value });
    expect(captureTimeoutMs(env('captureTimeoutMs', '1234'))).toBe(1234);
    expect(String(captureTimeoutMs({}))).toBe(ENVIRONMENT.captureTimeoutMs.default);
    expect(navigationTimeoutMs(env('navigationTimeoutMs', '77'))).toBe(77);
    expect(String(navigationTimeoutMs({}))).toBe(ENVIRONMENT.navigationTimeoutMs.default);
    expect(settleMaxMs(env('settleMaxMs', '900'))).toBe(900);
    expect(String(settleMaxMs({}))).toBe(ENVIRONMENT.settleMaxMs.default);
    expect(maxParallel(env('maxParallel', '3'))).toBe(3);
    expect(String(maxParallel({}))).toBe(ENVIRONMENT.maxParallel.default);
    expect(connectPerCapture({}, env('connectPerCapture', '1'))).toBe(true);
    expect(attachTargets({}, env('cdpUrl', 'http://127.0.0.1:9,ws://127.0.0.1:8/x')).map((t) => t.source)).toEqual([
      ENVIRONMENT.cdpUrl.name,
      ENVIRONMENT.cdpUrl.name,
    ]);
    expect(puppeteerCacheDir(env('puppeteerCacheDir', '/tmp/cache-here'))).toBe('/tmp/cache-here');
    expect(envValue(env('runRoot', '/x'), 'runRoot')).toBe('/x');
    // A browser path variable naming something that is not an executable is refused under its own name.
    expect(() => findBrowser({ env: env('chromePath', '/nonexistent/chrome') })).toThrow(`${ENVIRONMENT.chromePath.name} names`);
  });
});

describe('the flags', () => {
  test('a flag is registered once per mode', () => {
    const seen = new Set<string>();
    for (const flag of FLAGS) {
      for (const command of flag.commands) {
        const key = `${command} --${flag.name}`;
        expect(seen.has(key) ? key : 'once').toBe('once');
        seen.add(key);
      }
    }
  });

  test("each mode's help lists exactly the flags the parser accepts", () => {
    const helps: Record<string, string> = {
      serve: usage(),
      capture: CAPTURE_USAGE,
      run: RUN_USAGE,
      stories: STORIES_USAGE,
      doctor: DOCTOR_USAGE,
      demo: DEMO_USAGE,
      report: REPORT_USAGE,
      compare: COMPARE_USAGE,
      'manifest check': MANIFEST_USAGE,
      login: LOGIN_USAGE,
    };
    for (const command of COMMANDS) {
      const listed = [...helps[command].matchAll(/^ {2}(--[a-z-]+)/gm)].map((m) => m[1].slice(2)).sort();
      const own = Object.keys(flagSpec(command));
      const browser =
        command === 'capture' ||
        command === 'run' ||
        command === 'stories' ||
        command === 'doctor' ||
        command === 'demo' ||
        command === 'serve' ||
        command === 'login'
          ? flagsOf(command)
              .filter((f) => f.browser)
              .map((f) => f.name)
          : [];
      // The bare command's own switches (--help, --version) are listed in its usage lines, not as flag rows.
      const expected = command === 'serve' ? [...browser, ...own.filter((f) => f !== 'help' && f !== 'version')] : [...own, ...browser];
      expect({ command, listed }).toEqual({ command, listed: [...new Set(expected)].sort() });
    }
    for (const [name] of Object.entries(ENVIRONMENT).map(([, e]) => [e.name])) expect(usage()).toContain(name);
  });

  test('the parsers accept what the registry says and refuse the rest', () => {
    const captured = parseFlags(['--url', 'u', '--action', '{}', '--action', '[]', '--overwrite'], flagSpec('capture'));
    expect(captured.values).toEqual({ url: ['u'], action: ['{}', '[]'] });
    expect([...captured.switches]).toEqual(['overwrite']);
    expect(() => parseFlags(['--parallel', '2'], flagSpec('capture'))).toThrow(UsageError);
    expect(parseFlags(['--parallel', '2'], flagSpec('run')).values).toEqual({ parallel: ['2'] });
    expect(() => parseFlags(['--url', 'a', '--url', 'b'], flagSpec('capture'))).toThrow('--url given more than once');
  });

  test('every browser flag lands in its BrowserFlags field', () => {
    const argv = [
      '--executable-path',
      '/c',
      '--browser-url',
      'http://a:1',
      '--ws-endpoint=ws://b:2/x',
      '--connect-per-capture',
      '--fixed-time',
      '2026-01-01T00:00:00Z',
      '--browser-session',
      '--auto-connect',
      'run',
      'p',
    ];
    const taken = takeBrowserFlags(argv);
    expect(taken.rest).toEqual(['run', 'p']);
    expect(browserFlagsFrom(taken.browser)).toEqual({
      executablePath: '/c',
      browserUrls: ['http://a:1'],
      wsEndpoints: ['ws://b:2/x'],
      connectPerCapture: true,
      fixedTime: '2026-01-01T00:00:00Z',
      browserSession: true,
      autoConnect: true,
    });
    // --auto-connect takes the folder when one follows it (not a flag, not a command).
    expect(browserFlagsFrom(takeBrowserFlags(['--auto-connect', '/p/chrome', 'doctor']).browser).autoConnect).toBe('/p/chrome');
    expect(browserFlagsFrom(takeBrowserFlags(['--auto-connect=/p/c', 'doctor']).browser).autoConnect).toBe('/p/c');
    expect(takeBrowserFlags(['--auto-connect', 'doctor']).rest).toEqual(['doctor']);
    expect(takeBrowserFlags(['--auto-connect', '--browser-session']).browser).toMatchObject({ 'auto-connect': true, 'browser-session': true });
  });
});

describe('settings in force (doctor)', () => {
  const byName = (list: ReturnType<typeof settingsInForce>) => Object.fromEntries(list.map((s) => [s.name, s]));

  test('a flag outranks the variable, the variable outranks the default', () => {
    const env = { [ENVIRONMENT.fixedTime.name]: '2026-05-05T00:00:00Z', [ENVIRONMENT.maxParallel.name]: '2', [ENVIRONMENT.chromePath.name]: '/env/chrome' };
    const shown = byName(settingsInForce({ fixedTime: '2026-01-01T00:00:00Z', executablePath: '/flag/chrome' }, env));
    expect(shown[ENVIRONMENT.fixedTime.name]).toEqual({ name: ENVIRONMENT.fixedTime.name, value: '2026-01-01T00:00:00Z', from: '--fixed-time' });
    expect(shown[ENVIRONMENT.chromePath.name]).toMatchObject({ value: '/flag/chrome', from: '--executable-path' });
    expect(shown[ENVIRONMENT.maxParallel.name]).toMatchObject({ value: '2', from: ENVIRONMENT.maxParallel.name });
    expect(shown[ENVIRONMENT.captureTimeoutMs.name]).toMatchObject({ value: ENVIRONMENT.captureTimeoutMs.default, from: 'default' });
    expect(byName(settingsInForce({ parallel: 7 }, env))[ENVIRONMENT.maxParallel.name]).toMatchObject({ value: '7', from: '--parallel' });
    expect(Object.keys(shown)).toEqual(Object.values(ENVIRONMENT).map((e) => e.name));
  });

  test("the doctor hides an address's token", async () => {
    const { doctorReport } = await import('../../src/cli/doctor');
    // An address nothing listens on: the browser check fails fast; the settings are listed all the same.
    const report = await doctorReport(
      { [ENVIRONMENT.cdpUrl.name]: 'ws://127.0.0.1:9/devtools/browser/x?token=s3cret', [ENVIRONMENT.captureTimeoutMs.name]: '2000' },
      {},
    );
    const cdp = report.settings.find((s) => s.name === ENVIRONMENT.cdpUrl.name)!;
    expect(cdp.from).toBe(ENVIRONMENT.cdpUrl.name);
    expect(cdp.value).toContain('token=***');
    expect(JSON.stringify(report)).not.toContain('s3cret');
  }, 60_000);
});
