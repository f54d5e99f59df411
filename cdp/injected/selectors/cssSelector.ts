/**
 * CSS selectors as Playwright reads them: standard CSS (handed to the
 * browser's matcher as written) plus pseudo-classes the browser does not know
 * or that must pierce shadow roots — :has-text(), :text(), :text-is(),
 * :text-matches(), :visible, :nth-match(), :has(), :is(), :where(), :not(),
 * :scope, :light() and the layout ones (:right-of(), :left-of(), :above(),
 * :below(), :near()). Every compound selector becomes its standard CSS part
 * and the list of those calls, evaluated by cssEvaluator.ts.
 */
import { SelectorSyntaxError } from './syntaxError';
import { tokenizeCss, type Token } from './cssTokens';

export type CssArg = ComplexSelector | number | string;
export interface PseudoCall {
  name: string;
  args: CssArg[];
}
/** One compound selector: the standard part (undefined when there is none) and the calls the engine evaluates. */
export interface CompoundSelector {
  css?: string;
  calls: PseudoCall[];
}
export type Combinator = '' | '>' | '+' | '~';
/** Compound selectors left to right; each step's combinator relates it to the next step. */
export interface ComplexSelector {
  steps: Array<{ compound: CompoundSelector; combinator: Combinator }>;
}
export type SelectorList = ComplexSelector[];

export const LAYOUT_PSEUDOS = ['right-of', 'left-of', 'above', 'below', 'near'];
const TAKES_SELECTORS = ['not', 'is', 'where', 'has', 'light'];
const TAKES_TEXT = ['text', 'text-is', 'has-text'];
const NO_ARGS = ['scope', 'visible'];
export const ENGINE_PSEUDOS = new Set([...TAKES_SELECTORS, ...TAKES_TEXT, ...NO_ARGS, ...LAYOUT_PSEUDOS, 'text-matches', 'nth-match']);

const UNSUPPORTED: Record<string, string> = {
  at: 'an at-rule',
  url: 'url()',
  percentage: 'a percentage',
  semicolon: '";"',
  '{': '"{"',
  '}': '"}"',
  cdo: '"<!--"',
  cdc: '"-->"',
  column: '"||"',
};

export const isComplex = (a: CssArg): a is ComplexSelector => typeof a === 'object';

