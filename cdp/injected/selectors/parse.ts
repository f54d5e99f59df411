/**
 * Playwright's selector grammar, top level: parts joined by ">>" (outside
 * quotes), each `engine=body`, a bare quoted string (text), an XPath (starting
 * with "//" or ".."), or CSS. A leading "*" on an engine name captures that
 * part instead of the last. Every part is compiled here, so every syntax
 * error — also in a role's attributes, a regular expression, a nested
 * selector — is raised by parse(), with its position.
 */
import { SelectorSyntaxError } from './syntaxError';
import { parseCssSelector, type SelectorList } from './cssSelector';
import { parseAttributeSelector, type AttributeTest } from './attributeSelector';
import { parseTextBody, type TextQuery } from './textMatch';
import { compileRole, type RoleQuery } from './roleQuery';

export type Part =
  | { kind: 'css'; list: SelectorList; pierce: boolean }
  | { kind: 'text'; text: TextQuery; pierce: boolean; internal: boolean }
  | { kind: 'xpath'; expression: string }
  | { kind: 'role'; role: RoleQuery }
  | { kind: 'nth'; index: number }
  | { kind: 'visible'; visible: boolean }
  | { kind: 'has' | 'has-not' | 'and' | 'or' | 'chain'; nested: ParsedSelector }
  | { kind: 'layout'; name: string; nested: ParsedSelector; distance?: number }
  | { kind: 'has-text' | 'has-not-text'; text: TextQuery }
  | { kind: 'label'; text: TextQuery }
  | { kind: 'attribute'; names: string[]; test: AttributeTest }
  | { kind: 'describe' };

export interface ParsedSelector {
  parts: Part[];
  /** Index of the part marked with "*" (its matches are the result), if any. */
  capture?: number;
}

interface RawPart {
  name: string;
  body: string;
  bodyOffset: number;
  partOffset: number;
  text: string;
}

const ENGINE_NAME = /^[a-zA-Z_0-9-+:*]+$/;

