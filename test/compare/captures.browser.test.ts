/**
 * Comparisons of real captures (the library's executeCapturePlan, the
 * bundled Chromium, a page served from 127.0.0.1) of one page with one
 * injected change each: the screenshot's changed region is named by the
 * element and the style that changed (a font size off the declared scale
 * when bound), the aria diff finds the node, the probe diff the finding,
 * the trace diff the action's new outcome; an unchanged pair reports nothing.
 *
 * The changed region here is the bounding box of the pixels that differ (the
 * pixel engine clusters regions; attribution only needs a rectangle).
 */
import * as fs from 'fs';
import { compareEvidence } from '../../src/compare/run';
import * as path from 'path';
import { executeCapturePlan, closeBundledBrowser } from '../../src/index';
import { servePages, type PageServer } from '../helpers/browser';
import { captureArgs, makeRunRoot } from '../e2e/harness';
import { decodePng, type DecodedImage } from '../../src/png/decode';
import { attributeRegion, resolveIgnoreSelectors, type DeviceRect } from '../../src/compare/attribution';
import { diffAriaSnapshots, describeAriaEntry, readAriaSnapshotFile } from '../../src/compare/ariaDiff';
import { diffProbeSidecars, readProbeSidecarFile } from '../../src/compare/probeDiff';
import { readTraceArchive } from '../../src/compare/traceArchive';
import { diffTraces } from '../../src/compare/traceDiff';

jest.setTimeout(300_000);

const DESIGN = { fontSizes: [12, 16, 20, 24], colors: ['#1565c0', '#ffffff', '#212121', '#e0e0e0', '#fafafa', '#616161', '#d32f2f'], radii: [8] };
const VIEWPORT = { width: 800, height: 600, devicePixelRatio: 2, colorScheme: 'light' };

let server: PageServer;
let root: string;

beforeAll(async () => {
  server = await servePages(path.join(__dirname, 'pages'));
  root = makeRunRoot('compare');
});

