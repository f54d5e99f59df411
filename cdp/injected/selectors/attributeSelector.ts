/**
 * The `name[attr op value]…` form that role=, internal:role=, internal:attr=
 * and internal:testid= bodies use: an optional name, then bracketed tests.
 * A value is a quoted string (optionally followed by i or s for case), a
 * regular expression /…/flags (only with =), true/false, or a bare word.
 */
import { SelectorSyntaxError } from './syntaxError';

export type AttributeOperator = '<truthy>' | '=' | '*=' | '|=' | '^=' | '$=' | '~=';
export interface AttributeTest {
  name: string;
  op: AttributeOperator;
  value: string | number | boolean | RegExp | null;
  /** Quoted values compare case-sensitively unless followed by i. */
  caseSensitive: boolean;
  /** Offset of the test's "[" in the whole selector. */
  position: number;
}
export interface AttributeSelector {
  name: string;
  tests: AttributeTest[];
}

const isNameChar = (c: string) => c >= '\u0080' || /^[0-9A-Za-z_-]$/.test(c);

/** Parses `text`, which starts at `offset` in the whole selector. */
export function parseAttributeSelector(text: string, offset: number): AttributeSelector {
  let i = 0;
  const peek = () => text[i] || '';
  const atEnd = () => i >= text.length;
  const fail = (detail: string): never => {
    throw new SelectorSyntaxError(
      offset + i,
      atEnd() ? `unexpected end of "${text}"${detail ? ' ' + detail : ''}` : `unexpected "${peek()}" in "${text}"${detail ? ' ' + detail : ''}`,
    );
  };
  const skipWs = () => {
    while (!atEnd() && /\s/.test(peek())) i++;
  };
  const identifier = () => {
    skipWs();
    let out = '';
    while (!atEnd() && isNameChar(peek())) out += text[i++];
    return out;
  };
  const quoted = (): string => {
    const q = text[i++];
    let out = '';
    while (!atEnd() && peek() !== q) {
      if (peek() === '\\') i++;
      out += text[i++];
    }
    if (peek() !== q) fail('while reading a quoted string');
    i++;
    return out;
  };
  const regex = (): RegExp => {
    const start = i;
    i++; // "/"
    let source = '';
    let inClass = false;
    while (!atEnd()) {
      const c = peek();
      if (c === '\\') {
        source += text[i++];
        if (atEnd()) fail('while reading a regular expression');
      } else if (inClass && c === ']') inClass = false;
      else if (!inClass && c === '[') inClass = true;
      else if (!inClass && c === '/') break;
      source += text[i++];
    }
    if (peek() !== '/') fail('while reading a regular expression');
    i++;
    let flags = '';
    while (!atEnd() && /[dgimsuvy]/.test(peek())) flags += text[i++];
    try {
      return new RegExp(source, flags);
    } catch (e) {
      throw new SelectorSyntaxError(offset + start, `invalid regular expression: ${(e as Error).message}`);
    }
  };
  const test = (): AttributeTest => {
    const position = offset + i;
    i++; // "["
    const path: string[] = [];
    const pathToken = () => {
      skipWs();
      const t = peek() === '"' || peek() === "'" ? quoted() : identifier();
      if (!t) fail('where an attribute name was expected');
      path.push(t);
    };
    pathToken();
    skipWs();
    while (peek() === '.') {
      i++;
      pathToken();
      skipWs();
    }
    const name = path.join('.');
    if (peek() === ']') {
      i++;
      return { name, op: '<truthy>', value: null, caseSensitive: false, position };
    }
    let op = text[i] || '';
    if (op && op !== '=') op += text[i + 1] || '';
    if (!['=', '*=', '^=', '$=', '|=', '~='].includes(op)) fail('where an operator (=, *=, ^=, $=, |=, ~=) was expected');
    i += op.length;
    skipWs();
    let value: AttributeTest['value'];
    let caseSensitive = true;
    if (peek() === '/') {
      if (op !== '=') fail(`: a regular expression needs "=", not "${op}"`);
      value = regex();
    } else if (peek() === '"' || peek() === "'") {
      value = quoted();
      skipWs();
      if (peek() === 'i' || peek() === 'I') {
        caseSensitive = false;
        i++;
      } else if (peek() === 's' || peek() === 'S') i++;
    } else {
      let word = '';
      while (!atEnd() && (isNameChar(peek()) || peek() === '+' || peek() === '.')) word += text[i++];
      value = word === 'true' ? true : word === 'false' ? false : word;
    }
    skipWs();
    if (peek() !== ']') fail('where "]" was expected');
    i++;
    if (op !== '=' && typeof value !== 'string') {
      throw new SelectorSyntaxError(position, `[${name}${op}…] needs a quoted string value`);
    }
    return { name, op: op as AttributeOperator, value, caseSensitive, position };
  };

  const out: AttributeSelector = { name: identifier(), tests: [] };
  skipWs();
  while (peek() === '[') {
    out.tests.push(test());
    skipWs();
  }
  if (!atEnd()) fail('');
  if (!out.name && !out.tests.length) throw new SelectorSyntaxError(offset, 'the selector body is empty');
  return out;
}

/** Compares a string against a test's value by the test's operator (case-insensitively unless caseSensitive). */
export function matchesAttributeTest(actual: string, test: Pick<AttributeTest, 'op' | 'value' | 'caseSensitive'>): boolean {
  const fold = (v: unknown) => (typeof v === 'string' && !test.caseSensitive ? v.toUpperCase() : v);
  const have = fold(actual) as string;
  const want = fold(test.value);
  if (test.op === '<truthy>') return !!have;
  if (test.op === '=') return want instanceof RegExp ? regexHit(want, actual) : have === want;
  if (typeof want !== 'string') return false;
  switch (test.op) {
    case '*=':
      return have.includes(want);
    case '^=':
      return have.startsWith(want);
    case '$=':
      return have.endsWith(want);
    case '|=':
      return have === want || have.startsWith(want + '-');
    case '~=':
      return have.split(' ').includes(want);
  }
  return false;
}

function regexHit(re: RegExp, s: string): boolean {
  re.lastIndex = 0;
  return re.test(s);
}
