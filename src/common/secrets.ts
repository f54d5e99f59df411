/**
 * Secrets by name: the dotenv file `--secrets FILE` (DESIGN_PLAYBOOK_SECRETS)
 * names, read once at start, and the forms a value can take in an artifact.
 * A call names a secret (`{"do":"fill","secret":"APP_PASSWORD"}`); the
 * value stays here and in the browser, and every message says the name.
 *
 * The file is Playwright MCP's convention, dotenv's syntax: `NAME=value`
 * lines, `#` comments and blank lines, an optional `export `, values bare
 * (trimmed, ` #` starts a comment), 'single-quoted' (as written) or
 * "double-quoted" (\n, \r, \t, \" and \\ read as escapes). A line that is
 * none of these is refused with its number and never its text (it may hold
 * a value). A name given twice, an empty value and one shorter than
 * MIN_SECRET_LENGTH are refused too: a value that short would be found in
 * most artifacts by chance, and the guard (src/boundary/secretGuard.ts)
 * fails closed on every find.
 */
import * as fs from 'fs';
import { EvidenceError } from './errors';

/** A secret's name: a shell variable's spelling. */
export const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The shortest value a secrets file may hold. */
export const MIN_SECRET_LENGTH = 6;

/** How a secret is shown wherever its value would have been (the trace's action parameters, masked text). */
export function secretPlaceholder(name: string): string {
  return `<secret ${name}>`;
}

/** The secrets file cannot be used: its name and the line, never a value. */
export class SecretsFileError extends EvidenceError<'secrets-file'> {
  constructor(message: string) {
    super('secrets-file', message);
    this.name = 'SecretsFileError';
  }
}

/** The loaded secrets: names for the plan and messages, values for the action runner and the guard only. */
export interface SecretStore {
  /** The file they came from (as given). */
  readonly file: string;
  /** The names, in the file's order. */
  names(): string[];
  has(name: string): boolean;
  /** The value of a known name (throws on an unknown one, naming it). */
  value(name: string): string;
  /** Every name and its value. */
  entries(): Array<[name: string, value: string]>;
}

function storeOf(file: string, values: Map<string, string>): SecretStore {
  return {
    file,
    names: () => [...values.keys()],
    has: (name) => values.has(name),
    value(name) {
      const value = values.get(name);
      if (value === undefined) throw new SecretsFileError(`no secret named ${name} in ${file}`);
      return value;
    },
    entries: () => [...values.entries()],
  };
}

/** A store from names and values already in hand (tests, library callers). */
export function secretStore(values: Record<string, string>, file = '(given)'): SecretStore {
  return storeOf(file, new Map(Object.entries(values)));
}

const DOUBLE_QUOTED_ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' };

