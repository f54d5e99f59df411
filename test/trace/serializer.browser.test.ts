/**
 * The trace snapshot serializer's parts (cdp/injected/trace/), each built on
 * its own and run in a real Chromium: the live state the viewer restores from
 * `__playwright_*` attributes, style sheets read through CSSOM, and the walk
 * that encodes the DOM for the viewer.
 */
import * as path from 'path';
import type { Browser, Page } from 'puppeteer-core';
import { launchTestBrowser } from '../helpers/browser';
import { bundleInjectedModule } from '../helpers/injectedModule';

jest.setTimeout(60_000);

const TRACE = path.join(__dirname, '..', '..', 'cdp', 'injected', 'trace');

const bundle = (module: string) => bundleInjectedModule(path.join(TRACE, module));

let browser: Browser;
let page: Page;
beforeAll(async () => {
  browser = await launchTestBrowser();
  page = await browser.newPage();
  await page.setViewport({ width: 800, height: 600 });
});
afterAll(async () => {
  await browser?.close();
});

async function inPage<T>(module: string, body: string, fn: string, setup = ''): Promise<T> {
  await page.setContent(`<!doctype html><html><head></head><body>${body}</body></html>`);
  if (setup) await page.evaluate(setup);
  return page.evaluate(`(() => { const mod = ${bundle(module)}; return (${fn})(mod); })()`) as Promise<T>;
}

describe('liveState.ts', () => {
  test('form values, checked and selected state, dialogs, popovers, scroll and canvas boxes', async () => {
    const state = await inPage<Record<string, Record<string, string>>>(
      'liveState.ts',
      `<input id="text" value="as written"><input id="cb" type="checkbox"><input id="file" type="file">
       <textarea id="ta">old</textarea><select><option id="o1">a</option><option id="o2" selected>b</option></select>
       <dialog id="modal">m</dialog><dialog id="plain">p</dialog><div id="pop" popover>x</div>
       <div id="scroller" style="width:50px;height:50px;overflow:auto"><div style="width:500px;height:500px"></div></div>
       <canvas id="cv" width="30" height="20" style="position:absolute;left:10px;top:20px"></canvas>`,
      `(m) => Object.fromEntries([...document.querySelectorAll('[id]')].map((el) => {
         const attrs = {}; m.addLiveState(el, el.nodeName.toUpperCase(), attrs); return [el.id, attrs]; }))`,
      `document.getElementById('text').value = 'typed';
       document.getElementById('cb').checked = true;
       document.getElementById('ta').value = 'new text';
       document.getElementById('modal').showModal();
       document.getElementById('plain').show();
       document.getElementById('pop').showPopover();
       const s = document.getElementById('scroller'); s.scrollTop = 40; s.scrollLeft = 7;`,
    );
    expect(state.text).toEqual({ __playwright_value_: 'typed' });
    expect(state.cb).toEqual({ __playwright_value_: 'on', __playwright_checked_: 'true' });
    expect(state.file).toEqual({});
    expect(state.ta).toEqual({ __playwright_value_: 'new text' });
    expect(state.o1).toEqual({ __playwright_selected_: 'false' });
    expect(state.o2).toEqual({ __playwright_selected_: 'true' });
    expect(state.modal).toEqual({ __playwright_dialog_open_: 'modal' });
    expect(state.plain).toEqual({ __playwright_dialog_open_: 'true' });
    expect(state.pop).toEqual({ __playwright_popover_open_: 'true' });
    expect(state.scroller).toEqual({ __playwright_scroll_top_: '40', __playwright_scroll_left_: '7' });
    expect(JSON.parse(state.cv.__playwright_bounding_rect__)).toEqual({ left: 10, top: 20, right: 40, bottom: 40 });
  });
});

describe('stylesheets.ts', () => {
  test('rules inserted through CSSOM are read, adopted sheets become templates', async () => {
    const out = await inPage<{ styleText: string; templates: unknown[] }>(
      'stylesheets.ts',
      `<style id="s">p { color: red; }</style>`,
      `(m) => ({ styleText: m.rulesText(document.getElementById('s').sheet), templates: m.adoptedSheetTemplates(document) })`,
      `document.getElementById('s').sheet.insertRule('.late { margin: 3px; }', 1);
       const sheet = new CSSStyleSheet(); sheet.replaceSync('b { font-weight: 900; }');
       document.adoptedStyleSheets = [sheet];`,
    );
    expect(out.styleText).toBe('p { color: red; }\n.late { margin: 3px; }');
    expect(out.templates).toEqual([['template', { __playwright_style_sheet_: 'b { font-weight: 900; }' }]]);
  });
});

describe('serializeFrame.ts', () => {
  test('scripts dropped, handlers kept as names only, BASE added, shadow roots and frames encoded, target boxed', async () => {
    const frame = await inPage<any>(
      'serializeFrame.ts',
      `<script>var x = 1</script><button id="go" onclick="alert(1)" style="position:absolute;left:5px;top:6px;width:70px;height:30px">Go</button>
       <x-card id="host"></x-card><iframe id="f" src="about:blank"></iframe>`,
      `(m) => m.serializeFrame({ targetSelector: '#go' })`,
      `document.adoptedStyleSheets = [];
       customElements.define('x-card', class extends HTMLElement {});
       document.getElementById('host').attachShadow({ mode: 'open' }).innerHTML = '<i>inside</i>';`,
    );
    const [name, , ...children] = frame.html;
    expect(name).toBe('HTML');
    const head = children.find((c: any) => Array.isArray(c) && c[0] === 'HEAD');
    const body = children.find((c: any) => Array.isArray(c) && c[0] === 'BODY');
    expect(head).toEqual(['HEAD', {}, ['BASE', { href: expect.stringMatching(/^about:blank|^data:|^http/) }]]);
    const elements = body.slice(2).filter(Array.isArray);
    expect(elements.map((e: any) => e[0])).toEqual(['BUTTON', 'X-CARD', 'IFRAME']);
    const [button, host, iframe] = elements;
    expect(button[1]).toMatchObject({ id: 'go', onclick: '', __playwright_target__: '' });
    expect(host[2]).toEqual(['template', { __playwright_shadow_root_: 'open' }, ['I', {}, 'inside']]);
    expect(iframe[1].src).toBeUndefined();
    expect(iframe[1].__evidence_frame_index__).toBe('0');
    expect(body[1].__playwright_custom_elements__).toBe('x-card');
    expect(frame.targetBox).toEqual({ x: 5, y: 6, width: 70, height: 30 });
    expect(frame.frameOwnerCount).toBe(1);
    expect(frame.doctype).toBe('html');
  });
});
