/**
 * Every setting the program takes from outside a tool call: the command-line
 * flags of each mode (serving MCP and each subcommand) and the environment
 * variables. One row each, with its meaning, its default and who reads it.
 * The flag parsers build their specs from FLAGS, the environment readers
 * read through `envValue`, and `--help`, `doctor` and the README's tables
 * (scripts/generate-docs.js) print these rows, so no name or default is
 * spelled twice. Parsing a value stays with its reader (src/browser/options.ts,
 * src/runRoot.ts, src/browser/fleet/findBrowser.ts, ...).
 */
import { CAPTURE_TYPES } from '../contract/captureTypes';
import { COLOR_SCHEMES } from '../contract/captureContract';
import { DEFAULT_CAPTURE_TIMEOUT_MS, DEFAULT_SETTLE_MAX_MS, NAVIGATION_BUDGET_MS } from './time';

/** Captures at once per browser when neither --parallel nor DESIGN_PLAYBOOK_MAX_PARALLEL says. */
export const DEFAULT_MAX_PARALLEL = 4;

/** How the bundled provider reaches a browser, as the flags (or a library caller) give it. */
export interface BrowserFlags {
  /** --executable-path: the Chrome/Chromium binary to launch. */
  executablePath?: string;
  /** --browser-url http://host:port (repeatable): attach, resolving the WebSocket through /json/version. */
  browserUrls?: string[];
  /** --ws-endpoint ws://… (repeatable): attach directly. */
  wsEndpoints?: string[];
  /** One --browser-url, as library callers set it before the pool (kept; same as a one-entry browserUrls). */
  browserUrl?: string;
  /** One --ws-endpoint (kept; same as a one-entry wsEndpoints). */
  wsEndpoint?: string;
  /** --connect-per-capture: connect, capture, disconnect (services that hand out a browser per connection). */
  connectPerCapture?: boolean;
  /** Captures at once per browser (the batch runner's --parallel); outranks DESIGN_PLAYBOOK_MAX_PARALLEL. */
  parallel?: number;
  /** --fixed-time <ISO 8601 instant>: start every capture's Date there and seed Math.random. */
  fixedTime?: string;
}

export interface EnvSetting {
  name: string;
  meaning: string;
  /** What applies when it is unset, in words (absent: nothing). */
  default?: string;
  /** The module that reads it (test/foundation/settings.test.ts checks it does, through envValue). */
  readBy: string;
}

