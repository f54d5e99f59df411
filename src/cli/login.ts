/**
 * `design-playbook-evidence login --url URL [--action JSON]... --save-storage FILE`:
 * signs in once, headless, with the capture's own action runner, and saves
 * the context's state in Playwright's storageState format (IndexedDB
 * included, as Playwright writes it with `indexedDB: true`), so Playwright
 * loads it and so do `--storage-state` and `--sessions-dir`.
 *
 * The file is a credential: written with mode 0600 through an exclusive
 * temporary file in the same folder, then renamed into place, so a reader
 * never sees part of one and a failed sign-in leaves nothing. What is
 * printed names origins and counts, never a value.
 */
import * as fs from 'fs';
import * as path from 'path';
import { randomBytes } from 'crypto';
import type { HeadedSignIn, Program } from './program';
import { ToolInputError } from '../common/errors';
import { parseActions, secretNameProblem } from '../contract/actions';
import { expiryInstant, readStorageStateFile, summarizeStorageState, type StorageState } from '../contract/storageState';
import { sessionSettings } from '../contract/sessions';
import { flagHelp, flagSpec, parseFlags, single, UsageError, BROWSER_FLAGS_HELP } from './args';
import { flagsOf } from './flags';
import { redactUrl } from '../common/redact';

export const LOGIN_USAGE = `Usage: design-playbook-evidence login --url URL [--action JSON]... --save-storage FILE

Loads URL in a fresh headless browser context, runs the actions in order (the
capture's action runner: end with a wait_for_selector for the signed-in page),
then saves the context's cookies, localStorage and IndexedDB in Playwright's
storageState format, mode 0600. Prints what was saved (origins, cookie count,
earliest expiry), never a value.
With --storage-state FILE it starts from that state (refreshing a session).
A password is best named, not typed: with --secrets FILE an action takes
"secret": "NAME" instead of "value" (docs/secrets.md), and the value is
in no argument, output or error.
Exit status: 0 saved, 1 the sign-in failed (nothing written), 2 usage error.
With --headed a visible browser opens for a person to sign in; the state is
saved when the window is closed, or once --until-url/--until-selector is reached.

${flagHelp(flagsOf('login', { browser: false }))}
${BROWSER_FLAGS_HELP}`;

const SPEC = flagSpec('login');

/** The login command line, checked: nothing starts before it passes. */
export function loginRequest(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): { url: string; actions: ReturnType<typeof parseActions>; file: string; headed?: HeadedSignIn } {
  const flags = parseFlags(argv, SPEC);
  if (flags.positionals.length) throw new UsageError(`unexpected argument '${flags.positionals[0]}'`);
  const url = single(flags, 'url');
  const file = single(flags, 'save-storage');
  if (!url) throw new UsageError('--url is required');
  if (!/^https?:\/\//i.test(url.trim())) throw new UsageError(`--url must start with http:// or https:// (got '${url}')`);
  if (!file) throw new UsageError('--save-storage is required (the storageState file to write, e.g. sessions/admin.json)');
  const target = path.resolve(file);
  if (!fs.existsSync(path.dirname(target)) || !fs.statSync(path.dirname(target)).isDirectory())
    throw new UsageError(`--save-storage: the folder ${path.dirname(target)} does not exist`);
  if (fs.existsSync(target) && !fs.statSync(target).isFile()) throw new UsageError(`--save-storage: ${target} is not a file`);
  const headed = flags.switches.has('headed');
  const until = { url: single(flags, 'until-url'), selector: single(flags, 'until-selector') };
  if (!headed && (until.url !== undefined || until.selector !== undefined))
    throw new UsageError(
      `--${until.url !== undefined ? 'until-url' : 'until-selector'} goes with --headed (without it the actions say when the sign-in is done)`,
    );
  // A window needs a display; said here, before any browser starts.
  if (headed && process.platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY)
    throw new UsageError(
      '--headed needs a display, and neither DISPLAY nor WAYLAND_DISPLAY is set: run it on a desktop, under xvfb-run, or sign in headless with --action',
    );
  const actions: unknown[] = [];
  for (const text of flags.values.action ?? []) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new UsageError(`--action is not valid JSON (${(err as Error).message})`);
    }
    if (Array.isArray(value)) actions.push(...value);
    else actions.push(value);
  }
  try {
    const parsed = { url: url.trim(), actions: parseActions(actions), file: target };
    if (!headed) return parsed;
    return {
      ...parsed,
      headed: { until: { ...(until.url !== undefined ? { url: until.url } : {}), ...(until.selector !== undefined ? { selector: until.selector } : {}) } },
    };
  } catch (err) {
    if (err instanceof ToolInputError) throw new UsageError(err.message);
    throw err;
  }
}

/** Writes `state` to `file` with mode 0600: an exclusive temporary file beside it, flushed, then renamed over it. */
export function writeStorageStateFile(file: string, state: StorageState): void {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = fs.openSync(temp, 'wx', 0o600);
  try {
    try {
      fs.writeFileSync(fd, JSON.stringify(state, null, 2) + '\n');
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    // The mode given to open() is masked by the umask: set it outright.
    fs.chmodSync(temp, 0o600);
    fs.renameSync(temp, file);
  } catch (err) {
    fs.rmSync(temp, { force: true });
    throw err;
  }
}

export async function runLogin(argv: string[], program: Program): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(LOGIN_USAGE);
    return 0;
  }
  let request: ReturnType<typeof loginRequest>;
  try {
    request = loginRequest(argv);
    // A secret an action names must be in the secrets file: refused here, before any browser starts.
    const unknownSecret = secretNameProblem(request.actions, program.secrets?.names());
    if (unknownSecret) throw new UsageError(unknownSecret.replace('start the server with', 'pass'));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`login: ${err.message}\n\n${LOGIN_USAGE}`);
    return 2;
  }
  let outcome: Awaited<ReturnType<Program['signIn']>>;
  try {
    // --storage-state: start from a saved state (refreshing a session), checked before any browser starts.
    const from = sessionSettings(program.browserFlags, process.env).storageState;
    const startState = from ? readStorageStateFile(from) : undefined;
    if (request.headed)
      process.stderr.write(
        `login: sign in in the browser window; it is saved when you close the window${request.headed.until.url || request.headed.until.selector ? ' or the page is reached' : ''}\n`,
      );
    outcome = await program.signIn(request.url, request.actions, startState, request.headed);
  } catch (err) {
    process.stderr.write(`login: the sign-in failed, nothing was written: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    await program.close().catch(() => undefined);
  }
  writeStorageStateFile(request.file, outcome.state);
  const summary = summarizeStorageState(outcome.state);
  const saved: Record<string, unknown> = {
    saved: request.file,
    origins: summary.origins,
    cookie_domains: summary.cookieDomains,
    cookies: summary.cookies,
    indexeddb_origins: summary.indexedDBOrigins,
  };
  if (summary.earliestExpiry !== undefined) saved.earliest_expiry = expiryInstant(summary.earliestExpiry);
  process.stdout.write(JSON.stringify(saved) + '\n');
  if (outcome.otherSitesCookies)
    process.stderr.write(
      `login: the browser's own session holds ${outcome.otherSitesCookies} cookie${outcome.otherSitesCookies === 1 ? '' : 's'} of other sites; only those of the sites the page shows were saved\n`,
    );
  if (!summary.cookies && !summary.origins.length)
    process.stderr.write(`login: warning: the page left no cookie and no storage; is the sign-in complete? (ended at ${redactUrl(outcome.finalUrl)})\n`);
  return 0;
}
