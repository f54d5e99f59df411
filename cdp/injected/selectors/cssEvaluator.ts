/**
 * Evaluates parsed CSS selectors (cssSelector.ts) the way Playwright's CSS
 * engine does, including the order of results, which decides the first match:
 * the scope's light-DOM matches in document order, then each open shadow
 * root's (depth first, in host order); a selector list of several selectors is
 * sorted into document order; layout pseudo-classes sort by distance.
 * Standard CSS goes to the browser's querySelectorAll/matches; combinators
 * are walked here so that they cross shadow boundaries.
 */
import { memo, memoTable } from '../aria/caches';
import { parentOrHost } from '../aria/dom';
import { isVisibleBox } from '../aria/visibility';
import { isComplex, LAYOUT_PSEUDOS, type ComplexSelector, type CompoundSelector, type CssArg, type PseudoCall } from './cssSelector';
import { elementText, laxMatcher, matchesText, ownRunMatcher, regexMatcher, skipsTextMatching } from './textMatch';
import { layoutScore } from './layout';
import { sortInDocumentOrder } from './documentOrder';

export type QueryRoot = Document | Element | ShadowRoot;
export interface QueryContext {
  scope: QueryRoot;
  pierce: boolean;
  /** The scope a :scope pseudo-class means, when the context was widened to let it match. */
  originalScope?: QueryRoot;
}

// Contexts are interned so that memo tables can key on them.
const contexts = memoTable<string, unknown>();
const contextIds = new WeakMap<object, number>();
let nextId = 1;
const idOf = (o: object | undefined) => {
  if (!o) return 0;
  let id = contextIds.get(o);
  if (!id) contextIds.set(o, (id = nextId++));
  return id;
};
export function context(scope: QueryRoot, pierce: boolean, originalScope?: QueryRoot): QueryContext {
  const key = `${idOf(scope)}|${pierce ? 1 : 0}|${idOf(originalScope)}`;
  return memo(contexts, key, () => ({ scope, pierce, originalScope })) as QueryContext;
}

/** A two-level memo: per context, per selector object (or string). */
function table<V>() {
  const t = memoTable<QueryContext, Map<unknown, V>>();
  return (ctx: QueryContext, key: unknown, compute: () => V): V => {
    const inner = memo(t, ctx, () => new Map<unknown, V>());
    if (inner.has(key)) return inner.get(key) as V;
    const v = compute();
    inner.set(key, v);
    return v;
  };
}
const cssQueries = table<Element[]>();
const selectorQueries = table<Element[]>();
const compoundQueries = table<Element[]>();
const compoundMatches = memoTable<QueryContext, Map<CompoundSelector, Map<Element, boolean>>>();

/** Elements matching standard CSS under the context's scope: light DOM first, then open shadow roots, depth first. */
export function queryCss(ctx: QueryContext, css: string): Element[] {
  return cssQueries(ctx, css, () => {
    const out: Element[] = [];
    const visit = (root: QueryRoot) => {
      const found = root.querySelectorAll(css);
      for (let k = 0; k < found.length; k++) out.push(found[k]);
      if (!ctx.pierce) return;
      if ((root as Element).shadowRoot) visit((root as Element).shadowRoot as ShadowRoot);
      const all = root.querySelectorAll('*');
      for (let k = 0; k < all.length; k++) {
        const shadow = all[k].shadowRoot;
        if (shadow) visit(shadow);
      }
    };
    visit(ctx.scope);
    return out;
  });
}

const usesScope = (c: ComplexSelector) => c.steps.some((s) => s.compound.calls.some((f) => f.name === 'scope'));

// :scope must be able to match the scope element itself: search from its parent instead.
function widenForScope(ctx: QueryContext): QueryContext {
  if (ctx.scope.nodeType !== 1) return ctx;
  const parent = parentOrHost(ctx.scope as Element);
  return parent ? context(parent, ctx.pierce, ctx.originalScope || ctx.scope) : ctx;
}

