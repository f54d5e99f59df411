/**
 * In-page (built by the differential test and bench/selectors-fidelity.js
 * with esbuild): stamps every element, then writes, for each interactive
 * element, selectors of every form the engine supports — the way a
 * Playwright user or Playwright's own locators would write them. Which element
 * each selector resolves to is decided by Playwright (the truth) and by our
 * engine; the generator only has to produce realistic selectors.
 */
import { withCaches } from '../../cdp/injected/aria/caches';
import { accessibleName } from '../../cdp/injected/aria/names';
import {
  ariaRole,
  checkedState,
  CHECKED_ROLES,
  disabledState,
  expandedState,
  EXPANDED_ROLES,
  levelState,
  LEVEL_ROLES,
  pressedState,
  PRESSED_ROLES,
  selectedState,
  SELECTED_ROLES,
} from '../../cdp/injected/aria/roles';
import { isHiddenForAria } from '../../cdp/injected/aria/visibility';

export const STAMP = 'data-sel-stamp';

export interface GeneratedSelector {
  form: string;
  selector: string;
  stamp: string;
}

/** Every element (open shadow roots included, after their host's light children) in a fixed order. */
function allElements(): Element[] {
  const out: Element[] = [];
  const visit = (root: Element | ShadowRoot) => {
    for (let c = root.firstElementChild; c; c = c.nextElementSibling) {
      out.push(c);
      visit(c);
      if (c.shadowRoot) visit(c.shadowRoot);
    }
  };
  visit(document.documentElement);
  out.unshift(document.documentElement);
  return out;
}

/** Gives every element a stable number; run identically in both browsers. */
export function stampAll(): number {
  const all = allElements();
  all.forEach((e, k) => e.setAttribute(STAMP, String(k)));
  return all.length;
}

const INTERACTIVE =
  'a[href], button, input:not([type=hidden]), select, textarea, summary, label, [role], [contenteditable], [tabindex], h1, h2, h3, h4, h5, h6, li, option, img[alt], [data-testid], [data-test], [data-test-id]';

const norm = (s: string) =>
  s
    .replace(/[\u200b\u00ad]/g, '')
    .trim()
    .replace(/\s+/g, ' ');
const cssString = (s: string) => '"' + s.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';
const reEscape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const words = (s: string, n: number) => s.split(' ').slice(0, n).join(' ');
const cssIdent = (s: string) => CSS.escape(s);

function textOf(e: Element): string {
  if (e instanceof HTMLInputElement && ['submit', 'button', 'reset'].includes(e.type)) return norm(e.value);
  return norm(e.textContent || '');
}
function ownRun(e: Element): string {
  let run = '';
  for (let c = e.firstChild; c; c = c.nextSibling) {
    if (c.nodeType === 3) run += c.nodeValue;
    else if (c.nodeType === 1) {
      if (norm(run)) break;
      run = '';
    }
  }
  return norm(run);
}
const inShadow = (e: Element) => e.getRootNode() !== document;
const tag = (e: Element) => e.localName;

function simpleCss(e: Element): string {
  const id = e.getAttribute('id');
  if (id && !id.includes(' ')) return '#' + cssIdent(id);
  const cls = (e.getAttribute('class') || '')
    .trim()
    .split(/\s+/)
    .filter((c) => c && !c.includes(':'))[0];
  if (cls) return tag(e) + '.' + cssIdent(cls);
  const type = e.getAttribute('type');
  if (type) return `${tag(e)}[type=${cssString(type)}]`;
  return tag(e);
}

