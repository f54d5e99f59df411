/**
 * Each render setting of pageSetup.ts against playwright-core on the same
 * executable: a page set up by our emulate() on a browser launched with the
 * runtime's own flags (launchArgs) reads the same facts as Playwright's page
 * — the height of a <pre>, the width of the generic families, the hover and
 * pointer media, focus, the screen and window size, scrollbars, the media
 * defaults, a cross-site frame's fonts and scheme. Then the same per-page
 * settings on a browser started without our flags and attached to:
 * everything but hover/pointer still matches, and hover is left as that
 * browser reports it (docs/browser.md, "Render settings").
 */
import * as fs from 'fs';
import * as path from 'path';
import puppeteer, { type Browser, type Frame, type Page } from 'puppeteer-core';
import { chromium, type Browser as PwBrowser, type Frame as PwFrame } from 'playwright-core';
import { CHROMIUM_PATH, servePages, type PageServer } from '../helpers/browser';
import { isHeadlessShell } from '../../src/browser/fleet/findBrowser';
import { launchArgs } from '../../src/browser/fleet/browserSession';
import { emulate } from '../../src/browser/page/pageSetup';
import { DEFAULT_FONT_FAMILIES, fontPlatform } from '../../src/browser/page/defaultFonts';
import type { Viewport } from '../../src/contract/captureContract';

jest.setTimeout(180_000);

const CORPUS = path.join(__dirname, '..', '..', 'bench', 'pixel-corpus');
const LIGHT: Viewport = { width: 1280, height: 800, devicePixelRatio: 1, colorScheme: 'light' };

let server: PageServer;
let ours: Browser;
let bare: Browser;
let pw: PwBrowser;

beforeAll(async () => {
  server = await servePages(CORPUS, {
    '/facts': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(FACTS_PAGE);
    },
  });
  const headless = isHeadlessShell(CHROMIUM_PATH) ? 'shell' : true;
  [ours, bare, pw] = await Promise.all([
    puppeteer.launch({ executablePath: CHROMIUM_PATH, headless, args: launchArgs({}), defaultViewport: null }),
    // A browser someone else started: no hover/pointer flag, and scrollbars shown.
    puppeteer.launch({ executablePath: CHROMIUM_PATH, headless, args: ['--no-sandbox'], ignoreDefaultArgs: ['--hide-scrollbars'], defaultViewport: null }),
    chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox'] }),
  ]);
});

afterAll(async () => {
  await Promise.all([ours?.close(), bare?.close(), pw?.close()]);
  await server?.close();
});

const FACTS_PAGE = `<!doctype html><html><head><meta charset="utf-8"></head><body style="height:3000px">
<pre id="pre">line one
line two
line three
line four</pre>
<textarea id="ta" rows="6" cols="60">textarea</textarea>
<p><kbd id="kbd">Ctrl</kbd> <code id="code">code()</code></p>
<div id="box" style="width:200px;height:100px;overflow:scroll"><div style="height:400px"></div></div>
<input id="auto" autofocus>
</body></html>`;

/** What the page reports about how it is painted (run in the page, after two frames: autofocus lands in a frame). */
async function readFacts() {
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  const mq = (q: string) => matchMedia(q).matches;
  const box = (id: string) => {
    const r = document.getElementById(id)!.getBoundingClientRect();
    return [r.width, r.height];
  };
  const width = (family: string) => {
    const c = document.createElement('canvas').getContext('2d')!;
    c.font = `16px ${family}`;
    return c.measureText('The quick brown fox 0123456789 mmmiii').width;
  };
  const scrollBox = document.getElementById('box')!;
  return {
    pre: box('pre'),
    textarea: box('ta'),
    kbd: box('kbd'),
    code: box('code'),
    families: ['monospace', 'serif', 'sans-serif', 'cursive', 'fantasy', 'system-ui', 'initial'].map(width),
    media: ['(hover: hover)', '(any-hover: hover)', '(pointer: fine)', '(any-pointer: fine)', '(pointer: coarse)', '(hover: none)'].map(mq),
    defaults: ['(prefers-color-scheme: dark)', '(prefers-reduced-motion: no-preference)', '(forced-colors: none)', '(prefers-contrast: no-preference)'].map(mq),
    focus: [document.hasFocus(), document.activeElement?.id ?? null, mq('(min-device-width: 1024px)')],
    focusVisible: document.getElementById('auto')!.matches(':focus-visible'),
    screen: [screen.width, screen.height, screen.orientation.type, outerWidth, outerHeight, innerWidth, innerHeight, devicePixelRatio],
    scrollbars: [innerWidth - document.documentElement.clientWidth, scrollBox.offsetWidth - scrollBox.clientWidth],
  };
}

