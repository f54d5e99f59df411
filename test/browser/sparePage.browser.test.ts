/**
 * The page prepared ahead (BrowserSession's spare) against real Chromium: the
 * next capture gets it, and one for another viewport paints exactly as a page
 * set up for that viewport alone (same metrics, media and pixels).
 */
import type { Browser, Page } from 'puppeteer-core';
import { BrowserSession, type PreparedPage } from '../../src/browser/fleet/browserSession';
import { emulate } from '../../src/browser/page/pageSetup';
import type { Viewport } from '../../src/contract/captureContract';
import { CHROMIUM_PATH, servePages, type PageServer } from '../helpers/browser';

jest.setTimeout(60_000);

const LIGHT: Viewport = { width: 1280, height: 800, devicePixelRatio: 1, colorScheme: 'light' };
const DARK_SMALL: Viewport = { width: 640, height: 480, devicePixelRatio: 2, colorScheme: 'dark' };

const PAGE = `<!doctype html><style>
  body { margin: 0; background: #fff; color: #111; font: 16px sans-serif; }
  @media (prefers-color-scheme: dark) { body { background: #123; color: #eee; } }
  @media (max-width: 700px) { .wide { display: none; } }
  .box { width: 50vw; height: 100px; background: linear-gradient(90deg, red, blue); }
</style><p class="wide">wide only</p><div class="box"></div><p>metrics</p>`;

let session: BrowserSession;
let browser: Browser;
let server: PageServer;

beforeAll(async () => {
  server = await servePages(__dirname, {
    '/page': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(PAGE);
    },
  });
  session = new BrowserSession(() => ({ executablePath: CHROMIUM_PATH }), { ...process.env, DESIGN_PLAYBOOK_CHROME_PATH: CHROMIUM_PATH });
  browser = await session.acquire();
});

afterAll(async () => {
  await session?.shutdown();
  await server?.close();
});

const contextIds = () => new Set(browser.browserContexts().map((c) => c.id));

/** Waits until the spare's context exists (it is opened in the background). */
async function spareReady(before: Set<string | undefined>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ([...contextIds()].some((id) => !before.has(id))) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no spare context appeared');
}

/** A capture at `viewport` (its context closed), then the spare prepared after it: returns the contexts there were before the spare. */
async function spareAfterCaptureAt(viewport: Viewport): Promise<Set<string | undefined>> {
  const first = await session.newContextAndPage(browser, viewport);
  await session.closeContext(first.context);
  const before = contextIds();
  session.prepareSpare();
  await spareReady(before);
  return before;
}

/** What the page reads of its viewport, and its screenshot, through the capture session. */
async function observe(prepared: { page: Page; cdp: PreparedPage['emulation']['cdp'] }) {
  await prepared.page.goto(server.url('/page'));
  const metrics = await prepared.page.evaluate(() => ({
    inner: [innerWidth, innerHeight],
    outer: [outerWidth, outerHeight],
    screen: [screen.width, screen.height],
    dpr: devicePixelRatio,
    dark: matchMedia('(prefers-color-scheme: dark)').matches,
    wideShown: getComputedStyle(document.querySelector('.wide')!).display !== 'none',
  }));
  const { data } = await prepared.cdp.send('Page.captureScreenshot', { format: 'png' });
  return { metrics, png: Buffer.from(data, 'base64') };
}

test('the launched browser opens no tab of its own: every page belongs to a context the session opened', async () => {
  const cdp = await browser.target().createCDPSession();
  const [{ targetInfos }, { browserContextIds }] = await Promise.all([cdp.send('Target.getTargets'), cdp.send('Target.getBrowserContexts')]);
  await cdp.detach();
  // The default context's pages (Puppeteer's about:blank start page among them) are in no listed context.
  const outside = targetInfos.filter((t) => t.type === 'page' && !browserContextIds.includes(t.browserContextId!));
  expect(outside.map((t) => t.url)).toEqual([]);
});

