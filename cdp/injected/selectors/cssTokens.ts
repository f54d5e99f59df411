/**
 * A CSS tokenizer sized for selectors (CSS Syntax 3 token kinds, positions
 * kept). Each token keeps the exact text it came from, so standard CSS is
 * handed to the browser's own matcher as written; only the pseudo-classes
 * Playwright adds are parsed further (cssSelector.ts).
 */
import { SelectorSyntaxError } from './syntaxError';

export type TokenKind =
  | 'ws'
  | 'ident'
  | 'function'
  | 'at'
  | 'hash'
  | 'string'
  | 'number'
  | 'percentage'
  | 'dimension'
  | 'url'
  | 'delim'
  | 'colon'
  | 'semicolon'
  | 'comma'
  | '('
  | ')'
  | '['
  | ']'
  | '{'
  | '}'
  | 'cdo'
  | 'cdc'
  | 'column'
  | 'eof';

export interface Token {
  kind: TokenKind;
  /** Unescaped value: identifier/function name, string contents, number, delimiter character. */
  value: string | number;
  /** Offset of the token's first character in the tokenized text. */
  start: number;
  /** The text the token was read from. */
  raw: string;
}

const isDigit = (c: string) => c >= '0' && c <= '9';
const isHex = (c: string) => /^[0-9a-fA-F]$/.test(c);
const isNameStart = (c: string) => /^[a-zA-Z_]$/.test(c) || (c !== '' && c.charCodeAt(0) >= 0x80);
const isName = (c: string) => isNameStart(c) || isDigit(c) || c === '-';
const isWs = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f';

export function tokenizeCss(text: string, offset: number): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const at = (k: number) => text[i + k] || '';
  const validEscape = (k: number) => at(k) === '\\' && at(k + 1) !== '\n' && at(k + 1) !== '';
  const startsIdent = (k: number) => {
    if (at(k) === '-') return isNameStart(at(k + 1)) || at(k + 1) === '-' || validEscape(k + 1);
    return isNameStart(at(k)) || validEscape(k);
  };
  const startsNumber = (k: number) => {
    if (at(k) === '+' || at(k) === '-') return isDigit(at(k + 1)) || (at(k + 1) === '.' && isDigit(at(k + 2)));
    if (at(k) === '.') return isDigit(at(k + 1));
    return isDigit(at(k));
  };
  const readEscape = (): string => {
    // i is just past the backslash
    let hex = '';
    while (hex.length < 6 && isHex(at(0))) hex += text[i++];
    if (hex) {
      if (isWs(at(0))) i++;
      const cp = parseInt(hex, 16);
      return cp === 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? '\ufffd' : String.fromCodePoint(cp);
    }
    return text[i++];
  };
  const readName = (): string => {
    let out = '';
    for (;;) {
      if (isName(at(0))) out += text[i++];
      else if (validEscape(0)) {
        i++;
        out += readEscape();
      } else return out;
    }
  };
  const push = (kind: TokenKind, value: string | number, start: number) => tokens.push({ kind, value, start: offset + start, raw: text.slice(start, i) });
  const fail = (pos: number, detail: string): never => {
    throw new SelectorSyntaxError(offset + pos, detail);
  };

  while (i < text.length) {
    const start = i;
    const c = text[i];
    if (isWs(c)) {
      while (isWs(at(0))) i++;
      push('ws', ' ', start);
    } else if (c === '"' || c === "'") {
      i++;
      let out = '';
      for (;;) {
        const d = at(0);
        if (d === '') break;
        if (d === c) {
          i++;
          break;
        }
        if (d === '\n') fail(i, 'a line break inside a quoted string');
        if (d === '\\') {
          i++;
          if (at(0) === '') break;
          if (at(0) === '\n') {
            i++;
            continue;
          }
          out += readEscape();
          continue;
        }
        out += d;
        i++;
      }
      push('string', out, start);
    } else if (c === '#') {
      i++;
      if (isName(at(0)) || validEscape(0)) push('hash', readName(), start);
      else push('delim', '#', start);
    } else if (startsNumber(0)) {
      const m = /^[+-]?(\d*\.\d+|\d+)([eE][+-]?\d+)?/.exec(text.slice(i)) as RegExpExecArray;
      i += m[0].length;
      const n = Number(m[0]);
      if (at(0) === '%') {
        i++;
        push('percentage', n, start);
      } else if (startsIdent(0)) {
        readName();
        push('dimension', n, start);
      } else push('number', n, start);
    } else if (startsIdent(0)) {
      const name = readName();
      if (at(0) === '(') {
        i++;
        if (name.toLowerCase() === 'url') fail(start, 'url() is not supported in a selector');
        push('function', name, start);
      } else {
        push('ident', name, start);
      }
    } else if (c === '@' && startsIdent(1)) {
      i++;
      push('at', readName(), start);
    } else if (c === '<' && text.startsWith('<!--', i)) {
      i += 4;
      push('cdo', '<!--', start);
    } else if (c === '-' && text.startsWith('-->', i)) {
      i += 3;
      push('cdc', '-->', start);
    } else if (c === '|' && at(1) === '|') {
      i += 2;
      push('column', '||', start);
    } else if (c === '\\') {
      fail(i, 'a lone backslash');
    } else {
      i++;
      const single: Record<string, TokenKind> = { ':': 'colon', ';': 'semicolon', ',': 'comma', '(': '(', ')': ')', '[': '[', ']': ']', '{': '{', '}': '}' };
      push(single[c] || 'delim', c, start);
    }
  }
  tokens.push({ kind: 'eof', value: '', start: offset + text.length, raw: '' });
  return tokens;
}
