/**
 * A Playwright storageState into and out of a browser context, over the
 * protocol (the format is src/contract/storageState.ts's):
 *
 * - restore, into a capture's fresh context before its first navigation:
 *   the cookies with one Network.setCookies (HttpOnly ones included), and
 *   each origin's localStorage and IndexedDB by a script that runs before
 *   the page's own in that origin's first document (no navigation of its
 *   own; the page's opens of a database wait for its creation);
 * - collect, for `login`: the context's cookies and, for each origin the
 *   page's frames show, localStorage and IndexedDB, in Playwright's shape
 *   (IndexedDB values that are not plain JSON in Playwright's tagged form).
 *
 * The values pass from Node to the page and back as protocol messages only:
 * nothing here logs or words one.
 */
import type { CDPSession, Page } from 'puppeteer-core';
import type { Protocol } from 'devtools-protocol';
import type { StorageCookie, StorageOrigin, StorageState } from '../../contract/storageState';

/**
 * Playwright's tagged value form (what `valueEncoded`/`keyEncoded` hold),
 * decoded and encoded in the page; written for this project from the
 * format's description (each tag: v special number or undefined, d Date, u
 * URL, bi BigInt, e Error, r RegExp, a array, o object, m Map, s Set, ta
 * typed array, ab ArrayBuffer, ref a value seen before).
 */
const TAGGED_VALUES = String.raw`
const TYPED = { i8: Int8Array, ui8: Uint8Array, ui8c: Uint8ClampedArray, i16: Int16Array, ui16: Uint16Array, i32: Int32Array, ui32: Uint32Array, f32: Float32Array, f64: Float64Array, bi64: BigInt64Array, bui64: BigUint64Array };
const SPECIAL = { undefined: undefined, null: null, NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity, '-0': -0 };
const fromBase64 = (b) => { const s = atob(b); const bytes = new Uint8Array(s.length); for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i); return bytes; };
const toBase64 = (view) => { const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength); let s = ''; for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]); return btoa(s); };
function decode(v, refs = new Map()) {
  if (v === null || typeof v !== 'object') return v;
  if ('ref' in v) return refs.get(v.ref);
  if ('v' in v) return SPECIAL[v.v];
  if ('d' in v) return new Date(v.d);
  if ('u' in v) return new URL(v.u);
  if ('bi' in v) return BigInt(v.bi);
  if ('e' in v) { const e = new Error(v.e.m); e.name = v.e.n; e.stack = v.e.s; return e; }
  if ('r' in v) return new RegExp(v.r.p, v.r.f);
  if ('ta' in v) { const bytes = fromBase64(v.ta.b); return new TYPED[v.ta.k](bytes.buffer); }
  if ('ab' in v) return fromBase64(v.ab.b).buffer;
  if ('a' in v) { const out = []; refs.set(v.id, out); for (const item of v.a) out.push(decode(item, refs)); return out; }
  if ('o' in v) { const out = {}; refs.set(v.id, out); for (const { k, v: item } of v.o) if (k !== '__proto__') out[k] = decode(item, refs); return out; }
  if ('m' in v) { const out = new Map(); refs.set(v.id, out); for (const { k, v: item } of v.m) out.set(decode(k, refs), decode(item, refs)); return out; }
  if ('s' in v) { const out = new Set(); refs.set(v.id, out); for (const item of v.s) out.add(decode(item, refs)); return out; }
  return v;
}
const plainObject = (v) => { const proto = Object.getPrototypeOf(v); return proto === Object.prototype || proto === null; };
function plainJson(v, seen = new Set()) {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0);
  if (typeof v !== 'object' || seen.has(v)) return false;
  seen.add(v);
  const ok = Array.isArray(v) ? v.every((item) => plainJson(item, seen)) : plainObject(v) && Object.values(v).every((item) => item !== undefined && plainJson(item, seen));
  seen.delete(v);
  return ok;
}
function encode(v, ids = new Map()) {
  if (v === undefined) return { v: 'undefined' };
  if (v === null) return { v: 'null' };
  if (typeof v === 'number') { if (Object.is(v, -0)) return { v: '-0' }; if (!Number.isFinite(v)) return { v: String(v) }; return v; }
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'bigint') return { bi: String(v) };
  if (typeof v !== 'object') return { v: 'undefined' };
  if (v instanceof Date) return { d: v.toJSON() };
  if (v instanceof URL) return { u: v.toJSON() };
  if (v instanceof RegExp) return { r: { p: v.source, f: v.flags } };
  if (v instanceof Error) return { e: { n: v.name, m: v.message, s: String(v.stack) } };
  for (const [k, T] of Object.entries(TYPED)) if (v instanceof T) return { ta: { b: toBase64(v), k } };
  if (v instanceof ArrayBuffer) return { ab: { b: toBase64(new Uint8Array(v)) } };
  if (ids.has(v)) return { ref: ids.get(v) };
  const id = ids.size + 1;
  ids.set(v, id);
  if (v instanceof Map) return { m: [...v].map(([k, item]) => ({ k: encode(k, ids), v: encode(item, ids) })), id };
  if (v instanceof Set) return { s: [...v].map((item) => encode(item, ids)), id };
  if (Array.isArray(v)) return { a: v.map((item) => encode(item, ids)), id };
  return { o: Object.keys(v).map((k) => ({ k, v: encode(v[k], ids) })), id };
}
const done = (request) => new Promise((resolve, reject) => { request.onsuccess = () => resolve(request.result); request.onerror = () => reject(request.error); });
`;