/** One line's value after the `=`, or the rule it breaks. */
function readValue(rest: string): { value: string } | { problem: string } {
  const text = rest.trimStart();
  const quote = text[0];
  if (quote !== '"' && quote !== "'") {
    const comment = text.search(/\s#/);
    return { value: (comment >= 0 ? text.slice(0, comment) : text).trim() };
  }
  let value = '';
  for (let i = 1; i < text.length; i++) {
    const c = text[i];
    if (c === quote) {
      const after = text.slice(i + 1).trim();
      if (after !== '' && !after.startsWith('#')) return { problem: `text after the closing ${quote === '"' ? 'double' : 'single'} quote` };
      return { value };
    }
    if (quote === '"' && c === '\\' && i + 1 < text.length && DOUBLE_QUOTED_ESCAPES[text[i + 1]] !== undefined) {
      value += DOUBLE_QUOTED_ESCAPES[text[++i]];
      continue;
    }
    value += c;
  }
  return { problem: `no closing ${quote === '"' ? 'double' : 'single'} quote on the line` };
}

/** The names and values of a secrets file's text, or SecretsFileError naming `file` and the line. */
export function parseSecrets(text: string, file: string): Map<string, string> {
  const values = new Map<string, string>();
  const firstLine = new Map<string, number>();
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((raw, index) => {
    const lineNo = index + 1;
    const refuse = (rule: string) => new SecretsFileError(`secrets file ${file}, line ${lineNo}: ${rule}`);
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const body = line.replace(/^export\s+/, '');
    const eq = body.indexOf('=');
    if (eq < 0) throw refuse('not NAME=value (no "=")');
    const name = body.slice(0, eq).trim();
    if (!SECRET_NAME.test(name)) throw refuse('the name before "=" must be letters, digits and _ (not starting with a digit)');
    const read = readValue(body.slice(eq + 1));
    if ('problem' in read) throw refuse(`${name}: ${read.problem}`);
    if (firstLine.has(name)) throw refuse(`${name} is given again (first on line ${firstLine.get(name)})`);
    if (read.value === '') throw refuse(`${name} has an empty value`);
    if ([...read.value].length < MIN_SECRET_LENGTH) {
      throw refuse(`${name} is shorter than ${MIN_SECRET_LENGTH} characters (a value that short would be found in most evidence by chance)`);
    }
    firstLine.set(name, lineNo);
    values.set(name, read.value);
  });
  return values;
}

/** The warning a secrets file others may read gets, as ssh gives one for a private key; null when only its owner can. */
export function permissionWarning(file: string, mode: number): string | null {
  if (process.platform === 'win32' || (mode & 0o077) === 0) return null;
  const octal = (mode & 0o777).toString(8).padStart(4, '0');
  return `warning: secrets file ${file} is readable or writable by others (mode ${octal}); its values are passwords: chmod 600 ${file}`;
}

/**
 * Reads and parses the secrets file; `warn` hears the permission warning.
 * Throws SecretsFileError when it cannot be read or is malformed.
 */
export function loadSecrets(file: string, warn: (message: string) => void): SecretStore {
  let text: string;
  let mode: number;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const st = fs.fstatSync(fd);
      if (!st.isFile()) throw new SecretsFileError(`secrets file ${file} is not a regular file`);
      mode = st.mode;
      text = fs.readFileSync(fd, 'utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch (err) {
    if (err instanceof SecretsFileError) throw err;
    throw new SecretsFileError(`secrets file ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  const values = parseSecrets(text, file);
  const warning = permissionWarning(file, mode);
  if (warning) warn(warning);
  return storeOf(file, values);
}

/** One form a value may take in an artifact, named for the message that reports a find. */
export interface SecretForm {
  encoding: 'plain' | 'URL-encoded' | 'form-encoded' | 'base64' | 'JSON-escaped' | 'HTML-escaped';
  bytes: Buffer;
}

const MIN_BASE64_FORM = 8;

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * The base64 text of `value` wherever it starts in a longer base64 stream:
 * for each of the three byte alignments, the characters that depend on the
 * value's bytes alone. Shorter than MIN_BASE64_FORM characters they are not
 * searched: a run that short turns up by chance in the base64 a page embeds
 * (fonts, images in CSS), and the guard would fail captures closed for
 * nothing; a value of 9 characters or more is searched at every alignment.
 */
function base64Forms(value: Buffer): Buffer[] {
  const forms: Buffer[] = [];
  for (let pad = 0; pad < 3; pad++) {
    const b64 = Buffer.concat([Buffer.alloc(pad), value]).toString('base64');
    const whole = Math.floor((pad + value.length) / 3) * 4;
    const text = b64.slice(pad ? 4 : 0, whole);
    if (text.length >= MIN_BASE64_FORM) forms.push(Buffer.from(text), Buffer.from(text.replace(/\+/g, '-').replace(/\//g, '_')));
  }
  return forms;
}

/** Every form of `value` the guard looks for, each once: plain, URL- and form-encoded, base64 (and base64url), JSON- and HTML-escaped. */
export function secretForms(value: string): SecretForm[] {
  const forms: SecretForm[] = [];
  const seen = new Set<string>();
  const add = (encoding: SecretForm['encoding'], bytes: Buffer) => {
    const key = bytes.toString('latin1');
    if (bytes.length === 0 || seen.has(key)) return;
    seen.add(key);
    forms.push({ encoding, bytes });
  };
  add('plain', Buffer.from(value));
  add('URL-encoded', Buffer.from(encodeURIComponent(value)));
  add('URL-encoded', Buffer.from(encodeURIComponent(value).replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase())));
  add('form-encoded', Buffer.from(new URLSearchParams({ v: value }).toString().slice(2)));
  for (const b64 of base64Forms(Buffer.from(value))) add('base64', b64);
  add('JSON-escaped', Buffer.from(JSON.stringify(value).slice(1, -1)));
  add(
    'JSON-escaped',
    Buffer.from(
      JSON.stringify(value)
        .slice(1, -1)
        .replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
    ),
  );
  add('HTML-escaped', Buffer.from(value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c])));
  return forms;
}

/** `text` with every loaded value (plain, URL-encoded, JSON-escaped) replaced by its name's placeholder: what a message may carry. */
export function maskSecretValues(text: string, secrets: SecretStore | undefined): string {
  if (!secrets) return text;
  let out = text;
  for (const [name, value] of secrets.entries()) {
    for (const form of new Set([value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)])) out = out.split(form).join(secretPlaceholder(name));
  }
  return out;
}
