/**
 * Which Chrome/Chromium to launch, in a fixed order:
 *   1. the --executable-path flag;
 *   2. DESIGN_PLAYBOOK_CHROME_PATH;
 *   3. PUPPETEER_EXECUTABLE_PATH, then CHROME_PATH;
 *   4. the usual system locations;
 *   5. a browser in Puppeteer's cache (`npx puppeteer browsers install ...`).
 * A path named explicitly (1–3) that does not exist is an error, not a reason
 * to fall through to another browser. Nothing is ever downloaded.
 *
 * Among the system locations and Puppeteer's cache, a headless shell
 * (Debian's chromium-headless-shell, Chrome for Testing's
 * chrome-headless-shell) comes before the full browser. It is the same Blink
 * without the desktop browser around it, and the engine Playwright itself
 * uses for headless Chromium; a capture costs about a third of the CPU
 * (bench/engine.js: a new context, page, load and full-page PNG). A path
 * named explicitly is used as named, whichever kind it is.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ENVIRONMENT, envValue, type EnvKey } from '../../common/settings';
import { Browser as CachedBrowser, Cache, detectBrowserPlatform, type InstalledBrowser } from '@puppeteer/browsers';
import { EvidenceError } from '../../common/errors';

export interface FoundBrowser {
  executablePath: string;
  /** Where the path came from, e.g. `--executable-path`, `system location`. */
  source: string;
  /** A headless shell (launched in Puppeteer's 'shell' mode) rather than the full browser. */
  headlessShell: boolean;
}

/** Whether an executable is a headless shell, by its name (chromium-headless-shell, chrome-headless-shell[.exe]). */
export function isHeadlessShell(executablePath: string): boolean {
  return /headless[-_]shell(\.exe)?$/i.test(path.basename(executablePath));
}

/**
 * Debian's /usr/bin/chromium-headless-shell is a script that runs the binary
 * as its child without exec: a signal to the launched process (a kill, a
 * crash test) would stop the script and orphan the browser. The binary it
 * runs is launched instead — the same browser, whichever way it was named.
 */
const WRAPPED_BINARIES: Record<string, string> = {
  '/usr/bin/chromium-headless-shell': '/usr/lib/chromium/chromium-headless-shell',
};

function foundAt(named: string, source: string): FoundBrowser {
  const wrapped = WRAPPED_BINARIES[named];
  const executablePath = wrapped && isExecutableFile(wrapped) ? wrapped : named;
  return { executablePath, source, headlessShell: isHeadlessShell(executablePath) };
}

export class BrowserNotFoundError extends EvidenceError<'browser-not-found'> {
  constructor(message: string) {
    super('browser-not-found', message);
    this.name = 'BrowserNotFoundError';
  }
}

const LINUX_LOCATIONS = [
  // Debian's wrapper: launched as the binary it runs (WRAPPED_BINARIES).
  '/usr/bin/chromium-headless-shell',
  '/usr/bin/chrome-headless-shell',
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/usr/lib/chromium/chromium',
  '/snap/bin/chromium',
  '/opt/google/chrome/chrome',
];
const MAC_LOCATIONS = [
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome Canary.app/Contents/MacOS/Google Chrome Canary',
  '/Applications/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing',
];
function windowsLocations(env: NodeJS.ProcessEnv): string[] {
  const roots = [env['PROGRAMFILES'], env['PROGRAMFILES(X86)'], env.LOCALAPPDATA].filter((r): r is string => !!r);
  return roots.map((root) => path.join(root, 'Google', 'Chrome', 'Application', 'chrome.exe'));
}

/** The system locations searched, for this platform, in order. */
export function systemLocations(platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): string[] {
  if (platform === 'darwin') return MAC_LOCATIONS;
  if (platform === 'win32') return windowsLocations(env);
  return LINUX_LOCATIONS;
}

