/**
 * What the argument parsers ask of a caller's value, written once: a plain
 * object, a non-empty string, and how a value is quoted inside an error.
 */

/** Python-repr-like rendering of a caller's value inside an error message. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  if (value === undefined) return 'nothing';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string with something other than whitespace in it. */
export function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0;
}
