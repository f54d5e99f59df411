/**
 * Test-side pieces for trace tests: the fixture server, a small action
 * driver that runs puppeteer actions inside recorder.action (as the
 * provider will), and a reader that opens the ZIP the recorder produced.
 */
import * as fs from 'fs';
import * as path from 'path';
import JSZip from 'jszip';
import type { Browser, Page } from 'puppeteer-core';
import { servePages, type PageServer } from '../helpers/browser';
import { TraceRecorder, type TraceContextOptions, type TraceRecorderTuning } from '../../cdp/trace/recorder';
import { traceCallOf } from '../../src/contract/actions';

export const FIXTURES = path.join(__dirname, 'fixtures');

/** A system font served as the page's web font, when the machine has one. */
export const FONT_FILE = ['/usr/share/fonts/truetype/dejavu/DejaVuSans-ExtraLight.ttf', '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf'].find((f) =>
  fs.existsSync(f),
);

export function serveFixtures(): Promise<PageServer> {
  return servePages(FIXTURES, {
    '/moved': (_req, res) => {
      res.writeHead(302, { location: '/index.html' });
      res.end();
    },
    '/font.ttf': (_req, res) => {
      if (!FONT_FILE) {
        res.writeHead(404);
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'font/ttf' });
      fs.createReadStream(FONT_FILE).pipe(res);
    },
  });
}

export type TestAction =
  | { do: 'click'; selector: string }
  | { do: 'fill'; selector: string; value: string }
  | { do: 'type'; selector: string; value: string }
  | { do: 'press'; key: string; selector?: string }
  | { do: 'select_option'; selector: string; value: string }
  | { do: 'wait_for_selector'; selector: string }
  | { do: 'wait_for_state'; state: string; selector?: string }
  | { do: 'wait'; ms: number };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function centerOf(page: Page, selector: string): Promise<{ x: number; y: number } | undefined> {
  const box = await (await page.$(selector))?.boundingBox();
  return box ? { x: box.x + box.width / 2, y: box.y + box.height / 2 } : undefined;
}

/** Runs one action the way the provider does, wrapped in the recorder. */
export async function runTracedAction(recorder: TraceRecorder, page: Page, action: TestAction): Promise<void> {
  switch (action.do) {
    case 'click':
      return recorder.action(
        traceCallOf(action),
        () => page.click(action.selector),
        () => centerOf(page, action.selector),
      );
    case 'fill':
      return recorder.action(traceCallOf(action), async () => {
        await page.$eval(
          action.selector,
          (el, value) => {
            (el as HTMLInputElement).value = value;
            el.dispatchEvent(new Event('input', { bubbles: true }));
            el.dispatchEvent(new Event('change', { bubbles: true }));
          },
          action.value,
        );
      });
    case 'type':
      return recorder.action(traceCallOf(action), async () => {
        await page.click(action.selector);
        await page.keyboard.type(action.value);
      });
    case 'press':
      return recorder.action(traceCallOf(action), async () => {
        if (action.selector) await page.focus(action.selector);
        await page.keyboard.press(action.key as Parameters<Page['keyboard']['press']>[0]);
      });
    case 'select_option':
      return recorder.action(traceCallOf(action), async () => {
        await page.select(action.selector, action.value);
      });
    case 'wait_for_selector':
      return recorder.action(traceCallOf(action), async () => {
        await page.waitForSelector(action.selector, { timeout: 10_000 });
      });
    case 'wait_for_state':
      return recorder.action(traceCallOf(action), async () => {
        await page.waitForSelector(`${action.selector ?? ''}[data-state="${action.state}"]`, { timeout: 10_000 });
      });
    case 'wait':
      return recorder.action(traceCallOf(action), () => sleep(action.ms));
  }
}

export const VIEWPORT = { width: 800, height: 600 };

