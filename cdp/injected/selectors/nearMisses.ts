/**
 * What to suggest when a selector matches nothing: a few elements that do
 * exist and resemble what the selector asks for (by text, accessible name,
 * id or test id), each written as a selector the caller could use instead.
 * With nothing to compare against, the first interactive elements on the page.
 */
import { withCaches } from '../aria/caches';
import { accessibleName } from '../aria/names';
import { ariaRole } from '../aria/roles';
import { isHiddenForAria, isVisibleBox } from '../aria/visibility';
import { elementText, normalizeWhiteSpace } from './textMatch';
import { context, queryCss } from './cssEvaluator';

const INTERACTIVE = [
  'button',
  'link',
  'textbox',
  'searchbox',
  'checkbox',
  'radio',
  'combobox',
  'listbox',
  'option',
  'tab',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'switch',
  'slider',
  'spinbutton',
  'heading',
];

/** Words the selector looks for: quoted strings, text= bodies, #ids, engine=values, regular expression sources. */
function wantedTerms(selector: string): string[] {
  const out: string[] = [];
  for (const m of selector.matchAll(/"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'/g)) out.push(m[1] ?? m[2]);
  for (const m of selector.matchAll(/(?:^|>>)\s*(?:text|id|data-testid|data-test-id|data-test)\s*=\s*([^"'>][^>]*)/g)) out.push(m[1]);
  for (const m of selector.matchAll(/#([\w-]+)/g)) out.push(m[1]);
  for (const m of selector.matchAll(/\/((?:[^/\\]|\\.)+)\/[a-z]*/g)) out.push(m[1]);
  return out.map((t) => normalizeWhiteSpace(t.replace(/\\(.)/g, '$1'))).filter((t) => t.length > 0 && t.length < 200);
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 8) return 99;
  let prev = Array.from({ length: b.length + 1 }, (_, k) => k);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

/** 0 (unrelated) to 1 (the same, ignoring case and spacing). */
function likeness(want: string, have: string): number {
  const w = want.toLowerCase();
  const h = have.toLowerCase();
  if (!w || !h) return 0;
  if (w === h) return 1;
  if (h.includes(w) || w.includes(h)) return (0.8 * Math.min(w.length, h.length)) / Math.max(w.length, h.length) + 0.15;
  const d = editDistance(w, h);
  if (d <= Math.max(1, Math.round(w.length / 3))) return 0.7;
  const words = new Set(w.split(/\W+/).filter((x) => x.length > 2));
  const shared = h.split(/\W+/).filter((x) => words.has(x)).length;
  return shared ? 0.3 + 0.1 * shared : 0;
}

const quote = (s: string) => JSON.stringify(s.length > 60 ? s.slice(0, 57) + '…' : s);

interface Candidate {
  selector: string;
  keys: string[];
}

function candidates(doc: Document): Candidate[] {
  const out: Candidate[] = [];
  // Open shadow roots included, as every selector engine pierces them.
  const all = queryCss(context(doc, true), '*');
  for (let k = 0; k < all.length && out.length < 2000; k++) {
    const e = all[k];
    const role = ariaRole(e);
    const id = e.getAttribute('id');
    const testId = e.getAttribute('data-testid');
    if (testId) out.push({ selector: `data-testid=${testId}`, keys: [testId] });
    if (id && /^[A-Za-z][\w-]*$/.test(id) && isVisibleBox(e)) out.push({ selector: `#${id}`, keys: [id] });
    if (INTERACTIVE.includes(role) && !isHiddenForAria(e)) {
      const name = normalizeWhiteSpace(accessibleName(e, role));
      out.push({ selector: name ? `role=${role}[name=${quote(name)}]` : `role=${role}`, keys: [name] });
    } else if (e.childElementCount === 0 && isVisibleBox(e)) {
      const text = elementText(e).normalized;
      if (text && text.length <= 80) out.push({ selector: `text=${quote(text)}`, keys: [text] });
    }
  }
  return out;
}

/** Up to `limit` selectors of existing elements that resemble what `selector` asks for. */
export function nearMisses(selector: string, doc: Document, limit = 5): string[] {
  return withCaches(() => {
    const terms = wantedTerms(selector);
    const all = candidates(doc);
    const seen = new Set<string>();
    const pick = (list: Candidate[]) => {
      const out: string[] = [];
      for (const c of list) {
        if (seen.has(c.selector)) continue;
        seen.add(c.selector);
        out.push(c.selector);
        if (out.length >= limit) break;
      }
      return out;
    };
    if (terms.length) {
      const scored = all
        .map((c) => ({ c, score: Math.max(...terms.flatMap((t) => c.keys.map((key) => likeness(t, key)))) }))
        .filter((x) => x.score >= 0.3)
        .sort((a, b) => b.score - a.score);
      const close = pick(scored.map((x) => x.c));
      if (close.length) return close;
    }
    return pick(all.filter((c) => c.selector.startsWith('role=')));
  });
}
