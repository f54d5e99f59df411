/**
 * Actions side by side with Playwright (playwright-core, the same system
 * Chromium, the same page served from 127.0.0.1): our side runs the action
 * list through the runner as a capture does; Playwright's side calls the
 * page method the original hands the action to (page.click,
 * page.waitForSelector…). For each case both must succeed with the same
 * effect on the page, or both fail for the same reason — and ours says it
 * naming the action, the selector and why.
 */
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import { chromium, type Browser as PwBrowser, type Page as PwPage } from 'playwright-core';
import { CHROMIUM_PATH, CHROMIUM_TEST_ARGS, launchTestBrowser, servePages, type PageServer } from '../helpers/browser';
import { runActions } from '../../src/browser/capture/actionRunner';
import { readObservedState } from '../../src/browser/page/observedState';
import type { CaptureAction } from '../../src/contract/actions';

jest.setTimeout(120_000);

const STATE = `<script>const mark = (s) => { document.body.dataset.state = s; };</script>`;
const page = (body: string) => `<!doctype html><html><head><meta charset="utf-8"><style>body { margin: 0; } button { font-size: 16px; }</style></head>
<body data-state="start">${STATE}${body}</body></html>`;

const PAGES: Record<string, string> = {
  // A fixed overlay that stays: both fail, naming it.
  '/covered': page(`<button id="go" onclick="mark('clicked')">Go</button>
    <div class="overlay" style="position:fixed;inset:0;background:rgba(0,0,0,.2)"></div>`),
  // The overlay leaves after 300 ms: both click once it is gone.
  '/uncovered-later': page(`<button id="go" onclick="mark('clicked')">Go</button>
    <div class="overlay" style="position:fixed;inset:0;background:rgba(0,0,0,.2)"></div>
    <script>setTimeout(() => document.querySelector('.overlay').remove(), 300);</script>`),
  // Moves every frame for 400 ms, then stops: the click lands after it stopped.
  '/moving': page(`<button id="go" style="position:absolute;left:0;top:40px">Go</button>
    <script>
      let moving = true;
      const b = document.getElementById('go');
      b.addEventListener('click', () => mark(moving ? 'clicked:moving' : 'clicked:still'));
      const t0 = performance.now();
      const step = () => {
        if (performance.now() - t0 > 400) { moving = false; return; }
        b.style.left = (parseFloat(b.style.left) + 3) + 'px';
        requestAnimationFrame(step);
      };
      requestAnimationFrame(step);
    </script>`),
  // Never stops moving.
  '/always-moving': page(`<button id="go" style="position:absolute;left:0;top:40px" onclick="mark('clicked')">Go</button>
    <script>
      const b = document.getElementById('go');
      let x = 0;
      const step = () => { x = (x + 3) % 300; b.style.left = x + 'px'; requestAnimationFrame(step); };
      requestAnimationFrame(step);
    </script>`),
  // Enabled after 300 ms.
  '/enabled-later': page(`<button id="go" disabled onclick="mark('clicked')">Go</button>
    <script>setTimeout(() => document.getElementById('go').disabled = false, 300);</script>`),
  // Disabled for good: natively, and by aria-disabled on an ancestor (a button's role supports it).
  '/disabled': page(`<button id="native" disabled>Native</button>
    <div aria-disabled="true"><button id="aria" onclick="mark('clicked')">Aria</button></div>
    <div aria-disabled="true"><span id="plain" onclick="mark('clicked-plain')">Plain</span></div>
    <div inert><button id="inert" onclick="mark('clicked-inert')">Inert</button></div>`),
  // Revealed after 500 ms: wait_for_selector waits for visible, not present.
  '/revealed-later': page(`<p id="msg" hidden>Saved</p>
    <script>setTimeout(() => { document.getElementById('msg').hidden = false; mark('shown'); }, 500);</script>`),
  '/never-shown': page(`<p id="msg" hidden>Saved</p><button id="hid" style="visibility:hidden">Hidden</button>`),
  // Inside an open shadow root.
  '/shadow': page(`<x-card></x-card><script>
    customElements.define('x-card', class extends HTMLElement {
      constructor() {
        super();
        this.attachShadow({ mode: 'open' }).innerHTML = '<div><button id="inner">Shadow go</button></div>';
        this.shadowRoot.getElementById('inner').addEventListener('click', () => mark('clicked-shadow'));
      }
    });
  </script>`),
  // Far below the fold.
  '/far': page(`<div style="height:5000px">tall</div><button id="far" onclick="mark('clicked-far:' + (scrollY > 0))">Far</button>`),
  // Playwright selectors of each kind, data-state waits on a selector.
  '/retry': page(`<h1>Title</h1><button id="submit" data-testid="submit" onclick="mark('clicks:' + (++window.n || (window.n = 1)))">Retry</button>
    <div id="dlg" data-state="closed"><span class="label">Dialog</span></div>
    <script>setTimeout(() => document.getElementById('dlg').dataset.state = 'open', 200);</script>`),
};

