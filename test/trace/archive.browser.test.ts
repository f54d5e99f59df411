/**
 * The archive itself: every trace.trace line is JSON, actions pair up, the
 * snapshots' stylesheets, images and fonts (loaded during navigation) are
 * in the archive by sha1, and the page's console and errors are recorded.
 */
import { createHash } from 'crypto';
import type { Browser } from 'puppeteer-core';
import type { CdpSession } from '../../cdp/types';
import { launchTestBrowser, type PageServer } from '../helpers/browser';
import { TraceRecorder } from '../../cdp/trace/recorder';
import { traceCallOf } from '../../src/contract/actions';
import { FONT_FILE, FORM_ACTIONS, contextOptions, readTraceZip, recordTrace, runTracedAction, serveFixtures, VIEWPORT, type ParsedTrace } from './harness';

jest.setTimeout(120_000);

let browser: Browser;
let server: PageServer;
let formZip: Buffer;
let form: ParsedTrace;

beforeAll(async () => {
  [browser, server] = await Promise.all([launchTestBrowser(), serveFixtures()]);
  formZip = await recordTrace(browser, server.url('/index.html'), FORM_ACTIONS);
  form = await readTraceZip(formZip);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

type Node = string | [string, Record<string, string>, ...Node[]];

function elements(node: Node, out: [string, Record<string, string>, ...Node[]][] = []) {
  if (typeof node === 'string') return out;
  out.push(node);
  for (const child of node.slice(2) as Node[]) elements(child, out);
  return out;
}

function find(node: Node, predicate: (name: string, attrs: Record<string, string>) => boolean) {
  return elements(node).find(([name, attrs]) => predicate(name, attrs));
}

const snapshotsOf = (trace: ParsedTrace, callId: string) => trace.snapshots.filter((s) => s.isMainFrame && s.callId === callId);

describe('a four-action trace of a typical page', () => {
  test('is a ZIP under 2 MB whose trace.trace lines all parse as JSON', async () => {
    expect(formZip.length).toBeLessThan(2 * 1024 * 1024);
    expect(form.names).toEqual(expect.arrayContaining(['trace.trace', 'trace.network']));
    const text = await form.zip.file('trace.trace')!.async('string');
    const lines = text.split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  });

  test('starts with the context options: format version, viewport, scale, colour scheme, browser', async () => {
    const first = form.events[0];
    expect(first).toMatchObject({
      type: 'context-options',
      version: 10,
      browserName: 'chromium',
      options: { viewport: VIEWPORT, deviceScaleFactor: 1, colorScheme: 'light' },
    });
    const version = (await browser.version()).replace(/^[^/]*\//, '');
    expect(first.browserVersion).toBe(version);
    expect(first.options.userAgent).toContain(version.split('.')[0]);
  });

  test('has one before and one after per action, in order, with method and params', () => {
    const befores = form.events.filter((e) => e.type === 'before');
    const afters = form.events.filter((e) => e.type === 'after');
    expect(befores.map((b) => `${b.class}.${b.method}`)).toEqual(['Frame.goto', 'Frame.fill', 'Frame.selectOption', 'Frame.press', 'Frame.click']);
    expect(new Set(befores.map((b) => b.callId)).size).toBe(befores.length);
    for (const before of befores) {
      const matching = afters.filter((a) => a.callId === before.callId);
      expect(matching).toHaveLength(1);
      expect(matching[0].endTime).toBeGreaterThanOrEqual(before.startTime);
      expect(matching[0].error).toBeUndefined();
      expect(form.events.indexOf(matching[0])).toBeGreaterThan(form.events.indexOf(before));
    }
    expect(befores[1].params).toEqual({ selector: '#name', value: 'Ann' });
    expect(befores[2].params).toEqual({ selector: '#plan', options: [{ value: 'pro' }] });
    expect(befores[3].params).toEqual({ selector: '#name', key: 'Enter' });
    expect(befores[4].params).toEqual({ selector: '#submit' });
  });

  test('snapshots each action before and after, and input actions at the action with the target marked', () => {
    const befores = form.events.filter((e) => e.type === 'before');
    for (const before of befores) {
      const phases = snapshotsOf(form, before.callId).map((s) => s.phase);
      expect(phases).toEqual(expect.arrayContaining(['before', 'after']));
      if (before.method === 'goto') continue;
      expect(phases).toContain('action');
      const atAction = snapshotsOf(form, before.callId).find((s) => s.phase === 'action');
      const target = find(atAction.html, (_n, attrs) => '__playwright_target__' in attrs);
      expect(target?.[1].id).toBe(before.params.selector.slice(1));
    }
  });

  test("an input action's before and action snapshots show the same page, the target marked only at the action", async () => {
    const inputs = form.events.filter((e) => e.type === 'before' && e.method !== 'goto');
    expect(inputs.length).toBe(4);
    for (const call of inputs) {
      const [before, atAction] = ['before', 'action'].map((phase) => snapshotsOf(form, call.callId).find((s) => s.phase === phase));
      expect(find(before.html, (_n, attrs) => '__playwright_target__' in attrs)).toBeUndefined();
      const unmarked = JSON.parse(JSON.stringify(atAction.html, (key, value) => (key === '__playwright_target__' ? undefined : value)));
      expect(before.html).toEqual(unmarked);
      expect(before.frameUrl).toBe(atAction.frameUrl);
    }
    // The walk's nonce marks the target only in flight; the archive holds Playwright's empty mark.
    expect(await form.zip.file('trace.trace')!.async('string')).not.toContain('evidence-target-');
  });

  test("a page's own __playwright_target__ attribute stays in every snapshot; only the action's target is marked", async () => {
    const page = `<!doctype html><title>t</title><p id="decoy" __playwright_target__="mine">decoy</p><button id="go">Go</button>`;
    const trace = await readTraceZip(await recordTrace(browser, `data:text/html,${encodeURIComponent(page)}`, [{ do: 'click', selector: '#go' }]));
    const click = trace.events.find((e) => e.type === 'before' && e.method === 'click');
    const [before, atAction] = ['before', 'action'].map((phase) => snapshotsOf(trace, click.callId).find((s) => s.phase === phase));
    for (const snapshot of [before, atAction]) expect(find(snapshot.html, (_n, a) => a.id === 'decoy')?.[1].__playwright_target__).toBe('mine');
    expect(find(before.html, (_n, a) => a.id === 'go')?.[1]).not.toHaveProperty('__playwright_target__');
    expect(find(atAction.html, (_n, a) => a.id === 'go')?.[1].__playwright_target__).toBe('');
  });

  test('records the click point inside the clicked element and the form state in the snapshots', () => {
    const click = form.events.find((e) => e.type === 'before' && e.method === 'click');
    const input = form.events.find((e) => e.type === 'input' && e.callId === click.callId);
    expect(input.point).toBeDefined();
    expect(input.point.x).toBeGreaterThanOrEqual(input.box.x);
    expect(input.point.x).toBeLessThanOrEqual(input.box.x + input.box.width);
    expect(input.point.y).toBeGreaterThanOrEqual(input.box.y);
    expect(input.point.y).toBeLessThanOrEqual(input.box.y + input.box.height);

    const fill = form.events.find((e) => e.type === 'before' && e.method === 'fill');
    const [beforeFill, afterFill] = ['before', 'after'].map((phase) => snapshotsOf(form, fill.callId).find((s) => s.phase === phase));
    expect(find(beforeFill.html, (n, a) => n === 'INPUT' && a.id === 'name')?.[1].__playwright_value_).toBe('');
    expect(find(afterFill.html, (n, a) => n === 'INPUT' && a.id === 'name')?.[1].__playwright_value_).toBe('Ann');

    const select = form.events.find((e) => e.type === 'before' && e.method === 'selectOption');
    const afterSelect = snapshotsOf(form, select.callId).find((s) => s.phase === 'after');
    expect(find(afterSelect.html, (n, a) => n === 'OPTION' && a.value === 'pro')?.[1].__playwright_selected_).toBe('true');
    expect(find(afterSelect.html, (n, a) => n === 'OPTION' && a.value === 'free')?.[1].__playwright_selected_).toBe('false');
  });

  test('stores unchanged parts of later snapshots as back-references that resolve', () => {
    const raw = form.events.filter((e) => e.type === 'frame-snapshot').map((e) => JSON.stringify(e.snapshot.html));
    expect(raw.filter((html) => /\[\[\d+,\d+\]\]/.test(html)).length).toBeGreaterThan(raw.length / 2);
    // Resolution (harness, viewer rules) yields a full document every time.
    for (const snapshot of form.snapshots.filter((s) => s.isMainFrame && s.frameUrl.startsWith('http')))
      expect(find(snapshot.html, (n) => n === 'H1')?.[2]).toBe('Choose a plan');
  });

  test('snapshots a same-origin iframe as its own frame snapshot that the owner element points to', () => {
    const mains = form.snapshots.filter((s) => s.isMainFrame && s.frameUrl === server.url('/index.html'));
    expect(mains.length).toBeGreaterThan(3);
    for (const main of mains) {
      const owner = find(main.html, (n, a) => n === 'IFRAME' && a.id === 'panel')!;
      expect(owner[1].src).toMatch(/^\/snapshot\/frame@/);
      const childFrameId = owner[1].src.slice('/snapshot/'.length);
      const child = form.snapshots.find((s) => s.frameId === childFrameId && s.callId === main.callId && s.phase === main.phase);
      expect(child).toMatchObject({ isMainFrame: false, frameUrl: server.url('/panel.html') });
      expect(find(child.html, (n) => n === 'H2')?.[2]).toBe('Panel content');
    }
  });

  test('serializes what the page shows: no scripts, a base URL, the shadow root with its adopted sheet', () => {
    const last = form.snapshots.filter((s) => s.isMainFrame).pop();
    expect(last.doctype).toBe('html');
    expect(find(last.html, (n) => n.toUpperCase() === 'SCRIPT')).toBeUndefined();
    expect(find(last.html, (n, a) => n === 'BASE' && a.href === server.url('/index.html'))).toBeDefined();
    const badge = find(last.html, (n) => n === 'STATUS-BADGE')!;
    const shadow = badge.slice(2).find((c) => Array.isArray(c) && c[0] === 'template') as [string, Record<string, string>, ...Node[]];
    expect(shadow[1].__playwright_shadow_root_).toBe('open');
    expect(find(shadow, (_n, a) => (a.__playwright_style_sheet_ ?? '').includes('rgb(128, 0, 128)'))).toBeDefined();
    const body = find(last.html, (n) => n === 'BODY')!;
    expect(body[1].__playwright_custom_elements__).toBe('status-badge');
  });

  test("stores every snapshot's stylesheets, images and fonts, loaded during navigation, by sha1", async () => {
    const blobs = new Map<string, Buffer>();
    for (const name of form.names.filter((n) => n.startsWith('resources/'))) blobs.set(name, await form.zip.file(name)!.async('nodebuffer'));
    for (const [name, bytes] of blobs) expect(name).toMatch(new RegExp(`^resources/${createHash('sha1').update(bytes).digest('hex')}(\\.\\w+)?$`));

    const entryFor = (url: string) => form.network.map((l) => l.snapshot).filter((s) => s.request.url === url && s.response.status === 200);
    const navigationEnd = form.events.find((e) => e.type === 'after').endTime;
    const required = [server.url('/style.css'), server.url('/logo.svg'), server.url('/bg.svg'), ...(FONT_FILE ? [server.url('/font.ttf')] : [])];
    for (const url of required) {
      const [entry] = entryFor(url);
      expect(entry).toBeDefined();
      expect(blobs.has(entry.response.content._file)).toBe(true);
      // Loaded by the navigation, before any action ran.
      expect(entry._monotonicTime).toBeLessThan(navigationEnd);
    }
    const css = blobs.get(entryFor(server.url('/style.css'))[0].response.content._file)!.toString('utf8');
    expect(css).toContain('rgb(200, 30, 30)');

    // Every URL a snapshot references through a stylesheet link or an image
    // resolves to a recorded response whose body is in the archive.
    for (const snapshot of form.snapshots.filter((s) => s.frameUrl.startsWith('http'))) {
      const base = find(snapshot.html, (n) => n === 'BASE')![1].href;
      const refs = elements(snapshot.html)
        .map(([name, attrs]) => (name === 'LINK' && attrs.rel === 'stylesheet' ? attrs.href : name === 'IMG' ? attrs.__playwright_current_src__ : undefined))
        .filter((u): u is string => !!u);
      expect(refs.length).toBeGreaterThan(0);
      for (const ref of refs) {
        const entry = entryFor(new URL(ref, base).href).find((s) => s._monotonicTime < snapshot.timestamp);
        expect(entry).toBeDefined();
        expect(blobs.has(entry.response.content._file)).toBe(true);
      }
    }
    for (const frame of form.events.filter((e) => e.type === 'screencast-frame')) expect(blobs.has(frame.file)).toBe(true);
  });

  test('writes network entries as Playwright does and the XHR the click made', () => {
    const data = form.network.find((l) => l.snapshot.request.url === server.url('/data.json'));
    expect(data).toMatchObject({
      type: 'resource-snapshot',
      snapshot: {
        pageref: form.events[1].params.pageId,
        request: { method: 'GET', url: server.url('/data.json') },
        response: { status: 200, content: { mimeType: 'application/json' } },
        _resourceType: 'fetch',
      },
    });
    expect(Array.isArray(data.snapshot.request.headers)).toBe(true);
  });

  test('has screencast frames and a final frame after the last action', () => {
    const frames = form.events.filter((e) => e.type === 'screencast-frame');
    expect(frames.length).toBeGreaterThan(1);
    const lastAfter = form.events.filter((e) => e.type === 'after').pop();
    expect(frames[frames.length - 1].timestamp).toBeGreaterThan(lastAfter.endTime);
    for (const frame of frames) {
      expect(frame.width).toBe(VIEWPORT.width);
      expect(frame.height).toBe(VIEWPORT.height);
    }
  });

  test('records the console message the page logged', () => {
    const logged = form.events.find((e) => e.type === 'console' && e.text === 'submitting Ann');
    expect(logged).toMatchObject({ messageType: 'log', location: { url: server.url('/app.js') } });
  });
});

describe('what the recorder knows without asking the page', () => {
  const comparable = (snapshot: any) => {
    const { timestamp: _t, wallTime: _w, collectionTime: _c, pageId: _p, frameId: _f, ...rest } = snapshot;
    // Frame ids are the page's own: two pages' child frames differ by id only.
    return JSON.parse(JSON.stringify(rest).replace(/frame@[0-9A-F]+/g, 'frame@…'));
  };

  test("a fresh page's first snapshot (pageIsBlank) is the one the serializer writes of about:blank", async () => {
    const url = server.url('/index.html');
    const [known, asked] = await Promise.all([
      recordTrace(browser, url, [], [], { pageIsBlank: true }).then(readTraceZip),
      recordTrace(browser, url, [], [], {}).then(readTraceZip),
    ]);
    const first = (trace: ParsedTrace) => trace.snapshots.find((s) => s.isMainFrame && s.phase === 'before');
    expect(first(known).frameUrl).toBe('about:blank');
    expect(comparable(first(known))).toEqual(comparable(first(asked)));
    // Once navigated, the page is asked: the after snapshot is the loaded page.
    const after = known.snapshots.find((s) => s.isMainFrame && s.phase === 'after');
    expect(after.frameUrl).toBe(url);
    expect(comparable(after)).toEqual(comparable(asked.snapshots.find((s) => s.isMainFrame && s.phase === 'after')));
  });

  test('a frame added by an action is snapshotted and pointed at (the owner mapping is asked again)', async () => {
    const trace = await readTraceZip(
      await recordTrace(browser, server.url('/frames.html'), [
        { do: 'click', selector: '#add' },
        { do: 'wait_for_selector', selector: '#second' },
        // The owner is there at once; its srcdoc document is parsed a task later (CI under load once snapshotted it blank).
        { do: 'wait', ms: 250 },
      ]),
    );
    const last = trace.snapshots.filter((s) => s.isMainFrame).pop();
    const owners = elements(last.html).filter(([name]) => name === 'IFRAME');
    expect(owners.map(([, attrs]) => attrs.id)).toEqual(['second', 'first']);
    const children = trace.snapshots.filter((s) => !s.isMainFrame && s.callId === last.callId && s.phase === last.phase);
    expect(children).toHaveLength(2);
    for (const [, attrs] of owners) expect(children.map((c) => `/snapshot/${c.frameId}`)).toContain(attrs.src);
    const second = children.find((c) => `/snapshot/${c.frameId}` === owners[0][1].src);
    expect(JSON.stringify(second.html)).toContain('second frame');
  });

  test('one frame replaced by another: each snapshot points at the frame its one owner held then', async () => {
    const trace = await readTraceZip(
      await recordTrace(browser, server.url('/frames.html'), [
        { do: 'wait_for_selector', selector: '#first' },
        { do: 'click', selector: '#swap' },
        { do: 'wait_for_selector', selector: '#replacement' },
      ]),
    );
    const pointed = (main: ParsedTrace['snapshots'][number]) => {
      const owners = elements(main.html).filter(([name]) => name === 'IFRAME');
      expect(owners).toHaveLength(1);
      const child = trace.snapshots.find((s) => `/snapshot/${s.frameId}` === owners[0][1].src && s.callId === main.callId && s.phase === main.phase);
      expect(child).toBeDefined();
      return { id: owners[0][1].id, child };
    };
    const mains = trace.snapshots.filter((s) => s.isMainFrame && s.frameUrl === server.url('/frames.html'));
    const first = pointed(mains[0]);
    expect(first.id).toBe('first');
    expect(JSON.stringify(first.child.html)).toContain('Panel content');
    const last = pointed(mains[mains.length - 1]);
    expect(last.id).toBe('replacement');
    expect(JSON.stringify(last.child.html)).toContain('replacement frame');
    expect(last.child.frameId).not.toBe(first.child.frameId);
  });

  test('a page that paints nothing after its last action still ends its film strip on a frame after it', async () => {
    const trace = await readTraceZip(await recordTrace(browser, server.url('/panel.html'), [{ do: 'wait', ms: 20 }]));
    const frames = trace.events.filter((e) => e.type === 'screencast-frame');
    const lastAfter = trace.events.filter((e) => e.type === 'after').pop();
    expect(frames.length).toBeGreaterThan(0);
    expect(frames[frames.length - 1].timestamp).toBeGreaterThan(lastAfter.endTime);
  });

  test('with nothing painted since its newest frame, the strip ends on that frame again (the same stored image, no screenshot)', async () => {
    // Half a second for the static page's paints to arrive, then a last call that paints nothing.
    const trace = await readTraceZip(
      await recordTrace(browser, server.url('/panel.html'), [
        { do: 'wait', ms: 500 },
        { do: 'wait', ms: 20 },
      ]),
    );
    const frames = trace.events.filter((e) => e.type === 'screencast-frame');
    const lastAfter = trace.events.filter((e) => e.type === 'after').pop();
    const before = frames.filter((f) => f.timestamp <= lastAfter.endTime);
    expect(before.length).toBeGreaterThan(0);
    const final = frames[frames.length - 1];
    expect(final.timestamp).toBeGreaterThan(lastAfter.endTime);
    expect(final.file).toBe(before[before.length - 1].file);
    expect([final.width, final.height]).toEqual([before[before.length - 1].width, before[before.length - 1].height]);
  });
});

describe('redirects, failures, errors and late starts', () => {
  test('records a redirected navigation as two network entries and snapshots the final page', async () => {
    const trace = await readTraceZip(await recordTrace(browser, server.url('/moved'), [{ do: 'wait', ms: 10 }]));
    const moved = trace.network.find((l) => l.snapshot.request.url === server.url('/moved'))?.snapshot;
    expect(moved.response).toMatchObject({ status: 302, redirectURL: server.url('/index.html') });
    const landed = trace.network.find((l) => l.snapshot.request.url === server.url('/index.html'))?.snapshot;
    expect(landed.response.status).toBe(200);
    expect(landed._monotonicTime).toBeGreaterThanOrEqual(moved._monotonicTime);
    const goto = trace.events.find((e) => e.type === 'before' && e.method === 'goto');
    expect(goto.params.url).toBe(server.url('/moved'));
    const afterGoto = trace.snapshots.find((s) => s.callId === goto.callId && s.phase === 'after');
    expect(afterGoto.frameUrl).toBe(server.url('/index.html'));
  });

  test('records a failing action with its error, rethrows it, and records page errors and warnings', async () => {
    const failures: Error[] = [];
    const trace = await readTraceZip(
      await recordTrace(
        browser,
        server.url('/broken.html'),
        [
          { do: 'click', selector: '#missing' },
          { do: 'click', selector: '#boom' },
          { do: 'wait', ms: 150 },
        ],
        failures,
      ),
    );
    expect(failures).toHaveLength(1);
    const missing = trace.events.find((e) => e.type === 'before' && e.params.selector === '#missing');
    const after = trace.events.find((e) => e.type === 'after' && e.callId === missing.callId);
    expect(after.error.message).toBe(failures[0].message);
    expect(trace.events.find((e) => e.type === 'console' && e.messageType === 'warning')?.text).toBe('about to fail');
    const pageError = trace.events.find((e) => e.type === 'event' && e.method === 'pageError');
    expect(pageError.params.error.error).toMatchObject({ name: 'TypeError', message: 'boom from page' });
  });

  test('a recorder started after navigation still stores the stylesheet, from CSSOM', async () => {
    const page = await browser.newPage();
    try {
      await page.setViewport(VIEWPORT);
      await page.goto(server.url('/broken.html'));
      const recorder = await TraceRecorder.start(await page.createCDPSession(), await contextOptions(browser));
      await runTracedAction(recorder, page, { do: 'wait', ms: 10 });
      const trace = await readTraceZip(await recorder.finish());
      const sheet = trace.network.find((l) => l.snapshot.request.url === server.url('/style.css'));
      expect(sheet).toBeDefined();
      const css = await trace.zip.file(sheet.snapshot.response.content._file)!.async('string');
      expect(css).toContain('rgb(200, 30, 30)');
    } finally {
      await page.close();
    }
  });

  test('a page that stops answering (a JavaScript dialog is open) skips snapshots instead of hanging the capture', async () => {
    // A page blocked on alert() never answers Runtime.evaluate or
    // Page.captureScreenshot. This session answers setup calls and never
    // answers those two, so the outcome does not depend on dialog timing.
    const never = new Promise<never>(() => undefined);
    const blocked: CdpSession = {
      send: (method: string) => {
        if (method === 'Page.getFrameTree') return Promise.resolve({ frameTree: { frame: { id: 'MAIN' } } });
        if (method === 'Target.getTargetInfo') return Promise.resolve({ targetInfo: { targetId: 'TARGET' } });
        if (method === 'Page.createIsolatedWorld') return Promise.resolve({ executionContextId: 7 });
        if (method === 'Runtime.evaluate' || method === 'Page.captureScreenshot') return never;
        return Promise.resolve({});
      },
      on: () => undefined,
      off: () => undefined,
    };
    const recorder = await TraceRecorder.start(blocked, await contextOptions(browser), { stepTimeoutMs: 200 });
    await recorder.action(traceCallOf({ do: 'click', selector: '#ask' }), async () => undefined);
    const trace = await readTraceZip(await recorder.finish());
    const click = trace.events.find((e) => e.type === 'before' && e.method === 'click');
    const logs = trace.events.filter((e) => e.type === 'log' && e.callId === click.callId).map((e) => e.message);
    expect(logs).toEqual([
      expect.stringMatching(/^before snapshot failed: .*timed out/),
      expect.stringMatching(/^action snapshot failed: .*timed out/),
      expect.stringMatching(/^after snapshot failed: .*timed out/),
    ]);
    expect(trace.events.filter((e) => e.type === 'after' && e.callId === click.callId)).toHaveLength(1);
    expect(trace.events.filter((e) => e.type === 'screencast-frame')).toHaveLength(0);
  });

  test('dispose stops recording without bytes and finish cannot follow', async () => {
    const page = await browser.newPage();
    try {
      const recorder = await TraceRecorder.start(await page.createCDPSession(), await contextOptions(browser));
      await recorder.dispose();
      await expect(recorder.finish()).rejects.toThrow(/disposed/);
    } finally {
      await page.close();
    }
  });
});
