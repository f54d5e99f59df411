/**
 * cdp/ needs nothing of Puppeteer: the aria snapshot and the selector engine
 * run over a chrome-remote-interface client attached to the page's target as
 * they run over Puppeteer's CDPSession, and give the same answers. This is
 * the seam an embedder uses when it already holds a raw DevTools connection.
 */
import * as path from 'path';
import CDP from 'chrome-remote-interface';
import type { Browser, Page } from 'puppeteer-core';
import { ariaSnapshotText } from '../../cdp/ariaSnapshot';
import { countSelector, resolveSelector } from '../../cdp/selectorEngine';
import { CHROMIUM_TEST_ARGS, CHROMIUM_PATH, servePages, type PageServer } from '../helpers/browser';
import { isHeadlessShell } from '../../src/browser/fleet/findBrowser';
import puppeteer from 'puppeteer-core';

const CORPUS = path.join(__dirname, 'corpus');
const PAGES = ['accordion.html', 'blog-article.html', 'bootstrap-components.html'];

let browser: Browser;
let server: PageServer;
let port: number;

beforeAll(async () => {
  server = await servePages(CORPUS);
  browser = await puppeteer.launch({
    executablePath: CHROMIUM_PATH,
    headless: isHeadlessShell(CHROMIUM_PATH) ? 'shell' : true,
    args: [...CHROMIUM_TEST_ARGS, '--remote-debugging-port=0'],
  });
  port = Number(new URL(browser.wsEndpoint()).port);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** A page loaded by Puppeteer, and a chrome-remote-interface client on the same target. */
async function bothSessions(file: string): Promise<{ page: Page; client: CDP.Client }> {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 720 });
  await page.goto(server.url(file), { waitUntil: 'load' });
  // The target as the browser lists it on /json/list, found by the page's own URL.
  const targets = await CDP.List({ host: '127.0.0.1', port });
  const target = targets.find((t) => t.type === 'page' && t.url === page.url());
  if (!target) throw new Error(`no target for ${page.url()} on /json/list`);
  const client = await CDP({ host: '127.0.0.1', port, target: target.id });
  return { page, client };
}

test.each(PAGES)('%s: the same aria snapshot over chrome-remote-interface as over Puppeteer', async (file) => {
  const { page, client } = await bothSessions(file);
  try {
    const session = await page.createCDPSession();
    const viaPuppeteer = await ariaSnapshotText(session);
    const viaRemoteInterface = await ariaSnapshotText(client);
    expect(viaPuppeteer.length).toBeGreaterThan(20);
    expect(viaRemoteInterface).toBe(viaPuppeteer);
  } finally {
    await client.close();
    await page.close();
  }
});

test('Playwright selectors resolve over chrome-remote-interface', async () => {
  const { page, client } = await bothSessions('accordion.html');
  try {
    const buttons = await page.$$eval('button', (all) => all.length);
    expect(buttons).toBeGreaterThan(0);
    expect(await countSelector(client, 'button')).toBe(buttons);
    expect(await countSelector(client, 'role=button')).toBe(buttons);
    expect(await resolveSelector(client, 'css=button >> nth=0')).toEqual(expect.any(String));
    expect(await resolveSelector(client, 'text=no such words anywhere on this page')).toBeNull();
  } finally {
    await client.close();
    await page.close();
  }
});