/** The environment variables, by the key their readers pass to envValue. */
export const ENVIRONMENT = {
  runRoot: {
    name: 'DESIGN_PLAYBOOK_RUN_ROOT',
    meaning: "where evidence lands: the run folder (relative: against the working directory at start); a call's `run_root` outranks it",
    default: 'the working directory',
    readBy: 'src/boundary/runRoot.ts',
  },
  chromePath: {
    name: 'DESIGN_PLAYBOOK_CHROME_PATH',
    meaning: 'the browser to launch, used as named',
    default: "a headless shell in the system locations, else a full browser, else Puppeteer's cache",
    readBy: 'src/browser/fleet/findBrowser.ts',
  },
  puppeteerExecutablePath: {
    name: 'PUPPETEER_EXECUTABLE_PATH',
    meaning: "the browser to launch when DESIGN_PLAYBOOK_CHROME_PATH is unset (Puppeteer's own variable)",
    readBy: 'src/browser/fleet/findBrowser.ts',
  },
  chromePathFallback: {
    name: 'CHROME_PATH',
    meaning: 'the browser to launch, after PUPPETEER_EXECUTABLE_PATH',
    readBy: 'src/browser/fleet/findBrowser.ts',
  },
  puppeteerCacheDir: {
    name: 'PUPPETEER_CACHE_DIR',
    meaning: "Puppeteer's browser cache, searched last for an installed browser (its headless shell first, newest first)",
    default: '~/.cache/puppeteer',
    readBy: 'src/browser/fleet/findBrowser.ts',
  },
  chromeArgs: {
    name: 'DESIGN_PLAYBOOK_CHROME_ARGS',
    meaning: 'extra launch flags for a launched browser, separated by spaces',
    readBy: 'src/browser/fleet/browserSession.ts',
  },
  cdpUrl: {
    name: 'DESIGN_PLAYBOOK_CDP_URL',
    meaning: 'attach instead of launching (`http://host:port` or `ws://…`; a comma-separated list is a pool)',
    default: 'launch a browser',
    readBy: 'src/browser/options.ts',
  },
  connectPerCapture: {
    name: 'DESIGN_PLAYBOOK_CONNECT_PER_CAPTURE',
    meaning: '`1`: connect, capture, disconnect (browser-farm services that hand out a browser per connection)',
    default: 'off',
    readBy: 'src/browser/options.ts',
  },
  maxParallel: {
    name: 'DESIGN_PLAYBOOK_MAX_PARALLEL',
    meaning: 'captures run at once per browser (the rest queue)',
    default: String(DEFAULT_MAX_PARALLEL),
    readBy: 'src/browser/options.ts',
  },
  captureTimeoutMs: {
    name: 'DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS',
    meaning: 'whole-capture budget, in ms; kept under the 60 s request timeout of MCP clients: raise the client timeout with it (see Timeouts)',
    default: String(DEFAULT_CAPTURE_TIMEOUT_MS),
    readBy: 'src/browser/options.ts',
  },
  navigationTimeoutMs: {
    name: 'DESIGN_PLAYBOOK_NAVIGATION_TIMEOUT_MS',
    meaning: 'page-load budget, in ms',
    default: String(NAVIGATION_BUDGET_MS),
    readBy: 'src/browser/options.ts',
  },
  settleMaxMs: {
    name: 'DESIGN_PLAYBOOK_SETTLE_MAX_MS',
    meaning: 'page time, in ms, a capture lets a page run before taking it as it stands when it never comes to rest',
    default: String(DEFAULT_SETTLE_MAX_MS),
    readBy: 'src/browser/options.ts',
  },
  fixedTime: {
    name: 'DESIGN_PLAYBOOK_FIXED_TIME',
    meaning: "an ISO 8601 instant (`2026-01-01T09:00:00Z`): every capture's `Date` starts there and `Math.random` is seeded",
    default: 'pages see the real date',
    readBy: 'src/browser/options.ts',
  },
} as const satisfies Record<string, EnvSetting>;

export type EnvKey = keyof typeof ENVIRONMENT;

/** The variable's value as set (undefined when unset); every reader of the environment goes through here. */
export function envValue(env: NodeJS.ProcessEnv, key: EnvKey): string | undefined {
  return env[ENVIRONMENT[key].name];
}

/** The program's modes: serving MCP (no subcommand) and each subcommand. */
export const COMMANDS = ['serve', 'capture', 'run', 'doctor', 'demo', 'report', 'manifest check'] as const;
export type Command = (typeof COMMANDS)[number];
const SUBCOMMANDS_ONLY = COMMANDS.filter((c) => c !== 'serve');

export interface FlagSetting {
  /** Without the dashes. */
  name: string;
  /** A one-letter alias, with its dash (`-h`). */
  alias?: string;
  /** The value's placeholder (`--url URL`); absent for a switch. */
  value?: string;
  /** May be given more than once (each value kept, in order). */
  repeat?: boolean;
  /** The modes that accept it. */
  commands: readonly Command[];
  meaning: string;
  default?: string;
  /** The environment variable it outranks. */
  env?: EnvKey;
  /** A browser flag: taken out of argv in every mode (src/cli/args.ts), into this BrowserFlags field. */
  browser?: 'executablePath' | 'browserUrls' | 'wsEndpoints' | 'connectPerCapture' | 'fixedTime';
}

const ALL: readonly Command[] = COMMANDS;

