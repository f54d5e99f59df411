/**
 * How the bundled provider reaches a browser: the CLI flags (server mode and
 * subcommands alike) and the environment. Flags outrank the environment.
 * Which flags and variables exist is src/common/settings.ts's; the reading and
 * checking of their values is here.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { pathToFileURL } from 'url';
import { DEFAULT_CAPTURE_TIMEOUT_MS, DEFAULT_SETTLE_MAX_MS, NAVIGATION_BUDGET_MS } from '../common/time';
import { redactUrl } from '../common/redact';
import { DEFAULT_MAX_PARALLEL, ENVIRONMENT, envValue, type BrowserFlags, type EnvKey } from '../common/settings';
import { log } from '../common/log';

export type { BrowserFlags } from '../common/settings';

export type AttachTarget =
  | { kind: 'browser-url'; url: string; source: string }
  | { kind: 'ws-endpoint'; url: string; source: string }
  /** --auto-connect: `url` is the DevToolsActivePort file's file:// address; the WebSocket is read from it at each connect. */
  | { kind: 'auto-connect'; url: string; source: string; file: string; userDataDir: string };

/** The file a Chrome started with remote debugging writes into its user data folder: its port, then its browser WebSocket path. */
export const DEVTOOLS_ACTIVE_PORT = 'DevToolsActivePort';

/**
 * The platform's Chrome user data folder (where chrome-devtools-mcp's
 * --autoConnect looks too): Linux ~/.config/google-chrome, else
 * ~/.config/chromium when only that one holds a DevToolsActivePort; macOS
 * ~/Library/Application Support/Google/Chrome; Windows
 * %LOCALAPPDATA%\Google\Chrome\User Data.
 */
export function defaultChromeUserDataDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = os.homedir(),
  exists: (file: string) => boolean = fs.existsSync,
): string {
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Google', 'Chrome');
  if (platform === 'win32') return path.win32.join(env.LOCALAPPDATA || path.win32.join(home, 'AppData', 'Local'), 'Google', 'Chrome', 'User Data');
  const config = path.join(home, '.config');
  const chrome = path.join(config, 'google-chrome');
  const chromium = path.join(config, 'chromium');
  return !exists(path.join(chrome, DEVTOOLS_ACTIVE_PORT)) && exists(path.join(chromium, DEVTOOLS_ACTIVE_PORT)) ? chromium : chrome;
}

/** The --auto-connect target (flag, else DESIGN_PLAYBOOK_AUTO_CONNECT); null when neither asks for it. */
export function autoConnectTarget(given: BrowserFlags, env: NodeJS.ProcessEnv = process.env): AttachTarget | null {
  let dir: string | null = null;
  let source: string;
  if (given.autoConnect !== undefined && given.autoConnect !== false) {
    source = '--auto-connect';
    if (given.autoConnect !== true) dir = given.autoConnect;
  } else {
    const raw = (envValue(env, 'autoConnect') ?? '').trim();
    if (!raw || /^(0|false|no)$/i.test(raw)) return null;
    source = ENVIRONMENT.autoConnect.name;
    if (!/^(1|true|yes)$/i.test(raw)) dir = raw;
  }
  const userDataDir = path.resolve(dir === null ? defaultChromeUserDataDir(env) : dir.replace(/^~(?=$|[/\\])/, os.homedir()));
  const file = path.join(userDataDir, DEVTOOLS_ACTIVE_PORT);
  return { kind: 'auto-connect', url: pathToFileURL(file).href, source, file, userDataDir };
}

export { DEFAULT_MAX_PARALLEL } from '../common/settings';

/**
 * A CDP URL in either form: ws(s):// as is, http(s):// or bare host:port as a
 * browser URL. Either form may carry credentials (`?token=…`, userinfo);
 * they travel with the address (endpointConnection.ts keeps them on the
 * /json/version look-up) and are hidden wherever the address is printed.
 */