afterAll(async () => {
  await closeBundledBrowser();
  await server?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

async function capture(change: string | null, leaf: string, extra: Record<string, unknown> = {}): Promise<string> {
  const url = server.url(`shop.html${change ? `?change=${change}` : ''}`);
  const result = await executeCapturePlan(captureArgs(root, url, leaf, { viewport: VIEWPORT, ...extra }));
  expect(result.error).toBe('');
  return result.written_path;
}

const sidecarPath = (png: string) => png.replace(/\.png$/, '.probe.json');

/** Bounding box of the differing pixels (device px), null when none differ. */
function changedBox(a: string, b: string): DeviceRect | null {
  const x = decodePng(fs.readFileSync(a));
  const y = decodePng(fs.readFileSync(b));
  const width = Math.max(x.header.width, y.header.width);
  const height = Math.max(x.header.height, y.header.height);
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -1;
  let y1 = -1;
  // A pixel as its bytes (the two images share Chromium's colour type); -1 beyond an image's edge.
  const at = (img: DecodedImage, px: number, py: number) =>
    px < img.header.width && py < img.header.height
      ? img.pixels.subarray(py * img.header.rowBytes + px * img.header.pixelBytes, py * img.header.rowBytes + (px + 1) * img.header.pixelBytes).toString('hex')
      : '-1';
  for (let py = 0; py < height; py++) {
    for (let px = 0; px < width; px++) {
      if (at(x, px, py) === at(y, px, py)) continue;
      x0 = Math.min(x0, px);
      y0 = Math.min(y0, py);
      x1 = Math.max(x1, px);
      y1 = Math.max(y1, py);
    }
  }
  return x1 < 0 ? null : { x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 };
}

describe('screenshots', () => {
  let base: string;
  let bound: string;
  beforeAll(async () => {
    base = await capture(null, 'base.png');
    bound = await capture(null, 'base-bound.png', { design: DESIGN });
  });

  /** The attribution of the pair's changed region: its change summaries. */
  async function attribute(change: string, extra: Record<string, unknown> = {}) {
    const before = extra.design ? bound : base;
    const after = await capture(change, `${change}.png`, extra);
    const region = changedBox(before, after);
    expect(region).not.toBeNull();
    const attribution = attributeRegion(region!, readProbeSidecarFile(sidecarPath(before)), readProbeSidecarFile(sidecarPath(after)));
    expect(attribution.unavailable).toEqual([]);
    return { attribution, summaries: attribution.changes.map((c) => c.summary), before, after };
  }

  test('an unchanged page: byte-identical PNG and sidecar, nothing to report', async () => {
    const again = await capture(null, 'again.png');
    expect(fs.readFileSync(again).equals(fs.readFileSync(base))).toBe(true);
    expect(changedBox(base, again)).toBeNull();
    expect(diffProbeSidecars(readProbeSidecarFile(sidecarPath(base)), readProbeSidecarFile(sidecarPath(again))).changed).toBe(false);
    expect(fs.readFileSync(sidecarPath(again), 'utf8')).toBe(fs.readFileSync(sidecarPath(base), 'utf8'));
  });

  test('the sidecar records the elements, and ignore-selectors resolve through them', async () => {
    const sidecar = readProbeSidecarFile(sidecarPath(base));
    const buy = sidecar.elements!.items.find((i) => i.selector === 'button#buy')!;
    expect(buy).toMatchObject({
      tag: 'button',
      name: 'Buy now',
      styles: { 'background-color': 'rgb(21, 101, 192)', 'border-radius': '8px', 'font-size': '16px' },
    });
    const [ignored] = resolveIgnoreSelectors(['#buy'], sidecar);
    // CSS box times the device pixel ratio (2).
    expect(ignored.rects).toEqual([
      {
        x: Math.floor(buy.box.x * 2),
        y: Math.floor(buy.box.y * 2),
        width: Math.ceil((buy.box.x + buy.box.width) * 2) - Math.floor(buy.box.x * 2),
        height: Math.ceil((buy.box.y + buy.box.height) * 2) - Math.floor(buy.box.y * 2),
      },
    ]);
  });

  test('a dark-scheme switch: found across the page, the cards named with their new background', async () => {
    const dark = await capture(null, 'dark.png', { viewport: { ...VIEWPORT, colorScheme: 'dark' } });
    const result = await compareEvidence({ artifacts: [base, dark] }, { write: false });
    const item = result.items[0];
    expect(item.status).toBe('changed');
    expect(item.pixels!.changedPixels).toBeGreaterThan(100_000);
    expect(item.summary).toContain('html > body: background-color #fafafa → #121212');
    expect(item.summary).toContain(
      'html > body > main > section.card:nth-of-type(1): background-color #ffffff → #1e1e1e, border 1px solid #e0e0e0 → 1px solid #424242',
    );
    expect(item.summary).toContain('p#desc: color #212121 → #e0e0e0');
  });

  test('a colour change: the button and its background colour', async () => {
    const { attribution, summaries } = await attribute('color');
    expect(attribution.after[0].selector).toBe('button#buy');
    expect(summaries).toEqual(['button#buy: background-color #1565c0 → #d32f2f']);
  });

  test('one palette step is a change, named the same way', async () => {
    const { summaries } = await attribute('step');
    expect(summaries).toEqual(['button#buy: background-color #1565c0 → #1976d2']);
  });

  test('a radius change', async () => {
    const { summaries } = await attribute('radius');
    expect(summaries).toEqual(['button#buy: border-radius 8px → 6px']);
  });

  test('a changed label: the button, its new name and width', async () => {
    const { summaries } = await attribute('label');
    expect(summaries[0]).toMatch(/^button#send: name "Send" → "Subscribe", size [\d.]+×34 → [\d.]+×34$/);
  });

  test('a new list item: only after, named by its text', async () => {
    const { summaries } = await attribute('item');
    expect(summaries[0]).toBe('ul#items > li:nth-of-type(3) "Spoon": only after');
  });

  test('a removed button: only before', async () => {
    const { summaries } = await attribute('remove');
    expect(summaries[0]).toBe('button#later.secondary "Save for later": only before');
  });

  test('a moved element: now in another parent', async () => {
    const { summaries } = await attribute('move');
    expect(summaries[0]).toMatch(
      /^button#later\.secondary: now in html > body > main > form\.card \(was in html > body > main > section\.card:nth-of-type\(1\)\), moved/,
    );
  });

  test('bound: a font size off the declared scale is named as such, and the probe diff gains its finding', async () => {
    const { summaries, before, after } = await attribute('font', { design: DESIGN });
    expect(summaries[0]).toMatch(/^p#desc: font-size 16px → 15px \(off the declared type scale\)/);
    const diff = diffProbeSidecars(readProbeSidecarFile(sidecarPath(before)), readProbeSidecarFile(sidecarPath(after)));
    expect(diff.binding).toMatchObject({ before: 'bound', after: 'bound', differs: false });
    expect(diff.findings.gained).toEqual([{ rule: 'font-size-off-scale', axis: 'fontSizes', value: '15px', count: 1, elements: ['p#desc'] }]);
    expect(diff.distinctFontSizes).toEqual({ added: [15], removed: [] });
  });

  test('a bound and an unbound capture of the same page are not equal', () => {
    const diff = diffProbeSidecars(readProbeSidecarFile(sidecarPath(bound)), readProbeSidecarFile(sidecarPath(base)));
    expect(diff).toMatchObject({ changed: true, binding: { before: 'bound', after: 'unbound', differs: true } });
  });
});

describe('aria snapshots', () => {
  let base: string;
  beforeAll(async () => {
    base = await capture(null, 'base-tree.json', { type: 'a11y tree' });
  });

  async function entries(change: string | null) {
    const after = await capture(change, `${change ?? 'same'}-tree.json`, { type: 'a11y tree' });
    return diffAriaSnapshots(readAriaSnapshotFile(base), readAriaSnapshotFile(after)).entries.map(describeAriaEntry);
  }

  test('unchanged: nothing', async () => {
    expect(await entries(null)).toEqual([]);
  });

  test('a changed label, a new item, a removed button, a moved button', async () => {
    expect(await entries('label')).toEqual(['~ main > form "Subscribe" > button "Subscribe": name "Send" → "Subscribe"']);
    expect(await entries('item')).toEqual(['+ main > region "Contents" > list > listitem: "Spoon" (+1 inside)']);
    expect(await entries('remove')).toEqual(['- main > region "Product" > button "Save for later"']);
    expect(await entries('move')).toEqual(['> main > region "Product" > button "Save for later" → main > form "Subscribe" > button "Save for later"']);
  });
});

describe('interaction traces', () => {
  const flow = {
    type: 'interaction trace',
    actions: [
      { do: 'click', selector: '#buy' },
      { do: 'wait_for_selector', selector: '#status' },
    ],
  };

  test("a broken flow: the click's new text, its console error and the failed request; the same flow twice: nothing", async () => {
    const a = await readTraceArchive(await capture(null, 'a.trace.zip', flow));
    const broken = await readTraceArchive(await capture('broken', 'b.trace.zip', flow));
    const again = await readTraceArchive(await capture(null, 'c.trace.zip', flow));
    const diff = await diffTraces(a, broken);
    expect(diff.actions.map((x) => [x.kind, x.api.after, x.selector.after])).toEqual([
      ['paired', 'Frame.goto', ''],
      ['paired', 'Frame.click', '#buy'],
      ['paired', 'Frame.waitForSelector', '#status'],
    ]);
    const click = diff.actions[1];
    expect(click.changed).toBe(true);
    expect(click.snapshot?.text).toEqual({ added: ['Could not add to cart'], removed: ['Added to cart'] });
    expect(click.messages.gained).toContainEqual({ kind: 'console', text: 'cart service unavailable' });
    expect(click.frame?.identical).toBe(false);
    expect(diff.failedRequests.gained).toEqual([expect.objectContaining({ method: 'GET', url: server.url('missing-cart.json'), status: 404 })]);
    const same = await diffTraces(a, again);
    expect(same.actions.map((x) => [x.kind, x.snapshot?.changed, x.error.changed])).toEqual([
      ['paired', false, false],
      ['paired', false, false],
      ['paired', false, false],
    ]);
    expect(same.messages).toEqual({ gained: [], lost: [] });
    expect(same.failedRequests).toEqual({ gained: [], lost: [] });
  });
});
