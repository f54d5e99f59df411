/**
 * Playwright selectors through the built server and the MCP SDK client: each
 * form a caller moving from the original writes clicks the one button on the
 * page (observed_state counts the clicks), wait_for_selector waits for a
 * hidden element to be shown, and a selector that matches nothing fails
 * naming the action, the selector and what the page has instead.
 */
import * as fs from 'fs';
import JSZip from 'jszip';
import { servePages, type PageServer } from '../helpers/browser';
import { captureArgs, makeRunRoot, startServer, PAGES, type RunningServer } from './harness';

jest.setTimeout(120_000);

let pages: PageServer;
let server: RunningServer;
let root: string;

beforeAll(async () => {
  pages = await servePages(PAGES);
  server = await startServer();
  root = makeRunRoot('selectors');
});

afterAll(async () => {
  await server?.close();
  await pages?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

const FORMS = [
  'text=Retry',
  'role=button[name="Retry"]',
  'button:has-text("Retry")',
  'body >> #submit',
  'xpath=//button',
  '//button',
  'button >> nth=0',
  'id=submit',
  'css=#submit',
  'button:visible',
  'internal:role=button[name="Retry"i]',
];

test.each([true, false])('every Playwright selector form clicks the button (freeze.enabled %s)', async (freeze) => {
  const payload = await server.capture(
    captureArgs(root, pages.url('/retry.html'), `retry-${freeze}.png`, {
      freeze: { enabled: freeze },
      actions: [{ do: 'wait_for_selector', selector: 'text=Saved' }, ...FORMS.map((selector) => ({ do: 'click', selector }))],
    }),
  );
  expect(payload.error).toBe('');
  expect(payload.result).toBe('captured');
  expect(payload.observed_state).toBe(`clicks=${FORMS.length}`);
});

test('a selector that matches nothing names the action, the selector and what the page has', async () => {
  const payload = await server.capture(
    captureArgs(root, pages.url('/retry.html'), 'retry-missing.png', {
      actions: [
        { do: 'click', selector: 'text=Retry' },
        { do: 'click', selector: 'role=button[name="Try again"]' },
      ],
    }),
  );
  expect(payload.result).toBe('failed');
  expect(payload.error).toContain(
    `actions[1] click 'role=button[name="Try again"]' failed: no element matches the selector within 10000 ms; elements like it on the page: `,
  );
  expect(payload.error).toContain('role=button[name="Retry"]');
});

test('a selector syntax error fails at once, with its position', async () => {
  const started = Date.now();
  const payload = await server.capture(
    captureArgs(root, pages.url('/retry.html'), 'retry-syntax.png', { actions: [{ do: 'click', selector: 'button:has-text(Retry)' }] }),
  );
  expect(payload.result).toBe('failed');
  expect(payload.error).toMatch(/actions\[0\] click 'button:has-text\(Retry\)' failed: selector syntax error at position 7: /);
  expect(Date.now() - started).toBeLessThan(8000);
});

test.each(['text=Retry', 'role=button[name="Retry"]', 'internal:role=button[name="Retry"i]', 'xpath=//button'])(
  'an interaction trace lists the click with its selector as given (%s) and highlights the element it names',
  async (selector) => {
    const payload = await server.capture(
      captureArgs(root, pages.url('/retry.html'), `retry-${FORMS.indexOf(selector)}-${selector.length}.trace.zip`, {
        type: 'interaction trace',
        actions: [{ do: 'click', selector }],
      }),
    );
    expect(payload.error).toBe('');
    const zip = await JSZip.loadAsync(fs.readFileSync(payload.written_path));
    const events = (await zip.file('trace.trace')!.async('string'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    const click = events.find((e) => e.type === 'before' && e.method === 'click');
    expect(click?.params).toEqual({ selector });
    // The snapshot taken as the click lands marks the button, whatever form named it.
    const atAction = events.find((e) => e.type === 'frame-snapshot' && e.snapshot.callId === click.callId && e.snapshot.phase === 'action');
    expect(JSON.stringify(atAction?.snapshot.html)).toMatch(/\["BUTTON",\{[^}]*"__playwright_target__":""/);
  },
);
