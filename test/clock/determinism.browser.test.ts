/**
 * Deterministic evidence against a real Chromium, in-process through the
 * library API (the bundled provider): pages that move by script give one PNG,
 * one sidecar and one aria text in five captures with a fixed clock; without
 * it, wherever they print no date and draw no randomness; freeze.enabled
 * false leaves the page on the wall clock; timer-driven actions still work.
 */
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { executeCapturePlan, closeBundledBrowser } from '../../src/index';
import { launchTestBrowser, servePages, type PageServer } from '../helpers/browser';
import { captureArgs, makeRunRoot } from '../e2e/harness';

const PAGES = path.join(__dirname, 'pages');
const FIXED = '2026-01-01T09:00:00Z';
const CAPTURES = 5;
// Five real captures per case: generous budgets, as a loaded machine slows each one.
jest.setTimeout(300_000);

let server: PageServer;
let root: string;
let clip: Buffer | null = null;
let clipProblem = '';
let counter = 0;

/** A one-second looping WebM, recorded by the system Chromium itself (no network, no encoder on the machine). */
async function recordClip(): Promise<Buffer> {
  const browser = await launchTestBrowser();
  try {
    const page = await browser.newPage();
    const base64 = await page.evaluate(async () => {
      const canvas = document.createElement('canvas');
      canvas.width = 160;
      canvas.height = 120;
      const ctx = canvas.getContext('2d')!;
      const recorder = new MediaRecorder(canvas.captureStream(30), { mimeType: 'video/webm;codecs=vp8' });
      const chunks: Blob[] = [];
      recorder.ondataavailable = (e) => chunks.push(e.data);
      let frame = 0;
      const draw = () => {
        ctx.fillStyle = `hsl(${(frame * 12) % 360},80%,50%)`;
        ctx.fillRect(0, 0, 160, 120);
        ctx.fillStyle = '#000';
        ctx.font = '40px sans-serif';
        ctx.fillText(String(frame++), 50, 80);
      };
      draw();
      recorder.start();
      const timer = setInterval(draw, 33);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      clearInterval(timer);
      const stopped = new Promise((resolve) => (recorder.onstop = resolve));
      recorder.stop();
      await stopped;
      const bytes = new Uint8Array(await new Blob(chunks).arrayBuffer());
      let text = '';
      for (const byte of bytes) text += String.fromCharCode(byte);
      return btoa(text);
    });
    return Buffer.from(base64, 'base64');
  } finally {
    await browser.close();
  }
}

beforeAll(async () => {
  try {
    clip = await recordClip();
    if (clip.length < 1000) throw new Error(`the recorded clip has only ${clip.length} bytes`);
  } catch (err) {
    clip = null;
    clipProblem = (err as Error).message;
  }
  server = await servePages(PAGES, {
    '/clip.webm': (_req, res) => {
      res.writeHead(clip ? 200 : 404, { 'content-type': 'video/webm' });
      res.end(clip ?? '');
    },
  });
  root = makeRunRoot('clock');
}, 120_000);

afterAll(async () => {
  delete process.env.DESIGN_PLAYBOOK_FIXED_TIME;
  await closeBundledBrowser();
  await server?.close();
});

afterEach(() => {
  delete process.env.DESIGN_PLAYBOOK_FIXED_TIME;
});

const sha = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

interface Captured {
  artifact: string;
  sidecar?: string;
  warnings: string[];
  observedState: string;
}

async function capture(page: string, extra: Record<string, unknown> = {}): Promise<Captured> {
  const type = (extra.type as string) ?? 'screenshot';
  const leaf = `${path.basename(page, '.html')}-${counter++}.${type === 'screenshot' ? 'png' : 'json'}`;
  const result = await executeCapturePlan(
    captureArgs(root, server.url(page), leaf, { viewport: { width: 480, height: 360, devicePixelRatio: 1, colorScheme: 'light' }, ...extra }),
  );
  expect(result.error).toBe('');
  expect(result.result).toBe('captured');
  const sidecar = result.written_path.replace(/\.png$/, '.probe.json');
  return {
    artifact: result.written_path,
    sidecar: type === 'screenshot' ? sidecar : undefined,
    warnings: result.warnings,
    observedState: result.observed_state,
  };
}

/** Captures `times` times; returns the distinct artifact and sidecar hashes. */
async function distinct(page: string, extra: Record<string, unknown> = {}, times = CAPTURES) {
  const artifacts = new Set<string>();
  const sidecars = new Set<string>();
  const runs: Captured[] = [];
  for (let i = 0; i < times; i++) {
    const run = await capture(page, extra);
    runs.push(run);
    artifacts.add(sha(run.artifact));
    if (run.sidecar) sidecars.add(sha(run.sidecar));
  }
  return { artifacts: artifacts.size, sidecars: sidecars.size, runs };
}

const readyAfterTimer = { actions: [{ do: 'wait_for_state', state: 'ready' }] };

