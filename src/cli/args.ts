/**
 * A small flag parser for the subcommands: `--name value`, `--name=value`,
 * boolean `--name`, repeatable flags. Unknown flags are errors. Which flags
 * exist, and their help, are src/common/settings.ts's FLAGS.
 */
import { type BrowserFlags } from '../common/settings';
import { browserFlagSettings, COMMANDS, flagsOf, type Command, type FlagSetting } from './flags';
import { EvidenceError } from '../common/errors';

export class UsageError extends EvidenceError<'usage'> {
  constructor(message: string) {
    super('usage', message);
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

/** The parser spec of `command`'s own flags (the browser flags are taken out before, by takeBrowserFlags). */
export function flagSpec(command: Command): Record<string, FlagSpec> {
  return Object.fromEntries(flagsOf(command, { browser: false }).map((f) => [f.name, { value: f.value !== undefined, repeat: f.repeat }]));
}

/** Browser flags as taken from argv, by flag name: a switch is a boolean, a repeatable flag a list. */
export type TakenBrowserFlags = Record<string, string | string[] | boolean | undefined>;

/** Takes the browser flags (FLAGS rows with `browser`) out of argv, wherever they appear. */
export function takeBrowserFlags(argv: string[]): { browser: TakenBrowserFlags; rest: string[] } {
  const settings = browserFlagSettings();
  const browser: TakenBrowserFlags = {};
  for (const f of settings)
    if (f.value === undefined) browser[f.name] = false;
    else if (f.repeat) browser[f.name] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    const flag = match && settings.find((f) => f.name === match[1]);
    if (!match || !flag) {
      rest.push(arg);
      continue;
    }
    const name = flag.name;
    if (flag.value === undefined) {
      if (match[2] !== undefined) throw new UsageError(`--${name} takes no value`);
      browser[name] = true;
      continue;
    }
    let value = match[2];
    if (value === undefined && flag.optionalValue) {
      // Left out: the next argument is a flag, a command, or there is none.
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('-') || isCommandWord(next)) {
        browser[name] = true;
        continue;
      }
    }
    if (value === undefined) {
      if (i + 1 >= argv.length) throw new UsageError(`--${name} needs a value`);
      value = argv[++i];
    }
    if (!value.trim()) throw new UsageError(`--${name} needs a non-empty value`);
    if (flag.repeat) (browser[name] as string[]).push(value);
    else browser[name] = value;
  }
  return { browser, rest };
}

/** A subcommand's first word (`manifest check` counts by `manifest`): never an optional flag value. */
function isCommandWord(arg: string): boolean {
  return COMMANDS.some((command) => command.split(' ')[0] === arg);
}

/** The BrowserFlags the taken flags stand for. */
export function browserFlagsFrom(taken: TakenBrowserFlags): BrowserFlags {
  const flags: Record<string, unknown> = {};
  for (const f of browserFlagSettings()) if (f.browser) flags[f.browser] = taken[f.name];
  return flags as BrowserFlags;
}

/** Help lines for `flags`: `  --name VALUE   meaning (default …)`, wrapped. */
export function flagHelp(flags: readonly FlagSetting[]): string {
  return helpRows(flagRows(flags));
}

/** Each flag as a help row: `--name VALUE` and its meaning with its default. */
export function flagRows(flags: readonly FlagSetting[]): Array<[string, string]> {
  return flags.map((f) => [`--${f.name}${f.value ? ` ${f.value}` : ''}`, f.default === undefined ? f.meaning : `${f.meaning} (default ${f.default})`]);
}

/** Two-column help: each head, then its text wrapped beside it. */
export function helpRows(rows: ReadonlyArray<readonly [string, string]>): string {
  const width = Math.max(...rows.map(([head]) => head.length)) + 3;
  const lines: string[] = [];
  for (const [head, text] of rows) wrap(text, HELP_WIDTH - 2 - width).forEach((line, n) => lines.push(`  ${(n === 0 ? head : '').padEnd(width)}${line}`));
  return lines.join('\n') + '\n';
}

const HELP_WIDTH = 92;

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** The browser flags' help, which every command's help ends with. */
export const BROWSER_FLAGS_HELP = `Browser (every mode):\n${flagHelp(browserFlagSettings())}`;
