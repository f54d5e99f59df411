/**
 * HTML text helpers for the report renderer. Everything the report shows
 * comes from files a run wrote, so every text and attribute value goes
 * through `esc`; markup is only ever built from the renderer's own strings.
 */
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** Markup already built by the renderer, marked so it is not escaped twice. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Part = string | number | Html | null | undefined | false | Part[];

function flatten(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (Array.isArray(part)) return part.map(flatten).join('');
  if (part instanceof Html) return part.text;
  return esc(part);
}

/** Tagged template: interpolated values are escaped unless they are Html (or arrays of it). */
export function html(strings: TemplateStringsArray, ...parts: Part[]): Html {
  let out = strings[0];
  for (let i = 0; i < parts.length; i++) out += flatten(parts[i]) + strings[i + 1];
  return new Html(out);
}

export function raw(text: string): Html {
  return new Html(text);
}

/** Formats a number for display: integers as is, others to at most 2 decimals. */
export function num(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Math.round(n * 100) / 100);
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${num(n / 1024)} KiB`;
  return `${num(n / 1024 / 1024)} MiB`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