export function parseCdpUrl(value: string, source: string): AttachTarget {
  const url = value.trim();
  const refuse = (rule: string) => new Error(`${source} must be ${rule} (got '${redactUrl(value)}')`);
  const form = 'an http://host:port browser URL or a ws:// endpoint';
  let kind: AttachTarget['kind'];
  let address = url;
  if (/^wss?:\/\//i.test(url)) kind = 'ws-endpoint';
  else if (/^https?:\/\//i.test(url)) kind = 'browser-url';
  else if (/^[^/\s?#]+:\d+(?:\/?[?][^\s#]*)?$/.test(url)) {
    kind = 'browser-url';
    address = `http://${url}`;
  } else throw refuse(form);
  try {
    if (!new URL(address).hostname) throw new Error('no host');
  } catch {
    throw refuse(`${form} with a host name`);
  }
  return { kind, url: address, source };
}

/**
 * The browsers to attach to: every --ws-endpoint and --browser-url given, else
 * the comma-separated DESIGN_PLAYBOOK_CDP_URL; none = launch one. The same
 * address given twice is one endpoint.
 */
export function attachTargets(given: BrowserFlags, env: NodeJS.ProcessEnv = process.env): AttachTarget[] {
  const fromFlags = [
    ...(given.wsEndpoints ?? []).map((url) => parseCdpUrl(url, '--ws-endpoint')),
    ...(given.browserUrls ?? []).map((url) => parseCdpUrl(url, '--browser-url')),
  ];
  const autoFlag = given.autoConnect !== undefined && given.autoConnect !== false;
  if (autoFlag && fromFlags.length) throw new Error('--auto-connect finds the browser itself: give it, or --browser-url/--ws-endpoint, not both');
  if (autoFlag) return [autoConnectTarget(given, env)!];
  const fromEnv = fromFlags.length
    ? []
    : (envValue(env, 'cdpUrl') ?? '')
        .split(',')
        .filter((entry) => entry.trim())
        .map((entry) => parseCdpUrl(entry, ENVIRONMENT.cdpUrl.name));
  const auto = fromFlags.length ? null : autoConnectTarget(given, env);
  if (auto && fromEnv.length) throw new Error(`${ENVIRONMENT.autoConnect.name} and ${ENVIRONMENT.cdpUrl.name} are both set: keep one`);
  const targets = fromFlags.length ? fromFlags : auto ? [auto] : fromEnv;
  const seen = new Set<string>();
  return targets.filter((t) => !seen.has(t.url) && seen.add(t.url));
}

/** Attach when a flag or DESIGN_PLAYBOOK_CDP_URL says so (the first endpoint); null = launch. */
export function attachTarget(given: BrowserFlags, env: NodeJS.ProcessEnv = process.env): AttachTarget | null {
  return attachTargets(given, env)[0] ?? null;
}

/** Thrown when a flag asks for an attached browser's session and nothing attaches. */
export const BROWSER_SESSION_NEEDS_ATTACH =
  "--browser-session runs captures in an attached browser's own tabs, and no browser is attached: add --browser-url http://127.0.0.1:9222, --ws-endpoint ws://…, or --auto-connect (or set DESIGN_PLAYBOOK_CDP_URL), or drop --browser-session (DESIGN_PLAYBOOK_BROWSER_SESSION) to capture in a launched browser";

/** --browser-session, or DESIGN_PLAYBOOK_BROWSER_SESSION=1 (whether or not a browser is attached). */
export function browserSessionAsked(given: BrowserFlags, env: NodeJS.ProcessEnv = process.env): boolean {
  return !!given.browserSession || /^(1|true|yes)$/i.test((envValue(env, 'browserSession') ?? '').trim());
}

/**
 * Captures run in the attached browser's default context (its cookies and
 * logins): --browser-session or DESIGN_PLAYBOOK_BROWSER_SESSION=1, and
 * always with --auto-connect (the user's own Chrome is found to capture what
 * it is signed into). Throws (BROWSER_SESSION_NEEDS_ATTACH) when asked for
 * without an attached browser.
 */
export function browserSessionMode(given: BrowserFlags, env: NodeJS.ProcessEnv = process.env): boolean {
  const asked = browserSessionAsked(given, env);
  const targets = attachTargets(given, env);
  if (asked && !targets.length) throw new Error(BROWSER_SESSION_NEEDS_ATTACH);
  return asked || targets.some((t) => t.kind === 'auto-connect');
}

/** --connect-per-capture, or DESIGN_PLAYBOOK_CONNECT_PER_CAPTURE=1. */
export function connectPerCapture(given: BrowserFlags, env: NodeJS.ProcessEnv = process.env): boolean {
  if (given.connectPerCapture) return true;
  return /^(1|true|yes)$/i.test((envValue(env, 'connectPerCapture') ?? '').trim());
}

function positiveIntegerEnv(env: NodeJS.ProcessEnv, key: EnvKey, fallback: number): number {
  const raw = envValue(env, key);
  const name = ENVIRONMENT[key].name;
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    log(`warning: ${name}=${raw} is not a positive integer; using ${fallback}`);
    return fallback;
  }
  return value;
}

/** The whole-capture budget (DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS, default 50000). */
export function captureTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  return positiveIntegerEnv(env, 'captureTimeoutMs', DEFAULT_CAPTURE_TIMEOUT_MS);
}

/** The page load's budget (DESIGN_PLAYBOOK_NAVIGATION_TIMEOUT_MS, default NAVIGATION_BUDGET_MS). */
export function navigationTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  return positiveIntegerEnv(env, 'navigationTimeoutMs', NAVIGATION_BUDGET_MS);
}

