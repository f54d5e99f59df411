/**
 * The proof the archive is right: Playwright's trace viewer opens it. The
 * test records a trace with clicks, fills, typing, select_option, key
 * presses and waits, serves it with playwright-core's trace viewer server on
 * 127.0.0.1, loads the viewer in headless Chromium and reads what it shows.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Browser, Frame, Page } from 'puppeteer-core';
import { launchTestBrowser, type PageServer } from '../helpers/browser';
import { FONT_FILE, readTraceZip, recordTrace, serveFixtures, type ParsedTrace, type TestAction } from './harness';
import { startTraceViewer, type TraceViewer } from './viewer';

jest.setTimeout(180_000);

const ACTIONS: TestAction[] = [
  { do: 'fill', selector: '#name', value: 'Ann' },
  { do: 'type', selector: '#name', value: 'e' },
  { do: 'select_option', selector: '#plan', value: 'pro' },
  { do: 'press', selector: '#name', key: 'Enter' },
  { do: 'press', key: 'Tab' },
  { do: 'click', selector: '#submit' },
  { do: 'wait_for_selector', selector: '#status[data-done]' },
  { do: 'wait_for_state', state: 'done' },
  { do: 'wait', ms: 120 },
];

/** What the viewer's action list should show for each recorded call, in order. */
const EXPECTED_LIST: { title: string; subtitle?: string }[] = [
  { title: 'Navigate', subtitle: '/index.html' },
  { title: 'Fill "Ann"', subtitle: "locator('#name')" },
  { title: 'Type "e"', subtitle: "locator('#name')" },
  { title: 'Select option', subtitle: "locator('#plan')" },
  { title: 'Press "Enter"', subtitle: "locator('#name')" },
  { title: 'Press "Tab"' },
  { title: 'Click', subtitle: "locator('#submit')" },
  { title: 'Wait for selector', subtitle: "locator('#status[data-done]')" },
  { title: 'Wait for selector', subtitle: `locator('[data-state="done"]')` },
  { title: 'Wait for timeout' },
];

let browser: Browser;
let server: PageServer;
let viewer: TraceViewer;
let viewerPage: Page;
let trace: ParsedTrace;
let tmpDir: string;

beforeAll(async () => {
  [browser, server] = await Promise.all([launchTestBrowser(), serveFixtures()]);
  const failures: Error[] = [];
  const zip = await recordTrace(browser, server.url('/index.html'), ACTIONS, failures);
  expect(failures).toEqual([]);
  trace = await readTraceZip(zip);
  tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trace-viewer-'));
  const zipPath = path.join(tmpDir, 'interaction.trace.zip');
  fs.writeFileSync(zipPath, zip);
  viewer = await startTraceViewer(zipPath);
  expect(new URL(viewer.url).hostname).toBe('127.0.0.1');
  viewerPage = await browser.newPage();
  await viewerPage.setViewport({ width: 1280, height: 900 });
  await viewerPage.goto(viewer.url, { waitUntil: 'load' });
  await viewerPage.waitForFunction(
    (count) => document.querySelectorAll('.actions-tree-view .tree-view-entry').length >= count,
    { timeout: 60_000 },
    EXPECTED_LIST.length,
  );
});

afterAll(async () => {
  await viewerPage?.close().catch(() => undefined);
  await viewer?.close();
  await browser?.close();
  await server?.close();
  if (tmpDir) fs.rmSync(tmpDir, { recursive: true, force: true });
});

async function actionList(): Promise<{ title: string; subtitle: string; text: string }[]> {
  return viewerPage.$$eval('.actions-tree-view .tree-view-entry', (entries) =>
    entries.map((entry) => ({
      title: (entry.querySelector('.action-title-method')?.textContent ?? '').trim(),
      subtitle: (entry.querySelector('.action-title-subtitle')?.textContent ?? '').trim(),
      text: entry.textContent ?? '',
    })),
  );
}

