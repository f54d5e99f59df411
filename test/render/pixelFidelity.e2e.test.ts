/**
 * The pixel differential's fixed CI sample (the whole corpus runs in
 * bench/pixel-fidelity.js): pages of bench/pixel-corpus captured by the
 * built server over MCP (type `screenshot`) and by playwright-core doing what
 * the original adapter did, on the same executable; each PNG must be
 * identical or near (≤ 0.5% of pixels differ at pixelmatch threshold 0.1),
 * and the same size. The sample covers the settings of pageSetup.ts (fixed
 * fonts, hover media, focus, screen size, a cross-site frame, dark scheme at
 * DPR 2) and the full-page capture (a fixed header, a page several
 * viewports tall; the page tiled in strips, 23,600 px, is in the bench only:
 * test/faults/fullPage.browser.test.ts holds the strips to the single capture).
 * And pages of bench/fetch-corpus, which fetch data and render it later
 * through a poll or a timer, served at once and with every response held
 * back 200 ms: ours must show the rendered data either way (Playwright, the
 * oracle, waits the 1.5 s the page's meta asks for after load).
 */
import * as fs from 'fs';
import * as path from 'path';
import { chromium, type Browser as PwBrowser } from 'playwright-core';
import { CHROMIUM_PATH } from '../helpers/browser';
import { captureArgs, makeRunRoot, startServer, type RunningServer } from '../e2e/harness';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { pageViewport, pageWait, playwrightShot, comparePngs, serveStatic } = require('../../bench/lib/pixelDiff');

jest.setTimeout(300_000);

const CORPUS = path.join(__dirname, '..', '..', 'bench', 'pixel-corpus');
const FETCH_CORPUS = path.join(__dirname, '..', '..', 'bench', 'fetch-corpus');
const FETCH_SAMPLE = ['xhr-codepen-button.html', 'fetch-table-poll.html', 'fetch-then-timer.html'];
const DELAYS = [0, 200];
const SAMPLE = [
  'plain-monospace.html',
  'textarea-editor.html',
  'generic-families.html',
  'hover-pointer.html',
  'focus-autofocus.html',
  'form-controls.html',
  'docs-dark-dpr2.html',
  'cross-site-iframe.html',
  'fixed-header.html',
  'tall-article.html',
];

let server: RunningServer;
let pw: PwBrowser;
type Served = { url(p: string): string; close(): Promise<void> };
let pages: Served;
let fetchPages: Served[];
let runRoot: string;

beforeAll(async () => {
  runRoot = makeRunRoot('pixels');
  [server, pw, pages] = await Promise.all([startServer(), chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox'] }), serveStatic([CORPUS])]);
  fetchPages = await Promise.all(DELAYS.map((delayMs) => serveStatic([FETCH_CORPUS], { delayMs })));
});

afterAll(async () => {
  await Promise.all([server?.close(), pw?.close(), pages?.close(), ...(fetchPages ?? []).map((p) => p.close())]);
  fs.rmSync(runRoot, { recursive: true, force: true });
});

test.each(SAMPLE)("%s: our PNG is identical or near Playwright's", async (name) => {
  const viewport = pageViewport(fs.readFileSync(path.join(CORPUS, name), 'utf8'));
  const url = pages.url(name);
  const theirs = await playwrightShot(pw, url, viewport);
  const payload = await server.capture(captureArgs(runRoot, url, name.replace(/\.html$/, '.png'), { viewport, overwrite: true }));
  expect(payload.error).toBe('');
  const mine = fs.readFileSync(payload.written_path);
  const result = comparePngs(mine, theirs);
  expect(result.sizes[0]).toBe(result.sizes[1]);
  expect(['identical', 'near']).toContain(result.verdict);
});

describe.each(DELAYS.map((delay, i) => [delay, i]))('fetch-then-render pages, every response %i ms late', (delay, i) => {
  test.each(FETCH_SAMPLE)("%s: our PNG is identical or near Playwright's given the time", async (name) => {
    const html = fs.readFileSync(path.join(FETCH_CORPUS, name), 'utf8');
    const viewport = pageViewport(html);
    const url = fetchPages[i].url(name);
    const theirs = await playwrightShot(pw, url, viewport, { waitMs: pageWait(html) });
    const payload = await server.capture(captureArgs(runRoot, url, name.replace(/\.html$/, `-${delay}.png`), { viewport, overwrite: true }));
    expect(payload.error).toBe('');
    expect(payload.warnings.filter((w: string) => w.startsWith('settle '))).toEqual([]);
    const result = comparePngs(fs.readFileSync(payload.written_path), theirs);
    expect(result.sizes[0]).toBe(result.sizes[1]);
    expect(['identical', 'near']).toContain(result.verdict);
  });
});
