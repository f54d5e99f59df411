/**
 * Text form of an aria snapshot: Playwright's YAML-like lines. Owns the
 * quoting rules for keys (single quotes) and values (double quotes with
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
