/**
 * Framework apps as users drive them, in real Chromium through the library
 * (the bundled provider), each page compared with Playwright on the same
 * executable:
 *
 * - page time passes with every input action (ACTION_STEP_MS): a list keyed
 *   by Date.now() and driven by fill/Enter twice keeps both records, timers
 *   due inside an action's step fire in order before the next action, and
 *   the same actions give the same bytes under a fixed clock;
 * - the freeze and the rest rule reach every shadow tree: a Lit-style
 *   element's transition (in its shadow <style> and in a sheet a closed root
 *   adopts once connected), a nested root, a root made after load, an
 *   animation declared in an adopted sheet and one grown in with
 *   element.animate, and the same inside a same-origin frame.
 *
 * Playwright's side drives the same actions, lets 2.5 s of real time pass
 * (so transitions end, even in a closed root it cannot reach) and shoots
 * with `animations: 'disabled'` (finite animations finished, endless ones
 * cancelled): the state a user sees once the page has settled.
 */
import * as fs from 'fs';
import * as path from 'path';
import { PNG } from 'pngjs';
import { chromium, type Browser as PwBrowser, type Page as PwPage } from 'playwright-core';
import { executeCapturePlan, closeBundledBrowser } from '../../src/index';
import { CHROMIUM_PATH, CHROMIUM_TEST_ARGS, servePages, type PageServer } from '../helpers/browser';
import { captureArgs, makeRunRoot } from '../e2e/harness';
import { ACTION_STEP_MS } from '../../src/common/time';

jest.setTimeout(180_000);

const PAGES = path.join(__dirname, 'pages');
const VIEWPORT = { width: 480, height: 360, devicePixelRatio: 1, colorScheme: 'light' as const };
/** Real time Playwright's side gives transitions to end before its shot. */
const PLAYWRIGHT_SETTLE_MS = 2_500;

type Action = { do: 'fill'; selector: string; value: string } | { do: 'press'; selector: string; key: string } | { do: 'click'; selector: string };

let server: PageServer;
let pw: PwBrowser;
let root: string;
let counter = 0;

beforeAll(async () => {
  server = await servePages(PAGES);
  pw = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_TEST_ARGS });
  root = makeRunRoot('framework-apps');
});

