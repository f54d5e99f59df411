/**
 * Sessions: the state a capture starts from. `--storage-state FILE`
 * (DESIGN_PLAYBOOK_STORAGE_STATE) starts every capture from one
 * Playwright storageState file; `--sessions-dir DIR`
 * (DESIGN_PLAYBOOK_SESSIONS_DIR) holds `NAME.json` files, and a call names
 * one with the optional `session` argument (that call only). The argument is
 * offered (tools/list) and accepted only when a sessions folder is
 * configured, so callers that configure none see the original tool.
 *
 * This module owns the settings, the argument's rule and wording, and which
 * file a call starts from; ./storageState.ts owns the file's shape. Only the
 * name travels in the call, the request echo and the manifest: never a path
 * or a value.
 */
import * as fs from 'fs';
import * as path from 'path';
import { z } from 'zod';
import { envValue, type BrowserFlags } from '../common/settings';
import { describeValue } from './argumentValues';
import { expiryInstant, expiryWarning, readStorageStateFile, StorageStateError, summarizeStorageState, type StorageState } from './storageState';

/** The tool argument that names a session. */
export const SESSION_ARGUMENT = 'session';

/** A session's name: a file name stem, never a path. */
export const SESSION_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]*$';
const SESSION_NAME = new RegExp(SESSION_NAME_PATTERN);
export const SESSION_FILE_SUFFIX = '.json';

/** The argument as the tool's input schema advertises it (when a sessions folder is configured). */
export const sessionArgumentSchema = z
  .string()
  .regex(SESSION_NAME)
  .describe('a saved session (NAME of NAME.json in the sessions folder): this capture starts signed in with its cookies and storage; this call only');

/** The session's name as the request echo records it. */
export const sessionEchoSchema = z.string().regex(SESSION_NAME).describe('the session the capture started from, by name');

/** Where sessions come from, as flags and the environment configure them (absolute paths). */
export interface SessionSettings {
  /** Every capture starts from this storageState file unless the call names a session. */
  storageState?: string;
  /** The folder of NAME.json files a call's `session` names. */
  sessionsDir?: string;
}

/** The flags outrank the environment; relative paths are taken against the working directory. */
export function sessionSettings(flags: Pick<BrowserFlags, 'storageState' | 'sessionsDir'>, env: NodeJS.ProcessEnv): SessionSettings {
  const pick = (flag: string | undefined, key: 'storageState' | 'sessionsDir') => {
    const value = flag ?? envValue(env, key);
    return value !== undefined && value.trim() !== '' ? path.resolve(value.trim()) : undefined;
  };
  const settings: SessionSettings = {};
  const storageState = pick(flags.storageState, 'storageState');
  const sessionsDir = pick(flags.sessionsDir, 'sessionsDir');
  if (storageState) settings.storageState = storageState;
  if (sessionsDir) settings.sessionsDir = sessionsDir;
  return settings;
}

/** The names of the sessions in `dir` (NAME.json files), sorted; StorageStateError when the folder is missing. */
export function sessionNames(dir: string): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'is missing' : code === 'ENOTDIR' ? 'is not a folder' : `cannot be read (${code ?? 'error'})`;
    throw new StorageStateError(`sessions folder ${dir} ${why} (--sessions-dir or DESIGN_PLAYBOOK_SESSIONS_DIR)`);
  }
  return entries
    .filter((e) => (e.isFile() || e.isSymbolicLink()) && e.name.endsWith(SESSION_FILE_SUFFIX))
    .map((e) => e.name.slice(0, -SESSION_FILE_SUFFIX.length))
    .filter((name) => SESSION_NAME.test(name))
    .sort();
}

/** The file of session `name` in `dir`. */
export function sessionFile(dir: string, name: string): string {
  return path.join(dir, `${name}${SESSION_FILE_SUFFIX}`);
}

/** The state a capture starts from: parsed, with the words that name it (the session's name, or `--storage-state`). */
export interface StartState {
  state: StorageState;
  /** `session 'admin'` or `storage state` (never the file's contents). */
  label: string;
  /** The session's name, when the call named one (the request echo records it). */
  session?: string;
}

/** What a call starts from: nothing, a state, or a refusal (`input`: the argument; `failed`: the folder or the file). */
export type SessionChoice = { ok: true; start?: StartState; warnings: string[] } | { ok: false; kind: 'input' | 'failed'; error: string };

