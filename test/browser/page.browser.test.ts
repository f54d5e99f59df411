/**
 * The page-level pieces against real Chromium (one browser for the file):
 * the freeze sheet (even under a strict Content-Security-Policy), the
 * observed_state rule, and the actions' Playwright-like edges.
 */
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import { launchTestBrowser, servePages, type PageServer } from '../helpers/browser';
import { applyFreeze, FREEZE_CSS } from '../../src/browser/page/freeze';
import { readObservedState } from '../../src/browser/page/observedState';
import { runActions, runOneAction } from '../../src/browser/capture/actionRunner';
import type { CaptureAction } from '../../src/contract/actions';

jest.setTimeout(60_000);

const ANIMATION_CSS = `@keyframes spin { to { transform: rotate(360deg); } }
  #a { animation: spin 1s infinite; transition: color 2s; }
  #a::before { content: 'x'; animation: spin 1s infinite; }`;
const EDITABLES = `<input id="i"><textarea id="t"></textarea><div id="e" contenteditable><b id="inside">x</b></div><p id="plain">text</p>`;
const ANIMATED = `<!doctype html><style>${ANIMATION_CSS}</style><div id="a">spinning</div>${EDITABLES}`;
/** The same page for a strict CSP: its styles come from a same-origin sheet. */
const ANIMATED_CSP = `<!doctype html><link rel="stylesheet" href="/anim.css"><div id="a">spinning</div>${EDITABLES}`;

let browser: Browser;
let server: PageServer;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  browser = await launchTestBrowser();
  server = await servePages(__dirname, {
    '/animated': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(ANIMATED);
    },
    '/csp': (_req, res) => {
      // No inline styles or scripts, no eval: the freeze must still apply.
      res.writeHead(200, { 'content-type': 'text/html', 'content-security-policy': "default-src 'none'; style-src 'self'; script-src 'self'" });
      res.end(ANIMATED_CSP);
    },
    '/anim.css': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/css' });
      res.end(ANIMATION_CSS);
    },
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

beforeEach(async () => {
  context = await browser.createBrowserContext();
  page = await context.newPage();
});

afterEach(async () => {
  await context.close();
});

const frozenStyles = () =>
  page.evaluate(() => {
    const el = document.getElementById('a')!;
    const style = getComputedStyle(el);
    return {
      animation: style.animationName,
      before: getComputedStyle(el, '::before').animationName,
      transition: style.transitionProperty,
      // Where a caret can show: a field, a text area, contenteditable and what is inside it.
      caret: ['i', 't', 'e', 'inside'].map((id) => getComputedStyle(document.getElementById(id)!).caretColor).join(' / '),
      // Elsewhere untouched: a caret-color change there would repaint the whole page.
      plainCaret: getComputedStyle(document.getElementById('plain')!).caretColor,
      styleElements: document.querySelectorAll('style').length,
    };
  });

test.each(['/animated', '/csp'])('the freeze stops animations, transitions and the caret on %s without adding DOM', async (route) => {
  await page.goto(server.url(route));
  const before = await frozenStyles();
  expect(before.animation).toBe('spin');
  const warnings = await applyFreeze(page, { enabled: true, waitFonts: true, networkIdle: false });
  expect(warnings).toEqual([]);
  const after = await frozenStyles();
  const hidden = 'rgba(0, 0, 0, 0)';
  expect(after).toEqual({
    animation: 'none',
    before: 'none',
    transition: 'none',
    caret: [hidden, hidden, hidden, hidden].join(' / '),
    plainCaret: before.plainCaret,
    styleElements: before.styleElements,
  });
  expect(before.plainCaret).not.toBe(hidden);
  // Applying it again (after the actions) does not stack sheets.
  await applyFreeze(page, { enabled: true, waitFonts: false, networkIdle: false });
  expect(await page.evaluate(() => document.adoptedStyleSheets.length)).toBe(1);
  expect(FREEZE_CSS).toContain('caret-color: transparent !important');
});

test('a document in designMode has its caret hidden everywhere', async () => {
  await page.goto(server.url('/animated'));
  await page.evaluate(() => (document.designMode = 'on'));
  await applyFreeze(page, { enabled: true, waitFonts: false, networkIdle: false });
  expect(await page.evaluate(() => getComputedStyle(document.getElementById('plain')!).caretColor)).toBe('rgba(0, 0, 0, 0)');
});

test('freeze.enabled false leaves the page as it is', async () => {
  await page.goto(server.url('/animated'));
  await applyFreeze(page, { enabled: false, waitFonts: true, networkIdle: false });
  expect((await frozenStyles()).animation).toBe('spin');
});

test('observed_state: body, else html, else the first non-empty marker, trimmed; else unknown', async () => {
  const cases: Array<[string, string]> = [
    ['<html data-state="h"><body data-state="  b  "><i data-state="x"></i></body></html>', 'b'],
    ['<html data-state=" h "><body data-state="   "><i data-state="x"></i></body></html>', 'h'],
    ['<html><body><i data-state=""></i><i data-state="  "></i><b data-state=" first "></b><u data-state="second"></u></body></html>', 'first'],
    ['<html><body><p>no marker</p></body></html>', 'unknown'],
  ];
  for (const [html, expected] of cases) {
    await page.setContent(html);
    expect(await readObservedState(page)).toBe(expected);
  }
  // A page whose main thread is busy (or a probe that throws) reads as unknown, within the probe's own limit.
  await page.setContent('<body data-state="busy"></body>');
  void page
    .evaluate(() => {
      const end = Date.now() + 3000;
      while (Date.now() < end) {
        /* busy */
      }
    })
    .catch(() => undefined);
  expect(await readObservedState(page, 300)).toBe('unknown');
});