/** Selects the n-th action and the snapshot tab, then returns the rendered snapshot frame. */
async function openSnapshot(index: number, tab: 'Action' | 'Before' | 'After'): Promise<Frame> {
  const callId = trace.events.filter((e) => e.type === 'before')[index].callId;
  const entries = await viewerPage.$$('.actions-tree-view .tree-view-entry');
  await entries[index].click();
  const tabs = await viewerPage.$$('.snapshot-tab .tabbed-pane-tab');
  for (const handle of tabs) {
    if ((await handle.evaluate((el) => el.textContent?.trim())) === tab) await handle.click();
  }
  const wanted = `/snapshot/${encodeURIComponent(callId)}?`;
  const phase = { Action: 'action', Before: 'before', After: 'after' }[tab];
  const frame = await waitFor(async () => {
    const visible = await viewerPage.$('iframe.snapshot-visible');
    const content = await visible?.contentFrame();
    const url = content?.url() ?? '';
    return url.includes(wanted) && url.includes(`phase=${phase}`) ? content : undefined;
  });
  await frame.waitForFunction(() => document.readyState === 'complete', { timeout: 30_000 });
  return frame;
}

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting for the trace viewer');
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('the action list shows every action with its title and selector, and its duration', async () => {
  const list = await actionList();
  expect(list).toHaveLength(EXPECTED_LIST.length);
  EXPECTED_LIST.forEach((expected, i) => {
    expect(list[i].title).toBe(expected.title);
    if (expected.subtitle) expect(list[i].subtitle).toContain(expected.subtitle);
    expect(list[i].text).toMatch(/\d+(\.\d+)?m?s/);
  });
});

test('the metadata tab shows the recorded browser and viewport', async () => {
  const tab = await waitFor(async () => {
    for (const handle of await viewerPage.$$('.tabbed-pane-tab')) {
      if ((await handle.evaluate((el) => el.textContent?.trim())) === 'Metadata') return handle;
    }
    return undefined;
  });
  await tab.click();
  const text = await waitFor(async () => {
    const t = await viewerPage.evaluate(() => document.body.innerText);
    return t.includes('engine:') ? t : undefined;
  });
  expect(text).toContain('chromium');
  expect(text).toMatch(/width:\s*800/);
  expect(text).toMatch(/height:\s*600/);
  for (const handle of await viewerPage.$$('.tabbed-pane-tab')) {
    if ((await handle.evaluate((el) => el.textContent?.trim())) === 'Actions') await handle.click();
  }
});

test("an action's after snapshot renders the page's text with its external stylesheet, images and font", async () => {
  const waitForState = EXPECTED_LIST.findIndex((e) => e.subtitle?.includes('data-state'));
  const frame = await openSnapshot(waitForState, 'After');
  const rendered = await frame.evaluate(async () => {
    await document.fonts.ready;
    const logo = document.getElementById('logo') as HTMLImageElement;
    if (!logo.complete) await new Promise((r) => logo.addEventListener('load', r, { once: true }));
    const badge = document.querySelector('status-badge')?.shadowRoot?.querySelector('span');
    return {
      text: document.body.innerText,
      titleColor: getComputedStyle(document.querySelector('.title')!).color,
      statusColor: getComputedStyle(document.getElementById('status')!).color,
      submitRadius: getComputedStyle(document.getElementById('submit')!).borderTopLeftRadius,
      logoWidth: logo.naturalWidth,
      badgeColor: badge ? getComputedStyle(badge).color : '',
      nameValue: (document.getElementById('name') as HTMLInputElement).value,
      planValue: (document.getElementById('plan') as HTMLSelectElement).value,
      fontLoaded: (() => {
        let loaded = false;
        document.fonts.forEach((f) => {
          if (f.family.includes('Trace Test Sans') && f.status === 'loaded') loaded = true;
        });
        return loaded;
      })(),
    };
  });
  expect(rendered.text).toContain('Choose a plan');
  expect(rendered.text).toContain('Thanks Anne, plan pro');
  // Rules that exist only in style.css, served from the archive.
  expect(rendered.titleColor).toBe('rgb(200, 30, 30)');
  expect(rendered.statusColor).toBe('rgb(0, 128, 0)');
  expect(rendered.submitRadius).toBe('8px');
  expect(rendered.logoWidth).toBe(32);
  expect(rendered.badgeColor).toBe('rgb(128, 0, 128)');
  expect(rendered.nameValue).toBe('Anne');
  expect(rendered.planValue).toBe('pro');
  if (FONT_FILE) expect(rendered.fontLoaded).toBe(true);

  // The same-origin iframe renders from its own snapshot, styled too.
  const panel = await waitFor(async () => {
    const child = frame.childFrames().find((f) => f.url().includes('frameId='));
    const ready = child && (await child.evaluate(() => document.readyState === 'complete' && !!document.querySelector('h2')));
    return ready ? child : undefined;
  });
  expect(await panel.$eval('h2', (el) => [el.textContent, getComputedStyle(el).color])).toEqual(['Panel content', 'rgb(200, 30, 30)']);
});

