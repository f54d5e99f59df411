/**
 * The command-line flags of each mode (serving MCP and each subcommand), one
 * row each with its meaning, its default and the environment variable it
 * outranks (src/common/settings.ts). The flag parsers build their specs from
 * FLAGS, and `--help`, `doctor` and docs/reference.md's tables
 * (scripts/generate-docs.js) print these rows, so no name or default is
 * spelled twice.
 */
import { CAPTURE_TYPES } from '../contract/captureTypes';
import { COLOR_SCHEMES } from '../contract/captureContract';
import { DEFAULT_MAX_PARALLEL, ENVIRONMENT, envValue, type BrowserFlags, type EnvKey, type EnvSetting } from '../common/settings';

/** The program's modes: serving MCP (no subcommand) and each subcommand. */
export const COMMANDS = ['serve', 'capture', 'run', 'stories', 'doctor', 'demo', 'report', 'compare', 'manifest check', 'login'] as const;
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
  /** The value may be left out (`--auto-connect` or `--auto-connect DIR`): the next argument is its value unless it is a flag or a command. */
  optionalValue?: boolean;
  /** A browser flag: taken out of argv in every mode (src/cli/args.ts), into this BrowserFlags field. */
  browser?:
    | 'executablePath'
    | 'browserUrls'
    | 'wsEndpoints'
    | 'connectPerCapture'
    | 'fixedTime'
    | 'secrets'
    | 'browserSession'
    | 'autoConnect'
    | 'storageState'
    | 'sessionsDir';
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
    name: 'auto-connect',
    value: '[USER_DATA_DIR]',
    optionalValue: true,
    commands: ALL,
    browser: 'autoConnect',
    env: 'autoConnect',
    meaning:
      "attach to the Chrome running on this user data folder (default: the platform's Chrome folder) through its DevToolsActivePort file, as chrome-devtools-mcp's --autoConnect; implies --browser-session",
  },
  {
    name: 'browser-session',
    commands: ALL,
    browser: 'browserSession',
    env: 'browserSession',
    meaning: `with an attached browser: each capture runs in a new tab of its default context, with its cookies and logins, and the tab is closed after (${ENVIRONMENT.browserSession.name}=1); without it an attached browser's captures stay isolated`,
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
  {
    name: 'secrets',
    value: 'FILE',
    commands: ALL,
    browser: 'secrets',
    env: 'secrets',
    meaning: `a dotenv file (NAME=value lines) of secrets fill and type may name instead of a value: {"do":"fill","selector":"#password","secret":"NAME"}; no value is written to any artifact, result or log (or ${ENVIRONMENT.secrets.name})`,
  },
  {
    name: 'storage-state',
    value: 'FILE',
    commands: ALL,
    browser: 'storageState',
    env: 'storageState',
    meaning: `start every capture from this Playwright storageState file: its cookies, localStorage and IndexedDB (or ${ENVIRONMENT.storageState.name}; docs/sessions.md)`,
  },
  {
    name: 'sessions-dir',
    value: 'DIR',
    commands: ALL,
    browser: 'sessionsDir',
    env: 'sessionsDir',
    meaning: `a folder of NAME.json storageState files; a call names one with \`session\` (or ${ENVIRONMENT.sessionsDir.name}; docs/sessions.md)`,
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
  { name: 'session', value: 'NAME', commands: ['capture'], meaning: 'start from the saved session NAME of --sessions-dir (the `session` argument)' },
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
  // stories
  { name: 'list', commands: ['stories'], meaning: 'print the stories (id, title, name, tags; skipped ones with the reason) as JSON lines instead of the plan' },
  { name: 'story', value: 'ID', repeat: true, commands: ['stories'], meaning: 'only this story (its exact id); repeatable' },
  {
    name: 'include',
    value: 'GLOB',
    repeat: true,
    commands: ['stories'],
    meaning: 'only stories whose title or id matches (Components/**, *--primary); repeatable',
  },
  { name: 'exclude', value: 'GLOB', repeat: true, commands: ['stories'], meaning: 'leave out stories whose title or id matches; repeatable' },
  { name: 'tag', value: 'TAG', repeat: true, commands: ['stories'], meaning: 'only stories carrying one of these tags; repeatable' },
  { name: 'exclude-tag', value: 'TAG', repeat: true, commands: ['stories'], meaning: 'leave out stories carrying this tag; repeatable' },
  { name: 'opted-out', commands: ['stories'], meaning: "also capture stories opted out of tests with tags: ['!test'] (skipped otherwise)" },
  { name: 'types', value: 'LIST', commands: ['stories'], default: 'screenshot', meaning: `capture types, comma-separated: ${CAPTURE_TYPES.join(', ')}` },
  {
    name: 'viewport',
    value: 'WxH[@DPR]',
    repeat: true,
    commands: ['stories'],
    default: '1280x800@1',
    meaning: 'viewport size and device pixel ratio; repeatable',
  },
  { name: 'color-scheme', value: 'S', repeat: true, commands: ['stories'], default: 'light', meaning: `${COLOR_SCHEMES.join(', ')}; repeatable` },
  {
    name: 'design',
    value: 'FILE',
    commands: ['stories'],
    meaning: 'a JSON file of declared token scales ({"fontSizes":[14,16],"colors":[…],"radii":[4,8]}) every capture is bound to',
  },
  { name: 'globals', value: 'K:V;…', commands: ['stories'], meaning: 'Storybook globals for every story, as its URL takes them (theme:dark)' },
  { name: 'args', value: 'K:V;…', commands: ['stories'], meaning: 'Storybook args for every story, as its URL takes them (label:Hi;primary:!true)' },
  { name: 'base-url', value: 'URL', commands: ['stories'], meaning: 'where a built folder is served, for a plan written without --run' },
  { name: 'plan', value: 'FILE', commands: ['stories'], default: 'standard output', meaning: 'write the plan to FILE' },
  {
    name: 'run',
    commands: ['stories'],
    meaning: 'also run the plan into --out (a built folder is served on 127.0.0.1 meanwhile), write the manifest and the run report',
  },
  {
    name: 'fresh-loads',
    commands: ['stories'],
    meaning: 'load every story on a fresh page; by default a story may be switched to in a preview kept loaded, when it leaves the page as a fresh load would',
  },
  {
    name: 'out',
    value: 'RUN_ROOT',
    commands: ['stories'],
    meaning: 'the run folder of --run; made and marked with plan.md when new; a run that stopped resumes there',
  },
  {
    name: 'parallel',
    value: 'N',
    commands: ['stories'],
    env: 'maxParallel',
    default: `${ENVIRONMENT.maxParallel.name}, else ${DEFAULT_MAX_PARALLEL}`,
    meaning: 'captures at once per browser',
  },
  {
    name: 'baseline',
    value: 'RUN_ROOT',
    commands: ['stories'],
    meaning: "compare the new run with this earlier one (into RUN_ROOT/compare); exit status is compare's",
  },
  // login
  { name: 'url', value: 'URL', commands: ['login'], meaning: 'the page to sign in on (http(s)://)' },
  {
    name: 'action',
    value: 'JSON',
    repeat: true,
    commands: ['login'],
    meaning: 'an action object, repeatable, in order, as capture takes them: --action \'{"do":"fill","selector":"#user","value":"admin"}\'',
  },
  {
    name: 'save-storage',
    value: 'FILE',
    commands: ['login'],
    meaning: "where to write the signed-in state, in Playwright's storageState format (mode 0600, replaced atomically): SESSIONS_DIR/NAME.json for a session",
  },
  {
    name: 'headed',
    commands: ['login'],
    meaning:
      'open a visible browser window for a person to sign in (needs a display); saved when the window is closed, or when --until-url/--until-selector is reached',
  },
  { name: 'until-url', value: 'TEXT', commands: ['login'], meaning: "with --headed: done once the page's address contains TEXT (e.g. /dashboard)" },
  { name: 'until-selector', value: 'CSS', commands: ['login'], meaning: 'with --headed: done once an element matches this CSS selector' },
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
  {
    name: 'compare',
    value: 'RUN_ROOT_B',
    commands: ['report'],
    meaning: 'also compare the run with RUN_ROOT_B (as `compare RUN_ROOT RUN_ROOT_B` does, into RUN_ROOT_B/compare) and show the comparison in the report',
  },
  {
    name: 'rounds',
    commands: ['report'],
    meaning: "also compare the run's successive captures of each criterion (into RUN_ROOT/compare) and show it in the report",
  },
  // compare
  { name: 'rounds', commands: ['compare'], meaning: "one run root: each criterion's successive captures, round by round (-r1 against -r2)" },
  {
    name: 'out',
    value: 'DIR',
    commands: ['compare'],
    default: "RUN_ROOT/compare (the second run's)",
    meaning: 'where to write compare.json, images/ and index.html; never under evidence/, and replaced only when it holds an earlier comparison',
  },
  { name: 'threshold', value: 'T', commands: ['compare'], default: '0', meaning: "pixelmatch's colour threshold, 0 to 1 (0: any colour step is a change)" },
  { name: 'include-aa', commands: ['compare'], meaning: 'count anti-aliased pixels as changes (else they are counted apart)' },
  { name: 'ignore', value: 'X,Y,W,H', repeat: true, commands: ['compare'], meaning: 'a screenshot rectangle (device pixels) left out' },
  {
    name: 'ignore-selector',
    value: 'SEL',
    repeat: true,
    commands: ['compare'],
    meaning: "an element left out, through the probe sidecar's element boxes (#clock, .ad)",
  },
  { name: 'json', commands: ['compare'], meaning: 'print the result JSON instead of the summary' },
  // serve
  { name: 'compare-tool', commands: ['serve'], env: 'compareTool', meaning: 'also offer the compare_evidence tool (tools/list then holds two tools)' },
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
      const value = Array.isArray(given) ? given.join(',') : given === true ? '1' : String(given);
      return { name: setting.name, value: show(key, value), from: `--${flag.name}` };
    }
    if (key === 'maxParallel' && flags.parallel !== undefined) return { name: setting.name, value: String(flags.parallel), from: '--parallel' };
    const raw = envValue(env, key);
    if (raw !== undefined && raw.trim() !== '') return { name: setting.name, value: show(key, raw), from: setting.name };
    return { name: setting.name, value: setting.default ?? '', from: 'default' };
  });
}