const act = (action: CaptureAction, budgetMs = 1500) => runOneAction(page, action, budgetMs);

test('select_option waits for an option that arrives late, and refuses a non-select', async () => {
  await page.setContent(`<select id="s"><option value="a">A</option></select><div id="d">x</div>
    <script>
      const s = document.getElementById('s');
      s.addEventListener('change', () => document.body.dataset.state = 'changed:' + s.value);
      setTimeout(() => s.add(new Option('Late one', 'late')), 300);
    </script>`);
  await act({ do: 'select_option', selector: '#s', label: 'Late one' });
  expect(await readObservedState(page)).toBe('changed:late');
  await expect(act({ do: 'select_option', selector: '#d', value: 'a' })).rejects.toThrow(/is a <div>, not a <select>/);
  await expect(act({ do: 'select_option', selector: '#s', value: 'zzz' }, 1500)).rejects.toThrow(/no enabled <option> with value 'zzz'.*a=A/);
});

test('fill replaces content in inputs and contenteditable, and refuses what cannot be filled', async () => {
  await page.setContent(`<input id="t" value="old"><div id="ce" contenteditable>old text</div>
    <input id="cb" type="checkbox"><input id="ro" readonly value="r"><p id="p">text</p>`);
  await act({ do: 'fill', selector: '#t', value: 'new' });
  await act({ do: 'fill', selector: '#ce', value: 'edited' });
  await act({ do: 'fill', selector: '#t', value: '' });
  expect(await page.$eval('#t', (el) => (el as HTMLInputElement).value)).toBe('');
  expect(await page.$eval('#ce', (el) => el.textContent)).toBe('edited');
  await expect(act({ do: 'fill', selector: '#cb', value: 'x' })).rejects.toThrow(/type "checkbox" cannot be filled/);
  // Playwright's editable check refuses it before fill looks at the element's kind, in Playwright's words.
  await expect(act({ do: 'fill', selector: '#p', value: 'x' })).rejects.toThrow(/Element is not an <input>, <textarea>, <select> or \[contenteditable\]/);
  await expect(act({ do: 'fill', selector: '#ro', value: 'x' }, 1500)).rejects.toThrow(/read-only/);
});

test('click waits for a hidden element to show, and fails on one that never does', async () => {
  await page.setContent(`<button id="later" style="display:none">later</button><button id="never" style="visibility:hidden">never</button>
    <script>
      const b = document.getElementById('later');
      b.addEventListener('click', () => document.body.dataset.state = 'clicked');
      setTimeout(() => b.style.display = '', 200);
    </script>`);
  await act({ do: 'click', selector: '#later' });
  expect(await readObservedState(page)).toBe('clicked');
  await expect(act({ do: 'click', selector: '#never' }, 1500)).rejects.toThrow(/element is not visible/);
});

test('plain CSS selectors reach into open shadow roots, as in Playwright', async () => {
  await page.setContent(`<sign-up></sign-up><script>
    customElements.define('sign-up', class extends HTMLElement {
      constructor() {
        super();
        this.attachShadow({ mode: 'open' }).innerHTML = '<input id="email"><button id="send">Send</button>';
        this.shadowRoot.getElementById('send').addEventListener('click', () => {
          document.body.dataset.state = 'sent:' + this.shadowRoot.getElementById('email').value;
        });
      }
    });
  </script>`);
  await runActions(page, [
    { do: 'fill', selector: '#email', value: 'a@b.c' },
    { do: 'click', selector: 'button#send' },
    { do: 'wait_for_state', state: 'sent:a@b.c' },
  ]);
  expect(await readObservedState(page)).toBe('sent:a@b.c');
  // Puppeteer's own selector syntax still works.
  await act({ do: 'click', selector: 'sign-up >>> #send' });
  // A bad selector fails on its syntax, naming the action, the selector and the position, before the page is touched.
  await expect(
    runActions(
      page,
      [
        { do: 'wait', ms: 1 },
        { do: 'click', selector: 'button[' },
      ],
      { budgetMs: 500 },
    ),
  ).rejects.toThrow(/^actions\[1\] click 'button\[' failed: selector syntax error at position 7: /);
});

test('press sends key combos to the element; errors name the action index, kind and selector', async () => {
  await page.setContent('<input id="k">');
  await runActions(page, [
    { do: 'press', selector: '#k', key: 'Shift+KeyA' },
    { do: 'press', key: 'b' },
  ]);
  expect(await page.$eval('#k', (el) => (el as HTMLInputElement).value)).toBe('Ab');
  await expect(
    runActions(
      page,
      [
        { do: 'wait', ms: 1 },
        { do: 'wait_for_selector', selector: '#nope' },
      ],
      { budgetMs: 300 },
    ),
  ).rejects.toThrow("actions[1] wait_for_selector '#nope' failed: no element matches the selector within 300 ms");
  await expect(runActions(page, [{ do: 'wait_for_state', state: 'ready' }], { budgetMs: 300 })).rejects.toThrow(
    /actions\[0\] wait_for_state failed: no element matches \[data-state="ready"\] within 300 ms; no element carries data-state/,
  );
});
