/**
 * Which parts of an address are secret, and how an address reads once they
 * are hidden. A browser farm is reached at an address that carries its
 * credential — `ws://farm:3000/chromium?token=…`, `wss://user:pass@host/…` —
 * and that credential is what protects a DevTools endpoint (full control of
 * a browser), so it never reaches a message, a warning, a log line, a result
 * or a report. Everything that prints an endpoint takes it from here.
 *
 * Secret: the userinfo of a URL (a farm may read its token from the user
 * name), and the value of a query parameter whose name is a credential word
 * (`token`, `apiKey` / `api_key`, `key`, `access_token`, `auth`, `password`,
 * `secret`, … in any case, also as the last part of a longer name such as
 * `browserless_token` or `x-api-key`). The name stays visible, so a reader
 * still sees that a token was given: `ws://127.0.0.1:3000/chromium?token=***`.
 * Nothing else of the address changes (no normalization), so a redacted
 * address without secrets is the address as given.
 */

/** What a hidden value reads as. */
export const REDACTED = '***';

/** Credential words: a parameter named one of these (or ending in `_word` / `-word` / `.word`) is secret. */
const SECRET_WORDS = new Set([
  'token',
  'key',
  'apikey',
  'secret',
  'password',
  'passwd',
  'pwd',
  'pass',
  'auth',
  'authorization',
  'credential',
  'credentials',
  'signature',
  'sig',
  'jwt',
  'bearer',
]);

/** Whether a query parameter of this name carries a credential. */
export function isSecretParam(name: string): boolean {
  let decoded = name;
  try {
    decoded = decodeURIComponent(name);
  } catch {
    // a malformed escape: judged as written
  }
  const lower = decoded.toLowerCase();
  if (SECRET_WORDS.has(lower.replace(/[-_.]/g, ''))) return true;
  const parts = lower.split(/[-_.]/).filter(Boolean);
  return parts.length > 1 && SECRET_WORDS.has(parts[parts.length - 1]);
}

/** `name=value` pairs after a `?`, `&` or `;` (a value ends at the next separator, a fragment, white space, a bracket or a comma: a list of addresses). */
const QUERY_PAIR = /([?&;])([^=&#;?\s'"<>(),]+)=([^&#;\s'"<>(),]+)/g;
/** `scheme://userinfo@` (userinfo has no `/`, `?`, `#` or white space). */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^/?#@\s'"<>]+)@/gi;

/** A value that only stands for one (`…`, `***`, `<token>`): advice, not a secret. */
const PLACEHOLDER = /^(?:\*+|…|\.\.\.|<[^<>]*>)$/;

function hideQueryValues(text: string): string {
  return text.replace(QUERY_PAIR, (whole, sep: string, name: string, value: string) =>
    isSecretParam(name) && !PLACEHOLDER.test(value) ? `${sep}${name}=${REDACTED}` : whole,
  );
}

/** The address with its credentials hidden; everything else exactly as given. */
export function redactUrl(url: string): string {
  return hideQueryValues(url.replace(USERINFO, (_whole, scheme: string) => `${scheme}${REDACTED}@`));
}

/**
 * Any text (an error, a log line, a warning) with the credentials of every
 * address in it hidden — URLs anywhere in the text, and a `?token=…` pair
 * even when the address around it is not a URL (`127.0.0.1:3000?token=…`).
 */
export function redactSecrets(text: string): string {
  if (!text) return text;
  return redactUrl(text);
}

/** The secret values an address carries (its userinfo, its credential parameters), decoded and as written. */
export function secretValuesOf(url: string): string[] {
  const values = new Set<string>();
  const add = (value: string) => {
    if (!value || PLACEHOLDER.test(value)) return;
    values.add(value);
    try {
      values.add(decodeURIComponent(value));
    } catch {
      // as written only
    }
  };
  const userinfo = /^[a-z][a-z0-9+.-]*:\/\/([^/?#@\s]+)@/i.exec(url.trim())?.[1];
  if (userinfo) {
    add(userinfo);
    for (const part of userinfo.split(':')) add(part);
  }
  for (const match of url.matchAll(QUERY_PAIR)) if (isSecretParam(match[2])) add(match[3]);
  return [...values].filter((v) => v.length >= 3).sort((a, b) => b.length - a.length);
}

/**
 * Text that came from the other side (a farm's refusal body, a library's
 * error) with the secrets of `url` hidden wherever they appear, even without
 * their `token=` in front, and every address in it redacted.
 */
export function redactKnownSecrets(text: string, url: string): string {
  let out = text;
  for (const value of secretValuesOf(url)) out = out.split(value).join(REDACTED);
  return redactSecrets(out);
}
