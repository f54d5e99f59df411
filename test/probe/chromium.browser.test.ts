/**
 * The render-token probe against real Chromium: the literal rules checked
 * against Chromium's own parsing and serialization, and the walker plus
 * comparator on pages whose computed styles are known. One browser, one page.
 */
import * as path from 'path';
import type { Browser, CDPSession, Page } from 'puppeteer-core';
import { launchTestBrowser, servePages, type PageServer } from '../helpers/browser';
import { walkRenderedStyles, type RenderedElement } from '../../cdp/styleWalker';
import { renderTokenProbe } from '../../src/probe';
import { compareRenderTokens } from '../../src/probe/comparator';
import { classifyColorLiteral, classifyPxLiteral, pxKey } from '../../src/probe/literals';
import type { Finding, RenderTokensFace } from '../../src/probe/face';

let browser: Browser;
let server: PageServer;
let page: Page;
let session: CDPSession;

beforeAll(async () => {
  browser = await launchTestBrowser();
  server = await servePages(path.join(__dirname, 'pages'));
  page = await browser.newPage();
  await page.setViewport({ width: 800, height: 600 });
  session = await page.createCDPSession();
}, 60000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function walk(file: string): Promise<RenderedElement[]> {
  await page.goto(server.url(file), { waitUntil: 'load' });
  return walkRenderedStyles(session);
}

/** The one element whose last selector segment is `tagAndId` (classes may follow). */
function bySelector(elements: RenderedElement[], tagAndId: string): RenderedElement {
  const found = elements.filter((e) => {
    const last = e.selector.split(/ >>? /).pop()!;
    return last === tagAndId || last.startsWith(tagAndId + '.');
  });
  if (found.length !== 1) throw new Error(`expected one element ${tagAndId}, got ${found.map((e) => e.selector).join(' | ')}`);
  return found[0];
}

function rules(face: RenderTokensFace, rule: Finding['rule']): Finding[] {
  return face.findings.filter((f) => f.rule === rule);
}

describe('literal rules agree with Chromium', () => {
  /** Sets each value on an element and returns Chromium's computed serialization ("" when rejected). */
  async function computed(property: string, values: string[]): Promise<string[]> {
    await page.setContent('<div id="probe">x</div>');
    return page.evaluate(
      (prop, list) => {
        const el = document.getElementById('probe')!;
        return list.map((value) => {
          el.style.cssText = '';
          el.style.setProperty(prop, value);
          return el.style.getPropertyValue(prop) === '' ? '' : getComputedStyle(el).getPropertyValue(prop);
        });
      },
      property,
      values,
    );
  }

  test('every comparable rgb() literal is serialized by Chromium exactly as the classifier reads it (12.5 paints 13)', async () => {
    const literals: string[] = [];
    for (let v = -1; v <= 256; v += 0.25) literals.push(`rgb(${v} 0 0)`, `rgb(0, ${v}, 0)`);
    for (let p = 0; p <= 100; p += 0.1) literals.push(`rgb(0 0 ${Number(p.toFixed(1))}%)`);
    literals.push(
      'rgb(12.5, 0, 0)',
      'rgb(12.5 0 0)',
      'rgba(12.5, 0, 0, 1)',
      'rgb(12.5 0 0 / 100%)',
      '#0b6bcb',
      '#fff',
      '#0b6bcbff',
      '#FFFF',
      'rgb(1 2% 3)',
      'rgb(none 0 0)',
      'RGBA(1,2,3)',
      'rgb(1e1 0 0)',
    );
    const browserValues = await computed('color', literals);
    const mismatches: string[] = [];
    literals.forEach((literal, i) => {
      const reading = classifyColorLiteral(literal);
      if (!reading.comparable) mismatches.push(`${literal}: classifier says undecidable (${reading.reason})`);
      else if (reading.serialized !== browserValues[i]) mismatches.push(`${literal}: classifier ${reading.serialized}, Chromium ${browserValues[i]}`);
    });
    expect(mismatches).toEqual([]);
    expect(browserValues[literals.indexOf('rgb(12.5, 0, 0)')]).toBe('rgb(13, 0, 0)');
  });

  test('translucent literals really paint translucent in Chromium, and the classifier never reads their opaque channels', async () => {
    const literals = ['rgba(0, 0, 0, 0.5)', 'rgb(11 107 203 / 10%)', '#0b6bcb80', '#0008', 'rgba(255,0,0,0)'];
    const browserValues = await computed('color', literals);
    for (const [i, literal] of literals.entries()) {
      expect(browserValues[i]).toMatch(/^rgba\(/);
      expect(classifyColorLiteral(literal).comparable).toBe(false);
    }
  });

  test('every comparable px literal is a CSS length Chromium computes to the same px', async () => {
    const literals = ['16px', '+16px', '1.6e1px', '160E-1px', '16PX', '13.333333px', '0px', '10000px', '\t16px\n', '\f16px\r', '1e3px'];
    const browserValues = await computed('font-size', literals);
    literals.forEach((literal, i) => {
      const reading = classifyPxLiteral(literal, 'fontSizes');
      expect(reading.comparable).toBe(true);
      if (reading.comparable) expect(pxKey(parseFloat(browserValues[i]))).toBe(pxKey(reading.px));
    });
  });

  test('the non-CSS spellings the seed names are rejected by Chromium too', async () => {
    const literals = ['1_6px', '１６px', '16 px', 'inf', 'infpx', 'NaN', '\u00a016px', '16px\u00a0', '\u000b16px', '16\u000bpx', '16.px'];
    const supported = await page.evaluate((list) => list.map((v) => CSS.supports('font-size', v)), literals);
    expect(supported).toEqual(literals.map(() => false));
    for (const literal of literals) expect(classifyPxLiteral(literal, 'fontSizes').comparable).toBe(false);
  });

  test('Chromium clamps the values the classifier calls overflowing', async () => {
    const browserValues = await computed('font-size', ['10001px', '1e300px']);
    expect(browserValues).toEqual(['10000px', '10000px']);
    const radius = await computed('border-top-left-radius', ['1e9px']);
    expect(parseFloat(radius[0])).toBeLessThan(1e9);
    expect(classifyPxLiteral('10001px', 'fontSizes').comparable).toBe(false);
    expect(classifyPxLiteral(1e9, 'radii').comparable).toBe(false);
  });
});

describe('walker', () => {
  test('one pass yields box, text size and colour, background and radii per rendered element', async () => {
    const elements = await walk('scale.html');
    const title = bySelector(elements, 'h1#title');
    expect(title.text).toEqual({ fontSize: '24px', fontSizePx: 24, color: 'rgb(26, 26, 26)', colorProperty: 'color' });
    expect(title.box).toMatchObject({ x: 0, y: 0, width: 800 });
    const frac = bySelector(elements, 'p#frac');
    expect(frac.text?.color).toBe('rgb(13, 0, 0)');
    const card = bySelector(elements, 'div#card');
    expect(card.text).toBeNull();
    expect(card.backgroundColor).toBe('rgb(245, 245, 245)');
    expect(card.box).toMatchObject({ width: 200, height: 60 });
    expect(card.radii['top-left']).toEqual({ computed: '8px', x: 8, y: 8 });
    const ellipse = bySelector(elements, 'div#ellipse');
    expect(ellipse.radii['top-left']).toEqual({ computed: '8px 4px', x: 8, y: 4 });
    expect(ellipse.radii['top-right']).toEqual({ computed: '4px 6px', x: 4, y: 6 });
    const pill = bySelector(elements, 'div#pill');
    expect(pill.radii['bottom-left']).toEqual({ computed: '50%', x: 20, y: 20 });
    // The body renders no text of its own: only whitespace between blocks.
    expect(bySelector(elements, 'body').text).toBeNull();
    // Parent links point at the nearest rendered ancestor.
    expect(elements[card.parent!].selector).toBe('html > body');
  });

  test("selectors name one element each, and its box is the element's border box in page coordinates", async () => {
    for (const file of ['scale.html', 'concentric.html', 'borders.html']) {
      const elements = await walk(file);
      await page.evaluate(() => window.scrollTo(0, 0));
      const checks = await page.evaluate(
        (list) =>
          list.map(({ selector }) => {
            const matches = document.querySelectorAll(selector);
            const r = matches[0]?.getBoundingClientRect();
            return { selector, count: matches.length, box: r ? { x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height } : null };
          }),
        elements.map((e) => ({ selector: e.selector })),
      );
      checks.forEach((check, i) => {
        expect({ selector: check.selector, count: check.count }).toEqual({ selector: elements[i].selector, count: 1 });
        expect(check.box).toEqual(elements[i].box);
      });
    }
  });

  test('relative units and var() are read as the browser computed them', async () => {
    const elements = await walk('units.html');
    expect(bySelector(elements, 'p#root-rem').text?.fontSize).toBe('20px');
    expect(bySelector(elements, 'p#rem').text?.fontSize).toBe('30px');
    expect(bySelector(elements, 'span#em').text?.fontSize).toBe('10px');
    const tokened = bySelector(elements, 'div#var');
    expect(tokened.text?.color).toBe('rgb(11, 107, 203)');
    expect(tokened.radii['top-left'].computed).toBe('12px');
    const calc = bySelector(elements, 'div#calc');
    expect(calc.radii['top-left'].computed).toMatch(/^calc\(/);
    expect(calc.radii['top-left'].x).toBeNull();
  });

  test('border colours only where the border is drawn', async () => {
    const elements = await walk('borders.html');
    expect(bySelector(elements, 'div#drawn').borders.map((b) => [b.side, b.color, b.width])).toEqual([
      ['top', 'rgb(255, 0, 0)', 1],
      ['right', 'rgb(255, 0, 0)', 1],
      ['bottom', 'rgb(255, 0, 0)', 1],
      ['left', 'rgb(255, 0, 0)', 1],
    ]);
    expect(bySelector(elements, 'div#zero').borders).toEqual([]);
    expect(bySelector(elements, 'div#none').borders).toEqual([]);
    expect(bySelector(elements, 'div#hidden').borders).toEqual([]);
    expect(bySelector(elements, 'div#top-only').borders).toEqual([{ side: 'top', color: 'rgb(0, 255, 255)', width: 2 }]);
  });

  test('hidden elements are ignored: display none, visibility hidden, opacity 0 subtrees, template, [hidden]', async () => {
    const elements = await walk('hidden.html');
    const selectors = elements.map((e) => e.selector);
    expect(selectors).not.toContain('div#invisible');
    expect(selectors.some((s) => s.includes('faded'))).toBe(false);
    expect(selectors.some((s) => s.includes('gone'))).toBe(false);
    // A visible child of a visibility:hidden parent renders.
    expect(bySelector(elements, 'span#back').text?.fontSize).toBe('33px');
    const sizes = elements
      .filter((e) => e.text)
      .map((e) => e.text!.fontSizePx)
      .sort((a, b) => a - b);
    expect([...new Set(sizes)]).toEqual([16, 21, 33]);
    const colors = elements.flatMap((e) => [e.text?.color, e.backgroundColor]);
    expect(colors).not.toContain('rgb(255, 0, 0)');
    expect(colors).not.toContain('rgb(0, 255, 0)');
    expect(colors).not.toContain('rgb(0, 0, 255)');
  });

  test('form controls, SVG text, fill colour and open shadow trees report the text they paint', async () => {
    const elements = await walk('controls.html');
    const text = (id: string) => bySelector(elements, id).text;
    expect(text('input#valued')).toEqual({ fontSize: '18px', fontSizePx: 18, color: 'rgb(1, 2, 3)', colorProperty: 'color' });
    expect(text('input#placeholder')).toEqual({ fontSize: '19px', fontSizePx: 19, color: null, colorProperty: 'color' });
    expect(text('input#empty')).toBeNull();
    expect(text('input#check')).toBeNull();
    expect(text('input#submit')?.fontSize).toBe('21px');
    expect(text('select#choice')?.fontSize).toBe('22px');
    expect(text('textarea#area')?.fontSize).toBe('23px');
    expect(text('button#button')?.fontSize).toBe('24px');
    expect(text('p#filled')).toEqual({ fontSize: '16px', fontSizePx: 16, color: 'rgb(4, 5, 6)', colorProperty: '-webkit-text-fill-color' });
    expect(text('text#label')).toEqual({ fontSize: '25px', fontSizePx: 25, color: 'rgb(255, 0, 0)', colorProperty: 'fill' });
    expect(text('text#nofill')?.color).toBeNull();
    expect(text('p#shadowed')?.fontSize).toBe('27px');
    const face = compareRenderTokens(elements, { fontSizes: [16, 18, 19, 21, 22, 23, 24, 25, 26, 27], colors: ['rgb(1, 2, 3)', '#fff', '#000'] });
    expect(face.findings.filter((f) => f.rule === 'font-size-off-scale')).toEqual([]);
    const offPalette = face.findings.filter((f) => f.rule === 'color-off-palette').map((f) => [f.value, f.properties]);
    expect(offPalette).toContainEqual(['rgb(4, 5, 6)', ['-webkit-text-fill-color']]);
    expect(offPalette).toContainEqual(['rgb(255, 0, 0)', ['fill']]);
  });

  test('child frames are walked in main-document coordinates; frames that do not render are skipped', async () => {
    const elements = await walk('frame.html');
    const inner = bySelector(elements, 'p#inner');
    expect(inner.selector).toBe('iframe#child >> p#inner');
    expect(inner.text?.fontSize).toBe('30px');
    // iframe border 5 + padding 3, then frame body margin 8 plus paragraph margin 8
    // horizontally; vertically the two margins collapse to 8.
    expect(inner.box.x).toBe(24);
    expect(inner.box.y).toBe(16);
    expect(elements.some((e) => e.text?.fontSize === '70px')).toBe(false);
  });
});

describe('comparator on rendered pages', () => {
  const DESIGN = { fontSizes: [14, 16, 20, 24], colors: ['#f5f5f5', '#ffffff', '#1a1a1a', '#0b6bcb'], radii: [4, 8, 12, 20] };

  test('type scale: one finding per distinct off-scale size, with count and samples', async () => {
    const face = compareRenderTokens(await walk('scale.html'), DESIGN);
    expect(face.measurement_status).toBe('measured');
    expect(face.distinctFontSizes).toEqual([13, 16, 20, 24]);
    const sizes = rules(face, 'font-size-off-scale');
    expect(sizes).toHaveLength(1);
    expect(sizes[0]).toMatchObject({ axis: 'fontSizes', value: '13px', count: 2 });
    expect(sizes[0].samples.map((s) => s.selector)).toEqual(['p#n1.note', 'p#n2.note']);
    expect(sizes[0].samples[0].box.width).toBe(800);
  });

  test('palette: one finding per distinct off-palette colour, compared as the browser serializes', async () => {
    const elements = await walk('scale.html');
    const face = compareRenderTokens(elements, DESIGN);
    const colors = rules(face, 'color-off-palette');
    expect(colors.map((f) => [f.value, f.count, f.properties])).toEqual([
      ['rgb(13, 0, 0)', 1, ['color']],
      ['rgb(128, 0, 0)', 1, ['color']],
    ]);
    // Declaring the fractional literal itself matches what the browser painted: 12.5 paints 13.
    const withFraction = compareRenderTokens(elements, { ...DESIGN, colors: [...DESIGN.colors, 'rgb(12.5, 0, 0)', 'rgb(50% 0 0)'] });
    expect(rules(withFraction, 'color-off-palette')).toEqual([]);
    const withRoundedDown = compareRenderTokens(elements, { ...DESIGN, colors: [...DESIGN.colors, 'rgb(12.49, 0, 0)'] });
    expect(rules(withRoundedDown, 'color-off-palette').map((f) => f.value)).toContain('rgb(13, 0, 0)');
  });

  test('radius scale: one finding per distinct off-scale value; elliptical parts both judged; percentages undecidable', async () => {
    const face = compareRenderTokens(await walk('scale.html'), DESIGN);
    expect(rules(face, 'radius-off-scale').map((f) => [f.value, f.count, f.samples[0].selector])).toEqual([
      ['6px', 1, 'div#odd.odd'],
      ['4px 6px', 1, 'div#ellipse.ellipse'],
    ]);
    expect(face.undecidable).toContainEqual(expect.objectContaining({ axis: 'radii', kind: 'rendered-value', value: '50%', count: 1 }));
    expect(rules(face, 'concentric-radius')).toEqual([]);
  });

  test('rem and var() in styles are judged by their computed values; rem and var() literals are undecidable', async () => {
    const design = { fontSizes: ['1rem', 20, 'var(--x)'], colors: ['var(--brand)', '#0b6bcb', '#000', '#fff'], radii: ['12px'] };
    const face = compareRenderTokens(await walk('units.html'), design);
    expect(face.distinctFontSizes).toEqual([10, 20, 30]);
    expect(rules(face, 'font-size-off-scale').map((f) => f.value)).toEqual(['30px', '10px']);
    expect(rules(face, 'color-off-palette')).toEqual([]);
    expect(rules(face, 'radius-off-scale')).toEqual([]);
    const literals = face.undecidable.filter((u) => u.kind === 'literal').map((u) => [u.axis, u.literal, u.index]);
    expect(literals).toEqual([
      ['fontSizes', '1rem', 0],
      ['fontSizes', 'var(--x)', 2],
      ['colors', 'var(--brand)', 0],
    ]);
    expect(face.undecidable).toContainEqual(expect.objectContaining({ axis: 'radii', kind: 'rendered-value', value: expect.stringMatching(/^calc\(/) }));
  });

  test('translucent rendered colours are off an opaque palette; fully transparent ones are ignored', async () => {
    const face = compareRenderTokens(await walk('translucent.html'), { colors: ['#000000', '#0b6bcb'] });
    expect(rules(face, 'color-off-palette').map((f) => [f.value, f.properties])).toEqual([
      ['rgba(0, 0, 0, 0.5)', ['background-color']],
      ['rgba(11, 107, 203, 0.1)', ['background-color']],
    ]);
    expect(face.undecidable).toContainEqual(
      expect.objectContaining({ axis: 'colors', kind: 'rendered-value', value: expect.stringMatching(/^color\(display-p3/) }),
    );
    // Omitted axes are undecidable, not clean.
    expect(face.undecidable.filter((u) => u.kind === 'axis-omitted').map((u) => u.axis)).toEqual(['fontSizes', 'radii']);
  });

  test('drawn border colours are compared, undrawn ones are not', async () => {
    const face = compareRenderTokens(await walk('borders.html'), { colors: ['#000000'] });
    expect(rules(face, 'color-off-palette').map((f) => [f.value, f.count, f.properties])).toEqual([
      ['rgb(255, 0, 0)', 1, ['border-top-color', 'border-right-color', 'border-bottom-color', 'border-left-color']],
      ['rgb(0, 255, 255)', 1, ['border-top-color']],
    ]);
  });

  test('concentric radii, unbound: broken nested pairs are findings naming the corners; concentric, far and square pairs are not', async () => {
    const face = await (async () => {
      await page.goto(server.url('concentric.html'), { waitUntil: 'load' });
      return renderTokenProbe(session, undefined);
    })();
    expect(face.measurement_status).toBe('measured');
    const pairs = rules(face, 'concentric-radius').map((f) => ({
      inner: f.inner!.selector,
      outer: f.outer!.selector,
      corners: f.corners!.map((c) => c.corner),
      value: f.value,
    }));
    expect(pairs).toEqual([
      { inner: 'div#broken.outer > div.inner', outer: 'div#broken.outer', corners: ['top-left', 'top-right', 'bottom-right', 'bottom-left'], value: '16px' },
      { inner: 'div#tab.outer > div.inner', outer: 'div#tab.outer', corners: ['top-left'], value: '4px' },
      {
        inner: 'div#nested.outer > div.inner > div.button',
        outer: 'div#nested.outer > div.inner',
        corners: ['top-left', 'top-right', 'bottom-right', 'bottom-left'],
        value: '8px',
      },
    ]);
    const broken = rules(face, 'concentric-radius')[0];
    expect(broken.corners![0]).toEqual({
      corner: 'top-left',
      outer: { x: 16, y: 16 },
      inset: { x: 8, y: 8 },
      expected: { x: 8, y: 8 },
      actual: { x: 16, y: 16 },
    });
    expect(broken.samples).toEqual([broken.inner, broken.outer]);
    expect(broken.count).toBe(1);
    // Unbound: every declared comparison is named undecidable.
    expect(face.undecidable.map((u) => [u.axis, u.kind, u.literal])).toEqual([
      ['fontSizes', 'unbound', null],
      ['colors', 'unbound', null],
      ['radii', 'unbound', null],
    ]);
    expect(face.findings.every((f) => f.rule === 'concentric-radius')).toBe(true);
  });

  test('a walker failure is a failed face, not an empty measured one', async () => {
    const failing = { send: async () => Promise.reject(new Error('Target closed')) };
    const face = await renderTokenProbe(failing, { fontSizes: [16] });
    expect(face.measurement_status).toBe('failed');
    expect(face.measurement_error).toMatch(/Target closed/);
    expect(face.findings).toEqual([]);
    expect(face.undecidable.filter((u) => u.kind === 'unmeasured').map((u) => u.axis)).toEqual(['fontSizes', 'colors', 'radii']);
    // A snapshot that never answers is a failure too, not a hang.
    const silent = { send: () => new Promise<never>(() => undefined) };
    const timedOut = await renderTokenProbe(silent, undefined, { timeoutMs: 50 });
    expect(timedOut.measurement_status).toBe('failed');
    expect(timedOut.measurement_error).toMatch(/no snapshot within 50 ms/);
  });
});
