/**
 * Which engine the server launches, and that the choice does not change the
 * evidence. With no browser named, the built server launches a headless shell
 * when one is installed (findBrowser.ts); named explicitly, the full browser
 * is used as named. The same page captured on both engines gives the same
 * pixels, the same aria snapshot and a trace with the same actions, so the
 * faster engine is not a different kind of evidence.
 */
import * as fs from 'fs';
import * as path from 'path';
import JSZip from 'jszip';
import { servePages, FULL_CHROMIUM_PATH, type PageServer } from '../helpers/browser';
import { findBrowser } from '../../src/browser/fleet/findBrowser';
import { decodePng } from '../../src/png/decode';
import { captureArgs, makeRunRoot, startServer, type RunningServer } from './harness';

jest.setTimeout(180_000);

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Engines</title>
<style>
body { font: 16px sans-serif; margin: 0; background: #f4f4f8; color: #1a1a1a }
header { background: hsl(210 60% 92%); padding: 16px 24px } h1 { margin: 0; font-size: 24px }
main { display: grid; grid-template-columns: repeat(2, 1fr); gap: 12px; padding: 24px }
.card { background: #fff; border-radius: 8px; padding: 16px; box-shadow: 0 1px 3px rgba(0,0,0,.2) }
button { border: 0; border-radius: 4px; background: hsl(210 70% 40%); color: #fff; padding: 8px 16px; font: inherit }
.tall { height: 1400px; background: linear-gradient(#fff, hsl(30 80% 85%)) }
</style></head>
<body data-state="ready"><header><h1>Settings</h1></header>
<main>
  <section class="card"><h2>Profile</h2><p>Text that wraps over a few lines of the card, with <a href="#x">a link</a>.</p><button id="save">Save</button></section>
  <form class="card" aria-label="Preferences"><label>Name <input value="Ada"></label>
    <label><input type="checkbox" checked> Remember me</label>
    <select aria-label="Size"><option>Small</option><option selected>Large</option></select></form>
  <ul class="card"><li>One</li><li>Two</li><li>Three</li></ul>
  <div class="card tall" role="region" aria-label="Tall"></div>
</main>
<script>document.getElementById('save').addEventListener('click', () => document.body.dataset.state = 'saved')</script>
</body></html>`;

const defaultBrowser = (() => {
  try {
    return findBrowser({ env: {} });
  } catch {
    return null;
  }
})();
const bothEngines = !!defaultBrowser?.headlessShell && !!FULL_CHROMIUM_PATH;

let pages: PageServer;
const roots: string[] = [];

beforeAll(async () => {
  pages = await servePages(path.join(__dirname, 'pages'), {
    '/engines': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(PAGE);
    },
  });
});

afterAll(async () => {
  await pages?.close();
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
});

interface EngineEvidence {
  png: Buffer;
  aria: string;
  traceActions: string[];
  stderr: string;
}

/** One screenshot (after a click), one a11y tree and one trace of the same page through a server on `env`. */
async function captureAll(label: string, options: { env?: Record<string, string>; unnamedBrowser?: boolean }): Promise<EngineEvidence> {
  const root = makeRunRoot(`engine-${label}`);
  roots.push(root);
  let server: RunningServer | null = null;
  try {
    server = await startServer(options);
    const url = pages.url('/engines');
    const click = [{ do: 'click', selector: 'role=button[name="Save"]' }];
    const shot = await server.capture(captureArgs(root, url, 'page.png', { state: 'saved', actions: click }));
    const aria = await server.capture(captureArgs(root, url, 'page.aria.yml', { type: 'a11y tree' }));
    const trace = await server.capture(captureArgs(root, url, 'page.trace.zip', { type: 'interaction trace', state: 'saved', actions: click }));
    for (const p of [shot, aria, trace]) {
      expect(p.error).toBe('');
      expect(p.result).toBe('captured');
    }
    expect(shot.observed_state).toBe('saved');
    const zip = await JSZip.loadAsync(fs.readFileSync(path.join(root, 'evidence', 'page.trace.zip')));
    const events = (await zip.file('trace.trace')!.async('string'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    const traceActions = events.filter((e) => e.type === 'before').map((e) => `${e.class}.${e.method}`);
    return {
      png: fs.readFileSync(path.join(root, 'evidence', 'page.png')),
      aria: JSON.parse(fs.readFileSync(path.join(root, 'evidence', 'page.aria.yml'), 'utf8')).tree,
      traceActions,
      stderr: server.stderr(),
    };
  } finally {
    await server?.close();
  }
}

// Skipped (and listed as skipped) where only one engine is installed.
const maybe = bothEngines ? test : test.skip;

maybe('with no browser named the server launches the headless shell; named, the full browser; the evidence is the same', async () => {
  const shell = await captureAll('shell', { unnamedBrowser: true });
  expect(shell.stderr).toMatch(/launched \S*headless-shell \(system location, headless shell\)/);
  const full = await captureAll('full', { env: { DESIGN_PLAYBOOK_CHROME_PATH: FULL_CHROMIUM_PATH! } });
  expect(full.stderr).toContain(`launched ${FULL_CHROMIUM_PATH} (DESIGN_PLAYBOOK_CHROME_PATH)`);

  const a = decodePng(shell.png);
  const b = decodePng(full.png);
  expect([a.header.width, a.header.height]).toEqual([b.header.width, b.header.height]);
  expect(a.header.height).toBeGreaterThan(1400);
  let differing = 0;
  for (let i = 0; i < a.pixels.length; i++) if (a.pixels[i] !== b.pixels[i]) differing++;
  expect(differing).toBe(0);

  expect(shell.aria).toBe(full.aria);
  expect(shell.aria).toContain('- button "Save"');
  expect(shell.aria).toContain('- checkbox "Remember me" [checked]');
  expect(shell.traceActions).toEqual(full.traceActions);
  expect(shell.traceActions.length).toBeGreaterThanOrEqual(2);
});
