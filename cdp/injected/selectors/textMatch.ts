/**
 * Text matching as Playwright's text engines do it. An element's text is its
 * text nodes and its descendants' (open shadow roots included, comments and
 * <script>/<style>/<noscript>/<head> content excluded); a button-like <input>
 * reads as its value. Matching picks the smallest element: one whose text
 * matches but none of whose child elements' text does.
 */
import { memo, memoTable } from '../aria/caches';

export interface ElementText {
  /** All text, as the DOM spells it. */
  full: string;
  /** `full` with whitespace collapsed and trimmed. */
  normalized: string;
  /** The runs of the element's own text nodes (between child elements). */
  immediate: string[];
}
export type TextMatcher = (text: ElementText) => boolean;

/** Collapses whitespace runs to one space, trims, and drops zero-width and soft-hyphen characters. */
export function normalizeWhiteSpace(s: string): string {
  return s
    .replace(/[\u200b\u00ad]/g, '')
    .trim()
    .replace(/\s+/g, ' ');
}

export function skipsTextMatching(node: Element | ShadowRoot): boolean {
  const name = node.nodeName;
  if (name === 'SCRIPT' || name === 'NOSCRIPT' || name === 'STYLE') return true;
  const head = node.ownerDocument.head;
  return !!head && head.contains(node);
}

const BUTTON_LIKE_INPUTS = ['submit', 'button', 'reset'];
const texts = memoTable<Element | ShadowRoot, ElementText>();

function computeText(node: Element | ShadowRoot): ElementText {
  if (skipsTextMatching(node)) return { full: '', normalized: '', immediate: [] };
  if (node instanceof HTMLInputElement && BUTTON_LIKE_INPUTS.includes(node.type)) {
    return { full: node.value, normalized: normalizeWhiteSpace(node.value), immediate: [node.value] };
  }
  let full = '';
  let run = '';
  const immediate: string[] = [];
  for (let c = node.firstChild; c; c = c.nextSibling) {
    if (c.nodeType === 3) {
      full += c.nodeValue || '';
      run += c.nodeValue || '';
      continue;
    }
    if (c.nodeType === 8) continue;
    if (run) immediate.push(run);
    run = '';
    if (c.nodeType === 1) full += elementText(c as Element).full;
  }
  if (run) immediate.push(run);
  const shadow = (node as Element).shadowRoot;
  if (shadow) full += elementText(shadow).full;
  return { full, normalized: full ? normalizeWhiteSpace(full) : '', immediate };
}

export function elementText(node: Element | ShadowRoot): ElementText {
  return memo(texts, node, computeText);
}

/** 'self': the element matches and no child element does; 'selfAndChildren': a child matches too. */
export function matchesText(e: Element, matcher: TextMatcher): 'none' | 'self' | 'selfAndChildren' {
  if (skipsTextMatching(e) || !matcher(elementText(e))) return 'none';
  for (let c = e.firstChild; c; c = c.nextSibling) {
    if (c.nodeType === 1 && matcher(elementText(c as Element))) return 'selfAndChildren';
  }
  if (e.shadowRoot && matcher(elementText(e.shadowRoot))) return 'selfAndChildren';
  return 'self';
}

/** Case-insensitive substring of the normalized text. */
export function laxMatcher(wanted: string): TextMatcher {
  const needle = normalizeWhiteSpace(wanted).toLowerCase();
  return (t) => t.normalized.toLowerCase().includes(needle);
}

/** One of the element's own text runs equals `wanted` (whitespace-normalized); empty matches an element without text runs. */
export function ownRunMatcher(wanted: string): TextMatcher {
  const needle = normalizeWhiteSpace(wanted);
  return (t) => (!needle && !t.immediate.length) || t.immediate.some((run) => normalizeWhiteSpace(run) === needle);
}

export function regexMatcher(re: RegExp): TextMatcher {
  return (t) => {
    re.lastIndex = 0;
    return re.test(t.full);
  };
}

export type TextQueryKind = 'lax' | 'strict' | 'regex';
export interface TextQuery {
  kind: TextQueryKind;
  matcher: TextMatcher;
}

/** Backslash escapes inside a quoted text= body: "\x" reads as x. */
function unescapeQuoted(body: string): string {
  let out = '';
  for (let i = 1; i < body.length - 1; i++) {
    if (body[i] === '\\' && i + 1 < body.length - 1) i++;
    out += body[i];
  }
  return out;
}

/**
 * The body of a text selector. text=…: `/re/flags`, `"exact"` or `'exact'` (an own text run equals it),
 * else a case-insensitive substring. The internal: forms (what locators print) quote as JSON and
 * take a suffix: `"…"i` substring, `"…"s` or `"…"` the whole normalized text.
 * Throws a plain Error for an invalid body; the parser turns it into a syntax error.
 */
export function parseTextBody(body: string, internal: boolean): TextQuery {
  if (body[0] === '/' && body.lastIndexOf('/') > 0) {
    const last = body.lastIndexOf('/');
    const re = new RegExp(body.substring(1, last), body.substring(last + 1));
    return { kind: 'regex', matcher: regexMatcher(re) };
  }
  let text = body;
  let exact = false;
  const quotedBy = (q: string) => text.length > 1 && text[0] === q && text[text.length - 1] === q;
  const unquote = (s: string) => (internal ? (JSON.parse(s) as string) : unescapeQuoted(s));
  if (quotedBy('"')) {
    text = unquote(text);
    exact = true;
  } else if (internal && text.length > 2 && text[0] === '"' && text[text.length - 2] === '"' && /[is]/.test(text[text.length - 1])) {
    exact = text[text.length - 1] === 's';
    text = unquote(text.slice(0, -1));
  } else if (quotedBy("'")) {
    text = unquote(text);
    exact = true;
  }
  if (typeof text !== 'string') throw new Error('the text must be a string');
  text = normalizeWhiteSpace(text);
  if (!exact) return { kind: 'lax', matcher: laxMatcher(text) };
  if (internal) return { kind: 'strict', matcher: (t) => t.normalized === text };
  return { kind: 'strict', matcher: ownRunMatcher(text) };
}