function isExecutableFile(p: string): boolean {
  try {
    if (!fs.statSync(p).isFile()) return false;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The browsers looked for in Puppeteer's cache, in order: the headless shell first. */
const CACHED_BROWSERS = [CachedBrowser.CHROMEHEADLESSSHELL, CachedBrowser.CHROME] as const;

/** Puppeteer's browser cache: PUPPETEER_CACHE_DIR, else ~/.cache/puppeteer (where `npx puppeteer browsers install` puts them). */
export function puppeteerCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return envValue(env, 'puppeteerCacheDir') || path.join(os.homedir(), '.cache', 'puppeteer');
}

/**
 * Browsers in Puppeteer's cache (`npx puppeteer browsers install chrome-headless-shell`)
 * for this platform: headless shells first, newest build first. The cache's
 * layout (folders per browser and build, the executable's path inside, the
 * version order) is read with @puppeteer/browsers, the library that writes it.
 */
export function puppeteerInstalledBrowsers(env: NodeJS.ProcessEnv = process.env): string[] {
  const platform = detectBrowserPlatform();
  let installed: InstalledBrowser[];
  try {
    installed = new Cache(puppeteerCacheDir(env)).getInstalledBrowsers();
  } catch {
    // an unreadable cache (a damaged .metadata file) holds no browser we can name
    return [];
  }
  return CACHED_BROWSERS.flatMap((browser) =>
    installed
      .filter((b) => b.browser === browser && b.platform === platform)
      .sort((a, b) => compareBuildIds(b.buildId, a.buildId))
      .map((b) => b.executablePath),
  );
}

/**
 * Orders Chrome build ids (`131.0.6778.85`) part by part, as numbers: 131
 * after 99. (@puppeteer/browsers' own comparator takes semver only, which a
 * four-part Chrome version is not.)
 */
export function compareBuildIds(a: string, b: string): number {
  const pa = a.split('.');
  const pb = b.split('.');
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? '';
    const y = pb[i] ?? '';
    const nx = Number(x);
    const ny = Number(y);
    const order = x !== '' && y !== '' && Number.isFinite(nx) && Number.isFinite(ny) ? nx - ny : x.localeCompare(y);
    if (order !== 0) return Math.sign(order);
  }
  return 0;
}

export function howToGetABrowser(): string {
  return (
    'install one (Debian/Ubuntu: `apt-get install chromium`; Fedora: `dnf install chromium`; macOS: install Google Chrome; ' +
    'or `npx puppeteer browsers install chrome`), point to it with --executable-path /path/to/chrome or ' +
    'DESIGN_PLAYBOOK_CHROME_PATH, or attach to a Chrome you run (`chrome --remote-debugging-port=9222`) with ' +
    '--browser-url http://127.0.0.1:9222 or DESIGN_PLAYBOOK_CDP_URL'
  );
}

export interface FindOptions {
  executablePath?: string;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  /** Test seam: the system locations to search. */
  locations?: string[];
  /** Test seam: Puppeteer's installed browsers. */
  puppeteerBrowsers?: () => string[];
}

/** The environment variables that name a browser, in the order they are read (after --executable-path). */
const BROWSER_PATH_SETTINGS: readonly EnvKey[] = ['chromePath', 'puppeteerExecutablePath', 'chromePathFallback'];
export const BROWSER_PATH_VARIABLES: readonly string[] = BROWSER_PATH_SETTINGS.map((key) => ENVIRONMENT[key].name);

export function findBrowser(options: FindOptions = {}): FoundBrowser {
  const env = options.env ?? process.env;
  const explicit: Array<[string | undefined, string]> = [
    [options.executablePath, '--executable-path'],
    ...BROWSER_PATH_SETTINGS.map((key): [string | undefined, string] => [envValue(env, key), ENVIRONMENT[key].name]),
  ];
  for (const [value, source] of explicit) {
    if (!value || !value.trim()) continue;
    const p = path.resolve(value.trim());
    if (isExecutableFile(p)) return foundAt(p, source);
    throw new BrowserNotFoundError(`${source} names ${p}, which is not an executable file; fix the path, or ${howToGetABrowser()}`);
  }
  const locations = options.locations ?? systemLocations(options.platform, env);
  for (const p of locations) if (isExecutableFile(p)) return foundAt(p, 'system location');
  const installed = (options.puppeteerBrowsers ?? (() => puppeteerInstalledBrowsers(env)))();
  for (const p of installed) if (isExecutableFile(p)) return foundAt(p, "Puppeteer's browser cache");
  throw new BrowserNotFoundError(
    `no Chrome or Chromium found (looked at ${['--executable-path', ...BROWSER_PATH_VARIABLES].join(', ')}, ` +
      `${locations.join(', ')} and Puppeteer's browser cache): ${howToGetABrowser()}`,
  );
}

/**
 * A browser that can show a window (`login --headed`): as findBrowser looks,
 * with headless shells left out; a setting that names one is refused, since
 * a headless shell has no window to show.
 */
export function findFullBrowser(options: FindOptions = {}): FoundBrowser {
  const env = options.env ?? process.env;
  const found = findBrowser({
    ...options,
    locations: (options.locations ?? systemLocations(options.platform, env)).filter((p) => !isHeadlessShell(p)),
    puppeteerBrowsers: () => (options.puppeteerBrowsers ?? (() => puppeteerInstalledBrowsers(env)))().filter((p) => !isHeadlessShell(p)),
  });
  if (found.headlessShell)
    throw new BrowserNotFoundError(
      `${found.source} names ${found.executablePath}, a headless shell, which has no window to show; name the full Chrome or Chromium for a visible browser`,
    );
  return found;
}