async function ourPage(browser: Browser, viewport: Viewport): Promise<{ page: Page; close(): Promise<void> }> {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  const cdp = await page.createCDPSession();
  await emulate(page, cdp, viewport);
  return { page, close: () => context.close() };
}

async function ourFacts(browser: Browser, viewport: Viewport) {
  const { page, close } = await ourPage(browser, viewport);
  try {
    await page.goto(server.url('/facts'), { waitUntil: 'load' });
    return await page.evaluate(readFacts);
  } finally {
    await close();
  }
}

async function playwrightFacts(viewport: Viewport) {
  const context = await pw.newContext({
    viewport: { width: viewport.width, height: viewport.height },
    deviceScaleFactor: viewport.devicePixelRatio,
    colorScheme: viewport.colorScheme,
  });
  try {
    const page = await context.newPage();
    await page.goto(server.url('/facts'), { waitUntil: 'load' });
    return await page.evaluate(readFacts);
  } finally {
    await context.close();
  }
}

describe('a launched browser set up by emulate() reads as Playwright does', () => {
  let mine: Awaited<ReturnType<typeof ourFacts>>;
  let theirs: Awaited<ReturnType<typeof ourFacts>>;
  beforeAll(async () => {
    [mine, theirs] = await Promise.all([ourFacts(ours, LIGHT), playwrightFacts(LIGHT)]);
  });

  test('a <pre> block, a textarea, <kbd> and <code> have the same size (the fixed family is the same face)', () => {
    expect(mine.pre).toEqual(theirs.pre);
    expect(mine.textarea).toEqual(theirs.textarea);
    expect(mine.kbd).toEqual(theirs.kbd);
    expect(mine.code).toEqual(theirs.code);
  });

  test('each generic family resolves to the same face', () => {
    expect(mine.families).toEqual(theirs.families);
  });

  test('(hover: hover) and (pointer: fine) match, as on a desktop', () => {
    expect(theirs.media).toEqual([true, true, true, true, false, false]);
    expect(mine.media).toEqual(theirs.media);
  });

  test('the page has focus: autofocus lands and shows as :focus-visible', () => {
    expect(theirs.focus.slice(0, 2)).toEqual([true, 'auto']);
    expect(mine.focus).toEqual(theirs.focus);
    expect(mine.focusVisible).toBe(theirs.focusVisible);
  });

  test('screen and window are the viewport, landscape', () => {
    expect(theirs.screen).toEqual([1280, 800, 'landscape-primary', 1280, 800, 1280, 800, 1]);
    expect(mine.screen).toEqual(theirs.screen);
  });

  test('no scrollbar is painted, on the page or in a scrolling box', () => {
    expect(theirs.scrollbars).toEqual([0, 0]);
    expect(mine.scrollbars).toEqual(theirs.scrollbars);
  });

  test('reduced motion, contrast and forced colours are at their defaults', () => {
    expect(mine.defaults).toEqual(theirs.defaults);
  });
});

test('dark scheme at DPR 2 on a narrow viewport reads the same', async () => {
  const viewport: Viewport = { width: 390, height: 844, devicePixelRatio: 2, colorScheme: 'dark' };
  const [mine, theirs] = await Promise.all([ourFacts(ours, viewport), playwrightFacts(viewport)]);
  expect(theirs.defaults[0]).toBe(true);
  expect(mine.defaults).toEqual(theirs.defaults);
  expect(mine.screen).toEqual(theirs.screen);
  expect(mine.pre).toEqual(theirs.pre);
});

describe('a cross-site frame (another renderer process) gets the fonts and the scheme', () => {
  const viewport: Viewport = { ...LIGHT, colorScheme: 'dark' };
  const inFrame = () => {
    const c = document.createElement('canvas').getContext('2d')!;
    c.font = '16px monospace';
    const pre = document.querySelector('pre')!.getBoundingClientRect();
    return { mono: c.measureText('mmmiii 0123').width, pre: [pre.width, pre.height], dark: matchMedia('(prefers-color-scheme: dark)').matches };
  };
  const isEmbed = (url: string) => url.includes('localhost') && url.endsWith('plain-monospace.html');

  test('as in Playwright', async () => {
    const url = server.url('/cross-site-iframe.html');
    const { page, close } = await ourPage(ours, viewport);
    const context = await pw.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'dark' });
    try {
      const pwPage = await context.newPage();
      await Promise.all([page.goto(url, { waitUntil: 'load' }), pwPage.goto(url, { waitUntil: 'load' })]);
      const frame = await waitForFrame(() => page.frames().find((f: Frame) => isEmbed(f.url())));
      const pwFrame = await waitForFrame(() => pwPage.frames().find((f: PwFrame) => isEmbed(f.url())));
      await Promise.all([frame.waitForSelector('pre'), pwFrame.waitForSelector('pre')]);
      const [mine, theirs] = await Promise.all([frame.evaluate(inFrame), pwFrame.evaluate(inFrame)]);
      expect(theirs.dark).toBe(true);
      expect(mine).toEqual(theirs);
    } finally {
      await Promise.all([close(), context.close()]);
    }
  });
});