/** Parses `text` (which starts at `offset` in the whole selector) into a selector list. */
export function parseCssSelector(text: string, offset: number): SelectorList {
  const tokens = tokenizeCss(text, offset);
  const bad = tokens.find((t) => t.kind in UNSUPPORTED);
  if (bad) throw new SelectorSyntaxError(bad.start, `${UNSUPPORTED[bad.kind]} is not allowed in a CSS selector (use CSS.escape for special characters)`);
  let pos = 0;
  const tok = (k = pos): Token => tokens[k];
  const describe = (t: Token) => (t.kind === 'eof' ? 'end of the selector' : `"${t.raw}"`);
  const unexpected = (what = ''): never => {
    throw new SelectorSyntaxError(tok().start, `unexpected ${describe(tok())} in CSS selector "${text.trim()}"${what ? ', ' + what : ''}`);
  };
  const skipWs = () => {
    while (tok().kind === 'ws') pos++;
  };
  const isCombinator = (k = pos) => tok(k).kind === 'delim' && ['>', '+', '~'].includes(tok(k).value as string);
  const endsCompound = (k = pos) => ['comma', ')', 'eof', 'ws'].includes(tok(k).kind) || isCombinator(k);

  function argumentList(): CssArg[] {
    const args = [argument()];
    for (;;) {
      skipWs();
      if (tok().kind !== 'comma') return args;
      pos++;
      args.push(argument());
    }
  }
  function argument(): CssArg {
    skipWs();
    const t = tok();
    if (t.kind === 'number' || t.kind === 'string') {
      pos++;
      return t.value;
    }
    return complex();
  }
  function complex(): ComplexSelector {
    const out: ComplexSelector = { steps: [] };
    skipWs();
    // A relative selector (":has(> a)") is anchored at an implicit :scope.
    if (isCombinator()) out.steps.push({ compound: { calls: [{ name: 'scope', args: [] }] }, combinator: '' });
    else out.steps.push({ compound: compound(), combinator: '' });
    for (;;) {
      skipWs();
      if (isCombinator()) {
        out.steps[out.steps.length - 1].combinator = tok().value as Combinator;
        pos++;
        skipWs();
      } else if (endsCompound()) {
        break;
      }
      out.steps.push({ compound: compound(), combinator: '' });
    }
    return out;
  }
  function compound(): CompoundSelector {
    let css = '';
    const calls: PseudoCall[] = [];
    while (!endsCompound()) {
      const t = tok();
      if (t.kind === 'ident' || t.kind === 'hash' || (t.kind === 'delim' && t.value === '*')) {
        css += t.raw;
        pos++;
      } else if (t.kind === 'delim' && t.value === '.') {
        pos++;
        if (tok().kind !== 'ident') unexpected('a class name must follow "."');
        css += '.' + tok().raw;
        pos++;
      } else if (t.kind === 'colon') {
        pos++;
        const n = tok();
        if (n.kind === 'ident') {
          const name = (n.value as string).toLowerCase();
          pos++;
          if (ENGINE_PSEUDOS.has(name)) calls.push(checkedCall(name, [], n));
          else css += ':' + n.raw;
        } else if (n.kind === 'function') {
          const name = (n.value as string).toLowerCase();
          pos++;
          if (ENGINE_PSEUDOS.has(name)) {
            const args = argumentList();
            skipWs();
            if (tok().kind !== ')') unexpected(`expected ")" to close :${name}(`);
            calls.push(checkedCall(name, args, n));
          } else {
            css += ':' + n.raw + builtinArguments();
            if (tok().kind !== ')') unexpected(`expected ")" to close :${name}(`);
            css += ')';
          }
          pos++;
        } else if (n.kind === 'colon') {
          // Pseudo-elements select no element; Puppeteer's ::-p-… extensions are read by Puppeteer, not here.
          throw new SelectorSyntaxError(
            t.start,
            'a pseudo-element ("::…") does not select an element' +
              (tok(pos + 1).raw.startsWith('-p-') ? "; Puppeteer's ::-p- selectors are not Playwright syntax" : ''),
          );
        } else {
          unexpected('a pseudo-class name must follow ":"');
        }
      } else if (t.kind === '[') {
        css += '[';
        pos++;
        while (tok().kind !== ']' && tok().kind !== 'eof') css += tokens[pos++].raw;
        if (tok().kind !== ']') unexpected('expected "]" to close the attribute selector');
        css += ']';
        pos++;
      } else {
        unexpected();
      }
    }
    if (!css && !calls.length) unexpected('expected a selector');
    return { css: css || undefined, calls };
  }
  // The raw text of a standard function's arguments, up to (not including) its closing parenthesis.
  function builtinArguments(): string {
    let out = '';
    let depth = 1;
    while (tok().kind !== 'eof') {
      const k = tok().kind;
      if (k === '(' || k === 'function') depth++;
      if (k === ')' && --depth === 0) break;
      out += tokens[pos++].raw;
    }
    return out;
  }
  function checkedCall(name: string, args: CssArg[], at: Token): PseudoCall {
    const fail = (rule: string): never => {
      throw new SelectorSyntaxError(at.start, `:${name} ${rule}`);
    };
    const selectors = args.filter(isComplex).length;
    if (NO_ARGS.includes(name) && args.length) fail('takes no arguments');
    if (TAKES_SELECTORS.includes(name) && (!args.length || selectors !== args.length)) fail('takes a list of selectors');
    if (TAKES_TEXT.includes(name) && (args.length !== 1 || typeof args[0] !== 'string')) fail('takes one quoted string, e.g. :' + name + '("Sign in")');
    if (name === 'text-matches') {
      if (!args.length || args.length > 2 || args.some((a) => typeof a !== 'string'))
        fail('takes a regular expression body and optional flags, as quoted strings');
      try {
        new RegExp(args[0] as string, args[1] as string | undefined);
      } catch (e) {
        fail('has an invalid regular expression: ' + (e as Error).message);
      }
    }
    if (name === 'nth-match') {
      const index = args[args.length - 1];
      if (args.length < 2 || selectors !== args.length - 1) fail('takes a selector list and a one-based index');
      if (typeof index !== 'number' || index < 1 || !Number.isInteger(index)) fail('takes a one-based index as its last argument');
    }
    if (LAYOUT_PSEUDOS.includes(name)) {
      const distance = typeof args[args.length - 1] === 'number';
      if (selectors < 1 || selectors !== args.length - (distance ? 1 : 0)) fail('takes a selector list and an optional maximum distance in pixels');
    }
    return { name, args };
  }

  const list = argumentList();
  if (tok().kind !== 'eof') unexpected();
  const notSelector = list.find((a) => !isComplex(a));
  if (notSelector !== undefined) throw new SelectorSyntaxError(offset, `"${text.trim()}" is not a CSS selector (a bare quoted string is text: write text="…")`);
  return list as SelectorList;
}