/** How many captures run at once (--parallel, else DESIGN_PLAYBOOK_MAX_PARALLEL, default 4). */
export function maxParallel(env: NodeJS.ProcessEnv = process.env, given: BrowserFlags = {}): number {
  if (given.parallel !== undefined) return given.parallel;
  return positiveIntegerEnv(env, 'maxParallel', DEFAULT_MAX_PARALLEL);
}

/** A fixed clock the operator asked for: every capture's Date starts at `epochMs`. */
export interface FixedTime {
  /** The instant, normalized (toISOString). */
  iso: string;
  epochMs: number;
  /** Where it was set: --fixed-time or DESIGN_PLAYBOOK_FIXED_TIME. */
  source: string;
}

/** A date, a time and an offset (Z or ±hh:mm), as RFC 3339 / ISO 8601 write an instant. */
const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;

export function parseFixedTime(value: string, source: string): FixedTime {
  const match = ISO_INSTANT.exec(value.trim());
  const fail = () =>
    new Error(
      `${source} must be an ISO 8601 instant with a date, a time and an offset, such as 2026-01-01T09:00:00Z or 2026-01-01T09:00:00+02:00 (got '${value}')`,
    );
  if (!match) throw fail();
  const [, y, mo, d, h, mi, sec = '0', frac = '0', , sign, oh = '0', om = '0'] = match;
  const fields = [Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec)];
  const wall = new Date(Date.UTC(fields[0], fields[1], fields[2], fields[3], fields[4], fields[5]));
  // Date.UTC rolls 2026-02-31 over to March; an instant that does not exist as written is refused.
  const asWritten = [wall.getUTCFullYear(), wall.getUTCMonth(), wall.getUTCDate(), wall.getUTCHours(), wall.getUTCMinutes(), wall.getUTCSeconds()];
  if (asWritten.some((n, i) => n !== fields[i]) || Number(oh) > 23 || Number(om) > 59) throw fail();
  const offsetMs = (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) * 60_000;
  const epochMs = wall.getTime() + Math.round(Number(`0.${frac}`) * 1000) - (sign ? offsetMs : 0);
  return { iso: new Date(epochMs).toISOString(), epochMs, source };
}

/** The fixed clock in force (--fixed-time outranks DESIGN_PLAYBOOK_FIXED_TIME); null = pages see the real date. Throws on a malformed value. */
export function fixedTime(given: BrowserFlags = {}, env: NodeJS.ProcessEnv = process.env): FixedTime | null {
  if (given.fixedTime !== undefined) return parseFixedTime(given.fixedTime, '--fixed-time');
  const fromEnv = envValue(env, 'fixedTime');
  if (fromEnv !== undefined && fromEnv.trim() !== '') return parseFixedTime(fromEnv, ENVIRONMENT.fixedTime.name);
  return null;
}

/** Page time the settle may run before the capture takes the page as it stands (DESIGN_PLAYBOOK_SETTLE_MAX_MS, default 5000). */
export function settleMaxMs(env: NodeJS.ProcessEnv = process.env): number {
  return positiveIntegerEnv(env, 'settleMaxMs', DEFAULT_SETTLE_MAX_MS);
}