export async function contextOptions(browser: Browser): Promise<TraceContextOptions> {
  const version = await browser.version();
  return {
    viewport: VIEWPORT,
    deviceScaleFactor: 1,
    colorScheme: 'light',
    browserName: 'chromium',
    browserVersion: version.replace(/^[^/]*\//, ''),
    userAgent: await browser.userAgent(),
  };
}

/**
 * Opens a fresh page, starts the recorder before navigating (as the
 * provider must), runs the actions and returns the archive bytes.
 * `failures` collects errors thrown by actions (they are also in the trace).
 */
export async function recordTrace(
  browser: Browser,
  url: string,
  actions: TestAction[],
  failures: Error[] = [],
  tuning: TraceRecorderTuning = {},
): Promise<Buffer> {
  const page = await browser.newPage();
  try {
    await page.setViewport(VIEWPORT);
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
    const session = await page.createCDPSession();
    const recorder = await TraceRecorder.start(session, await contextOptions(browser), tuning);
    try {
      await recorder.navigation(url, async () => {
        await page.goto(url, { waitUntil: 'load' });
      });
      for (const action of actions) {
        try {
          await runTracedAction(recorder, page, action);
        } catch (error) {
          failures.push(error as Error);
        }
      }
      return await recorder.finish();
    } catch (error) {
      await recorder.dispose();
      throw error;
    }
  } finally {
    await page.close();
  }
}

export interface ParsedTrace {
  zip: JSZip;
  names: string[];
  traceLines: string[];
  events: any[];
  network: any[];
  /** Frame snapshots in trace order with back-references resolved. */
  snapshots: any[];
}

type RawNode = string | [[number, number]] | [string, Record<string, string>, ...RawNode[]];

/**
 * Resolves the `[[snapshotsAgo, nodeIndex]]` back-references of every
 * frame snapshot, following the viewer's rules (per-frame snapshot order,
 * post-order numbering of literal nodes), and returns full trees in order.
 */
export function expandSnapshotTrees(events: any[]): any[] {
  const byFrame = new Map<string, RawNode[]>();
  const literalNodes = (html: RawNode): RawNode[] => {
    const out: RawNode[] = [];
    const visit = (n: RawNode) => {
      if (typeof n === 'string') out.push(n);
      else if (typeof n[0] === 'string') {
        for (const child of n.slice(2) as RawNode[]) visit(child);
        out.push(n);
      }
    };
    visit(html);
    return out;
  };
  const expanded: any[] = [];
  for (const event of events.filter((e) => e.type === 'frame-snapshot')) {
    const list = byFrame.get(event.snapshot.frameId) ?? [];
    byFrame.set(event.snapshot.frameId, list);
    list.push(event.snapshot.html);
    const resolve = (n: RawNode, at: number): RawNode => {
      if (typeof n === 'string') return n;
      if (Array.isArray(n[0])) {
        const [ago, nodeIndex] = n[0] as [number, number];
        const target = literalNodes(list[at - ago])[nodeIndex];
        if (ago < 0 || at - ago < 0 || target === undefined) throw new Error(`dangling reference [[${ago}, ${nodeIndex}]]`);
        return resolve(target, at - ago);
      }
      const [name, attrs, ...children] = n as [string, Record<string, string>, ...RawNode[]];
      return [name, attrs, ...children.map((c) => resolve(c, at))];
    };
    expanded.push({ ...event.snapshot, html: resolve(event.snapshot.html, list.length - 1) });
  }
  return expanded;
}

export async function readTraceZip(bytes: Buffer): Promise<ParsedTrace> {
  const zip = await JSZip.loadAsync(bytes);
  const names = Object.keys(zip.files).filter((n) => !zip.files[n].dir);
  const traceText = (await zip.file('trace.trace')?.async('string')) ?? '';
  const networkText = (await zip.file('trace.network')?.async('string')) ?? '';
  const traceLines = traceText.split('\n').filter((l) => l.length > 0);
  const events = traceLines.map((l) => JSON.parse(l));
  return {
    zip,
    names,
    traceLines,
    events,
    snapshots: expandSnapshotTrees(events),
    network: networkText
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => JSON.parse(l)),
  };
}

/** The typical four-action scenario: fill, select, press, click, then wait for the result. */
export const FORM_ACTIONS: TestAction[] = [
  { do: 'fill', selector: '#name', value: 'Ann' },
  { do: 'select_option', selector: '#plan', value: 'pro' },
  { do: 'press', selector: '#name', key: 'Enter' },
  { do: 'click', selector: '#submit' },
];
