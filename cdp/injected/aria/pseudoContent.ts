/**
 * Text that CSS generates: `content` on ::before / ::after boxes (strings and
 * attr() only; anything else makes the box unreadable), and an element's own
 * `content`, which counts only as the alternative text written after "/".
 */
import { memo, memoTable } from './caches';
import { computedStyle } from './dom';

type ContentToken = { k: 'str' | 'attr' | 'slash' | 'other'; v: string };

function tokenizeContent(value: string): ContentToken[] {
  const tokens: ContentToken[] = [];
  let i = 0;
  while (i < value.length) {
    const ch = value[i];
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (ch === '"' || ch === "'") {
      let out = '';
      i++;
      while (i < value.length && value[i] !== ch) {
        if (value[i] === '\\' && i + 1 < value.length) {
          const hex = /^[0-9a-fA-F]{1,6}\s?/.exec(value.slice(i + 1));
          if (hex) {
            out += String.fromCodePoint(parseInt(hex[0], 16));
            i += 1 + hex[0].length;
            continue;
          }
          out += value[i + 1];
          i += 2;
          continue;
        }
        out += value[i++];
      }
      i++;
      tokens.push({ k: 'str', v: out });
      continue;
    }
    const attr = /^attr\(\s*([-\w]+)\s*\)/i.exec(value.slice(i));
    if (attr) {
      tokens.push({ k: 'attr', v: attr[1] });
      i += attr[0].length;
      continue;
    }
    if (ch === '/') {
      tokens.push({ k: 'slash', v: '/' });
      i++;
      continue;
    }
    const other = /^[^\s"'/]+/.exec(value.slice(i));
    tokens.push({ k: 'other', v: other ? other[0] : ch });
    i += other ? other[0].length : 1;
  }
  return tokens;
}

/** The text a `content` value shows for `e`; undefined when it shows something else (images, counters). */
export function contentValueText(e: Element, value: string, requireSlash = false): string | undefined {
  const tokens = tokenizeContent(value);
  const slash = tokens.findIndex((t) => t.k === 'slash');
  if (slash < 0 && requireSlash) return undefined;
  const used = slash >= 0 ? tokens.slice(slash + 1) : tokens;
  let out = '';
  for (const t of used) {
    if (t.k === 'str') out += t.v;
    else if (t.k === 'attr') out += e.getAttribute(t.v) || '';
    else return undefined;
  }
  return out;
}

const beforeTexts = memoTable<Element, string | undefined>();
const afterTexts = memoTable<Element, string | undefined>();

function readPseudoText(e: Element, pseudo: '::before' | '::after'): string | undefined {
  const view = e.ownerDocument.defaultView;
  if (!view) return '';
  const s = view.getComputedStyle(e, pseudo);
  const c = s.content;
  if (!c || c === 'none' || c === 'normal' || s.display === 'none' || s.visibility === 'hidden') return '';
  const text = contentValueText(e, c);
  if (text === undefined) return undefined;
  // A pseudo box that is not inline separates its text from the neighbours.
  return (s.display || 'inline') !== 'inline' ? ' ' + text + ' ' : text;
}
const readBefore = (e: Element) => readPseudoText(e, '::before');
const readAfter = (e: Element) => readPseudoText(e, '::after');

/** Text of the ::before / ::after box ('' when none; undefined when it shows content that is not text). */
export function pseudoText(e: Element, pseudo: '::before' | '::after'): string | undefined {
  return pseudo === '::before' ? memo(beforeTexts, e, readBefore) : memo(afterTexts, e, readAfter);
}

/** The element's own `content` alternative text (after "/"), or undefined when it has none. */
export function ownContentText(e: Element): string | undefined {
  const s = computedStyle(e);
  if (!s) return undefined;
  const c = s.content;
  if (!c || c === 'none' || c === 'normal' || s.display === 'none' || s.visibility === 'hidden') return undefined;
  return contentValueText(e, c, true);
}