let browser: Browser;
let pw: PwBrowser;
let server: PageServer;
let context: BrowserContext;
let ours: Page;
let theirs: PwPage;

beforeAll(async () => {
  const routes = Object.fromEntries(
    Object.entries(PAGES).map(([route, html]) => [
      route,
      (_req: unknown, res: any) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(html);
      },
    ]),
  );
  [browser, pw, server] = await Promise.all([
    launchTestBrowser(),
    chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_TEST_ARGS, headless: true }),
    servePages(__dirname, routes),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await pw?.close();
  await server?.close();
});

beforeEach(async () => {
  context = await browser.createBrowserContext();
  ours = await context.newPage();
  await ours.setViewport({ width: 800, height: 600 });
  theirs = await pw.newPage({ viewport: { width: 800, height: 600 } });
});

afterEach(async () => {
  await context.close();
  await theirs.close();
});

/** Success cases end as soon as the page allows; failure cases pass a shorter budget. */
const BUDGET = 5000;
const SHORT = 3000;

/** Our side: the page loaded, the actions run as a capture runs them; the error message or ''. */
async function runOurs(route: string, actions: CaptureAction[], budgetMs = BUDGET): Promise<{ error: string; state: string }> {
  await ours.goto(server.url(route));
  const error = await runActions(ours, actions, { budgetMs }).then(
    () => '',
    (err: Error) => err.message,
  );
  return { error, state: await readObservedState(ours) };
}

/** Playwright's side: the page method the original calls, with the same budget. */
async function runTheirs(route: string, act: (p: PwPage) => Promise<unknown>): Promise<{ error: string; state: string }> {
  await theirs.goto(server.url(route));
  const error = await act(theirs).then(
    () => '',
    (err: Error) => err.message,
  );
  const state = await theirs.evaluate(() => document.body.dataset.state || 'unknown');
  return { error, state };
}

test('covered by an overlay: both fail, naming the element that intercepts the click', async () => {
  const [a, b] = await Promise.all([
    runOurs('/covered', [{ do: 'click', selector: '#go' }], SHORT),
    runTheirs('/covered', (p) => p.click('#go', { timeout: SHORT })),
  ]);
  expect(b.error).toContain('<div class="overlay"></div> intercepts pointer events');
  expect(a.error).toContain(`actions[0] click '#go' failed: <div class="overlay"></div> intercepts pointer events`);
  expect(a.error).toContain('the target is <button id="go" onclick="mark(\'clicked\')">Go</button>');
  expect([a.state, b.state]).toEqual(['start', 'start']);
});

test('an overlay that leaves after 300 ms: both click once it is gone', async () => {
  const [a, b] = await Promise.all([
    runOurs('/uncovered-later', [{ do: 'click', selector: '#go' }]),
    runTheirs('/uncovered-later', (p) => p.click('#go', { timeout: BUDGET })),
  ]);
  expect([a, b]).toEqual([
    { error: '', state: 'clicked' },
    { error: '', state: 'clicked' },
  ]);
});

test('an element that moves, then stops: both wait for it to hold still', async () => {
  const [a, b] = await Promise.all([runOurs('/moving', [{ do: 'click', selector: '#go' }]), runTheirs('/moving', (p) => p.click('#go', { timeout: BUDGET }))]);
  expect([a, b]).toEqual([
    { error: '', state: 'clicked:still' },
    { error: '', state: 'clicked:still' },
  ]);
});

