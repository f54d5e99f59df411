/**
 * The aria modules (cdp/injected/aria/) one at a time, each built on its own
 * with esbuild and evaluated in a real Chromium: roles, accessible names,
 * visibility, generated content, and the memo tables that make a pass fast
 * without letting stale facts outlive it.
 */
import * as path from 'path';
import type { Browser, Page } from 'puppeteer-core';
import { launchTestBrowser } from '../helpers/browser';
import { bundleInjectedModule } from '../helpers/injectedModule';

jest.setTimeout(60_000);

const ARIA = path.join(__dirname, '..', '..', 'cdp', 'injected', 'aria');

const bundle = (module: string) => bundleInjectedModule(path.join(ARIA, module));

let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchTestBrowser();
  page = await browser.newPage();
});
afterAll(async () => {
  await browser?.close();
});

/** Sets the page's body and runs `fn(exports)` in the page with the module loaded. */
async function withModule<T>(module: string, body: string, fn: string): Promise<T> {
  await page.setContent(`<!doctype html><html><body>${body}</body></html>`);
  return page.evaluate(`(() => { const mod = ${bundle(module)}; return (${fn})(mod); })()`) as Promise<T>;
}

describe('roles.ts', () => {
  test('implicit, explicit and presentational roles', async () => {
    const roles = await withModule<Record<string, [string, string]>>(
      'roles.ts',
      `
      <a id="a" href="/">x</a><a id="a2">x</a><input id="cb" type="checkbox"><input id="num" type="number">
      <ul role="none" id="ul"><li id="li">x</li></ul><button id="b" role="presentation">x</button>
      <div id="d" role="foo tab">x</div><img id="img" alt=""><table><tr><th id="th">h</th><td>v</td></tr></table>`,
      `(m) => Object.fromEntries([...document.querySelectorAll('[id]')].map((e) => [e.id, [m.ariaRole(e), m.snapshotRole(e)]]))`,
    );
    expect(roles).toEqual({
      a: ['link', 'link'],
      a2: ['', ''],
      cb: ['checkbox', 'checkbox'],
      num: ['spinbutton', 'spinbutton'],
      ul: ['none', ''],
      li: ['none', 'none'],
      b: ['button', 'button'],
      d: ['tab', 'tab'],
      img: ['presentation', 'presentation'],
      th: ['rowheader', 'rowheader'],
    });
  });

  test('states role selectors filter on', async () => {
    const states = await withModule<any>(
      'roles.ts',
      `
      <input id="cb" type="checkbox" checked><div id="mixed" role="checkbox" aria-checked="mixed"></div>
      <button id="p" aria-pressed="mixed">x</button><h3 id="h">x</h3><div id="lvl" role="heading" aria-level="5">x</div>
      <details id="det"><summary>s</summary></details><div aria-disabled="true"><button id="inh">x</button><span id="sp">x</span></div>
      <fieldset disabled><legend><button id="leg">x</button></legend><button id="fs">x</button></fieldset>
      <select><option id="opt" selected>a</option></select>`,
      `(m) => { const $ = (id) => document.getElementById(id); return {
      cb: m.checkedState($('cb')), mixed: m.checkedState($('mixed')), p: m.pressedState($('p')), h: m.levelState($('h')),
      lvl: m.levelState($('lvl')), det: m.expandedState($('det')), inh: m.disabledState($('inh')), sp: m.disabledState($('sp')),
      leg: m.disabledState($('leg')), fs: m.disabledState($('fs')), opt: m.selectedState($('opt')) }; }`,
    );
    expect(states).toEqual({ cb: true, mixed: 'mixed', p: 'mixed', h: 3, lvl: 5, det: false, inh: true, sp: false, leg: false, fs: true, opt: true });
  });
});