afterAll(async () => {
  delete process.env.DESIGN_PLAYBOOK_FIXED_TIME;
  await closeBundledBrowser();
  await pw?.close();
  await server?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

async function ours(page: string, type: 'screenshot' | 'a11y tree', actions: Action[] = []): Promise<Buffer> {
  const leaf = `${path.basename(page.split('#')[0], '.html')}-${counter++}.${type === 'screenshot' ? 'png' : 'json'}`;
  const result = await executeCapturePlan(captureArgs(root, server.url(page), leaf, { type, viewport: VIEWPORT, actions }));
  expect(result.error).toBe('');
  expect(result.result).toBe('captured');
  return fs.readFileSync(result.written_path);
}

const oursTree = async (page: string, actions: Action[] = []) =>
  (JSON.parse((await ours(page, 'a11y tree', actions)).toString('utf8')) as { tree: string }).tree;

async function playwrightPage<T>(page: string, actions: Action[], then: (p: PwPage) => Promise<T>, ready?: (p: PwPage) => Promise<unknown>): Promise<T> {
  const context = await pw.newContext({ viewport: { width: VIEWPORT.width, height: VIEWPORT.height }, deviceScaleFactor: 1, colorScheme: 'light' });
  try {
    const p = await context.newPage();
    await p.goto(server.url(page), { waitUntil: 'load' });
    await ready?.(p);
    for (const action of actions) {
      if (action.do === 'fill') await p.fill(action.selector, action.value);
      else if (action.do === 'press') await p.press(action.selector, action.key);
      else await p.click(action.selector);
    }
    await p.waitForTimeout(PLAYWRIGHT_SETTLE_MS);
    return await then(p);
  } finally {
    await context.close();
  }
}

const playwrightShot = (page: string, actions: Action[] = [], ready?: (p: PwPage) => Promise<unknown>) =>
  playwrightPage(page, actions, (p) => p.screenshot({ fullPage: true, animations: 'disabled' }), ready);

/** How many pixels differ, and the colour at a point of each image. */
function comparePixels(a: Buffer, b: Buffer): { size: string; differing: number } {
  const [x, y] = [PNG.sync.read(a), PNG.sync.read(b)];
  if (x.width !== y.width || x.height !== y.height) return { size: `${x.width}x${x.height} vs ${y.width}x${y.height}`, differing: -1 };
  let differing = 0;
  for (let i = 0; i < x.data.length; i += 4) {
    if (x.data[i] !== y.data[i] || x.data[i + 1] !== y.data[i + 1] || x.data[i + 2] !== y.data[i + 2] || x.data[i + 3] !== y.data[i + 3]) differing++;
  }
  return { size: `${x.width}x${x.height}`, differing };
}

function pixel(png: Buffer, x: number, y: number): number[] {
  const image = PNG.sync.read(png);
  const i = (y * image.width + x) * 4;
  return [image.data[i], image.data[i + 1], image.data[i + 2]];
}

async function expectPlaywrightPixels(page: string, actions: Action[] = [], ready?: (p: PwPage) => Promise<unknown>): Promise<Buffer> {
  const [mine, theirs] = await Promise.all([ours(page, 'screenshot', actions), playwrightShot(page, actions, ready)]);
  expect(comparePixels(mine, theirs)).toEqual({ size: `${VIEWPORT.width}x${VIEWPORT.height}`, differing: 0 });
  return mine;
}

describe('page time passes with every action', () => {
  const twoItems: Action[] = [
    { do: 'fill', selector: '#new', value: 'Buy milk' },
    { do: 'press', selector: '#new', key: 'Enter' },
    { do: 'fill', selector: '#new', value: 'Walk the dog' },
    { do: 'press', selector: '#new', key: 'Enter' },
  ];
  const thenTick: Action[] = [...twoItems, { do: 'click', selector: '#list li:first-child input' }];

  test('a Date.now()-keyed list driven by fill/Enter twice keeps both records, as Playwright does', async () => {
    const [tree, theirs] = await Promise.all([
      oursTree('date-keyed-list.html', thenTick),
      playwrightPage('date-keyed-list.html', thenTick, (p) => p.ariaSnapshot()),
    ]);
    expect(tree).toContain('Buy milk');
    expect(tree).toContain('Walk the dog');
    expect(tree).toMatch(/checkbox "Buy milk" \[checked\]/);
    expect(tree).toBe(theirs);
    await expectPlaywrightPixels('date-keyed-list.html', thenTick);
  });

  test("no two actions read the same Date.now() or performance.now(): each record is stamped one action's step apart", async () => {
    const tree = await oursTree('date-keyed-list.html#stamps', twoItems);
    const stamps = /paragraph: (\d+)\/([\d.]+) (\d+)\/([\d.]+)/.exec(tree);
    expect(stamps).not.toBeNull();
    const [, firstDate, firstPerf, secondDate, secondPerf] = stamps!.map(Number);
    // Between the two Enters: the first Enter's step, the fill, the fill's step.
    expect(secondDate - firstDate).toBe(2 * ACTION_STEP_MS);
    expect(secondPerf - firstPerf).toBe(2 * ACTION_STEP_MS);
  });

  test("timers due inside an action's step fire in order before the next action; later ones after it", async () => {
    const tree = await oursTree('timer-order.html', [
      { do: 'press', selector: '#field', key: 'Enter' },
      { do: 'click', selector: '#next' },
    ]);
    const log = [...tree.matchAll(/listitem: (.+)/g)].map((m) => m[1]);
    expect(log[0]).toBe('enter');
    expect(new Set(log.slice(1, 4))).toEqual(new Set(['timeout 10', 'frame', 'timeout 40']));
    expect(log.indexOf('timeout 10')).toBeLessThan(log.indexOf('timeout 40'));
    expect(log.slice(4)).toEqual(['click', 'timeout 400']);
  });

  test('the same page and actions give byte-identical evidence, with and without a fixed clock', async () => {
    for (const fixed of ['2026-03-01T12:00:00Z', null]) {
      if (fixed) process.env.DESIGN_PLAYBOOK_FIXED_TIME = fixed;
      else delete process.env.DESIGN_PLAYBOOK_FIXED_TIME;
      const shots = await Promise.all([ours('date-keyed-list.html', 'screenshot', thenTick), ours('date-keyed-list.html', 'screenshot', thenTick)]);
      expect(shots[0].equals(shots[1])).toBe(true);
      if (fixed) {
        const trees = [await oursTree('date-keyed-list.html#stamps', twoItems), await oursTree('date-keyed-list.html#stamps', twoItems)];
        expect(trees[0]).toBe(trees[1]);
        expect(trees[0]).toContain(`${Date.parse(fixed)}`.slice(0, 6));
      }
    }
  });
});

describe('the freeze and the rest rule reach every shadow tree', () => {
  const toggle: Action[] = [{ do: 'click', selector: '#toggle' }];

  test("a Lit-style element's transition (its shadow <style>, and a sheet a closed root adopts once connected) ends as its light-DOM twin's", async () => {
    const shot = await expectPlaywrightPixels('shadow-transition.html', toggle);
    // Swatches 40 px tall with 8 px margins, under the 16 px body margin and the button.
    const red = [255, 0, 0];
    const rows = PNG.sync.read(shot);
    const swatchRows: number[] = [];
    for (let y = 0; y < rows.height; y++) if (pixel(shot, 40, y).join() === red.join()) swatchRows.push(y);
    // Three swatches of 40 rows each, all red (the end of their transitions).
    expect(swatchRows.length).toBe(3 * 40);
    expect(pixel(shot, 40, swatchRows[0])).toEqual(red);
  });

  test('a nested shadow root: its transition ends and its endless animation is stopped', async () => {
    await expectPlaywrightPixels('shadow-nested.html', toggle);
  });

  test('a shadow root made after load (by the click): its entrance and its endless pulse are stopped, as in the document', async () => {
    const shot = await expectPlaywrightPixels('shadow-late.html', [{ do: 'click', selector: '#open' }]);
    // The panel stands where it ends, fully opaque.
    expect(pixel(shot, 30, 80)).toEqual([40, 40, 160]);
  });

  test('an animation in an adopted sheet is stopped, and one grown in with element.animate is waited for by the rest rule', async () => {
    const shot = await expectPlaywrightPixels('shadow-adopted-animation.html');
    // The bar grew to its 240 px: the rest rule waited for an animation inside the shadow root.
    const barRow = 16 + 40 + 8 + 10;
    expect(pixel(shot, 16 + 235, barRow)).toEqual([0, 100, 200]);
  });

  test('a closed shadow root declared in the HTML (found over the protocol): its transition ends and its endless animation is stopped', async () => {
    const shot = await ours('shadow-declared.html', 'screenshot', toggle);
    const image = PNG.sync.read(shot);
    // Below the button: the swatch (40 rows), then the flashing square (40 rows), each at its end or un-animated colour.
    const column = (x: number) => Array.from({ length: image.height }, (_, y) => pixel(shot, x, y).join());
    expect(column(60).filter((c) => c === '255,0,0').length).toBe(40);
    expect(column(30).filter((c) => c === '90,90,90').length).toBe(40);
    expect(column(30).filter((c) => c === '0,160,0' || c === '255,200,0').length).toBe(0);
    // Playwright cannot reach a closed root: its shot, 2.5 s later, agrees on the swatch.
    const theirs = PNG.sync.read(await playwrightShot('shadow-declared.html', toggle));
    expect(theirs.height).toBe(image.height);
  });

  test('inside a same-origin frame: a transition a timer starts in a shadow root ends, its endless animation is stopped', async () => {
    await expectPlaywrightPixels('shadow-frame.html', [], (p) => p.frameLocator('#frame').locator('body[data-state="ready"]').waitFor());
  });
});
