/**
 * The environment variables the program reads, one row each with its
 * meaning, its default and who reads it, and the browser flags a caller
 * gives (BrowserFlags). Every reader of the environment goes through
 * `envValue`; `--help`, `doctor` and docs/reference.md's tables print these rows,
 * so no name or default is spelled twice. The command-line flags that
 * outrank them are src/cli/flags.ts's. Parsing a value stays with its
 * reader (src/browser/options.ts, src/boundary/runRoot.ts,
 * src/browser/fleet/findBrowser.ts, ...).
 */
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
  /** --connect-per-capture: connect, capture, disconnect (services that hand out a browser per connection). */
  connectPerCapture?: boolean;
  /** Captures at once per browser (the batch runner's --parallel); outranks DESIGN_PLAYBOOK_MAX_PARALLEL. */
  parallel?: number;
  /** --fixed-time <ISO 8601 instant>: start every capture's Date there and seed Math.random. */
  fixedTime?: string;
  /** --secrets FILE: the dotenv file of secrets actions may name (src/common/secrets.ts). */
  secrets?: string;
  /** --browser-session: an attached browser's captures run in a new tab of its default context (its cookies and logins). */
  browserSession?: boolean;
  /** --auto-connect [USER_DATA_DIR]: attach to the Chrome whose user data folder holds DevToolsActivePort (true: the platform's Chrome folder). */
  autoConnect?: string | boolean;
  /** --storage-state FILE: every capture starts from this Playwright storageState file (src/contract/sessions.ts). */
  storageState?: string;
  /** --sessions-dir DIR: the folder of NAME.json storageState files a call's `session` names. */
  sessionsDir?: string;
  /** `stories --run` (unless --fresh-loads): a story may be switched to in a preview kept loaded (src/browser/page/storySwitch.ts). */
  storySwitching?: boolean;
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
  autoConnect: {
    name: 'DESIGN_PLAYBOOK_AUTO_CONNECT',
    meaning:
      "attach to the Chrome running on a user data folder, through its DevToolsActivePort file (a folder, or `1` for the platform's Chrome folder); implies the browser session",
    default: 'off',
    readBy: 'src/browser/options.ts',
  },
  browserSession: {
    name: 'DESIGN_PLAYBOOK_BROWSER_SESSION',
    meaning: "`1`: an attached browser's captures run in a new tab of its default context, with its cookies and logins, closed after",
    default: 'off: each capture in a fresh context of its own',
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
  compareTool: {
    name: 'DESIGN_PLAYBOOK_COMPARE_TOOL',
    meaning: '`1`: the MCP server also offers `compare_evidence` (evidence compared across rounds and runs; docs/compare.md)',
    default: 'off: tools/list holds execute_capture_plan alone, as the original',
    readBy: 'src/app/main.ts',
  },
  fixedTime: {
    name: 'DESIGN_PLAYBOOK_FIXED_TIME',
    meaning: "an ISO 8601 instant (`2026-01-01T09:00:00Z`): every capture's `Date` starts there and `Math.random` is seeded",
    default: 'pages see the real date',
    readBy: 'src/browser/options.ts',
  },
  secrets: {
    name: 'DESIGN_PLAYBOOK_SECRETS',
    meaning:
      'a dotenv file of NAME=value secrets that `fill` and `type` may name (`"secret": "NAME"`); values never reach a call, a result or an artifact (docs/secrets.md)',
    default: 'no secrets: actions carry their own values',
    readBy: 'src/app/main.ts',
  },
  storageState: {
    name: 'DESIGN_PLAYBOOK_STORAGE_STATE',
    meaning: 'a Playwright storageState file (cookies, localStorage, IndexedDB): every capture starts from it, signed in (docs/sessions.md)',
    default: 'captures start from an empty context',
    readBy: 'src/contract/sessions.ts',
  },
  sessionsDir: {
    name: 'DESIGN_PLAYBOOK_SESSIONS_DIR',
    meaning: "a folder of NAME.json storageState files: a call's `session` argument names one (offered only when this is set; docs/sessions.md)",
    default: 'no `session` argument',
    readBy: 'src/contract/sessions.ts',
  },
} as const satisfies Record<string, EnvSetting>;

export type EnvKey = keyof typeof ENVIRONMENT;

/** The variable's value as set (undefined when unset); every reader of the environment goes through here. */
export function envValue(env: NodeJS.ProcessEnv, key: EnvKey): string | undefined {
  return env[ENVIRONMENT[key].name];
}
