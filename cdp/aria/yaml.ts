/**
 * Text form of an aria snapshot: Playwright's YAML-like lines, written
 * (renderAriaYaml) and read back (parseAriaYaml, for the run report). Owns
 * the quoting rules for keys (single quotes) and values (double quotes with
 * escapes), so that names with colons, quotes, leading dashes, '#', newlines
 * or YAML keywords read back as the same string.
 */

export type Tristate = boolean | 'mixed';

export interface AriaNode {
  role: string;
  name: string;
  children: Array<AriaNode | string>;
  checked?: Tristate;
  disabled?: boolean;
  expanded?: boolean;
  invalid?: boolean | 'grammar' | 'spelling';
  level?: number;
  pressed?: Tristate;
  selected?: boolean;
  /** Shown although it carries aria-hidden="true" (a display:contents element with shown children). */
  ariaHidden?: boolean;
  url?: string;
  placeholder?: string;
}

/** True when a plain scalar would be read back as something else (or not at all). */
export function needsYamlQuotes(str: string): boolean {
  if (str.length === 0) return true;
  if (/^\s|\s$/.test(str)) return true;
  if (/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/.test(str)) return true;
  if (str.startsWith('-')) return true;
  if (/[\n:](\s|$)/.test(str)) return true;
  if (/\s#/.test(str)) return true;
  if (/[\n\r]/.test(str)) return true;
  if (/^[&*\],?!>|@"'#%]/.test(str)) return true;
  if (/[{}`]/.test(str)) return true;
  if (str.startsWith('[')) return true;
  // Numbers, booleans, null and friends that a YAML reader would not keep as text.
  if (!isNaN(Number(str))) return true;
  if (['y', 'n', 'yes', 'no', 'true', 'false', 'on', 'off', 'null', '~'].includes(str.toLowerCase())) return true;
  if (/^[-+]?\.(inf|nan)$/i.test(str)) return true;
  return false;
}

/** A mapping key ("role "name" [attrs]"): single-quoted, quotes doubled, when it must be. */
export function quoteKey(str: string): string {
  return needsYamlQuotes(str) ? `'${str.replace(/'/g, "''")}'` : str;
}

const VALUE_ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  '"': '\\"',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

/** A value (text, /url, /placeholder): double-quoted with C-style escapes, when it must be. */
export function quoteValue(str: string): string {
  if (!needsYamlQuotes(str)) return str;
  const body = str.replace(/[\\"\x00-\x1f\x7f-\x9f]/g, (c) => VALUE_ESCAPES[c] ?? '\\x' + c.charCodeAt(0).toString(16).padStart(2, '0'));
  return `"${body}"`;
}

// Longer names are left out of the key: a YAML key is limited to 1024 characters.
const MAX_NAME_IN_KEY = 900;

function keyOf(node: AriaNode): string {
  let key = node.role;
  if (node.name && node.name.length <= MAX_NAME_IN_KEY) key += ' ' + JSON.stringify(node.name);
  if (node.checked === 'mixed') key += ' [checked=mixed]';
  if (node.checked === true) key += ' [checked]';
  if (node.disabled) key += ' [disabled]';
  if (node.expanded) key += ' [expanded]';
  if (node.invalid === 'grammar' || node.invalid === 'spelling') key += ` [invalid=${node.invalid}]`;
  if (node.invalid === true) key += ' [invalid]';
  if (node.level) key += ` [level=${node.level}]`;
  if (node.pressed === 'mixed') key += ' [pressed=mixed]';
  if (node.pressed === true) key += ' [pressed]';
  if (node.selected === true) key += ' [selected]';
  if (node.ariaHidden) key += ' [aria-hidden]';
  return key;
}

/** Renders the children of the root fragment, one line per node or text run, two spaces per level. */
export function renderAriaYaml(top: Array<AriaNode | string>): string {
  const lines: string[] = [];
  const pad = (depth: number) => '  '.repeat(depth);
  const text = (value: string, depth: number) => {
    if (value) lines.push(pad(depth) + '- text: ' + quoteValue(value));
  };
  const node = (n: AriaNode, depth: number) => {
    const key = pad(depth) + '- ' + quoteKey(keyOf(n));
    const props: Array<[string, string]> = [];
    if (n.url !== undefined) props.push(['url', n.url]);
    if (n.placeholder !== undefined) props.push(['placeholder', n.placeholder]);
    const onlyText = n.children.length === 1 && typeof n.children[0] === 'string' ? (n.children[0] as string) : undefined;
    if (onlyText === undefined && !props.length && !n.children.length) {
      lines.push(key);
    } else if (onlyText !== undefined && !props.length) {
      lines.push(key + ': ' + quoteValue(onlyText));
    } else {
      lines.push(key + ':');
      for (const [name, value] of props) lines.push(pad(depth + 1) + '- /' + name + ': ' + quoteValue(value));
      for (const child of n.children) {
        if (typeof child === 'string') text(child, depth + 1);
        else node(child, depth + 1);
      }
    }
  };
  for (const item of top) {
    if (typeof item === 'string') text(item, 0);
    else node(item, 0);
  }
  return lines.join('\n');
}

// ------------------------------------------------------------ reading it back

/*
 * The text read back into a tree of role, name, states, text and properties,
 * so the report can show each part distinctly and fold by nesting level. A
 * line it cannot read is kept as raw text, never dropped.
 */

export interface AriaLine {
  /** `node` (role [name] [states]), `text` (`- text: ...`), `prop` (`- /url: ...`) or `raw` (unreadable line). */
  kind: 'node' | 'text' | 'prop' | 'raw';
  depth: number;
  role: string;
  name: string | null;
  states: string[];
  /** Inline text after the colon, or a text/prop value. */
  value: string | null;
  /** The line as written. */
  source: string;
  children: AriaLine[];
}

/** Reads a double-quoted YAML/JSON value at `at`; returns the string and the index after the closing quote. */
function readDoubleQuoted(text: string, at: number): { value: string; end: number } | null {
  // Most values hold no escape: one slice instead of a string built character by character.
  const close = text.indexOf('"', at + 1);
  const escape = text.indexOf('\\', at + 1);
  if (close >= 0 && (escape < 0 || escape > close)) return { value: text.slice(at + 1, close), end: close + 1 };
  let out = '';
  for (let i = at + 1; i < text.length; i++) {
    const c = text[i];
    if (c === '"') return { value: out, end: i + 1 };
    if (c !== '\\') {
      out += c;
      continue;
    }
    const next = text[++i];
    const simple: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', '"': '"', '\\': '\\', '/': '/' };
    if (next in simple) out += simple[next];
    else if (next === 'x' || next === 'u') {
      const len = next === 'x' ? 2 : 4;
      out += String.fromCharCode(parseInt(text.slice(i + 1, i + 1 + len), 16));
      i += len;
    } else out += next ?? '';
  }
  return null;
}

/** A value after `: `: double-quoted (escapes read) or plain. */
function readValue(text: string): string {
  const trimmed = text.trim();
  if (trimmed.startsWith('"')) {
    const read = readDoubleQuoted(trimmed, 0);
    if (read && read.end === trimmed.length) return read.value;
  }
  return trimmed;
}

/** Splits `key: value` / `key:` / `key` at the first colon that ends the key (outside quotes). */
function splitKey(body: string): { key: string; hasColon: boolean; rest: string } {
  if (body.startsWith("'")) {
    let i = 1;
    let key = '';
    while (i < body.length) {
      if (body[i] === "'" && body[i + 1] === "'") {
        key += "'";
        i += 2;
        continue;
      }
      if (body[i] === "'") break;
      key += body[i++];
    }
    const after = body.slice(i + 1);
    if (after.startsWith(':')) return { key, hasColon: true, rest: after.slice(1) };
    return { key, hasColon: false, rest: '' };
  }
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '"') {
      const read = readDoubleQuoted(body, i);
      if (!read) break;
      i = read.end - 1;
      continue;
    }
    if (c === ':' && (i + 1 === body.length || body[i + 1] === ' ')) return { key: body.slice(0, i), hasColon: true, rest: body.slice(i + 1) };
  }
  return { key: body, hasColon: false, rest: '' };
}

/** `role "name" [state] [level=2]` → parts; null when the key does not read that way. */
function readNodeKey(key: string): { role: string; name: string | null; states: string[] } | null {
  const role = /^[A-Za-z][\w-]*/.exec(key);
  if (!role) return null;
  let at = role[0].length;
  let name: string | null = null;
  const states: string[] = [];
  while (at < key.length) {
    if (key[at] !== ' ') return null;
    at++;
    if (key[at] === '"' && name === null && !states.length) {
      const read = readDoubleQuoted(key, at);
      if (!read) return null;
      name = read.value;
      at = read.end;
      continue;
    }
    if (key[at] === '/' && name === null && !states.length) {
      // A regex name (hand-written templates); shown as written.
      const end = key.indexOf('/', at + 1);
      if (end < 0) return null;
      name = key.slice(at, end + 1);
      at = end + 1;
      continue;
    }
    if (key[at] === '[') {
      const end = key.indexOf(']', at);
      if (end < 0) return null;
      states.push(key.slice(at + 1, end));
      at = end + 1;
      continue;
    }
    return null;
  }
  return { role: role[0], name, states };
}

function readLine(source: string): AriaLine {
  const indent = /^ */.exec(source)![0].length;
  const raw: AriaLine = { kind: 'raw', depth: Math.floor(indent / 2), role: '', name: null, states: [], value: null, source, children: [] };
  const body = source.slice(indent);
  if (!body.startsWith('- ') && body !== '-') return raw;
  const { key, hasColon, rest } = splitKey(body.slice(2));
  const value = hasColon && rest.trim() !== '' ? readValue(rest) : null;
  if (key === 'text' && hasColon) return { ...raw, kind: 'text', role: 'text', value: value ?? '' };
  if (key.startsWith('/') && hasColon) return { ...raw, kind: 'prop', role: key.slice(1), value: value ?? '' };
  const parts = readNodeKey(key);
  if (!parts) return raw;
  return { ...raw, kind: 'node', role: parts.role, name: parts.name, states: parts.states, value };
}

/** The top-level lines of the snapshot, children nested by indentation. */
export function parseAriaYaml(text: string): AriaLine[] {
  const top: AriaLine[] = [];
  const stack: { line: AriaLine; indent: number }[] = [];
  for (const source of text.split('\n')) {
    if (source.trim() === '') continue;
    const line = readLine(source);
    const indent = line.depth;
    while (stack.length && stack[stack.length - 1].indent >= indent) stack.pop();
    // Depth follows the tree, not the indentation, so a badly indented line still nests under its nearest parent.
    line.depth = stack.length;
    (stack.length ? stack[stack.length - 1].line.children : top).push(line);
    stack.push({ line, indent });
  }
  return top;
}