describe('names.ts', () => {
  test('names from content, labels, aria-labelledby, values and generated content', async () => {
    const names = await withModule<Record<string, string>>(
      'names.ts',
      `
      <style>#gen::before { content: "Go " } #gen::after { content: attr(data-x); display: block }</style>
      <button id="b">Save <span aria-hidden="true">!</span><span hidden>x</span> file</button>
      <label for="i">Email <input value="ignored-self"></label><input id="i">
      <span id="l1">Shipping</span><input id="lb" aria-labelledby="l1 lb" value="fast"><!-- Playwright skips the field's own value here -->
      <label>Qty <input id="inner" type="checkbox"><select><option>2</option><option selected>3</option></select> each</label>
      <button id="gen" data-x="now">x</button><input id="sub" type="submit"><img id="img" alt="" title="t">`,
      `(m) => Object.fromEntries(['b', 'i', 'lb', 'inner', 'gen', 'sub', 'img'].map((id) => { const e = document.getElementById(id); return [id, m.accessibleName(e, 'button')]; }))`,
    );
    expect(names).toEqual({ b: 'Save file', i: 'Email ignored-self', lb: 'Shipping', inner: 'Qty 3 each', gen: 'Go x now', sub: 'Submit', img: 't' });
  });

  test('include-hidden counts hidden content', async () => {
    const [plain, hidden] = await withModule<[string, string]>(
      'names.ts',
      '<button id="b">Open <span style="display:none">menu</span></button>',
      `(m) => { const e = document.getElementById('b'); return [m.accessibleName(e, 'button'), m.accessibleName(e, 'button', true)]; }`,
    );
    expect([plain, hidden]).toEqual(['Open', 'Open menu']);
  });

  test('name-prohibited roles have no name', async () => {
    expect(await withModule('names.ts', '<p id="p" aria-label="x">para</p>', `(m) => m.accessibleName(document.getElementById('p'), 'paragraph')`)).toBe('');
  });
});

describe('visibility.ts', () => {
  test('hidden for assistive technology vs. visible as a box', async () => {
    const facts = await withModule<Record<string, [boolean, boolean]>>(
      'visibility.ts',
      `
      <div id="shown">x</div><div id="none" style="display:none">x</div><div id="vis" style="visibility:hidden">x</div>
      <div id="ah" aria-hidden="true">x</div><div id="empty"></div><div id="contents" style="display:contents"><span>x</span></div>
      <div id="zero" style="width:0;height:0;overflow:hidden">x</div>`,
      `(m) => Object.fromEntries([...document.querySelectorAll('[id]')].map((e) => [e.id, [m.isHiddenForAria(e), m.isVisibleBox(e)]]))`,
    );
    expect(facts).toEqual({
      shown: [false, true],
      none: [true, false],
      vis: [true, false],
      ah: [true, true],
      empty: [false, false],
      contents: [false, true],
      zero: [false, false],
    });
  });
});

describe('pseudoContent.ts', () => {
  test('strings and attr() read; other content makes the box unreadable; own content only after "/"', async () => {
    const texts = await withModule<any>(
      'pseudoContent.ts',
      `
      <style>#a::before { content: "\\2192  next" } #b::after { content: url(x.png) } #c::before { content: "x"; display: block }
      #d { content: "img" / "Alt " attr(data-n) }</style><span id="a"></span><span id="b"></span><span id="c"></span><span id="d" data-n="7"></span>`,
      `(m) => { const $ = (id) => document.getElementById(id); return [m.pseudoText($('a'), '::before'), m.pseudoText($('b'), '::after'),
      m.pseudoText($('c'), '::before'), m.ownContentText($('d')), m.ownContentText($('a'))]; }`,
    );
    // (undefined arrives as null from page.evaluate)
    expect(texts).toEqual(['\u2192 next', null, ' x ', 'Alt 7', null]);
  });
});

describe('caches.ts', () => {
  test('memo tables hold within a pass and are emptied after it', async () => {
    const result = await withModule<number[]>(
      'caches.ts',
      '',
      `(m) => {
      const t = m.memoTable(); let calls = 0; const f = () => ++calls;
      m.memo(t, 'k', f); m.memo(t, 'k', f);
      const outside = calls;
      m.withCaches(() => { m.memo(t, 'k', f); m.memo(t, 'k', f); m.withCaches(() => m.memo(t, 'k', f)); });
      const inside = calls;
      m.withCaches(() => m.memo(t, 'k', f));
      return [outside, inside, calls, t.size];
    }`,
    );
    expect(result).toEqual([2, 3, 4, 0]);
  });
});