/** All elements matching a selector list (document order when it has several selectors). */
export function queryList(ctx: QueryContext, list: CssArg[]): Element[] {
  const selectors = list.filter(isComplex);
  if (selectors.length === 1) return queryComplex(ctx, selectors[0]);
  return sortInDocumentOrder(new Set(selectors.flatMap((s) => queryComplex(ctx, s))));
}

export function matchesList(e: Element, list: CssArg[], ctx: QueryContext): boolean {
  return list.some((s) => isComplex(s) && matchesComplex(e, s, ctx));
}

/** The layout scores of the current queryComplex call (nested calls keep their own). */
let scores: Map<Element, number> | undefined;

export function queryComplex(ctx: QueryContext, sel: ComplexSelector): Element[] {
  return selectorQueries(ctx, sel, () => {
    if (usesScope(sel)) ctx = widenForScope(ctx);
    const outer = scores;
    scores = new Map();
    try {
      const last = sel.steps.length - 1;
      let found = queryCompound(ctx, sel.steps[last].compound);
      found = found.filter((e) => matchesAncestry(e, sel, last - 1, ctx));
      if (scores.size) {
        const s = scores;
        found = [...found].sort((a, b) => {
          const x = s.get(a);
          const y = s.get(b);
          if (x === y) return 0;
          if (x === undefined) return 1;
          if (y === undefined) return -1;
          return x - y;
        });
      }
      return found;
    } finally {
      scores = outer;
    }
  });
}

export function matchesComplex(e: Element, sel: ComplexSelector, ctx: QueryContext): boolean {
  if (usesScope(sel)) ctx = widenForScope(ctx);
  const last = sel.steps.length - 1;
  return matchesCompound(e, sel.steps[last].compound, ctx) && matchesAncestry(e, sel, last - 1, ctx);
}

function matchesCompound(e: Element, c: CompoundSelector, ctx: QueryContext): boolean {
  const perCtx = memo(compoundMatches, ctx, () => new Map<CompoundSelector, Map<Element, boolean>>());
  let perCompound = perCtx.get(c);
  if (!perCompound) perCtx.set(c, (perCompound = new Map()));
  const known = perCompound.get(e);
  if (known !== undefined) return known;
  let result = e !== ctx.scope && (!c.css || e.matches(c.css));
  if (result) {
    for (const call of c.calls) {
      if (!matchesCall(e, call, ctx)) {
        result = false;
        break;
      }
    }
  }
  perCompound.set(e, result);
  return result;
}

// Pseudo-classes that can produce candidates themselves (the others only filter).
const QUERYING = new Set(['is', 'where', 'scope', 'light', 'nth-match']);

function queryCompound(ctx: QueryContext, c: CompoundSelector): Element[] {
  if (!c.calls.length) return queryCss(ctx, c.css || '*');
  return compoundQueries(ctx, c, () => {
    const css = c.css === '*' ? undefined : c.css;
    let base = -1;
    let found: Element[];
    if (css !== undefined) {
      found = queryCss(ctx, css);
    } else {
      base = c.calls.findIndex((f) => QUERYING.has(f.name));
      if (base < 0) base = 0;
      found = queryCall(ctx, c.calls[base]);
    }
    // Filters that only match run before the querying ones, as Playwright orders them.
    for (const pass of [false, true]) {
      c.calls.forEach((call, k) => {
        if (k === base || QUERYING.has(call.name) !== pass) return;
        found = found.filter((e) => matchesCall(e, call, ctx));
      });
    }
    return found;
  });
}

function queryCall(ctx: QueryContext, call: PseudoCall): Element[] {
  switch (call.name) {
    case 'is':
    case 'where':
      return queryList(ctx, call.args);
    case 'light':
      return queryList(context(ctx.scope, false, ctx.originalScope), call.args);
    case 'scope': {
      const scope = ctx.originalScope || ctx.scope;
      if (scope.nodeType === 9) return (scope as Document).documentElement ? [(scope as Document).documentElement] : [];
      return scope.nodeType === 1 ? [scope as Element] : [];
    }
    case 'nth-match': {
      const index = call.args[call.args.length - 1] as number;
      const all = queryList(ctx, call.args.slice(0, -1));
      return index - 1 < all.length ? [all[index - 1]] : [];
    }
  }
  return queryCss(ctx, '*').filter((e) => matchesCall(e, call, ctx));
}

