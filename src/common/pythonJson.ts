/**
 * JSON text to values, keeping the one fact JSON.parse forgets: whether a
 * number was written with a fraction or an exponent. The original adapter
 * reads requests with Python's json module, where `1.0` is a float and `1` an
 * int, so its integer fields (schemaVersion, viewport width and height)
 * refuse `1.0`; in JavaScript both parse to the same number. Whoever holds
 * the text (the stdio transport, the manifest reader) parses it here, and the
 * rule owners ask `writtenAsFloat(holder, key)` of the value they check.
 *
 * The values are exactly JSON.parse's (it parses first, so invalid text
 * throws its usual SyntaxError); the marks live in a WeakMap keyed by the
 * object or array holding the number, so they follow that container and
 * vanish with it. A copy of a container carries no marks: its numbers then
 * count as written without a fraction, which is all any caller building
 * values in code can mean.
 */

/**
 * Keys whose number the original writes as a float (`1.0`): Python keeps
 * `float(1)` as `1.0` in its JSON, and callers that read the echo with
 * Python's json module get a float only from such a literal. Owned by the
 * contract (src/contract/captureContract.ts FLOAT_KEYS); listed here as the writer's input.
 */
export type FloatKeys = ReadonlySet<string>;

/** Container -> keys (array indexes as strings) whose number was written with a fraction or exponent. */
const FLOAT_LITERALS = new WeakMap<object, Set<string>>();

/** True when `holder[key]` came from JSON text as a number written with a fraction or exponent (`1.0`, `8e2`). */
export function writtenAsFloat(holder: object, key: string | number): boolean {
  return FLOAT_LITERALS.get(holder)?.has(String(key)) ?? false;
}

/** A number followed by `.`, `e` or `E`: without one in the text there is no float literal to mark. */
const MAYBE_FLOAT = /[0-9][.eE]/;

/** JSON.parse, plus the float-literal marks `writtenAsFloat` reads. Throws what JSON.parse throws. */
export function parseJsonText(text: string): unknown {
  const value = JSON.parse(text);
  if (!MAYBE_FLOAT.test(text) || typeof value !== 'object' || value === null) return value;
  return new MarkingReader(text).read();
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);

/**
 * Walks text JSON.parse has already accepted and builds the same values,
 * marking float literals on the way. It needs no error handling: the text
 * is valid.
 */
class MarkingReader {
  private at = 0;
  constructor(private readonly text: string) {}

  read(): unknown {
    this.skipSpace();
    return this.value(null, '');
  }

  private skipSpace(): void {
    while (WHITESPACE.has(this.text[this.at])) this.at++;
  }

  /** One value; a number written as a float is marked on `holder` under `key`. */
  private value(holder: object | null, key: string): unknown {
    const c = this.text[this.at];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    if (c === 't') return this.word('true', true);
    if (c === 'f') return this.word('false', false);
    if (c === 'n') return this.word('null', null);
    return this.number(holder, key);
  }

  private word<T>(word: string, value: T): T {
    this.at += word.length;
    return value;
  }

  private string(): string {
    const start = this.at++;
    while (this.text[this.at] !== '"') this.at += this.text[this.at] === '\\' ? 2 : 1;
    this.at++;
    // The token is a valid JSON string: JSON.parse decodes its escapes exactly.
    return JSON.parse(this.text.slice(start, this.at));
  }

  private number(holder: object | null, key: string): number {
    const start = this.at;
    while (this.at < this.text.length && /[-+0-9.eE]/.test(this.text[this.at])) this.at++;
    const token = this.text.slice(start, this.at);
    if (holder !== null && /[.eE]/.test(token)) {
      let keys = FLOAT_LITERALS.get(holder);
      if (!keys) FLOAT_LITERALS.set(holder, (keys = new Set()));
      keys.add(key);
    }
    return Number(token);
  }

  private object(): Record<string, unknown> {
    const object: Record<string, unknown> = {};
    this.at++;
    this.skipSpace();
    if (this.text[this.at] === '}') {
      this.at++;
      return object;
    }
    for (;;) {
      this.skipSpace();
      const key = this.string();
      this.skipSpace();
      this.at++; // ':'
      this.skipSpace();
      // A repeated key: the last value wins, as in JSON.parse, and so does its mark.
      FLOAT_LITERALS.get(object)?.delete(key);
      const value = this.value(object, key);
      // Defined, not assigned: a `__proto__` key is an own property, as JSON.parse makes it.
      Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
      this.skipSpace();
      if (this.text[this.at++] === '}') return object;
    }
  }

  private array(): unknown[] {
    const array: unknown[] = [];
    this.at++;
    this.skipSpace();
    if (this.text[this.at] === ']') {
      this.at++;
      return array;
    }
    for (;;) {
      this.skipSpace();
      array.push(this.value(array, String(array.length)));
      this.skipSpace();
      if (this.text[this.at++] === ']') return array;
    }
  }
}

/** Stands in for a float literal inside JSON.stringify's output: a per-process token no value a page returns carries by accident. */
const FLOAT_TOKEN = `~float-${process.pid}-${Date.now().toString(36)}~`;
const FLOAT_PLACEHOLDER = new RegExp(`"${FLOAT_TOKEN}(-?[0-9]+)"`, 'g');

/**
 * JSON.stringify, except that an integral number under one of `floatKeys`
 * is written with a fraction (`"devicePixelRatio": 1.0`), as the original's
 * Python writer wrote it. Every other value is exactly JSON.stringify's.
 */
export function stringifyJson(value: unknown, floatKeys: FloatKeys, space?: number): string {
  let marked = false;
  const text = JSON.stringify(
    value,
    (key, v) => {
      // 1e+21 and beyond already read as floats (an exponent); only plain integers need the fraction.
      if (typeof v === 'number' && Number.isInteger(v) && floatKeys.has(key) && !String(v).includes('e')) {
        marked = true;
        return FLOAT_TOKEN + String(v);
      }
      return v;
    },
    space,
  );
  return marked ? text.replace(FLOAT_PLACEHOLDER, '$1.0') : text;
}
