/**
 * A small flag parser for the subcommands: `--name value`, `--name=value`,
 * boolean `--name`, repeatable flags. Unknown flags are errors.
 */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export interface FlagSpec {
  /** Takes a value (`--url X`) or is a switch (`--overwrite`). */
  value: boolean;
  repeat?: boolean;
}

export interface ParsedFlags {
  values: Record<string, string[]>;
  switches: Set<string>;
  positionals: string[];
}

export function parseFlags(argv: string[], spec: Record<string, FlagSpec>): ParsedFlags {
  const parsed: ParsedFlags = { values: {}, switches: new Set(), positionals: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--') || arg === '--') {
      parsed.positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
    const flag = spec[name];
    if (!flag) throw new UsageError(`unknown option --${name}`);
    if (!flag.value) {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      parsed.switches.add(name);
      continue;
    }
    let value: string;
    if (eq >= 0) value = arg.slice(eq + 1);
    else {
      if (i + 1 >= argv.length) throw new UsageError(`--${name} needs a value`);
      value = argv[++i];
    }
    const list = (parsed.values[name] ??= []);
    if (list.length && !flag.repeat) throw new UsageError(`--${name} given more than once`);
    list.push(value);
  }
  return parsed;
}

export function single(flags: ParsedFlags, name: string): string | undefined {
  return flags.values[name]?.[0];
}

/** Browser flags every mode accepts (server and subcommands). */
export const BROWSER_FLAG_NAMES = ['executable-path', 'browser-url', 'ws-endpoint', 'connect-per-capture', 'fixed-time'] as const;

export interface TakenBrowserFlags {
  'executable-path'?: string;
  /** Repeatable: a pool of browsers. */
  'browser-url': string[];
  'ws-endpoint': string[];
  'connect-per-capture': boolean;
  'fixed-time'?: string;
}

/** Takes the browser flags out of argv, wherever they appear. */
export function takeBrowserFlags(argv: string[]): { browser: TakenBrowserFlags; rest: string[] } {
  const browser: TakenBrowserFlags = { 'browser-url': [], 'ws-endpoint': [], 'connect-per-capture': false };
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    const name = match?.[1];
    if (!match || !name || !(BROWSER_FLAG_NAMES as readonly string[]).includes(name)) {
      rest.push(arg);
      continue;
    }
    if (name === 'connect-per-capture') {
      if (match[2] !== undefined) throw new UsageError('--connect-per-capture takes no value');
      browser['connect-per-capture'] = true;
      continue;
    }
    let value = match[2];
    if (value === undefined) {
      if (i + 1 >= argv.length) throw new UsageError(`--${name} needs a value`);
      value = argv[++i];
    }
    if (!value.trim()) throw new UsageError(`--${name} needs a non-empty value`);
    if (name === 'executable-path' || name === 'fixed-time') browser[name] = value;
    else browser[name as 'browser-url' | 'ws-endpoint'].push(value);
  }
  return { browser, rest };
}

export const BROWSER_FLAGS_HELP = `Browser (every mode):
  --executable-path PATH   Chrome/Chromium to launch (else DESIGN_PLAYBOOK_CHROME_PATH,
                           PUPPETEER_EXECUTABLE_PATH, CHROME_PATH, system locations,
                           Puppeteer's browser cache)
  --browser-url URL        attach to a running Chrome: http://127.0.0.1:9222
  --ws-endpoint URL        attach to a running Chrome: ws://127.0.0.1:9222/devtools/browser/…
                           (or set DESIGN_PLAYBOOK_CDP_URL to either form)
                           Both repeat: a pool of browsers, each capture on the least
                           loaded (DESIGN_PLAYBOOK_CDP_URL takes a comma-separated list)
  --connect-per-capture    connect, capture, disconnect: for services that hand out
                           a fresh browser per connection (DESIGN_PLAYBOOK_CONNECT_PER_CAPTURE=1)
  --fixed-time INSTANT     start every capture's Date at this ISO 8601 instant
                           (2026-01-01T09:00:00Z) and seed Math.random, for
                           byte-identical evidence (or DESIGN_PLAYBOOK_FIXED_TIME)
`;