function matchesCall(e: Element, call: PseudoCall, ctx: QueryContext): boolean {
  const args = call.args;
  switch (call.name) {
    case 'is':
    case 'where':
      return matchesList(e, args, ctx);
    case 'not':
      return !matchesList(e, args, ctx);
    case 'has':
      return queryList(context(e, ctx.pierce, ctx.originalScope), args).length > 0;
    case 'light':
      return matchesList(e, args, context(ctx.scope, false, ctx.originalScope));
    case 'scope': {
      const scope = ctx.originalScope || ctx.scope;
      return scope.nodeType === 9 ? e === (scope as Document).documentElement : e === scope;
    }
    case 'visible':
      return isVisibleBox(e);
    case 'text':
      return matchesText(e, laxMatcher(args[0] as string)) === 'self';
    case 'text-is':
      return matchesText(e, ownRunMatcher(args[0] as string)) !== 'none';
    case 'text-matches':
      return matchesText(e, regexMatcher(new RegExp(args[0] as string, args[1] as string | undefined))) === 'self';
    case 'has-text':
      return !skipsTextMatching(e) && laxMatcher(args[0] as string)(elementText(e));
    case 'nth-match':
      return queryCall(ctx, call).includes(e);
  }
  if (LAYOUT_PSEUDOS.includes(call.name)) {
    const distance = typeof args[args.length - 1] === 'number' ? (args[args.length - 1] as number) : undefined;
    const anchors = queryList(ctx, distance === undefined ? args : args.slice(0, -1));
    const score = layoutScore(call.name, e, anchors, distance);
    if (score === undefined) return false;
    if (scores) scores.set(e, score);
    return true;
  }
  throw new Error(`unknown pseudo-class :${call.name}`);
}

function parentInContext(e: Element, ctx: QueryContext): Element | undefined {
  if (e === ctx.scope) return undefined;
  return (ctx.pierce ? parentOrHost(e) : e.parentElement) || undefined;
}
function previousSiblingInContext(e: Element, ctx: QueryContext): Element | undefined {
  if (e === ctx.scope) return undefined;
  return e.previousElementSibling || undefined;
}

// Whether steps[0..index] match the ancestors/siblings of `e` as the combinators say.
function matchesAncestry(e: Element, sel: ComplexSelector, index: number, ctx: QueryContext): boolean {
  if (index < 0) return true;
  const { compound, combinator } = sel.steps[index];
  if (combinator === '>') {
    const parent = parentInContext(e, ctx);
    return !!parent && matchesCompound(parent, compound, ctx) && matchesAncestry(parent, sel, index - 1, ctx);
  }
  if (combinator === '+') {
    const prev = previousSiblingInContext(e, ctx);
    return !!prev && matchesCompound(prev, compound, ctx) && matchesAncestry(prev, sel, index - 1, ctx);
  }
  if (combinator === '') {
    for (let p = parentInContext(e, ctx); p; p = parentInContext(p, ctx)) {
      if (matchesCompound(p, compound, ctx)) {
        if (matchesAncestry(p, sel, index - 1, ctx)) return true;
        // Another descendant step above: the nearest match is the one to try.
        if (sel.steps[index - 1] && sel.steps[index - 1].combinator === '') break;
      }
    }
    return false;
  }
  // '~'
  for (let s = previousSiblingInContext(e, ctx); s; s = previousSiblingInContext(s, ctx)) {
    if (matchesCompound(s, compound, ctx)) {
      if (matchesAncestry(s, sel, index - 1, ctx)) return true;
      if (sel.steps[index - 1] && sel.steps[index - 1].combinator === '~') break;
    }
  }
  return false;
}