/** Every flag, in the order help lists them. */
export const FLAGS: readonly FlagSetting[] = [
  // Browser flags, every mode.
  {
    name: 'executable-path',
    value: 'PATH',
    commands: ALL,
    browser: 'executablePath',
    env: 'chromePath',
    meaning: `Chrome/Chromium to launch (else ${[ENVIRONMENT.chromePath, ENVIRONMENT.puppeteerExecutablePath, ENVIRONMENT.chromePathFallback].map((e) => e.name).join(', ')}, system locations, Puppeteer's browser cache)`,
  },
  {
    name: 'browser-url',
    value: 'URL',
    repeat: true,
    commands: ALL,
    browser: 'browserUrls',
    env: 'cdpUrl',
    meaning: 'attach to a running Chrome: http://127.0.0.1:9222; repeat it for a pool of browsers, each capture on the least loaded',
  },
  {
    name: 'ws-endpoint',
    value: 'URL',
    repeat: true,
    commands: ALL,
    browser: 'wsEndpoints',
    env: 'cdpUrl',
    meaning: `attach to a running Chrome: ws://127.0.0.1:9222/devtools/browser/… (or set ${ENVIRONMENT.cdpUrl.name} to either form, a comma-separated list for a pool); repeats like --browser-url`,
  },
  {
    name: 'connect-per-capture',
    commands: ALL,
    browser: 'connectPerCapture',
    env: 'connectPerCapture',
    meaning: `connect, capture, disconnect: for services that hand out a fresh browser per connection (${ENVIRONMENT.connectPerCapture.name}=1)`,
  },
  {
    name: 'fixed-time',
    value: 'INSTANT',
    commands: ALL,
    browser: 'fixedTime',
    env: 'fixedTime',
    meaning: `start every capture's Date at this ISO 8601 instant (2026-01-01T09:00:00Z) and seed Math.random, for byte-identical evidence (or ${ENVIRONMENT.fixedTime.name})`,
  },
  // capture
  { name: 'url', value: 'URL', commands: ['capture'], meaning: 'page to capture (http(s)://, file://, about:)' },
  { name: 'type', value: 'TYPE', commands: ['capture'], default: 'screenshot', meaning: CAPTURE_TYPES.map((t) => `'${t}'`).join(', ') },
  { name: 'out', value: 'PATH', commands: ['capture'], meaning: 'artifact_path under evidence/, e.g. evidence/home.png' },
  { name: 'state', value: 'S', commands: ['capture'], default: '"default"', meaning: 'the expected state, intent only' },
  {
    name: 'action',
    value: 'JSON',
    repeat: true,
    commands: ['capture'],
    meaning: 'an action object, repeatable, in order: --action \'{"do":"click","selector":"#save"}\' (a JSON array of actions is accepted too)',
  },
  { name: 'viewport', value: 'WxH[@DPR]', commands: ['capture'], default: '1280x800@1', meaning: 'viewport size and device pixel ratio' },
  { name: 'color-scheme', value: 'S', commands: ['capture'], default: 'light', meaning: COLOR_SCHEMES.join(', ') },
  {
    name: 'run-root',
    value: 'DIR',
    commands: ['capture'],
    env: 'runRoot',
    meaning: `run folder holding plan.md or point-back.md (else ${ENVIRONMENT.runRoot.name}, else the working directory)`,
  },
  { name: 'design', value: 'JSON', commands: ['capture'], meaning: 'declared token scales, e.g. \'{"fontSizes":[14,16],"radii":[4,8]}\'' },
  { name: 'overwrite', commands: ['capture'], meaning: 'replace an existing artifact' },
  { name: 'no-freeze', commands: ['capture'], meaning: 'skip the freeze (animations, fonts)' },
  { name: 'no-wait-fonts', commands: ['capture'], meaning: 'do not wait for web fonts' },
  { name: 'network-idle', commands: ['capture'], meaning: 'wait for network idle after load and after the actions' },
  // run
  {
    name: 'run-root',
    value: 'DIR',
    commands: ['run'],
    env: 'runRoot',
    meaning: `run folder holding plan.md or point-back.md, for lines without their own run_root (else ${ENVIRONMENT.runRoot.name}, else the working directory)`,
  },
  {
    name: 'parallel',
    value: 'N',
    commands: ['run'],
    env: 'maxParallel',
    default: `${ENVIRONMENT.maxParallel.name}, else ${DEFAULT_MAX_PARALLEL}`,
    meaning: 'captures at once per browser; with several --browser-url/--ws-endpoint, N on each',
  },
  { name: 'skip-existing', commands: ['run'], meaning: 'skip lines whose artifact is already there (re-run a half-finished plan)' },
  // doctor, manifest check
  { name: 'json', commands: ['doctor', 'manifest check'], meaning: 'print the report as JSON' },
  // demo, report
  {
    name: 'out',
    value: 'DIR',
    commands: ['demo'],
    default: './demo-run; plan.md marks it',
    meaning: 'the demo run folder',
  },
  { name: 'file', commands: ['demo'], meaning: 'load the page from file:// instead of a 127.0.0.1 server' },
  {
    name: 'out',
    value: 'DIR',
    commands: ['report'],
    default: 'RUN_ROOT/report',
    meaning: 'where to write the report; replaced on each build, so it must be new, empty or an earlier report',
  },
  // every mode
  { name: 'help', alias: '-h', commands: ALL, meaning: 'this help' },
  { name: 'version', alias: '-v', commands: ['serve'], meaning: 'the package version' },
];

