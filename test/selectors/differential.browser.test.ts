/**
 * Differential test: our selector engine against Playwright's own resolution
 * (playwright-core, devDependency, same system Chromium) on every page of the
 * aria corpus plus test/selectors/corpus (repeated labels, nested text, shadow
 * DOM, hidden and covered elements, inputs of every type, widget states).
 * Selectors of every form are generated for each interactive element; the
 * first match must be the same element (compared by a stamp attribute), or
 * both engines must reject the selector. A sample per form and page keeps the
 * run short; bench/selectors-fidelity.js runs every generated selector.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { Browser, CDPSession, Page } from 'puppeteer-core';
import { emulate } from '../../src/browser/page/pageSetup';
import { chromium, type Browser as PwBrowser, type Page as PwPage } from 'playwright-core';
import { CHROMIUM_PATH, CHROMIUM_TEST_ARGS, launchTestBrowser, servePages, type PageServer } from '../helpers/browser';
import { agrees, byForm, comparePage, type Case } from './differential';

const TEST_ROOT = path.join(__dirname, '..');
const CORPORA = ['aria/corpus', 'selectors/corpus'];
const PAGES = CORPORA.flatMap((dir) =>
  fs
    .readdirSync(path.join(TEST_ROOT, dir))
    .filter((f) => f.endsWith('.html'))
    .sort()
    .map((f) => `${dir}/${f}`),
);
// One selector of each form per page in CI; bench/selectors-fidelity.js sets SELECTOR_DIFF_PER_FORM=all.
const PER_FORM = process.env.SELECTOR_DIFF_PER_FORM === 'all' ? Infinity : Number(process.env.SELECTOR_DIFF_PER_FORM || 1);

jest.setTimeout(300_000);

let server: PageServer;
let browser: Browser;
let pwBrowser: PwBrowser;
let page: Page;
let session: CDPSession;
let pwPage: PwPage;
const cases: Case[] = [];
const skipped: string[] = [];

beforeAll(async () => {
  server = await servePages(TEST_ROOT);
  [browser, pwBrowser] = await Promise.all([launchTestBrowser(), chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_TEST_ARGS })]);
  page = await browser.newPage();
  session = await page.createCDPSession();
  // The render settings a capture's page gets (fonts above all: the headless shell has no font
  // preferences of its own, so form controls and text took other widths than on Playwright's page).
  await emulate(page, session, { width: 1280, height: 720, devicePixelRatio: 1, colorScheme: 'light' });
  pwPage = await pwBrowser.newPage({ viewport: { width: 1280, height: 720 } });
  const pwSession = await pwPage.context().newCDPSession(pwPage);
  for (const name of PAGES) {
    const found = await comparePage(name, server.url('/' + name), page, session, pwPage, pwSession as unknown as Pick<CDPSession, 'send'>, PER_FORM);
    if (found) cases.push(...found);
    else skipped.push(name);
  }
});

afterAll(async () => {
  await Promise.all([browser?.close(), pwBrowser?.close()]);
  await server?.close();
});

describe('selectors vs Playwright on the corpus', () => {
  test('the corpus has at least 30 pages and every form is exercised', () => {
    expect(PAGES.length - skipped.length).toBeGreaterThanOrEqual(30);
    // Only a page that breaks Playwright's own evaluation is left out (legacy-globals.html replaces window.Map).
    expect(skipped).toEqual(['aria/corpus/legacy-globals.html']);
    const forms = new Set(cases.map((c) => c.form));
    for (const form of [
      'css',
      'css=',
      'text',
      'text-exact',
      'text-regex',
      'text-quoted',
      'role',
      'role-name',
      'role-name-i',
      'role-name-regex',
      'role-state',
      'role-include-hidden',
      'xpath',
      'xpath-bare',
      'id',
      'data-testid',
      'data-test-id',
      'data-test',
      'chain',
      'nth',
      'visible',
      'css:has-text',
      'css:text',
      'css:text-is',
      'css:text-matches',
      'css:visible',
      'css:nth-match',
      'css:has',
      'css:is',
      'css:not',
      'css:layout',
      'internal:role',
      'internal:text',
      'internal:has-text',
      'internal:label',
      'internal:testid',
      'internal:attr',
    ]) {
      expect(forms).toContain(form);
    }
  });

  test('agreement: at least 99% overall and 95% for every form', () => {
    const report = byForm(cases);
    const total = cases.filter(agrees).length / cases.length;
    const lines = report.map(
      (r) => `${r.form.padEnd(22)} ${String(r.agreed).padStart(5)}/${String(r.cases).padEnd(5)} ${((100 * r.agreed) / r.cases).toFixed(1)}%`,
    );
    const misses = cases
      .filter((c) => !agrees(c))
      .slice(0, 40)
      .map((c) => `${c.page}  ${c.selector}  ours=${c.ours}  playwright=${c.playwright}`);
    console.log(
      `selector agreement ${(100 * total).toFixed(2)}% of ${cases.length} cases on ${PAGES.length - skipped.length} pages\n${lines.join('\n')}` +
        (misses.length ? `\ndifferences:\n${misses.join('\n')}` : ''),
    );
    expect(total).toBeGreaterThanOrEqual(0.99);
    for (const r of report) expect({ form: r.form, ok: r.agreed / r.cases >= 0.95 }).toEqual({ form: r.form, ok: true });
  });

  test('most selectors find an element (the comparison is not between two empty results)', () => {
    const found = cases.filter((c) => c.playwright !== null && !c.playwright.startsWith('ERROR')).length;
    expect(found / cases.length).toBeGreaterThan(0.8);
  });
});
