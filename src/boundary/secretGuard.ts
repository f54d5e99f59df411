/**
 * The guard before the commit, the last line: every file a capture would
 * write is scanned, as bytes, for every loaded secret's value (--secrets) in
 * each of its forms (src/common/secrets.ts secretForms: plain, URL- and
 * form-encoded, base64, JSON- and HTML-escaped); a ZIP (the trace) is
 * scanned as it is and entry by entry, each inflated. A find fails the
 * capture closed: ./perform.ts stages nothing, and the error names the
 * secret, the form and where (the file, the ZIP entry), never the value.
 * A ZIP that cannot be read entry by entry fails closed too.
 *
 * The browser side masks what it can before this (the trace's text, the
 * aria snapshot's fields, the screenshot's painted boxes); what reaches
 * this guard with a value in it is a leak those missed, so it is refused.
 */
import * as zlib from 'zlib';
import { EvidenceError } from '../common/errors';
import { secretForms, type SecretForm, type SecretStore } from '../common/secrets';
import type { StartState } from '../contract/sessions';

/** A secret's value was found in what a capture would write: nothing is written. */
export class SecretInEvidence extends EvidenceError<'secret-in-evidence'> {
  constructor(message: string) {
    super('secret-in-evidence', message);
    this.name = 'SecretInEvidence';
  }
}

/** A value looked for: what it is called in a refusal (`secret APP_PASSWORD`, `the session's cookie sid`) and its forms. */
interface Searched {
  label: string;
  forms: SecretForm[];
}

/**
 * A session's cookie value shorter than this is not looked for: a cookie
 * such as `theme=dark` or `consent=yes` is no credential, and its value is
 * ordinary text a page shows. Session tokens are longer.
 */
export const MIN_GUARDED_COOKIE_LENGTH = 12;

/** The forms, computed once per store and per session state (a capture scans several files with them). */
const secretsSearched = new WeakMap<SecretStore, Searched[]>();
const cookiesSearched = new WeakMap<StartState, Searched[]>();

function searchable(secrets: SecretStore | undefined, start: StartState | undefined): Searched[] {
  let fromSecrets: Searched[] = [];
  if (secrets) {
    fromSecrets = secretsSearched.get(secrets) ?? secrets.entries().map(([name, value]) => ({ label: `secret ${name}`, forms: secretForms(value) }));
    secretsSearched.set(secrets, fromSecrets);
  }
  let fromCookies: Searched[] = [];
  if (start) {
    fromCookies =
      cookiesSearched.get(start) ??
      start.state.cookies
        .filter((cookie) => cookie.value.length >= MIN_GUARDED_COOKIE_LENGTH)
        .map((cookie) => ({ label: `cookie ${cookie.name} of the ${start.label}`, forms: secretForms(cookie.value) }));
    cookiesSearched.set(start, fromCookies);
  }
  return fromSecrets.length && fromCookies.length ? [...fromSecrets, ...fromCookies] : fromSecrets.length ? fromSecrets : fromCookies;
}

/** One readable entry of a ZIP: its name and its inflated bytes. */
interface ZipEntry {
  name: string;
  bytes: Buffer;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** The entries of a ZIP, each inflated; throws when the archive cannot be read that way (the guard then fails closed). */
export function zipEntries(zip: Buffer): ZipEntry[] {
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('no end of central directory');
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const entries: ZipEntry[] = [];
  for (let n = 0; n < count; n++) {
    if (zip.readUInt32LE(at) !== CENTRAL) throw new Error('a damaged central directory');
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const localAt = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;
    if (zip.readUInt32LE(localAt) !== LOCAL) throw new Error(`entry ${name}: a damaged local header`);
    const dataAt = localAt + 30 + zip.readUInt16LE(localAt + 26) + zip.readUInt16LE(localAt + 28);
    const data = zip.subarray(dataAt, dataAt + compressedSize);
    if (method === 0) entries.push({ name, bytes: data });
    else if (method === 8) entries.push({ name, bytes: zlib.inflateRawSync(data) });
    else throw new Error(`entry ${name}: compression method ${method}`);
  }
  return entries;
}

const isZip = (bytes: Buffer) => bytes.length >= 4 && bytes.readUInt32LE(0) === LOCAL;

/** The first secret form in `bytes`, or null. */
function find(bytes: Buffer, searched: Searched[]): { label: string; encoding: string } | null {
  for (const { label, forms } of searched) {
    for (const form of forms) if (bytes.includes(form.bytes)) return { label, encoding: form.encoding };
  }
  return null;
}

/**
 * Throws SecretInEvidence when `contents`, the file `leaf` a capture would
 * write, holds a loaded secret's value, or a cookie value of the session the
 * capture started from (`start`; see MIN_GUARDED_COOKIE_LENGTH), in any form
 * (a ZIP's entries each inflated).
 */
export function guardFile(leaf: string, contents: Buffer | string, secrets: SecretStore | undefined, start?: StartState): void {
  const searched = searchable(secrets, start);
  if (!searched.length) return;
  const bytes = typeof contents === 'string' ? Buffer.from(contents) : contents;
  const refuse = (hit: { label: string; encoding: string }, where: string) =>
    new SecretInEvidence(`${hit.label} found in ${where} (${hit.encoding}); the capture failed closed and nothing was written`);
  const whole = find(bytes, searched);
  if (whole) throw refuse(whole, leaf);
  if (!isZip(bytes)) return;
  let entries: ZipEntry[];
  try {
    entries = zipEntries(bytes);
  } catch (err) {
    throw new SecretInEvidence(
      `${leaf} could not be read entry by entry to look for the secrets (${(err as Error).message}); the capture failed closed and nothing was written`,
    );
  }
  for (const entry of entries) {
    const hit = find(entry.bytes, searched);
    if (hit) throw refuse(hit, `${leaf}, ZIP entry ${entry.name}`);
  }
}