/** Reads the document's origin's localStorage and (with `indexedDB`) IndexedDB, in Playwright's shape. */
const COLLECT_ORIGIN = `async (withIndexedDB) => {
${TAGGED_VALUES}
  const out = { origin: location.origin, localStorage: Object.keys(localStorage).map((name) => ({ name, value: localStorage.getItem(name) })) };
  if (!withIndexedDB) return out;
  const databases = await indexedDB.databases();
  out.indexedDB = await Promise.all(databases.map(async (info) => {
    const db = await done(indexedDB.open(info.name));
    try {
      const names = [...db.objectStoreNames];
      if (!names.length) return { name: info.name, version: db.version, stores: [] };
      const tx = db.transaction(names, 'readonly');
      const stores = await Promise.all(names.map(async (name) => {
        const store = tx.objectStore(name);
        const keys = await done(store.getAllKeys());
        const values = await done(store.getAll());
        const records = keys.map((key, i) => {
          const record = {};
          if (store.keyPath === null) { if (plainJson(key)) record.key = key; else record.keyEncoded = encode(key); }
          if (plainJson(values[i])) record.value = values[i]; else record.valueEncoded = encode(values[i]);
          return record;
        });
        const indexes = [...store.indexNames].map((indexName) => {
          const index = store.index(indexName);
          const entry = { name: index.name, multiEntry: index.multiEntry, unique: index.unique };
          if (Array.isArray(index.keyPath)) entry.keyPathArray = index.keyPath; else entry.keyPath = index.keyPath;
          return entry;
        });
        const entry = { name, records, indexes, autoIncrement: store.autoIncrement };
        if (Array.isArray(store.keyPath)) entry.keyPathArray = store.keyPath; else if (store.keyPath !== null) entry.keyPath = store.keyPath;
        return entry;
      }));
      return { name: info.name, version: db.version, stores };
    } finally {
      db.close();
    }
  }));
  return out;
}`;

/** A cookie in the protocol's form (expires -1: a session cookie, sent without one). */
function cookieParam(cookie: StorageCookie): Protocol.Network.CookieParam {
  const param: Protocol.Network.CookieParam = {
    name: cookie.name,
    value: cookie.value,
    domain: cookie.domain,
    path: cookie.path,
    httpOnly: cookie.httpOnly,
    secure: cookie.secure,
    sameSite: cookie.sameSite,
  };
  if (cookie.expires !== -1) param.expires = cookie.expires;
  if (cookie.partitionKey !== undefined)
    param.partitionKey = { topLevelSite: cookie.partitionKey, hasCrossSiteAncestor: cookie._crHasCrossSiteAncestor ?? false };
  return param;
}

/** The protocol's cookie in Playwright's shape. */
function storageCookie(cookie: Protocol.Network.Cookie): StorageCookie {
  const out: StorageCookie = {
    name: cookie.name,
    value: cookie.value,
    domain: cookie.domain,
    path: cookie.path,
    expires: cookie.session || cookie.expires < 0 ? -1 : cookie.expires,
    httpOnly: cookie.httpOnly,
    secure: cookie.secure,
    sameSite: cookie.sameSite ?? 'Lax',
  };
  if (cookie.partitionKey) {
    out.partitionKey = cookie.partitionKey.topLevelSite;
    out._crHasCrossSiteAncestor = cookie.partitionKey.hasCrossSiteAncestor;
  }
  return out;
}

/**
 * Each origin's storage, written by a script that runs before the page's own
 * in a new document of that origin:
 * - localStorage, into a storage still empty;
 * - each IndexedDB database, created with its stores, indexes and records
 *   inside the open's version-change transaction, so an open of the same
 *   database by the page waits for it (the spec queues opens of a database
 *   behind a running upgrade) and finds it whole; a database already there is
 *   left alone.
 * In the top frame it does not write in a document a script of the same
 * origin navigated to (its referrer is of that origin: a sign-out that
 * clears the storage and replaces itself); a document the capture navigated
 * to, or one another origin sent the page to, is written while the storage
 * is empty, as in a frame of that origin.
 * It is removed once the capture's navigation is done
 * (RestoredState.settle), so the actions' documents see only what the page
 * kept. No navigation of its own: the restore costs two protocol calls.
 */