/** The flags `command` accepts, browser flags included unless asked not to. */
export function flagsOf(command: Command, options: { browser?: boolean } = {}): FlagSetting[] {
  return FLAGS.filter((f) => f.commands.includes(command) && (options.browser !== false || !f.browser));
}

/** The browser flags (every mode takes them). */
export function browserFlagSettings(): FlagSetting[] {
  return FLAGS.filter((f) => f.browser);
}

/** `arg` is this flag, spelled `--name` or by its alias. */
export function isFlag(arg: string | undefined, name: string): boolean {
  const flag = FLAGS.find((f) => f.name === name);
  return !!flag && (arg === `--${flag.name}` || (flag.alias !== undefined && arg === flag.alias));
}

/** Subcommands only (not serving MCP): which ones take `flag`. */
export function subcommandsTaking(flag: FlagSetting): Command[] {
  return SUBCOMMANDS_ONLY.filter((c) => flag.commands.includes(c));
}

/** One setting as `doctor` shows it: its value in force and where that came from. */
export interface SettingInForce {
  name: string;
  /** The value given, or the default in words ('' when unset without one). */
  value: string;
  /** `--flag`, the variable's name, or `default`. */
  from: string;
}

/** The value each environment setting has under `flags` and `env` (flags outrank the environment), unparsed; `show` rewrites values (hides secrets). */
export function settingsInForce(flags: BrowserFlags, env: NodeJS.ProcessEnv, show: (key: EnvKey, value: string) => string = (_, v) => v): SettingInForce[] {
  return (Object.keys(ENVIRONMENT) as EnvKey[]).map((key) => {
    const setting: EnvSetting = ENVIRONMENT[key];
    for (const flag of FLAGS) {
      if (flag.env !== key || !flag.browser) continue;
      const given = flags[flag.browser];
      if (given === undefined || given === false || (Array.isArray(given) && given.length === 0)) continue;
      const value = Array.isArray(given) ? given.join(',') : String(given);
      return { name: setting.name, value: show(key, value), from: `--${flag.name}` };
    }
    if (key === 'maxParallel' && flags.parallel !== undefined) return { name: setting.name, value: String(flags.parallel), from: '--parallel' };
    const raw = envValue(env, key);
    if (raw !== undefined && raw.trim() !== '') return { name: setting.name, value: show(key, raw), from: setting.name };
    return { name: setting.name, value: setting.default ?? '', from: 'default' };
  });
}
