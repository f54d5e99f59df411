/**
 * The selector engine through its Node module (cdp/selectorEngine.ts) on a
 * real Chromium: every selector form resolves to the element a Playwright
 * user means, syntax errors say where, the engine survives navigation, and
 * "no match" gets suggestions of what exists.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Browser, CDPSession, Page } from 'puppeteer-core';
import { launchTestBrowser, servePages, type PageServer } from '../helpers/browser';
import { countSelector, nearMisses, resolveSelector } from '../../cdp/selectorEngine';
import { checkSelectorSyntax } from '../../cdp/selectorSyntax';
import { callRuntime, RUNTIME_GLOBAL, utilityContext } from '../../cdp/utilityWorld';

jest.setTimeout(60_000);

const PAGE = `<!doctype html><html><head><title>t</title></head><body>
<div id="top"><button id="submit">Retry</button><span id="hello">Hello <b id="world">World</b></span></div>
<input id="send" type="submit" value="Send">
<p id="msg" hidden>Hidden text</p>
<my-card id="host"></my-card>
<ul><li id="li1">One</li><li id="li2">Two</li><li id="li3">Three</li></ul>
<label for="email">Email</label><input id="email" data-testid="email-field" placeholder="you@example.com">
<h2 id="title">Title</h2>
<div role="checkbox" id="mixed" aria-checked="mixed" aria-label="Partial">x</div>
<button id="pressed" aria-pressed="true">Bold</button>
<button id="off" disabled>Off</button>
<details id="det" open><summary id="sum">More</summary>Body</details>
<button id="gone" style="display:none">Gone</button>
<script>customElements.define('my-card', class extends HTMLElement { constructor() { super();
  this.attachShadow({ mode: 'open' }).innerHTML = '<button id="inner" class="sb">Shadow Button</button>'; } });</script>
</body></html>`;

let dir: string;
let server: PageServer;
let browser: Browser;
let page: Page;
let session: CDPSession;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'selectors-'));
  fs.writeFileSync(path.join(dir, 'page.html'), PAGE);
  fs.writeFileSync(path.join(dir, 'other.html'), '<!doctype html><body><a id="home" href="/">Home</a></body>');
  server = await servePages(dir);
  browser = await launchTestBrowser();
  page = await browser.newPage();
  session = await page.createCDPSession();
  await page.goto(server.url('/page.html'));
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function idOf(selector: string): Promise<string | null> {
  const objectId = await resolveSelector(session, selector);
  if (!objectId) return null;
  const { result } = await session.send('Runtime.callFunctionOn', { objectId, functionDeclaration: 'function() { return this.id; }', returnByValue: true });
  await session.send('Runtime.releaseObject', { objectId });
  return result.value;
}

const FORMS: Array<[string, string | null]> = [
  ['#submit', 'submit'],
  ['text=Retry', 'submit'],
  ['text="Retry"', 'submit'],
  ['text=/^ret/i', 'submit'],
  ['"Retry"', 'submit'],
  ["'Retry'", 'submit'],
  ['text=retry', 'submit'],
  ['text="retry"', null],
  ['text=world', 'world'],
  ['text=Send', 'send'],
  ['role=button[name="Retry"]', 'submit'],
  ['role=button[name="retry"i]', 'submit'],
  ['role=button[name="retry"]', null],
  ['role=button[name=/^Shad/]', 'inner'],
  ['role=checkbox[checked=mixed]', 'mixed'],
  ['role=button[pressed]', 'pressed'],
  ['role=button[disabled]', 'off'],
  ['role=button[expanded=false]', null],
  ['role=heading[level=2]', 'title'],
  ['role=button[name="Gone"]', null],
  ['role=button[name="Gone"][include-hidden]', 'gone'],
  ['button:has-text("Retry")', 'submit'],
  ['button:text("retry")', 'submit'],
  ['li:text-is("Two")', 'li2'],
  ['li:text-matches("^Th")', 'li3'],
  ['body >> #submit', 'submit'],
  ['xpath=//button', 'submit'],
  ['//li[2]', 'li2'],
  ['button >> nth=0', 'submit'],
  ['li >> nth=-1', 'li3'],
  ['li >> nth=-2', 'li2'],
  ['li >> nth=5', null],
  [':nth-match(li, 3)', 'li3'],
  ['id=submit', 'submit'],
  ['css=#submit', 'submit'],
  ['data-testid=email-field', 'email'],
  ['button:visible', 'submit'],
  ['p >> visible=false', 'msg'],
  ['p:visible', null],
  ['.sb', 'inner'],
  ['my-card button', 'inner'],
  ['my-card >> text=Shadow', 'inner'],
  ['div:has(> button)', 'top'],
  ['li:not(:has-text("One"))', 'li2'],
  ['li:is(#li3, #li2)', 'li2'],
  ['internal:role=button[name="retr"i]', 'submit'],
  ['internal:role=button[name="Retry"s]', 'submit'],
  ['internal:text="Hello World"s', 'hello'],
  ['internal:text="hello"i', 'hello'],
  ['div >> internal:has-text="world"i', 'top'],
  ['li >> internal:has-not-text="One"i', 'li2'],
  ['internal:label="Email"i', 'email'],
  ['internal:testid=[data-testid="email-field"s]', 'email'],
  ['internal:attr=[placeholder="you@"i]', 'email'],
  ['li >> internal:has="text=Two"', 'li2'],
  ['li >> internal:and="#li3"', 'li3'],
  ['#li3 >> internal:or="#li1"', 'li1'],
  ['*css=div >> #world', 'top'],
  ['button:right-of(#submit)', 'inner'],
  ['summary:near(#det)', 'sum'],
];

describe('every selector form resolves to the intended element', () => {
  test.each(FORMS)('%s', async (selector, expected) => {
    expect(await idOf(selector)).toBe(expected);
  });
});

describe('syntax errors say where', () => {
  test.each([
    ['button[', 7],
    ['role=button[foo]', 11],
    ['nope=1', 0],
    ['div:text(', 9],
    ['div >> nth=x', 11],
    ['role=heading[level=x]', 12],
    ['text=/(/', 5],
    ['div::-p-text(x)', 3],
    ['#a >> ', 6],
    ['role=group[expanded]', 10],
  ])('%s', (selector, position) => {
    expect(() => checkSelectorSyntax(selector)).toThrow(new RegExp(`^selector syntax error at position ${position}: `));
  });

  test('the page reports the same error the Node check does', async () => {
    await expect(countSelector(session, 'role=button[foo]')).rejects.toThrow(/selector syntax error at position 11/);
    await expect(callRuntime(session, 'count', ['role=button[foo]'])).rejects.toThrow(/^selector syntax error at position 11: unknown attribute \[foo\]/);
  });
});

describe('the engine world', () => {
  test('is installed once per document and made again after a navigation', async () => {
    const first = await utilityContext(session);
    expect(await utilityContext(session)).toBe(first);
    await page.goto(server.url('/other.html'));
    expect(await idOf('role=link[name="Home"]')).toBe('home');
    const second = await utilityContext(session);
    expect(second).not.toBe(first);
    await page.goto(server.url('/page.html'));
    expect(await idOf('text=Retry')).toBe('submit');
  });

  test('a world gets the smallest part of the runtime its first call needs, and the whole runtime when a later call needs more', async () => {
    const other = await browser.newPage();
    const cdp = await other.createCDPSession();
    try {
      await other.goto(server.url('/page.html'));
      const methodsInWorld = async () => {
        // The world's context without installing anything: the execution context named like the utility world.
        const contexts: number[] = [];
        const listen = (e: { context: { id: number; name: string } }) => e.context.name === 'design-playbook-utility' && contexts.push(e.context.id);
        cdp.on('Runtime.executionContextCreated', listen);
        await cdp.send('Runtime.enable');
        cdp.off('Runtime.executionContextCreated', listen);
        await cdp.send('Runtime.disable');
        const { result } = await cdp.send('Runtime.evaluate', {
          expression: `Object.keys(${RUNTIME_GLOBAL} || {}).sort()`,
          contextId: contexts[0],
          returnByValue: true,
        });
        return result.value as string[];
      };
      const walk = JSON.parse(await callRuntime(cdp, 'ariaWalk', []));
      expect(walk).toBeTruthy();
      expect(await methodsInWorld()).toEqual(['ariaWalk']);
      // A selector call in the same world: the whole runtime replaces the aria part, and both calls work on.
      expect(await callRuntime(cdp, 'count', ['li'])).toBe(3);
      const whole = await methodsInWorld();
      expect(whole).toEqual(expect.arrayContaining(['ariaWalk', 'count', 'queryFirst', 'serializeTraceFrame']));
      expect(JSON.parse(await callRuntime(cdp, 'ariaWalk', []))).toEqual(walk);
    } finally {
      await other.close();
    }
  });

  test('the page cannot break it by patching built-ins in the main world', async () => {
    await page.evaluate(() => {
      (Array.prototype as any).filter = () => [];
      (document as any).querySelectorAll = () => [];
    });
    expect(await idOf('li:text-is("Two")')).toBe('li2');
    await page.reload();
  });
});

describe('near misses', () => {
  test('suggest existing elements resembling the selector', async () => {
    expect((await nearMisses(session, 'text=Retyr'))[0]).toBe('role=button[name="Retry"]');
    expect(await nearMisses(session, 'role=button[name="Shadow"]')).toContain('role=button[name="Shadow Button"]');
    expect(await nearMisses(session, '#emial')).toContain('#email');
  });

  test('fall back to the interactive elements when nothing resembles it', async () => {
    const list = await nearMisses(session, '#zzzzzzzz');
    expect(list.length).toBeGreaterThan(0);
    expect(list.every((s) => s.startsWith('role='))).toBe(true);
  });
});
