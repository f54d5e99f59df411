/**
 * Playwright's storageState file, read and written here: cookies (HttpOnly
 * included), each origin's localStorage and, as Playwright >= 1.51 writes it
 * with `indexedDB: true`, each origin's IndexedDB databases. The one owner of
 * the shape: the capture restores what this module parsed
 * (src/browser/page/storageRestore.ts), `login` writes what this module
 * serializes (src/cli/login.ts), and `doctor` and the plan read its summary.
 *
 * A storageState file is a credential. Nothing here puts a cookie's or a
 * storage item's value into a message: a refusal names the file and the
 * field (`cookies[2].sameSite`), a summary counts and names origins.
 */
import * as fs from 'fs';
import { EvidenceError } from '../common/errors';

export const SAME_SITE_VALUES = ['Strict', 'Lax', 'None'] as const;

/** One cookie, as Playwright writes it (`expires`: Unix seconds, -1 for a session cookie). */
export interface StorageCookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  expires: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite: (typeof SAME_SITE_VALUES)[number];
  /** A partitioned (CHIPS) cookie's top-level site. */
  partitionKey?: string;
  /** Chromium's half of the partition key, as Playwright records it. */
  _crHasCrossSiteAncestor?: boolean;
}

/** An IndexedDB record: a key only when the store has no key path; each either plain JSON or Playwright's encoded form. */
export interface IndexedDBRecord {
  key?: unknown;
  keyEncoded?: unknown;
  value?: unknown;
  valueEncoded?: unknown;
}

export interface IndexedDBIndex {
  name: string;
  keyPath?: string;
  keyPathArray?: string[];
  multiEntry: boolean;
  unique: boolean;
}

export interface IndexedDBStore {
  name: string;
  autoIncrement: boolean;
  keyPath?: string;
  keyPathArray?: string[];
  records: IndexedDBRecord[];
  indexes: IndexedDBIndex[];
}

export interface IndexedDBDatabase {
  name: string;
  version: number;
  stores: IndexedDBStore[];
}

export interface StorageOrigin {
  origin: string;
  localStorage: Array<{ name: string; value: string }>;
  indexedDB?: IndexedDBDatabase[];
}

export interface StorageState {
  cookies: StorageCookie[];
  origins: StorageOrigin[];
}

/** What a sign-in (`login`) left: the state (a credential: never printed), and the page's address at the end. */
export interface SignInOutcome {
  state: StorageState;
  finalUrl: string;
  /** Read from an attached browser's own session: how many of its cookies were of other sites, and not kept. */
  otherSitesCookies?: number;
}

/**
 * The cookies a site at one of `hosts` is sent: a cookie's domain matches a
 * host exactly, or (a leading dot, a domain cookie) as the host or a
 * subdomain of it. What a session read from a whole browser keeps, so the
 * browser's cookies of every other site never reach a file.
 */
export function cookiesOfHosts(cookies: StorageCookie[], hosts: string[]): StorageCookie[] {
  const wanted = hosts.map((host) => host.toLowerCase());
  return cookies.filter((cookie) => {
    const domain = cookie.domain.toLowerCase();
    const bare = domain.startsWith('.') ? domain.slice(1) : domain;
    return wanted.some((host) => host === bare || (domain.startsWith('.') && host.endsWith(`.${bare}`)));
  });
}

/** A storageState file that cannot be used: names the file and the field, never a value. */
export class StorageStateError extends EvidenceError<'storage-state'> {
  constructor(message: string) {
    super('storage-state', message);
    this.name = 'StorageStateError';
  }
}

/** The type of a JSON value in words (never the value: it may be a credential). */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads the fields of one JSON object, each refusal naming `file` and the field's path. */
class FieldReader {
  constructor(
    private readonly file: string,
    private readonly where: string,
    private readonly object: Record<string, unknown>,
  ) {}

  fail(field: string, rule: string): never {
    throw new StorageStateError(`storage state ${this.file}: ${this.path(field)} ${rule}; expected Playwright's storageState shape`);
  }

  path(field: string): string {
    return this.where ? `${this.where}.${field}` : field;
  }

