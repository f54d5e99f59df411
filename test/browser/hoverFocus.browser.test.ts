/**
 * The hover and focus actions against real Chromium: each leaves the page in
 * the state a design review looks at — `:hover` on the element under the
 * mouse, `:focus` and `:focus-visible` on the focused field — seen through
 * the page and in a screenshot's pixels; hover waits as Playwright's does
 * (visible, scrolled into view, the element under the point must be it) and
 * focus only for the element to be there. (Pages here carry a doctype: in
 * quirks mode an unqualified `:hover` matches links only.)
 */
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import * as fs from 'fs';
import * as path from 'path';
import { launchTestBrowser } from '../helpers/browser';
import { runOneAction } from '../../src/browser/capture/actionRunner';
import { decodePng } from '../../src/png/decode';
import type { CaptureAction } from '../../src/contract/actions';

jest.setTimeout(60_000);

const PAGE = fs.readFileSync(path.join(__dirname, '..', 'e2e', 'pages', 'hover-focus.html'), 'utf8');

let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  browser = await launchTestBrowser();
});

afterAll(async () => {
  await browser?.close();
});

beforeEach(async () => {
  context = await browser.createBrowserContext();
  page = await context.newPage();
  await page.setViewport({ width: 400, height: 300 });
});

afterEach(async () => {
  await context.close();
});

const act = (action: CaptureAction, budgetMs = 1500) => runOneAction(page, action, budgetMs);

/** The [r, g, b] of one pixel of a viewport screenshot. */
async function pixel(x: number, y: number): Promise<number[]> {
  const { header, pixels } = decodePng(Buffer.from(await page.screenshot({ type: 'png' })));
  const at = y * header.rowBytes + x * header.pixelBytes;
  return [...pixels.subarray(at, at + 3)];
}

test('hover: the element matches :hover and its :hover style is what the screenshot shows', async () => {
  await page.setContent(PAGE);
  expect(await pixel(100, 60)).toEqual([0, 0, 255]);
  await act({ do: 'hover', selector: '#card' });
  expect(await page.evaluate(() => document.getElementById('card')!.matches(':hover'))).toBe(true);
  expect(await page.evaluate(() => document.body.dataset.state)).toBe('hover=true;focus=false;visible=false');
  expect(await pixel(100, 60)).toEqual([255, 0, 0]);
});

test('hover takes a text= selector, scrolls the element into view and waits until it is visible', async () => {
  await page.setContent(`<!doctype html><div style="height: 2000px"></div>
    <button id="b" style="display: none">Menu</button>
    <style>#b:hover { outline: 3px solid red; }</style>
    <script>setTimeout(() => document.getElementById('b').style.display = 'block', 300);</script>`);
  await act({ do: 'hover', selector: 'text=Menu' });
  expect(await page.evaluate(() => ({ hovered: document.getElementById('b')!.matches(':hover'), scrolled: scrollY > 1000 }))).toEqual({
    hovered: true,
    scrolled: true,
  });
});

test('hover checks the hit target as click does: a covered element is refused, naming what covers it', async () => {
  await page.setContent(`<!doctype html><button id="b" style="position: absolute; left: 10px; top: 10px; width: 100px; height: 40px">Under</button>
    <div id="cover" style="position: absolute; left: 0; top: 0; width: 300px; height: 200px; background: white"></div>`);
  await expect(act({ do: 'hover', selector: '#b' }, 800)).rejects.toThrow(/<div id="cover".*intercepts pointer events/);
  expect(await page.evaluate(() => document.getElementById('b')!.matches(':hover'))).toBe(false);
});

test('focus: the field matches :focus and :focus-visible, and both styles are what the screenshot shows', async () => {
  await page.setContent(PAGE);
  expect(await pixel(280, 60)).toEqual([255, 255, 255]);
  await act({ do: 'focus', selector: '#email' });
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('email');
  expect(await page.evaluate(() => document.body.dataset.state)).toBe('hover=false;focus=true;visible=true');
  // Inside the field its :focus background; on its edge the :focus-visible outline.
  expect(await pixel(280, 60)).toEqual([0, 128, 0]);
  expect(await pixel(280, 37)).toEqual([255, 165, 0]);
});

test('focus takes the element as it is: no wait for visible or enabled, as Playwright focus does', async () => {
  await page.setContent(`<!doctype html><input id="i" disabled><div id="d" tabindex="0" style="opacity: 0">x</div>`);
  await act({ do: 'focus', selector: '#d' });
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('d');
  await expect(act({ do: 'focus', selector: '#missing' }, 600)).rejects.toThrow(/no element matches the selector within 600 ms/);
});