test('before and after snapshots of a fill differ by the filled value; the click snapshot marks its target', async () => {
  const fill = EXPECTED_LIST.findIndex((e) => e.title.startsWith('Fill'));
  const before = await openSnapshot(fill, 'Before');
  expect(await before.$eval('#name', (el) => (el as HTMLInputElement).value)).toBe('');
  expect(await before.$eval('.title', (el) => getComputedStyle(el).color)).toBe('rgb(200, 30, 30)');
  const after = await openSnapshot(fill, 'After');
  expect(await after.$eval('#name', (el) => (el as HTMLInputElement).value)).toBe('Ann');

  const click = EXPECTED_LIST.findIndex((e) => e.title === 'Click');
  const atClick = await openSnapshot(click, 'Action');
  // The viewer outlines the element recorded as the action's target.
  expect(await atClick.$eval('#submit', (el) => (el as HTMLElement).style.outline)).toContain('solid');
  expect(await atClick.evaluate(() => !!document.querySelector('x-pw-pointer'))).toBe(true);
});

test('the screencast film strip has frames the viewer can load', async () => {
  const frames = await viewerPage.$$eval('.film-strip-frame', (els) =>
    els.map((el) => (el as HTMLElement).style.backgroundImage.replace(/^url\("?|"?\)$/g, '')),
  );
  expect(frames.length).toBeGreaterThan(0);
  const unique = [...new Set(frames)];
  const loaded = await viewerPage.evaluate(
    async (urls) => {
      const out: { status: number; jpeg: boolean }[] = [];
      for (const url of urls) {
        const response = await fetch(url);
        const bytes = new Uint8Array(await response.arrayBuffer());
        out.push({ status: response.status, jpeg: bytes[0] === 0xff && bytes[1] === 0xd8 });
      }
      return out;
    },
    unique.slice(0, 5),
  );
  for (const frame of loaded) expect(frame).toEqual({ status: 200, jpeg: true });
});

test('the network and console tabs list what the page did', async () => {
  const openTab = async (name: string) => {
    for (const handle of await viewerPage.$$('.tabbed-pane-tab')) {
      const label = await handle.evaluate((el) => el.textContent?.trim() ?? '');
      if (label.startsWith(name)) {
        await handle.click();
        return;
      }
    }
    throw new Error(`no ${name} tab`);
  };
  const panelText = async (needle: string) =>
    waitFor(async () => {
      const text = await viewerPage.evaluate(() => document.body.innerText);
      return text.includes(needle) ? text : undefined;
    });
  await openTab('Network');
  const network = await panelText('style.css');
  for (const name of ['index.html', 'logo.svg', 'bg.svg', 'data.json']) expect(network).toContain(name);
  await openTab('Console');
  expect(await panelText('submitting Ann')).toContain('submitting Ann');
});