describe('with DESIGN_PLAYBOOK_FIXED_TIME', () => {
  beforeEach(() => {
    process.env.DESIGN_PLAYBOOK_FIXED_TIME = FIXED;
  });

  test.each([
    ['raf-canvas.html', {}],
    ['random-tiles.html', {}],
    ['interval-clock.html', {}],
    ['delayed-ready.html', readyAfterTimer],
  ])('%s: five screenshots give one PNG and one sidecar', async (page, extra) => {
    const { artifacts, sidecars, runs } = await distinct(page, extra);
    expect({ artifacts, sidecars }).toEqual({ artifacts: 1, sidecars: 1 });
    expect(runs[0].warnings).toContain(
      `fixed clock: the page's Date started at 2026-01-01T09:00:00.000Z and Math.random was seeded (DESIGN_PLAYBOOK_FIXED_TIME)`,
    );
  });

  test.each([
    ['raf-canvas.html', {}],
    ['random-tiles.html', {}],
    ['interval-clock.html', {}],
    ['delayed-ready.html', readyAfterTimer],
  ])('%s: five a11y tree captures give one aria text', async (page, extra) => {
    const { artifacts, runs } = await distinct(page, { type: 'a11y tree', ...extra });
    expect(artifacts).toBe(1);
    const tree = JSON.parse(fs.readFileSync(runs[0].artifact, 'utf8')).tree as string;
    if (page === 'interval-clock.html') expect(tree).toContain('time: 09:00:05.000');
    if (page === 'delayed-ready.html') expect(tree).toContain('Ready after 400 ms');
  });

  test('the page sees the fixed instant and virtual time: the clock text and the elapsed time are the settled ones', async () => {
    const { runs } = await distinct('interval-clock.html', { type: 'a11y tree' }, 1);
    const tree = JSON.parse(fs.readFileSync(runs[0].artifact, 'utf8')).tree as string;
    // A tick every 10 ms never comes to rest: the settle stops at its bound, 5000 ms after load.
    expect(tree).toContain('status: "500"');
    expect(tree).toContain('09:00:05.000');
  });

  test('a looping video pauses on its first frame', async () => {
    if (!clip) {
      console.warn(`skipped: the system Chromium could not record a WebM clip offline (${clipProblem})`);
      return;
    }
    const { artifacts, runs } = await distinct('video.html');
    expect(artifacts).toBe(1);
    expect(runs[0].observedState).toBe('ready');
  });
});

describe('without a fixed clock', () => {
  test.each([
    ['raf-canvas.html', {}],
    ['delayed-ready.html', readyAfterTimer],
  ])('%s (no date, no randomness): five screenshots give one PNG', async (page, extra) => {
    const { artifacts, sidecars, runs } = await distinct(page, extra);
    expect({ artifacts, sidecars }).toEqual({ artifacts: 1, sidecars: 1 });
    expect(runs[0].warnings.some((w) => w.startsWith('fixed clock'))).toBe(false);
  });

  test('pages see the real date', async () => {
    const before = Date.now();
    const { runs } = await distinct('wall-clock.html', { type: 'a11y tree' }, 1);
    const shown = Number(/Now: (\d+)/.exec(fs.readFileSync(runs[0].artifact, 'utf8'))![1]);
    expect(shown).toBeGreaterThanOrEqual(before);
    expect(shown).toBeLessThanOrEqual(Date.now());
  });
});

describe('freeze.enabled false', () => {
  test('the page runs on the wall clock: Date.now() differs between captures, even with a fixed clock set', async () => {
    process.env.DESIGN_PLAYBOOK_FIXED_TIME = FIXED;
    const shown: number[] = [];
    let warnings: string[] = [];
    for (let i = 0; i < 2; i++) {
      const run = await capture('wall-clock.html', { type: 'a11y tree', freeze: { enabled: false } });
      shown.push(Number(/Now: (\d+)/.exec(fs.readFileSync(run.artifact, 'utf8'))![1]));
      warnings = run.warnings;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(shown[0]).not.toBe(shown[1]);
    expect(shown[0]).toBeGreaterThan(Date.parse(FIXED));
    expect(warnings).toContain('fixed clock not applied: freeze.enabled is false, so the page ran on the wall clock (DESIGN_PLAYBOOK_FIXED_TIME is set)');
  });

  test('script animation keeps running on the wall clock', async () => {
    const { artifacts } = await distinct('raf-canvas.html', { freeze: { enabled: false }, actions: [{ do: 'wait', ms: 50 }] }, 3);
    expect(artifacts).toBeGreaterThan(1);
  });
});

describe('actions that depend on timers behave as before', () => {
  const actions = [
    { do: 'type', selector: '#q', value: 'lamps' },
    { do: 'wait_for_state', state: 'searched' },
    { do: 'click', selector: '#more' },
    { do: 'wait_for_state', state: 'open', selector: '#details' },
  ];
  test.each([true, false])('freeze.enabled %p: the debounced search and the delayed reveal both land', async (enabled) => {
    const run = await capture('timer-actions.html', { type: 'a11y tree', freeze: { enabled }, actions });
    const tree = JSON.parse(fs.readFileSync(run.artifact, 'utf8')).tree as string;
    expect(tree).toContain('Results for lamps');
    expect(tree).toContain('heading "Details" [level=2]');
    expect(run.observedState).toBe('searched');
  });

  test('a wait that never comes true still fails with the action budget wording', async () => {
    const result = await executeCapturePlan(
      captureArgs(root, server.url('timer-actions.html'), `never-${counter++}.png`, { actions: [{ do: 'wait_for_selector', selector: '#nothing' }] }),
    );
    expect(result.result).toBe('failed');
    expect(result.error).toMatch(/^actions\[0\] wait_for_selector '#nothing' failed: no element matches the selector within \d+ ms/);
  }, 30_000);

  test("wait {ms} lets exactly that much of the page's time pass", async () => {
    process.env.DESIGN_PLAYBOOK_FIXED_TIME = FIXED;
    const run = await capture('interval-clock.html', { type: 'a11y tree', actions: [{ do: 'wait', ms: 500 }] });
    const tree = JSON.parse(fs.readFileSync(run.artifact, 'utf8')).tree as string;
    // 5000 ms settled after load (the bound: the page ticks every 10 ms), 500 ms waited, 5000 ms settled after the actions.
    expect(tree).toContain('status: "1050"');
    expect(tree).toContain('09:00:10.500');
  });
});
