/**
 * Resolving a parsed selector: each part runs from every element the previous
 * part matched (the first from the root), and the union, in the order found,
 * is the next part's input — so the first result is the element Playwright's
 * non-strict page methods act on.
 */
import { withCaches } from '../aria/caches';
import { idRefs } from '../aria/dom';
import { isVisibleBox } from '../aria/visibility';
import { context, queryCss, queryList, type QueryRoot } from './cssEvaluator';
import { sortInDocumentOrder } from './documentOrder';
import { layoutScore } from './layout';
import type { ParsedSelector, Part } from './parse';
import { queryRole } from './roleQuery';
import { elementText, matchesText, normalizeWhiteSpace, type ElementText, type TextQuery } from './textMatch';
import { matchesAttributeTest } from './attributeSelector';

export function queryParsed(selector: ParsedSelector, root: QueryRoot): Element[] {
  return withCaches(() => run(selector, root));
}

function run(selector: ParsedSelector, root: QueryRoot): Element[] {
  if (selector.capture !== undefined) {
    // "*" capture: match up to the captured part, keep those that have the rest inside them.
    const head: ParsedSelector = { parts: selector.parts.slice(0, selector.capture + 1) };
    const rest = selector.parts.slice(selector.capture + 1);
    if (rest.length) head.parts.push({ kind: 'has', nested: { parts: rest } });
    return run(head, root);
  }
  let current = new Set<Element | QueryRoot>([root]);
  for (const part of selector.parts) {
    if (part.kind === 'nth') {
      const list = [...current];
      const at = part.index === -1 ? list.length - 1 : part.index;
      current = new Set(list.slice(at, at + 1));
    } else if (part.kind === 'and') {
      const other = run(part.nested, root);
      current = new Set(other.filter((e) => current.has(e)));
    } else if (part.kind === 'or') {
      const other = run(part.nested, root);
      current = new Set(sortInDocumentOrder(new Set([...(current as Set<Element>), ...other])));
    } else if (part.kind === 'layout') {
      const anchors = run(part.nested, root);
      const scored: Array<{ e: Element; score: number }> = [];
      for (const e of current as Set<Element>) {
        const score = layoutScore(part.name, e, anchors, part.distance);
        if (score !== undefined) scored.push({ e, score });
      }
      scored.sort((a, b) => a.score - b.score);
      current = new Set(scored.map((s) => s.e));
    } else {
      const next = new Set<Element>();
      for (const from of current) for (const e of queryPart(part, from as QueryRoot)) next.add(e);
      current = next;
    }
  }
  return [...current] as Element[];
}

const isElement = (n: QueryRoot): n is Element => n.nodeType === 1;

function queryPart(part: Part, from: QueryRoot): Element[] {
  switch (part.kind) {
    case 'css':
      return queryList(context(from, part.pierce), part.list);
    case 'text':
      return queryText(from, part.text, part.pierce, part.internal);
    case 'xpath':
      return queryXpath(from, part.expression);
    case 'role':
      return queryRole(from, part.role);
    case 'visible':
      return isElement(from) && isVisibleBox(from) === part.visible ? [from] : [];
    case 'has':
      return isElement(from) && run(part.nested, from).length > 0 ? [from] : [];
    case 'has-not':
      return isElement(from) && run(part.nested, from).length === 0 ? [from] : [];
    case 'chain':
      return run(part.nested, from);
    case 'has-text':
      return isElement(from) && part.text.matcher(elementText(from)) ? [from] : [];
    case 'has-not-text':
      return isElement(from) && !part.text.matcher(elementText(from)) ? [from] : [];
    case 'describe':
      return isElement(from) ? [from] : [];
    case 'label':
      return queryCss(context(from, true), '*').filter((e) => labelTexts(e).some((t) => part.text.matcher(t)));
    case 'attribute': {
      const names = part.names;
      const css = names.map((n) => `[${cssName(n)}]`).join(',');
      return queryCss(context(from, true), css).filter((e) =>
        names.some((n) => {
          const v = e.getAttribute(n);
          return v !== null && attributeValueMatches(v, part.test);
        }),
      );
    }
  }
  return [];
}

const cssName = (n: string) => (/^[a-zA-Z_][\w-]*$/.test(n) ? n : CSS.escape(n));

// internal:attr / internal:testid: a regular expression, the exact value ("…"s), or a case-insensitive substring ("…"i).
function attributeValueMatches(value: string, test: { value: unknown; caseSensitive: boolean }): boolean {
  if (test.value instanceof RegExp) return matchesAttributeTest(value, { op: '=', value: test.value, caseSensitive: true });
  const want = test.value as string;
  return test.caseSensitive ? value === want : value.toLowerCase().includes(want.toLowerCase());
}

/** The smallest elements whose text matches (a "strict" text= body keeps parents whose own run matches too). */
function queryText(from: QueryRoot, text: TextQuery, pierce: boolean, internal: boolean): Element[] {
  const out: Element[] = [];
  let lastMiss: Element | null = null;
  const consider = (e: Element) => {
    // Below an element whose text does not contain a substring, nothing can.
    if (text.kind === 'lax' && lastMiss && lastMiss.contains(e)) return;
    const m = matchesText(e, text.matcher);
    if (m === 'none') lastMiss = e;
    if (m === 'self' || (m === 'selfAndChildren' && text.kind === 'strict' && !internal)) out.push(e);
  };
  if (isElement(from)) consider(from);
  for (const e of queryCss(context(from, pierce), '*')) consider(e);
  return out;
}

function queryXpath(from: QueryRoot, expression: string): Element[] {
  // An absolute path under an element means "from here", as Playwright reads it.
  if (expression.startsWith('/') && from.nodeType !== 9) expression = '.' + expression;
  const doc = (from.ownerDocument || from) as Document;
  const out: Element[] = [];
  const it = doc.evaluate(expression, from, null, XPathResult.ORDERED_NODE_ITERATOR_TYPE, null);
  for (let n = it.iterateNext(); n; n = it.iterateNext()) if (n.nodeType === 1) out.push(n as Element);
  return out;
}

const LABELABLE = ['BUTTON', 'METER', 'OUTPUT', 'PROGRESS', 'SELECT', 'TEXTAREA'];

/** What getByLabel matches against: aria-labelledby targets, else a non-blank aria-label, else the <label>s. */
function labelTexts(e: Element): ElementText[] {
  const reflected = (e as any).ariaLabelledByElements as Element[] | null | undefined;
  const refs = reflected && reflected.length ? Array.from(reflected) : idRefs(e, e.getAttribute('aria-labelledby'));
  if (refs.length) return refs.map((r) => elementText(r));
  const ariaLabel = e.getAttribute('aria-label');
  if (ariaLabel !== null && ariaLabel.trim()) return [{ full: ariaLabel, normalized: normalizeWhiteSpace(ariaLabel), immediate: [ariaLabel] }];
  const labelable = LABELABLE.includes(e.nodeName) || (e.nodeName === 'INPUT' && (e as HTMLInputElement).type !== 'hidden');
  if (!labelable) return [];
  const labels = (e as HTMLInputElement).labels;
  return labels ? Array.from(labels, (l) => elementText(l)) : [];
}
