/**
 * Captures through the built server and the MCP SDK client, against real
 * Chromium and pages served from 127.0.0.1: every action, full-page PNG size
 * at the requested pixel ratio, observed_state after the actions, failures
 * that leave no file, colour-scheme emulation, and parallel captures that
 * stay isolated.
 */
import * as fs from 'fs';
import * as path from 'path';
import { servePages, type PageServer } from '../helpers/browser';
import { captureArgs, closedPort, makeRunRoot, pngSize, startServer, PAGES, type RunningServer } from './harness';

jest.setTimeout(120_000);

let pages: PageServer;
let server: RunningServer;
let root: string;

beforeAll(async () => {
  pages = await servePages(PAGES, {
    '/slow-page': (_req, res) => {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<body data-state="slow-arrived">slow</body>');
      }, 1500);
    },
  });
  server = await startServer();
  root = makeRunRoot('capture');
});

afterAll(async () => {
  await server?.close();
  await pages?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

test('every action runs, in order, with its effect visible to the page', async () => {
  const payload = await server.capture(
    captureArgs(root, pages.url('/actions.html'), 'actions.png', {
      actions: [
        { do: 'fill', selector: '#name', text: 'Ada Lovelace' },
        { do: 'type', selector: '#typed', value: 'abc' },
        { do: ' CLICK ', selector: '#btn' },
        { do: 'select_option', selector: '#sel', value: 'b' },
        { do: 'select_option', selector: '#sel2', label: 'Gamma' },
        { do: 'press', selector: '#press', key: 'Enter' },
        { do: 'press', value: 'Escape' },
        { do: 'wait_for_selector', selector: '#late' },
        { do: 'wait_for_state', selector: '#late', state: 'shown' },
        { do: 'wait', ms: 20 },
        { do: 'sleep', timeout_ms: 20 },
        { do: 'fill', selector: '#date', value: '2024-05-01' },
      ],
    }),
  );
  expect(payload.error).toBe('');
  expect(payload.result).toBe('captured');
  const parts = Object.fromEntries(payload.observed_state.split(';').map((kv) => kv.split('=')));
  // fill replaced the old value with one input event; type clicked and sent one keydown per character.
  expect(parts.name).toBe('Ada Lovelace/1');
  expect(parts.typed).toBe('abc/3');
  expect(parts.clicks).toBe('1');
  // select_option fired change once; by label it found the option by its text.
  expect(parts.sel).toBe('b/1');
  expect(parts.sel2).toBe('c');
  expect(parts.press).toBe('Enter');
  expect(parts.page).toBe('Escape');
  expect(parts.late).toBe('yes');
  expect(parts.date).toBe('2024-05-01');
  expect(fs.statSync(payload.written_path).isFile()).toBe(true);
});

test.each([
  ['following a link', [{ do: 'click', selector: '#go' }], true],
  ['following a link to a slow page, freeze off', [{ do: 'click', selector: '#slow' }], false],
  [
    'submitting a form with Enter',
    [
      { do: 'fill', selector: '#q', value: 'x' },
      { do: 'press', selector: '#q', key: 'Enter' },
    ],
    true,
  ],
])('an action that navigates (%s): the new document is captured', async (_label, actions, freeze) => {
  const payload = await server.capture(captureArgs(root, pages.url('/link.html'), `navigates-${Date.now()}.png`, { actions, freeze: { enabled: freeze } }));
  expect(payload.error).toBe('');
  expect(payload.result).toBe('captured');
  expect(payload.observed_state).toBe(actions[0].selector === '#slow' ? 'slow-arrived' : 'plain');
});

test('the PNG is full-page at the requested pixel ratio, with no marker read as unknown', async () => {
  const viewport = { width: 600, height: 400, devicePixelRatio: 2, colorScheme: 'light' };
  const payload = await server.capture(captureArgs(root, pages.url('/tall.html'), 'tall.png', { viewport }));
  expect(payload.result).toBe('captured');
  expect(payload.observed_state).toBe('unknown');
  const size = pngSize(payload.written_path);
  expect(size.width).toBe(600 * 2);
  // The page is 3000 CSS px tall, far beyond the 400 px viewport.
  expect(size.height).toBeGreaterThanOrEqual(3000 * 2);
  const sidecar = JSON.parse(fs.readFileSync(payload.written_path.replace(/\.png$/, '.probe.json'), 'utf8'));
  expect(sidecar.page.documentSize.height).toBeGreaterThanOrEqual(3000);
  expect(sidecar.page.devicePixelRatio).toBe(2);
  expect(size.height).toBeGreaterThanOrEqual(sidecar.page.documentSize.height * 2);
  expect(sidecar.renderTokens.measurement_status).toBe('measured');
});

test('a fractional pixel ratio scales the PNG width', async () => {
  const viewport = { width: 500, height: 300, devicePixelRatio: 1.5, colorScheme: 'light' };
  const payload = await server.capture(captureArgs(root, pages.url('/plain.html'), 'fractional.png', { viewport }));
  expect(payload.result).toBe('captured');
  expect(payload.request?.viewport.devicePixelRatio).toBe(1.5);
  expect(pngSize(payload.written_path).width).toBe(750);
});

test('observed_state is read after the actions: a state set 150 ms after a click, waited for', async () => {
  const payload = await server.capture(
    captureArgs(root, pages.url('/delayed.html'), 'delayed.png', {
      state: 'expected-by-caller',
      actions: [
        { do: 'click', selector: '#go' },
        { do: 'wait_for_state', state: 'done' },
      ],
    }),
  );
  expect(payload.result).toBe('captured');
  expect(payload.observed_state).toBe('done');
});

test('observed_state falls back from <body> to <html> markers, trimmed', async () => {
  const payload = await server.capture(captureArgs(root, pages.url('/markers.html'), 'markers.png'));
  expect(payload.observed_state).toBe('from-html');
});

test('the dark colour scheme reaches matchMedia, and light stays light', async () => {
  const dark = await server.capture(
    captureArgs(root, pages.url('/scheme.html'), 'dark.png', { viewport: { width: 400, height: 300, devicePixelRatio: 1, colorScheme: 'dark' } }),
  );
  const light = await server.capture(captureArgs(root, pages.url('/scheme.html'), 'light.png'));
  expect(dark.observed_state).toBe('dark');
  expect(light.observed_state).toBe('light');
});

test('a navigation failure reports failed/unknown and leaves no file', async () => {
  const port = await closedPort();
  const payload = await server.capture(captureArgs(root, `http://127.0.0.1:${port}/`, 'nav-fail.png'));
  expect(payload.result).toBe('failed');
  expect(payload.observed_state).toBe('unknown');
  expect(payload.error).toMatch(/navigation to http:\/\/127\.0\.0\.1:\d+\/ failed/);
  expect(payload.error).toMatch(/ERR_CONNECTION_REFUSED/);
  expect(payload.written_path).toBe(path.join(root, 'evidence', 'nav-fail.png'));
  expect(fs.existsSync(payload.written_path)).toBe(false);
  expect(fs.existsSync(path.join(root, 'evidence', 'nav-fail.probe.json'))).toBe(false);
});

test('an action failure names the action and selector and leaves no file', async () => {
  const payload = await server.capture(
    captureArgs(root, pages.url('/plain.html'), 'action-fail.png', {
      actions: [
        { do: 'wait', ms: 1 },
        { do: 'click', selector: '#missing' },
      ],
    }),
  );
  expect(payload.result).toBe('failed');
  expect(payload.observed_state).toBe('unknown');
  expect(payload.error).toContain("actions[1] click '#missing' failed");
  expect(payload.error).toContain('no element matches');
  expect(fs.existsSync(payload.written_path)).toBe(false);
  expect(fs.readdirSync(path.join(root, 'evidence')).filter((f) => f.startsWith('action-fail'))).toEqual([]);
});

test('six parallel captures of one page with different inputs stay isolated', async () => {
  const inputs = [1, 2, 3, 4, 5, 6].map((n) => ({ n, value: `value-${n}`, width: 300 + n * 10 }));
  const payloads = await Promise.all(
    inputs.map(({ n, value, width }) =>
      server.capture(
        captureArgs(root, pages.url('/storage.html'), `parallel-${n}.png`, {
          viewport: { width, height: 300, devicePixelRatio: 1, colorScheme: 'light' },
          actions: [
            { do: 'fill', selector: '#v', value },
            { do: 'click', selector: '#save' },
          ],
        }),
      ),
    ),
  );
  payloads.forEach((payload, i) => {
    const { value, width } = inputs[i];
    expect(payload.result).toBe('captured');
    // Nothing from another capture was in this context's storage or cookies when it loaded.
    expect(payload.observed_state).toBe(`local=none,cookie=none;saved=${value};viewport=${width}`);
    expect(pngSize(payload.written_path).width).toBe(width);
  });
  // And a later capture still starts clean.
  const after = await server.capture(
    captureArgs(root, pages.url('/storage.html'), 'parallel-after.png', {
      actions: [
        { do: 'fill', selector: '#v', value: 'later' },
        { do: 'click', selector: '#save' },
      ],
    }),
  );
  expect(after.observed_state).toBe('local=none,cookie=none;saved=later;viewport=800');
});

test('a11y tree after a click: the envelope holds the clicked state, UTF-8 with 2-space indent', async () => {
  const result = await server.capture(
    captureArgs(root, pages.url('/disclosure.html'), 'disclosure-open.json', {
      type: 'a11y tree',
      state: 'open',
      actions: [{ do: 'click', selector: '#toggle' }],
    }),
  );
  expect(result.result).toBe('captured');
  expect(result.observed_state).toBe('open');
  const text = fs.readFileSync(result.written_path, 'utf8');
  const envelope = JSON.parse(text);
  // Exactly the envelope, serialized with 2-space indent and non-ASCII kept as is.
  expect(Object.keys(envelope)).toEqual(['format', 'tree']);
  expect(text).toBe(JSON.stringify(envelope, null, 2));
  expect(text).toContain('設定 — Settings');
  expect(text).not.toMatch(/\\u[0-9a-f]{4}/i);
  expect(envelope.tree).toBe(
    [
      '- heading "設定 — Settings" [level=1]',
      '- button "Hide details" [expanded]',
      '- paragraph: Saved “drafts” are kept for 30 days.',
      // A colon inside the key makes it a quoted YAML scalar (Playwright 1.65 prints the same text).
      `- 'link "Help: retention"':`,
      '  - /url: ../help.html',
    ].join('\n'),
  );
});

test('a11y tree and interaction trace land as their formats', async () => {
  const a11y = await server.capture(captureArgs(root, pages.url('/plain.html'), 'plain.a11y.json', { type: 'a11y tree' }));
  expect(a11y.result).toBe('captured');
  const envelope = JSON.parse(fs.readFileSync(a11y.written_path, 'utf8'));
  expect(envelope.format).toBe('aria_snapshot');
  expect(envelope.tree).toContain('- heading "Plain page" [level=1]');
  const trace = await server.capture(
    captureArgs(root, pages.url('/delayed.html'), 'delayed.trace.zip', {
      type: 'interaction trace',
      actions: [
        { do: 'click', selector: '#go' },
        { do: 'wait_for_state', state: 'done' },
      ],
    }),
  );
  expect(trace.result).toBe('captured');
  expect(trace.observed_state).toBe('done');
  expect(fs.readFileSync(trace.written_path).subarray(0, 2).toString('latin1')).toBe('PK');
});