test('the next capture gets the spare, set to its own viewport, and it paints as a page set up for that viewport alone', async () => {
  await spareAfterCaptureAt(LIGHT);
  const ids = contextIds();

  const taken = await session.newContextAndPage(browser, DARK_SMALL);
  // The spare (opened before this call) was handed over, not a new context.
  expect(ids.has(taken.context.id)).toBe(true);
  expect(taken.emulation.viewport).toEqual(DARK_SMALL);
  const retargeted = await observe({ page: taken.page, cdp: taken.emulation.cdp });

  const context = await session.newContext(browser);
  const page = await context.newPage();
  const cdp = await page.createCDPSession();
  await emulate(page, cdp, DARK_SMALL);
  const fresh = await observe({ page, cdp });

  expect(retargeted.metrics).toEqual({ inner: [640, 480], outer: [640, 480], screen: [640, 480], dpr: 2, dark: true, wideShown: false });
  expect(retargeted.metrics).toEqual(fresh.metrics);
  expect(retargeted.png.equals(fresh.png)).toBe(true);
  await session.closeContext(taken.context);
  await session.closeContext(context);
});

test('a spare already set up for the viewport is handed over without a protocol call', async () => {
  await spareAfterCaptureAt(LIGHT);
  const taken = await session.newContextAndPage(browser, LIGHT);
  const sent = jest.spyOn(taken.emulation.cdp, 'send');
  await taken.emulation.retarget({ ...LIGHT });
  expect(sent).not.toHaveBeenCalled();
  await taken.emulation.retarget({ ...LIGHT, colorScheme: 'dark' });
  expect(sent.mock.calls.map(([method]) => method)).toEqual(['Emulation.setEmulatedMedia']);
  sent.mockRestore();
  await session.closeContext(taken.context);
});

test('a spare whose page was closed is not handed over: the capture gets a fresh page and the spare context is closed', async () => {
  const before = await spareAfterCaptureAt(LIGHT);
  const spareId = [...contextIds()].find((id) => !before.has(id));
  const spareContext = browser.browserContexts().find((c) => c.id === spareId)!;
  for (;;) {
    const pages = await spareContext.pages();
    if (pages.length) {
      await pages[0].close();
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const taken = await session.newContextAndPage(browser, LIGHT);
  expect(taken.context.id).not.toBe(spareId);
  expect(taken.page.isClosed()).toBe(false);
  for (let i = 0; i < 100 && contextIds().has(spareId); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(contextIds().has(spareId)).toBe(false);
  await session.closeContext(taken.context);
});

test('a spare still opening when its browser is killed does not hold up the next capture on the new browser', async () => {
  // Its own session: this test kills browsers.
  const killed = new BrowserSession(() => ({ executablePath: CHROMIUM_PATH }), { ...process.env, DESIGN_PLAYBOOK_CHROME_PATH: CHROMIUM_PATH });
  const waits: number[] = [];
  try {
    // The kill lands at different points of the spare's opening; at some of them Puppeteer's wait for
    // the new page's target would only end at its own 30 s timeout.
    for (const delayMs of [0, 5, 8, 10, 12, 15, 20, 30]) {
      const old = await killed.acquire();
      const first = await killed.newContextAndPage(old, LIGHT);
      await killed.closeContext(first.context);
      killed.prepareSpare();
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      const child = old.process()!;
      child.kill('SIGKILL');
      await new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
      // The session hears of the exit when Puppeteer reads the closed pipe.
      for (let i = 0; i < 500 && old.connected; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(old.connected).toBe(false);
      const replacement = await killed.acquire();
      expect(replacement).not.toBe(old);
      const started = Date.now();
      const next = await killed.newContextAndPage(replacement, LIGHT);
      waits.push(Date.now() - started);
      expect(next.context.browser()).toBe(replacement);
      expect(next.page.isClosed()).toBe(false);
      await killed.closeContext(next.context);
    }
    // Not a speed figure: far below the 30 s a wait for the dead browser's spare would take.
    expect(Math.max(...waits)).toBeLessThan(10_000);
  } finally {
    await killed.shutdown();
  }
}, 120_000);