test('an element that never stops moving: both fail as not stable', async () => {
  const [a, b] = await Promise.all([
    runOurs('/always-moving', [{ do: 'click', selector: '#go' }], SHORT),
    runTheirs('/always-moving', (p) => p.click('#go', { timeout: SHORT })),
  ]);
  expect(b.error).toContain('element is not stable');
  expect(a.error).toMatch(/^actions\[0\] click '#go' failed: element is not stable \(waited 3000 ms; the selector resolves to <button id="go"/);
});

test('a button enabled after 300 ms: both wait and click', async () => {
  const [a, b] = await Promise.all([
    runOurs('/enabled-later', [{ do: 'click', selector: '#go' }]),
    runTheirs('/enabled-later', (p) => p.click('#go', { timeout: BUDGET })),
  ]);
  expect([a, b]).toEqual([
    { error: '', state: 'clicked' },
    { error: '', state: 'clicked' },
  ]);
});

test.each([
  ['#native', 'element is not enabled'],
  ['#aria', 'element is not enabled'],
  ['#inert', 'element is inert'],
  // aria-disabled on an ancestor does not disable an element whose role cannot be disabled.
  ['#plain', ''],
])("disabled (%s): Playwright's rule, natively, by aria-disabled, or inert", async (selector, why) => {
  const [a, b] = await Promise.all([
    runOurs('/disabled', [{ do: 'click', selector }], why ? SHORT : BUDGET),
    runTheirs('/disabled', (p) => p.click(selector, { timeout: why ? SHORT : BUDGET })),
  ]);
  if (why) {
    expect(b.error).toContain(why);
    expect(a.error).toContain(`actions[0] click '${selector}' failed: ${why} (waited ${SHORT} ms; the selector resolves to <button`);
  } else {
    expect([a, b]).toEqual([
      { error: '', state: 'clicked-plain' },
      { error: '', state: 'clicked-plain' },
    ]);
  }
});

test('revealed after 500 ms: wait_for_selector waits until visible, as waitForSelector does', async () => {
  const visibleNow = (p: { evaluate(fn: () => boolean): Promise<boolean> }) => p.evaluate(() => !document.getElementById('msg')!.hidden);
  const started = Date.now();
  await ours.goto(server.url('/revealed-later'));
  await runActions(ours, [{ do: 'wait_for_selector', selector: '#msg' }], { budgetMs: 3000 });
  const oursVisible = await visibleNow(ours);
  const oursMs = Date.now() - started;
  await theirs.goto(server.url('/revealed-later'));
  await theirs.waitForSelector('#msg', { timeout: 3000 });
  expect([oursVisible, await visibleNow(theirs)]).toEqual([true, true]);
  expect(oursMs).toBeGreaterThanOrEqual(450);
  // wait_for_state waits for visible too.
  await ours.goto(server.url('/revealed-later'));
  await runActions(ours, [{ do: 'wait_for_state', state: 'shown' }], { budgetMs: 3000 });
  expect(await readObservedState(ours)).toBe('shown');
});

test('never shown: both fail as not visible; ours names the element it found', async () => {
  const [a, b] = await Promise.all([
    runOurs('/never-shown', [{ do: 'wait_for_selector', selector: '#msg' }], SHORT),
    runTheirs('/never-shown', (p) => p.waitForSelector('#msg', { timeout: SHORT })),
  ]);
  expect(b.error).toMatch(/to be visible/);
  expect(a.error).toBe(
    `actions[0] wait_for_selector '#msg' failed: element is not visible (waited ${SHORT} ms; the selector resolves to <p id="msg" hidden="">Saved</p>)`,
  );
  const [c, d] = await Promise.all([
    runOurs('/never-shown', [{ do: 'click', selector: 'text=Hidden' }], SHORT),
    runTheirs('/never-shown', (p) => p.click('text=Hidden', { timeout: SHORT })),
  ]);
  expect(d.error).toContain('element is not visible');
  expect(c.error).toContain(`actions[0] click 'text=Hidden' failed: element is not visible`);
});

test.each(['#inner', 'text=Shadow go', 'role=button[name="Shadow go"]', 'x-card button'])(
  'inside an open shadow root (%s): both click it',
  async (selector) => {
    const [a, b] = await Promise.all([runOurs('/shadow', [{ do: 'click', selector }]), runTheirs('/shadow', (p) => p.click(selector, { timeout: BUDGET }))]);
    expect([a, b]).toEqual([
      { error: '', state: 'clicked-shadow' },
      { error: '', state: 'clicked-shadow' },
    ]);
  },
);

test('scrolled far below: both scroll it into view and click', async () => {
  const [a, b] = await Promise.all([runOurs('/far', [{ do: 'click', selector: '#far' }]), runTheirs('/far', (p) => p.click('#far', { timeout: BUDGET }))]);
  expect([a, b]).toEqual([
    { error: '', state: 'clicked-far:true' },
    { error: '', state: 'clicked-far:true' },
  ]);
});

const RETRY_SELECTORS = [
  'text=Retry',
  'text="Retry"',
  'role=button[name="Retry"]',
  'button:has-text("Retry")',
  'body >> #submit',
  'xpath=//button',
  '//button',
  'button >> nth=0',
  'id=submit',
  'css=#submit',
  'button:visible',
  'internal:role=button[name="Retry"i]',
  'data-testid=submit',
  '"Retry"',
];

test('every Playwright selector form clicks the same button on both sides', async () => {
  const actions: CaptureAction[] = RETRY_SELECTORS.map((selector) => ({ do: 'click', selector }));
  const a = await runOurs('/retry', actions);
  const b = await runTheirs('/retry', async (p) => {
    for (const selector of RETRY_SELECTORS) await p.click(selector, { timeout: BUDGET });
  });
  expect(a).toEqual({ error: '', state: `clicks:${RETRY_SELECTORS.length}` });
  expect(b).toEqual(a);
});

test('wait_for_state on a non-CSS selector: its matches that carry the state, once visible', async () => {
  const a = await runOurs('/retry', [{ do: 'wait_for_state', selector: 'text=Dialog >> xpath=..', state: 'open' }]);
  expect(a.error).toBe('');
  await ours.goto(server.url('/retry'));
  await runActions(ours, [{ do: 'wait_for_state', selector: '#dlg', state: 'open' }], { budgetMs: BUDGET });
  expect(await ours.$eval('#dlg', (el) => (el as HTMLElement).dataset.state)).toBe('open');
  const b = await runOurs('/retry', [{ do: 'wait_for_state', selector: 'role=button', state: 'open' }], 500);
  expect(b.error).toBe(
    `actions[0] wait_for_state 'role=button' failed: no element matches role=button >> internal:and="[data-state=\\"open\\"]" within 500 ms; data-state values on the page: 'start', 'open'`,
  );
});

describe('error wording: which action, which selector, why', () => {
  test('no element matches: with elements like it on the page', async () => {
    const a = await runOurs(
      '/retry',
      [
        { do: 'wait', ms: 1 },
        { do: 'click', selector: 'text=Retyr' },
      ],
      500,
    );
    expect(a.error).toBe(
      `actions[1] click 'text=Retyr' failed: no element matches the selector within 500 ms; elements like it on the page: role=button[name="Retry"]`,
    );
    const b = await runOurs('/retry', [{ do: 'click', selector: 'role=button[name="Submit"]' }], 500);
    expect(b.error).toMatch(
      /^actions\[0\] click 'role=button\[name="Submit"\]' failed: no element matches the selector within 500 ms; elements like it on the page: .*#submit/,
    );
  });

  test('a syntax error fails before the page is touched, with its position', async () => {
    const a = await runOurs('/retry', [
      { do: 'click', selector: '#submit' },
      { do: 'click', selector: 'role=button[name="Retry"' },
    ]);
    expect(a.error).toMatch(/^actions\[1\] click 'role=button\[name="Retry"' failed: selector syntax error at position \d+: /);
    // The first action never ran: every selector is checked before any action.
    expect(a.state).toBe('start');
    const b = await runOurs('/retry', [{ do: 'fill', selector: 'div::after', value: 'x' }]);
    expect(b.error).toMatch(/^actions\[0\] fill 'div::after' failed: selector syntax error at position 3: /);
  });

  test('matched but hidden, disabled, covered, moving: each says so', async () => {
    expect((await runOurs('/never-shown', [{ do: 'click', selector: '#hid' }], 400)).error).toBe(
      `actions[0] click '#hid' failed: element is not visible (waited 400 ms; the selector resolves to <button id="hid">Hidden</button>)`,
    );
    expect((await runOurs('/disabled', [{ do: 'fill', selector: '#native', value: 'x' }], 400)).error).toMatch(
      /^actions\[0\] fill '#native' failed: element is not enabled \(waited 400 ms; the selector resolves to <button disabled id="native">Native<\/button>\)$/,
    );
    expect((await runOurs('/covered', [{ do: 'type', selector: 'role=button', value: 'x' }], 400)).error).toMatch(
      /^actions\[0\] type 'role=button' failed: <div class="overlay"><\/div> intercepts pointer events \(retried for 400 ms; /,
    );
  });

  test('Puppeteer syntax stays an extension', async () => {
    expect(await runOurs('/shadow', [{ do: 'click', selector: 'x-card >>> #inner' }])).toEqual({ error: '', state: 'clicked-shadow' });
    expect(await runOurs('/retry', [{ do: 'click', selector: 'button::-p-text(Retry)' }])).toEqual({ error: '', state: 'clicks:1' });
  });
});
