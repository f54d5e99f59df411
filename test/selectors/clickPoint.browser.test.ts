/**
 * Where a click lands on an inline element, against Playwright on the same
 * executable: the click point is the centre of the first content quad
 * (DOM.getContentQuads: one per fragment, an atomic inline such as a
 * checkbox inside a label its own), not of the first line box. Each case
 * clicks through the library's capture and through Playwright's page.click,
 * and compares the element the page saw clicked.
 */
import * as path from 'path';
import { chromium, type Browser as PwBrowser } from 'playwright-core';
import { executeCapturePlan, closeBundledBrowser } from '../../src/index';
import { CHROMIUM_PATH, servePages, type PageServer } from '../helpers/browser';
import { captureArgs, makeRunRoot } from '../e2e/harness';

jest.setTimeout(120_000);

let server: PageServer;
let pw: PwBrowser;
let root: string;
let n = 0;

beforeAll(async () => {
  [server, pw] = await Promise.all([servePages(path.join(__dirname, 'pages')), chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox'] })]);
  root = makeRunRoot('click-point');
});

afterAll(async () => {
  await closeBundledBrowser();
  await Promise.all([pw?.close(), server?.close()]);
});

const VIEWPORT = { width: 800, height: 600, devicePixelRatio: 1, colorScheme: 'light' as const };

async function playwrightClicks(selector: string): Promise<string | undefined> {
  const context = await pw.newContext({ viewport: { width: VIEWPORT.width, height: VIEWPORT.height } });
  try {
    const page = await context.newPage();
    await page.goto(server.url('inline-targets.html'));
    await page.click(selector);
    return await page.evaluate(() => document.body.dataset.state);
  } finally {
    await context.close();
  }
}

test.each([
  ['text=Pause', 'clicked-c1'],
  ['#l1', 'clicked-c1'],
  ['#s1', 'clicked-i1'],
  ['#a1', 'clicked-a1'],
  ['#b1', 'clicked-i2'],
])('%s: the same element receives the click as under Playwright', async (selector, expected) => {
  const result = await executeCapturePlan(
    captureArgs(root, server.url('inline-targets.html'), `inline-${n++}.png`, { viewport: VIEWPORT, actions: [{ do: 'click', selector }] }),
  );
  expect(result.error).toBe('');
  expect(await playwrightClicks(selector)).toBe(expected);
  expect(result.observed_state).toBe(expected);
});