const ORIGIN_STORAGE_SCRIPT = (byOrigin: Record<string, Omit<StorageOrigin, 'origin'>>) => `(() => {
${TAGGED_VALUES}
  try {
    const state = (${JSON.stringify(byOrigin)})[location.origin];
    // A top-level document its own origin's script navigated to (a sign-out's redirect) is not written again.
    if (!state || (window === window.top && document.referrer !== '' && new URL(document.referrer).origin === location.origin)) return;
    if (localStorage.length === 0) for (const { name, value } of state.localStorage) localStorage.setItem(name, value);
    for (const database of state.indexedDB || []) {
      const open = indexedDB.open(database.name, database.version);
      open.onupgradeneeded = () => {
        const tx = open.transaction;
        for (const store of database.stores) {
          const made = open.result.createObjectStore(store.name, { autoIncrement: store.autoIncrement, keyPath: store.keyPathArray ?? store.keyPath });
          for (const index of store.indexes) made.createIndex(index.name, index.keyPathArray ?? index.keyPath, { unique: index.unique, multiEntry: index.multiEntry });
        }
        for (const store of database.stores) {
          const target = tx.objectStore(store.name);
          for (const record of store.records) {
            const value = 'value' in record ? record.value : decode(record.valueEncoded);
            if ('key' in record || 'keyEncoded' in record) target.add(value, 'key' in record ? record.key : decode(record.keyEncoded));
            else target.add(value);
          }
        }
      };
      open.onsuccess = () => open.result.close();
    }
  } catch {}
})();`;

/** What a restore leaves to undo once the capture's navigation is done. */
export interface RestoredState {
  /** Removes the storage script (the page's later documents see only what the page kept). */
  settle(): Promise<void>;
}

/**
 * Restores `state` into the context of the blank, never navigated page of
 * `cdp`, before its first navigation: the cookies with one
 * Network.setCookies, each origin's localStorage and IndexedDB by a script
 * the origin's first document runs before its own (ORIGIN_STORAGE_SCRIPT).
 * Call `settle()` once the capture's navigation is done.
 */
export async function restoreStorageState(cdp: CDPSession, state: StorageState): Promise<RestoredState> {
  const cookies = state.cookies.length ? cdp.send('Network.setCookies', { cookies: state.cookies.map(cookieParam) }) : Promise.resolve();
  const origins = state.origins.filter((o) => o.localStorage.length || o.indexedDB?.length);
  let scriptId: string | null = null;
  if (origins.length) {
    const byOrigin = Object.fromEntries(origins.map(({ origin, ...storage }) => [origin, storage]));
    // A session's scripts run only while its Page domain is on (the clock turns it on too, but not every capture has one).
    const [, added] = await Promise.all([
      cdp.send('Page.enable'),
      cdp.send('Page.addScriptToEvaluateOnNewDocument', { source: ORIGIN_STORAGE_SCRIPT(byOrigin) }),
    ]);
    scriptId = added.identifier;
  }
  await cookies;
  return {
    async settle() {
      if (scriptId === null) return;
      const identifier = scriptId;
      scriptId = null;
      await cdp.send('Page.removeScriptToEvaluateOnNewDocument', { identifier });
    },
  };
}

/** The origins the page's frames show (http(s) only), each once, main frame first. */
function frameOrigins(page: Page): string[] {
  const origins: string[] = [];
  for (const frame of page.frames()) {
    try {
      const { origin, protocol } = new URL(frame.url());
      if (/^https?:$/.test(protocol) && !origins.includes(origin)) origins.push(origin);
    } catch {
      // not a URL with an origin
    }
  }
  return origins;
}

/**
 * The context's state in Playwright's shape: its cookies (the page's
 * session reads them all) and, for each origin the page's frames show, its
 * localStorage and, with `indexedDB`, its IndexedDB.
 */
export async function collectStorageState(page: Page, cdp: CDPSession, options: { indexedDB: boolean }): Promise<StorageState> {
  // The page's session reads its own context's cookies (Storage.getCookies without a context id reads the default one's).
  const { cookies } = await cdp.send('Network.getAllCookies');
  const origins: StorageOrigin[] = [];
  for (const origin of frameOrigins(page)) {
    const frame = page.frames().find((f) => f.url().startsWith(origin));
    if (!frame) continue;
    const collected = (await frame.evaluate(`(${COLLECT_ORIGIN})(${JSON.stringify(options.indexedDB)})`)) as StorageOrigin;
    if (collected.localStorage.length || collected.indexedDB?.length) origins.push(collected);
  }
  return { cookies: cookies.map(storageCookie), origins };
}