async function waitForFrame<T>(find: () => T | undefined): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const found = find();
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('frame never attached');
}

describe('an attached browser started without our flags', () => {
  let mine: Awaited<ReturnType<typeof ourFacts>>;
  let theirs: Awaited<ReturnType<typeof ourFacts>>;
  beforeAll(async () => {
    // Connected, not launched by us: its OS is read from its user agent.
    const attached = await puppeteer.connect({ browserWSEndpoint: bare.wsEndpoint(), defaultViewport: null });
    try {
      [mine, theirs] = await Promise.all([ourFacts(attached, LIGHT), playwrightFacts(LIGHT)]);
    } finally {
      await attached.disconnect();
    }
  });

  test('per-page settings still give the same fonts, focus, screen, window and no scrollbars', () => {
    expect(mine.pre).toEqual(theirs.pre);
    expect(mine.families).toEqual(theirs.families);
    expect(mine.focus).toEqual(theirs.focus);
    expect(mine.screen).toEqual(theirs.screen);
    expect(mine.scrollbars).toEqual([0, 0]);
  });

  test('hover and pointer stay what that browser reports: only a launch flag sets them', () => {
    // A headless browser with no pointing device; a desktop Chrome reports its mouse (hover, fine) itself.
    expect(mine.media.slice(0, 4)).toEqual([false, false, false, false]);
  });
});

/** The Chromium features a browser process of this test was started with (`--enable-features`), by its command line. */
function enabledFeatures(pid: number): string[] {
  const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  return args.filter((a) => a.startsWith('--enable-features=')).flatMap((a) => a.slice('--enable-features='.length).split(','));
}

test('the screenshot path Playwright turns on is on in ours too: CDPScreenshotNewSurface', () => {
  // Playwright's browser is a child of this process started with its own --disable-field-trial-config.
  const children = fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid;
      } catch {
        return false;
      }
    })
    .map(Number);
  const playwright = children.find((pid) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--disable-field-trial-config'));
  expect(playwright).toBeDefined();
  expect(enabledFeatures(playwright!)).toContain('CDPScreenshotNewSurface');
  expect(enabledFeatures(ours.process()!.pid!)).toContain('CDPScreenshotNewSurface');
});

test('the launch flag is what makes hover match, and emulate() does not undo it (no touch-emulation reset)', async () => {
  expect(launchArgs({})).toContain('--blink-settings=primaryHoverType=2,availableHoverTypes=2,primaryPointerType=4,availablePointerTypes=4');
  const hoverAfter = async (setUp: (page: Page) => Promise<void>) => {
    const context = await ours.createBrowserContext();
    try {
      const page = await context.newPage();
      // Set up on the loaded document, so no process swap on navigation hides a reset.
      await page.goto(server.url('/facts'));
      await setUp(page);
      return await page.evaluate(() => matchMedia('(hover: hover)').matches);
    } finally {
      await context.close();
    }
  };
  expect(await hoverAfter(async (page) => void (await emulate(page, await page.createCDPSession(), LIGHT)))).toBe(true);
  // What Puppeteer's setViewport sends alongside the metrics: hover falls back to what the embedder reported.
  expect(await hoverAfter(async (page) => void (await (await page.createCDPSession()).send('Emulation.setTouchEmulationEnabled', { enabled: false })))).toBe(
    false,
  );
});

test("the font table follows the browser's OS as its user agent names it", () => {
  expect(fontPlatform('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/146.0.0.0 Safari/537.36')).toBe('linux');
  expect(fontPlatform('Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/146.0.0.0 Safari/537.36')).toBe('mac');
  expect(fontPlatform('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/146.0.0.0 Safari/537.36')).toBe('win');
  expect(DEFAULT_FONT_FAMILIES.linux.fontFamilies.fixed).toBe('Monospace');
  expect(DEFAULT_FONT_FAMILIES.mac.fontFamilies.fixed).toBe('Courier');
  expect(DEFAULT_FONT_FAMILIES.win.fontFamilies.fixed).toBe('Consolas');
  expect(DEFAULT_FONT_FAMILIES.win.forScripts?.find((s) => s.script === 'jpan')?.fontFamilies.fixed).toBe('MS Gothic');
});