export function generateSelectors(): GeneratedSelector[] {
  return withCaches(() => {
    const out: GeneratedSelector[] = [];
    const targets = allElements().filter((e) => e.matches(INTERACTIVE) && !['HTML', 'HEAD', 'BODY'].includes(e.nodeName));
    for (const e of targets) {
      const stamp = e.getAttribute(STAMP) || '';
      const add = (form: string, selector: string) => {
        if (!selector.includes('\n')) out.push({ form, selector, stamp });
      };
      const t = tag(e);
      const css = simpleCss(e);
      const text = textOf(e);
      const short = words(text, 3);
      const own = ownRun(e);
      const parent = e.parentElement;

      add('css', css);
      add('css=', 'css=' + css);
      if (text && text.length < 80 && !text.includes('>>')) {
        add('text', 'text=' + short);
        add('text-regex', `text=/${reEscape(short)}/i`);
        add('css:has-text', `${t}:has-text(${cssString(short)})`);
        add('css:text', `${t}:text(${cssString(short)})`);
        add('css:text-matches', `${t}:text-matches(${cssString('^' + reEscape(words(text, 1)))}, "i")`);
        add('internal:text', `internal:text=${JSON.stringify(short)}i`);
        add('internal:text', `internal:text=${JSON.stringify(text)}s`);
        if (parent) add('internal:has-text', `${tag(parent)} >> internal:has-text=${JSON.stringify(short)}i`);
        add('internal:has-text', `${t} >> internal:has-not-text=${JSON.stringify(short)}i`);
      }
      if (own && own.length < 80 && !own.includes('>>')) {
        add('text-exact', `text=${cssString(own)}`);
        add('text-quoted', cssString(own));
        add('css:text-is', `${t}:text-is(${cssString(own)})`);
      }
      const role = ariaRole(e);
      if (role && role !== 'none' && role !== 'presentation' && role !== 'generic') {
        const hidden = isHiddenForAria(e);
        // A hidden element's own name counts only with include-hidden.
        const name = norm(accessibleName(e, role, hidden));
        add('role', `role=${role}`);
        add('internal:role', `internal:role=${role}`);
        if (name && name.length < 80) {
          add('role-name', `role=${role}[name=${cssString(name)}]`);
          add('role-name-i', `role=${role}[name=${cssString(name.toLowerCase())}i]`);
          add('role-name-regex', `role=${role}[name=/^${reEscape(words(name, 2))}/]`);
          add('internal:role', `internal:role=${role}[name=${JSON.stringify(words(name, 2))}i]`);
          add('internal:role', `internal:role=${role}[name=${JSON.stringify(name)}s]`);
          if (hidden) add('role-include-hidden', `role=${role}[name=${cssString(name)}][include-hidden]`);
        }
        if (CHECKED_ROLES.includes(role)) {
          const c = checkedState(e);
          add('role-state', `role=${role}[checked=${c === 'mixed' ? 'mixed' : String(c)}]`);
          if (c === true) add('role-state', `role=${role}[checked]`);
        }
        if (PRESSED_ROLES.includes(role)) add('role-state', `role=${role}[pressed=${pressedState(e) === 'mixed' ? 'mixed' : String(pressedState(e))}]`);
        if (SELECTED_ROLES.includes(role)) add('role-state', `role=${role}[selected=${selectedState(e)}]`);
        if (EXPANDED_ROLES.includes(role) && expandedState(e) !== undefined) add('role-state', `role=${role}[expanded=${expandedState(e)}]`);
        if (LEVEL_ROLES.includes(role) && levelState(e)) add('role-state', `role=${role}[level=${levelState(e)}]`);
        add('role-state', `role=${role}[disabled=${disabledState(e)}]`);
      }
      if (!inShadow(e)) {
        const id = e.getAttribute('id');
        add('xpath', id && !id.includes('"') ? `xpath=//${t}[@id="${id}"]` : `xpath=//${t}`);
        if (own && !own.includes('"')) add('xpath-bare', `//${t}[contains(., "${own}")]`);
        else add('xpath-bare', `//${t}`);
        if (parent) add('xpath-bare', `..//${t}`);
      }
      const id = e.getAttribute('id');
      if (id && !id.includes('>>')) add('id', 'id=' + id);
      for (const attr of ['data-testid', 'data-test-id', 'data-test']) {
        const v = e.getAttribute(attr);
        if (v) {
          add(attr, `${attr}=${v}`);
          if (attr === 'data-testid') add('internal:testid', `internal:testid=[data-testid=${JSON.stringify(v)}s]`);
        }
      }
      for (const attr of ['placeholder', 'alt', 'title']) {
        const v = e.getAttribute(attr);
        if (v) add('internal:attr', `internal:attr=[${attr}=${JSON.stringify(norm(v))}i]`);
      }
      const labelled = (e as HTMLInputElement).labels;
      const label = labelled && labelled.length ? norm(labelled[0].textContent || '') : norm(e.getAttribute('aria-label') || '');
      if (label && label.length < 60) add('internal:label', `internal:label=${JSON.stringify(words(label, 2))}i`);
      if (parent) {
        add('chain', `${simpleCss(parent)} >> ${css}`);
        add('css:has', `${tag(parent)}:has(> ${css})`);
      }
      add('nth', `${t} >> nth=0`);
      add('nth', `${t} >> nth=-1`);
      add('nth', `${css} >> nth=1`);
      add('visible', `${css} >> visible=true`);
      add('visible', `${t} >> visible=false`);
      add('css:visible', `${t}:visible`);
      add('css:nth-match', `:nth-match(${t}, 2)`);
      add('css:is', `:is(${t}, ${parent ? tag(parent) : 'div'}) >> nth=0`);
      add('css:not', `${t}:not(${css})`);
      add('css:layout', `${t}:right-of(${css})`);
      add('css:layout', `${t}:below(${css})`);
      add('css:layout', `${t}:near(${css})`);
    }
    return out;
  });
}
