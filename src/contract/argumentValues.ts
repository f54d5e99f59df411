/**
 * What the argument parsers ask of a caller's value, written once: a plain
 * object, a non-empty string, a JSON integer, and how a value is quoted
 * inside an error.
 */
import { writtenAsFloat } from '../common/pythonJson';

/**
 * A caller's value inside an error message, worded as the original adapter
 * (Python) words it where callers meet it: strings in single quotes,
 * `True`/`False` and `None` for booleans and null, a float literal with its
 * fraction (`1.0`, given the holder it came in). Arrays and objects keep
 * their JSON spelling, `nothing` stands for a missing value.
 */
export function describeValue(value: unknown, holder?: object, key?: string | number): string {
  if (typeof value === 'string') return `'${value}'`;
  if (value === undefined) return 'nothing';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (value === null) return 'None';
  if (typeof value === 'number') {
    const float = !Number.isInteger(value) || (holder !== undefined && key !== undefined && writtenAsFloat(holder, key));
    return float ? pythonFloat(value) : String(value);
  }
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Python's repr of a float: the shortest digits that read back (as
 * JavaScript prints them too), fixed notation for exponents -4..15 with a
 * `.0` when integral, else `1e+16` / `1.5e-07` style.
 */
function pythonFloat(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  if (Object.is(value, -0)) return '-0.0';
  const [mantissa, exponentText] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 16) {
    const sign = exponent < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  const fixed = value.toFixed(Math.max(0, mantissa.replace(/^-/, '').replace('.', '').length - 1 - exponent));
  return fixed.includes('.') ? fixed : `${fixed}.0`;
}

/**
 * `holder[key]` is a JSON integer as the original reads one: an integral
 * number written without a fraction or exponent (`1`, not `1.0` or `1e0`).
 */
export function isIntegerAt(holder: Record<string, unknown>, key: string): boolean {
  const value = holder[key];
  return typeof value === 'number' && Number.isInteger(value) && !writtenAsFloat(holder, key);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string with something other than whitespace in it. */
export function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0;
}