  string(field: string, options: { optional?: boolean; nonEmpty?: boolean } = {}): string {
    const value = this.object[field];
    if (value === undefined && options.optional) return undefined as unknown as string;
    if (typeof value !== 'string') this.fail(field, `must be a string (got ${kindOf(value)})`);
    if (options.nonEmpty && !value) this.fail(field, 'must not be empty');
    return value;
  }

  boolean(field: string, options: { optional?: boolean } = {}): boolean {
    const value = this.object[field];
    if (value === undefined && options.optional) return undefined as unknown as boolean;
    if (typeof value !== 'boolean') this.fail(field, `must be a boolean (got ${kindOf(value)})`);
    return value;
  }

  number(field: string, rule: (n: number) => boolean, words: string): number {
    const value = this.object[field];
    if (typeof value !== 'number' || !Number.isFinite(value) || !rule(value)) this.fail(field, `must be ${words} (got ${kindOf(value)})`);
    return value;
  }

  array<T>(field: string, each: (item: FieldReader, index: number) => T, options: { optional?: boolean } = {}): T[] {
    const value = this.object[field];
    if (value === undefined && options.optional) return undefined as unknown as T[];
    if (!Array.isArray(value)) this.fail(field, `must be an array (got ${kindOf(value)})`);
    return value.map((item, i) => {
      const where = `${this.path(field)}[${i}]`;
      if (!isObject(item))
        throw new StorageStateError(`storage state ${this.file}: ${where} must be an object (got ${kindOf(item)}); expected Playwright's storageState shape`);
      return each(new FieldReader(this.file, where, item), i);
    });
  }

  strings(field: string, options: { optional?: boolean } = {}): string[] {
    const value = this.object[field];
    if (value === undefined && options.optional) return undefined as unknown as string[];
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) this.fail(field, `must be an array of strings (got ${kindOf(value)})`);
    return value as string[];
  }

  raw(field: string): unknown {
    return this.object[field];
  }

  has(field: string): boolean {
    return field in this.object;
  }
}

/** Drops the keys whose value is undefined (optional fields left out). */
function defined<T extends object>(object: T): T {
  for (const key of Object.keys(object) as Array<keyof T>) if (object[key] === undefined) delete object[key];
  return object;
}

function readCookie(c: FieldReader): StorageCookie {
  const sameSite = c.string('sameSite');
  if (!(SAME_SITE_VALUES as readonly string[]).includes(sameSite)) c.fail('sameSite', `must be one of ${SAME_SITE_VALUES.join(', ')}`);
  return defined({
    name: c.string('name', { nonEmpty: true }),
    value: c.string('value'),
    domain: c.string('domain', { nonEmpty: true }),
    path: c.string('path'),
    expires: c.number('expires', (n) => n === -1 || n >= 0, '-1 (a session cookie) or Unix seconds'),
    httpOnly: c.boolean('httpOnly'),
    secure: c.boolean('secure'),
    sameSite: sameSite as StorageCookie['sameSite'],
    partitionKey: c.string('partitionKey', { optional: true }),
    _crHasCrossSiteAncestor: c.boolean('_crHasCrossSiteAncestor', { optional: true }),
  });
}

function readRecord(r: FieldReader): IndexedDBRecord {
  if (!r.has('value') && !r.has('valueEncoded')) r.fail('value', 'is missing (a record has value or valueEncoded)');
  const record: IndexedDBRecord = {};
  for (const field of ['key', 'keyEncoded', 'value', 'valueEncoded'] as const) if (r.has(field)) record[field] = r.raw(field);
  return record;
}

function readStore(s: FieldReader): IndexedDBStore {
  return defined({
    name: s.string('name'),
    autoIncrement: s.boolean('autoIncrement'),
    keyPath: s.string('keyPath', { optional: true }),
    keyPathArray: s.strings('keyPathArray', { optional: true }),
    records: s.array('records', readRecord),
    indexes: s.array('indexes', (i) =>
      defined({
        name: i.string('name'),
        keyPath: i.string('keyPath', { optional: true }),
        keyPathArray: i.strings('keyPathArray', { optional: true }),
        multiEntry: i.boolean('multiEntry'),
        unique: i.boolean('unique'),
      }),
    ),
  });
}