const quoteNames = (names: string[]) => (names.length ? names.map((n) => `'${n}'`).join(', ') : 'none saved yet');

function load(file: string, label: string, session?: string): SessionChoice {
  try {
    const state = readStorageStateFile(file);
    const warning = expiryWarning(label, summarizeStorageState(state));
    const start: StartState = { state, label };
    if (session !== undefined) start.session = session;
    return { ok: true, start, warnings: warning ? [warning] : [] };
  } catch (err) {
    if (err instanceof StorageStateError) return { ok: false, kind: 'failed', error: err.message };
    throw err;
  }
}

/**
 * The state a call starts from: the session its `session` argument names
 * (in `settings.sessionsDir`), else `settings.storageState`, else none. The
 * caller has already refused `session` when no sessions folder is configured
 * (an unknown field, as tools/list then does not offer it).
 */
export function chooseSession(args: Record<string, unknown>, settings: SessionSettings): SessionChoice {
  const value = args[SESSION_ARGUMENT];
  if (value === undefined) return settings.storageState ? load(settings.storageState, 'storage state') : { ok: true, warnings: [] };
  const dir = settings.sessionsDir;
  if (!dir) return { ok: false, kind: 'input', error: `session needs a sessions folder (--sessions-dir or DESIGN_PLAYBOOK_SESSIONS_DIR)` };
  let names: string[];
  try {
    names = sessionNames(dir);
  } catch (err) {
    if (err instanceof StorageStateError) return { ok: false, kind: 'failed', error: err.message };
    throw err;
  }
  const name = typeof value === 'string' ? value.trim() : '';
  if (!SESSION_NAME.test(name) || !names.includes(name)) {
    const got = typeof value === 'string' && SESSION_NAME.test(name) ? `'${name}'` : describeValue(value);
    return { ok: false, kind: 'input', error: `session must name a saved session: one of ${quoteNames(names)} (got ${got})` };
  }
  return load(sessionFile(dir, name), `session '${name}'`, name);
}

/** One saved state as `doctor` lists it: never a value. */
export interface SessionListing {
  /** The session's name, or `--storage-state` for the file every capture starts from. */
  name: string;
  file: string;
  origins?: string[];
  cookieDomains?: string[];
  cookies?: number;
  /** The earliest cookie expiry, ISO 8601 (absent: session cookies only, or none). */
  earliestExpiry?: string;
  expiredCookies?: number;
  /** Why it cannot be used (the file and field named). */
  error?: string;
}

/** What `doctor` reports of the configured sessions: each state's summary, or why the folder or a file cannot be used. */
export interface SessionsReport {
  storageState?: SessionListing;
  sessionsDir?: { dir: string; sessions: SessionListing[]; error?: string };
}

function listing(name: string, file: string): SessionListing {
  try {
    const summary = summarizeStorageState(readStorageStateFile(file));
    const out: SessionListing = { name, file, origins: summary.origins, cookieDomains: summary.cookieDomains, cookies: summary.cookies };
    if (summary.earliestExpiry !== undefined) out.earliestExpiry = expiryInstant(summary.earliestExpiry);
    if (summary.expired) out.expiredCookies = summary.expired;
    return out;
  } catch (err) {
    if (err instanceof StorageStateError) return { name, file, error: err.message };
    throw err;
  }
}

/** The configured sessions, summarized (names, origins, cookie counts, earliest expiry); empty when none is configured. */
export function sessionsReport(settings: SessionSettings): SessionsReport {
  const report: SessionsReport = {};
  if (settings.storageState) report.storageState = listing('--storage-state', settings.storageState);
  const dir = settings.sessionsDir;
  if (dir) {
    try {
      report.sessionsDir = { dir, sessions: sessionNames(dir).map((name) => listing(name, sessionFile(dir, name))) };
    } catch (err) {
      if (!(err instanceof StorageStateError)) throw err;
      report.sessionsDir = { dir, sessions: [], error: err.message };
    }
  }
  return report;
}

/** Whether every configured state can be used. */
export function sessionsUsable(report: SessionsReport): boolean {
  const listings = [...(report.storageState ? [report.storageState] : []), ...(report.sessionsDir?.sessions ?? [])];
  return !report.sessionsDir?.error && listings.every((l) => !l.error);
}
