/**
 * What a trace keeps of credentials and secrets:
 *
 * - the values of the headers that carry a credential (Authorization,
 *   Proxy-Authorization, Cookie, Set-Cookie) are replaced by HEADER_MASK in
 *   every trace, their names kept: a trace is evidence, shared and committed,
 *   and a bearer token or a session cookie in its network log would sign
 *   its reader in;
 * - each secret value the caller hands in (`TraceSecret`: the value and what
 *   shows instead) is replaced in the trace's JSON text, as JSON writes it,
 *   URL-encoded and form-encoded: a login form's POST body, a URL that
 *   carries it, a text field's value in a DOM snapshot.
 *
 * Password fields' values are masked as the browser shows them where the
 * snapshot is taken (cdp/injected/trace/liveState.ts).
 */

/** What a credential header's value reads as in a trace. */
export const HEADER_MASK = '<masked>';

/** The headers whose values a trace never keeps (lower case). */
export const MASKED_HEADERS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

/** A header's value as the trace keeps it. */
export function traceHeaderValue(name: string, value: string): string {
  return MASKED_HEADERS.has(name.toLowerCase()) ? HEADER_MASK : value;
}

/** A value to keep out of the trace, and the text that shows in its place. */
export interface TraceSecret {
  value: string;
  mask: string;
}

/** The forms a string takes in the trace's JSON text, for the value and its mask alike. */
function textForms(text: string): string[] {
  const uri = encodeURIComponent(text);
  return [
    JSON.stringify(text).slice(1, -1),
    uri,
    uri.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
    new URLSearchParams({ v: text }).toString().slice(2),
  ];
}

/** JSON text with every secret's value, in each of its forms, replaced by its mask in the same form. */
export function maskSecretsInJson(json: string, secrets: readonly TraceSecret[]): string {
  let out = json;
  for (const { value, mask } of secrets) {
    const masks = textForms(mask);
    textForms(value).forEach((form, i) => {
      if (form && out.includes(form)) out = out.split(form).join(masks[i]);
    });
  }
  return out;
}