function readOrigin(o: FieldReader): StorageOrigin {
  const origin = o.string('origin', { nonEmpty: true });
  let parsed: URL | null = null;
  try {
    parsed = new URL(origin);
  } catch {
    // refused below
  }
  if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin)
    o.fail('origin', 'must be an http(s) origin such as http://127.0.0.1:8080 (no path)');
  const read: StorageOrigin = {
    origin,
    localStorage: o.array('localStorage', (item) => ({ name: item.string('name'), value: item.string('value') })),
  };
  const indexedDB = o.array(
    'indexedDB',
    (db) => ({
      name: db.string('name', { nonEmpty: true }),
      version: db.number('version', (n) => Number.isInteger(n) && n >= 1, 'a positive integer'),
      stores: db.array('stores', readStore),
    }),
    { optional: true },
  );
  if (indexedDB !== undefined) read.indexedDB = indexedDB;
  return read;
}

/** The state a storageState file's text holds, or StorageStateError naming `file` and the first field out of shape. */
export function parseStorageState(text: string, file: string): StorageState {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    // JSON.parse's message quotes the text around the fault: only its position is kept.
    const at = /position (\d+)/.exec((err as Error).message);
    throw new StorageStateError(`storage state ${file}: not JSON${at ? ` (at position ${at[1]})` : ''}; expected Playwright's storageState shape`);
  }
  if (!isObject(json))
    throw new StorageStateError(`storage state ${file}: must be a JSON object (got ${kindOf(json)}); expected Playwright's storageState shape`);
  const top = new FieldReader(file, '', json);
  return { cookies: top.array('cookies', readCookie), origins: top.array('origins', readOrigin) };
}

/** A storageState file read from disk: refused (StorageStateError) when missing, unreadable or out of shape. */
export function readStorageStateFile(file: string): StorageState {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new StorageStateError(`storage state ${file}: ${code === 'ENOENT' ? 'no such file' : `cannot be read (${code ?? 'error'})`}`);
  }
  return parseStorageState(text, file);
}

/** What a state holds, without a value: for doctor, the expiry warning and the logs. */
export interface StorageStateSummary {
  /** The origins whose storage is recorded. */
  origins: string[];
  /** The cookies' domains, each once. */
  cookieDomains: string[];
  cookies: number;
  /** Of the cookies with an expiry, the earliest (Unix seconds); absent when all are session cookies. */
  earliestExpiry?: number;
  /** Cookies whose expiry is past at `now`. */
  expired: number;
  /** The origins whose IndexedDB is recorded. */
  indexedDBOrigins: number;
}

export function summarizeStorageState(state: StorageState, nowMs: number = Date.now()): StorageStateSummary {
  const expiries = state.cookies.map((c) => c.expires).filter((e) => e !== -1);
  const summary: StorageStateSummary = {
    origins: state.origins.map((o) => o.origin),
    cookieDomains: [...new Set(state.cookies.map((c) => c.domain))],
    cookies: state.cookies.length,
    expired: expiries.filter((e) => e * 1000 <= nowMs).length,
    indexedDBOrigins: state.origins.filter((o) => o.indexedDB?.length).length,
  };
  if (expiries.length) summary.earliestExpiry = Math.min(...expiries);
  return summary;
}

/** An instant in Unix seconds as ISO 8601, whole seconds. */
export function expiryInstant(seconds: number): string {
  return new Date(Math.floor(seconds) * 1000).toISOString().replace('.000Z', 'Z');
}

/** The warning for a state with expired cookies (`label` names the session or file), or null. */
export function expiryWarning(label: string, summary: StorageStateSummary): string | null {
  if (!summary.expired || summary.earliestExpiry === undefined) return null;
  return (
    `${label}: ${summary.expired} of ${summary.cookies} cookie${summary.cookies === 1 ? '' : 's'} expired (earliest ${expiryInstant(summary.earliestExpiry)}); ` +
    'the capture may not be signed in: save the session again'
  );
}