function rawPart(selector: string, from: number, to: number): RawPart {
  const slice = selector.substring(from, to);
  const lead = slice.length - slice.trimStart().length;
  const text = slice.trim();
  const partOffset = from + lead;
  const eq = text.indexOf('=');
  if (eq !== -1 && ENGINE_NAME.test(text.substring(0, eq).trim())) {
    return { name: text.substring(0, eq).trim(), body: text.substring(eq + 1), bodyOffset: partOffset + eq + 1, partOffset, text };
  }
  const quoted = text.length > 1 && (text[0] === '"' || text[0] === "'") && text[text.length - 1] === text[0];
  if (quoted) return { name: 'text', body: text, bodyOffset: partOffset, partOffset, text };
  if (/^\(*\/\//.test(text) || text.startsWith('..')) return { name: 'xpath', body: text, bodyOffset: partOffset, partOffset, text };
  return { name: 'css', body: text, bodyOffset: partOffset, partOffset, text };
}

/** Splits at ">>" outside quotes; after `text=` with some text before it, quotes do not open a quoted run. */
function splitParts(selector: string): RawPart[] {
  const parts: RawPart[] = [];
  if (!selector.includes('>>')) return [rawPart(selector, 0, selector.length)];
  let start = 0;
  let quote: string | undefined;
  let i = 0;
  const quoteIsText = () => {
    const m = /^\s*text\s*=(.*)$/.exec(selector.substring(start, i));
    return !!m && !!m[1];
  };
  while (i < selector.length) {
    const c = selector[i];
    if (c === '\\' && i + 1 < selector.length) i += 2;
    else if (c === quote) {
      quote = undefined;
      i++;
    } else if (!quote && (c === '"' || c === "'" || c === '`') && !quoteIsText()) {
      quote = c;
      i++;
    } else if (!quote && c === '>' && selector[i + 1] === '>') {
      parts.push(rawPart(selector, start, i));
      i += 2;
      start = i;
    } else i++;
  }
  parts.push(rawPart(selector, start, selector.length));
  return parts;
}

const ATTRIBUTE_ENGINES: Record<string, string> = { id: 'id', 'data-testid': 'data-testid', 'data-test-id': 'data-test-id', 'data-test': 'data-test' };
const NESTED: Record<string, Part['kind']> = {
  'internal:has': 'has',
  'internal:has-not': 'has-not',
  'internal:and': 'and',
  'internal:or': 'or',
  'internal:chain': 'chain',
};
const LAYOUT = ['left-of', 'right-of', 'above', 'below', 'near'];

function nestedBody(raw: RawPart, allowDistance: boolean): { nested: ParsedSelector; distance?: number } {
  let decoded: unknown;
  try {
    decoded = JSON.parse('[' + raw.body + ']');
  } catch {
    decoded = undefined;
  }
  const ok =
    Array.isArray(decoded) &&
    decoded.length >= 1 &&
    decoded.length <= 2 &&
    typeof decoded[0] === 'string' &&
    (decoded.length === 1 || (allowDistance && typeof decoded[1] === 'number'));
  if (!ok) {
    throw new SelectorSyntaxError(
      raw.bodyOffset,
      `${raw.name}= takes a quoted selector${allowDistance ? ' and an optional distance' : ''}, e.g. ${raw.name}="button"`,
    );
  }
  const list = decoded as [string, number?];
  try {
    return { nested: parseSelector(list[0]), distance: list[1] };
  } catch (e) {
    if (e instanceof SelectorSyntaxError) throw new SelectorSyntaxError(raw.bodyOffset, `in the nested selector ${JSON.stringify(list[0])}: ${e.message}`);
    throw e;
  }
}

function textQuery(raw: RawPart, internal: boolean): TextQuery {
  try {
    return parseTextBody(raw.body, internal);
  } catch (e) {
    throw new SelectorSyntaxError(raw.bodyOffset, `${raw.name}= body ${JSON.stringify(raw.body)} is not valid: ${(e as Error).message}`);
  }
}

function compilePart(raw: RawPart, index: number): Part {
  let name = raw.name;
  const pierce = !name.endsWith(':light');
  if (!pierce) name = name.slice(0, -':light'.length);
  if (name === 'css') {
    if (!raw.body.trim()) throw new SelectorSyntaxError(raw.partOffset, index ? 'empty selector between ">>"' : 'the selector is empty');
    return { kind: 'css', list: parseCssSelector(raw.body, raw.bodyOffset), pierce };
  }
  if (name === 'text') return { kind: 'text', text: textQuery(raw, false), pierce, internal: false };
  if (name === 'xpath') return { kind: 'xpath', expression: raw.body };
  if (ATTRIBUTE_ENGINES[name]) {
    const css = `[${ATTRIBUTE_ENGINES[name]}=${JSON.stringify(raw.body)}]`;
    return { kind: 'css', list: [{ steps: [{ compound: { css, calls: [] }, combinator: '' }] }], pierce };
  }
  if (!pierce) throw new SelectorSyntaxError(raw.partOffset, `the engine "${raw.name}" has no :light form`);
  switch (name) {
    case 'role':
      return { kind: 'role', role: compileRole(raw.body, raw.bodyOffset, false) };
    case 'internal:role':
      return { kind: 'role', role: compileRole(raw.body, raw.bodyOffset, true) };
    case 'internal:text':
      return { kind: 'text', text: textQuery(raw, true), pierce: true, internal: true };
    case 'internal:has-text':
      return { kind: 'has-text', text: textQuery(raw, true) };
    case 'internal:has-not-text':
      return { kind: 'has-not-text', text: textQuery(raw, true) };
    case 'internal:label':
      return { kind: 'label', text: textQuery(raw, true) };
    case 'internal:describe':
      return { kind: 'describe' };
    case 'nth': {
      const index = Number(raw.body);
      if (!raw.body.trim() || !Number.isInteger(index))
        throw new SelectorSyntaxError(raw.bodyOffset, `nth= takes an integer index (0 is the first match, -1 the last), not ${JSON.stringify(raw.body)}`);
      return { kind: 'nth', index };
    }
    case 'visible': {
      const v = raw.body.trim();
      if (v !== 'true' && v !== 'false') throw new SelectorSyntaxError(raw.bodyOffset, `visible= takes true or false, not ${JSON.stringify(raw.body)}`);
      return { kind: 'visible', visible: v === 'true' };
    }
    case 'internal:attr':
    case 'internal:testid': {
      const parsed = parseAttributeSelector(raw.body, raw.bodyOffset);
      if (parsed.name || parsed.tests.length !== 1)
        throw new SelectorSyntaxError(raw.bodyOffset, `${name}= takes one bracketed test, e.g. ${name}=[data-testid="login"s]`);
      const test = parsed.tests[0];
      if (test.op === '<truthy>' || (typeof test.value !== 'string' && !(test.value instanceof RegExp))) {
        throw new SelectorSyntaxError(test.position, `${name}= needs a quoted string or a regular expression value`);
      }
      return { kind: 'attribute', names: name === 'internal:testid' ? test.name.split(',') : [test.name], test };
    }
  }
  if (NESTED[name]) {
    if (index === 0) throw new SelectorSyntaxError(raw.partOffset, `"${name}" cannot be the first part of a selector`);
    return { kind: NESTED[name], nested: nestedBody(raw, false).nested } as Part;
  }
  if (LAYOUT.includes(name)) {
    if (index === 0) throw new SelectorSyntaxError(raw.partOffset, `"${name}" cannot be the first part of a selector`);
    const { nested, distance } = nestedBody(raw, true);
    return { kind: 'layout', name, nested, distance };
  }
  throw new SelectorSyntaxError(
    raw.partOffset,
    `unknown selector engine "${raw.name}" (engines: css, text, role, xpath, id, data-testid, data-test-id, data-test, nth, visible, internal:…)`,
  );
}

/** Parses a selector; throws SelectorSyntaxError ("selector syntax error at position N: …") when it is not valid. */
export function parseSelector(selector: string): ParsedSelector {
  if (typeof selector !== 'string') throw new SelectorSyntaxError(0, 'the selector must be a string');
  const raws = splitParts(selector);
  const out: ParsedSelector = { parts: [] };
  raws.forEach((raw, index) => {
    if (raw.name.startsWith('*')) {
      if (out.capture !== undefined) throw new SelectorSyntaxError(raw.partOffset, 'only one part can capture with "*"');
      out.capture = index;
      raw = { ...raw, name: raw.name.slice(1) };
    }
    out.parts.push(compilePart(raw, index));
  });
  if (out.capture !== undefined && out.parts.some((p) => p.kind === 'nth')) {
    throw new SelectorSyntaxError(0, 'a selector with a "*" capture cannot use nth=');
  }
  return out;
}
