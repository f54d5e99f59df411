/**
 * Differential test: our CDP-built aria snapshot against Playwright's own
 * page.ariaSnapshot() (playwright-core, devDependency, same system Chromium)
 * on every page of test/aria/corpus, served from 127.0.0.1. Pages whose file
 * name ends in `-nojs.html` are loaded with JavaScript disabled in both
 * browsers (so <noscript> content is rendered, as on a saved page read
 * without scripts).
 */
import * as fs from 'fs';
import * as path from 'path';
import type { Browser, Page } from 'puppeteer-core';
import { chromium, type Browser as PwBrowser, type Page as PwPage } from 'playwright-core';
import { CHROMIUM_PATH, CHROMIUM_TEST_ARGS, launchTestBrowser, servePages, type PageServer } from '../helpers/browser';
import { ariaSnapshotText } from '../../cdp/ariaSnapshot';
import { KNOWN_DIFFERENCES } from './knownDifferences';

const CORPUS = path.join(__dirname, 'corpus');
const PAGES = fs
  .readdirSync(CORPUS)
  .filter((f) => f.endsWith('.html'))
  .sort();

jest.setTimeout(240_000);

let server: PageServer;
let browser: Browser;
let pwBrowser: PwBrowser;
let page: Page;
let pwPage: PwPage;
let pwNoJsPage: PwPage;

/**
 * Playwright's text with each password field's value as the browser shows it,
 * one bullet per character: the one difference by design
 * (docs/aria-snapshot-differences.md, "Not differences, by design").
 */
function asTheBrowserShowsPasswords(text: string, passwords: string[]): string {
  let out = text;
  for (const value of passwords) {
    const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    out = out.replace(new RegExp(`^(\\s*- textbox\\b[^\\n]*: )${escaped}$`, 'm'), (_, head: string) => head + '\u2022'.repeat([...value].length));
  }
  return out;
}

interface Outcome {
  page: string;
  ours: string;
  playwright: string;
}
const outcomes: Outcome[] = [];

beforeAll(async () => {
  server = await servePages(CORPUS);
  [browser, pwBrowser] = await Promise.all([launchTestBrowser(), chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_TEST_ARGS })]);
  page = await browser.newPage();
  // Playwright's default viewport on both sides, so responsive CSS shows the same content.
  await page.setViewport({ width: 1280, height: 720 });
  pwPage = await pwBrowser.newPage({ viewport: { width: 1280, height: 720 } });
  pwNoJsPage = await pwBrowser.newPage({ viewport: { width: 1280, height: 720 }, javaScriptEnabled: false });
  const session = await page.createCDPSession();
  for (const name of PAGES) {
    const url = server.url('/' + name);
    const noJs = name.endsWith('-nojs.html');
    const peer = noJs ? pwNoJsPage : pwPage;
    await page.setJavaScriptEnabled(!noJs);
    await Promise.all([page.goto(url, { waitUntil: 'load' }), peer.goto(url, { waitUntil: 'load' })]);
    const [ours, playwright, passwords] = await Promise.all([
      ariaSnapshotText(session),
      peer.ariaSnapshot(),
      // Read on our page (the peer's main world may have its globals patched against Playwright's script).
      page
        .evaluate(() => {
          const values: string[] = [];
          const inputs = document.querySelectorAll('input[type=password]');
          for (let i = 0; i < inputs.length; i++) if ((inputs[i] as HTMLInputElement).value) values.push((inputs[i] as HTMLInputElement).value);
          return values;
        })
        .catch(() => [] as string[]),
    ]);
    outcomes.push({ page: name, ours, playwright: asTheBrowserShowsPasswords(playwright, passwords) });
  }
});

afterAll(async () => {
  await Promise.all([browser?.close(), pwBrowser?.close()]);
  await server?.close();
});

describe('aria snapshot vs Playwright on the corpus', () => {
  test('the corpus has at least 40 pages', () => {
    expect(PAGES.length).toBeGreaterThanOrEqual(40);
  });

  test('at least 95% of pages are byte-identical', () => {
    const identical = outcomes.filter((o) => o.ours === o.playwright).length;
    expect(outcomes.length).toBe(PAGES.length);
    expect(identical / outcomes.length).toBeGreaterThanOrEqual(0.95);
  });

  test('every differing page is a documented known difference', () => {
    const undocumented = outcomes
      .filter((o) => o.ours !== o.playwright && !(o.page in KNOWN_DIFFERENCES))
      .map((o) => `--- ${o.page}\nplaywright:\n${o.playwright}\nours:\n${o.ours}`);
    expect(undocumented).toEqual([]);
  });

  test('no known-difference entry is stale (its page still differs)', () => {
    const stale = Object.keys(KNOWN_DIFFERENCES).filter((name) => {
      const o = outcomes.find((x) => x.page === name);
      return !o || o.ours === o.playwright;
    });
    expect(stale).toEqual([]);
  });

  test('snapshots are not trivially empty', () => {
    for (const o of outcomes) expect(o.ours.length).toBeGreaterThan(0);
  });
});
