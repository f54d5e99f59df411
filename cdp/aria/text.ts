/**
 * Reads the aria snapshot text (Playwright's YAML-like lines, as ./yaml.ts
 * writes them) back into a tree of role, name, states, text and properties:
 * the reader beside the writer, so the two keep one quoting rule. The run
 * report shows each part distinctly and folds by nesting level; the
 * comparison (src/compare/ariaDiff.ts) diffs two trees. A line it cannot read
 * is kept as raw text, never dropped.
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
export function parseAriaText(text: string): AriaLine[] {
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
