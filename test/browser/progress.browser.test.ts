/**
 * One progress object per capture (src/browser/capture/progress.ts): its
 * signal ends the capture from outside, its step listener hears each step.
 * Units first (budget, caller's signal, listener), then through the bundled
 * provider attached to a test browser: a caller's signal that fires while an
 * action waits ends the capture at once — long before the action's 10 s
 * budget — naming the step, with its browser context closed and no bytes
 * returned; one that fires while the call waits for a browser ends it
 * without opening anything; and a listener hears the steps in order, the
 * ones a progress total counts (plannedSteps).
 */
import type { Browser } from 'puppeteer-core';
import { launchTestBrowser, servePages, type PageServer } from '../helpers/browser';
import { PAGES } from '../e2e/harness';
import { PuppeteerCaptureProvider } from '../../src/browser/capture/puppeteerProvider';
import { plannedSteps } from '../../src/browser/capture/captureAttempt';
import { CaptureOverrun, CaptureProgress, type StepReport } from '../../src/browser/capture/progress';
import { CaptureCancelled } from '../../src/common/failures';
import { parseCaptureContract, type CaptureRequestSnapshot } from '../../src/contract/captureContract';
import { parseRuntimeFields, type RuntimeFields } from '../../src/contract/toolArguments';

jest.setTimeout(120_000);

describe('CaptureProgress', () => {
  test('the budget running out aborts with CaptureOverrun naming the step under way, and no step starts after', async () => {
    const progress = new CaptureProgress(50);
    progress.enter('navigation', 'navigation to http://x/');
    await expect(progress.whenAborted()).rejects.toBeInstanceOf(CaptureOverrun);
    const reason = progress.signal.reason as CaptureOverrun;
    expect(reason.during).toBe('navigation to http://x/');
    expect(reason.budgetMs).toBe(50);
    expect(() => progress.enter('settle', 'the freeze after navigation')).toThrow(reason);
    expect(progress.during).toBe('navigation to http://x/');
  });

  test("the caller's signal cancels it, naming the step; the first reason wins", () => {
    const parent = new AbortController();
    const progress = new CaptureProgress(60_000, { parent: parent.signal });
    progress.enter('action', "actions[0] click '#go'", { index: 0, total: 1 });
    parent.abort();
    expect(progress.signal.reason).toBeInstanceOf(CaptureCancelled);
    expect((progress.signal.reason as Error).message).toBe("the capture was cancelled by its caller during actions[0] click '#go'; nothing was captured");
    progress.abort(new Error('later'));
    expect(progress.signal.reason).toBeInstanceOf(CaptureCancelled);
  });

  test('an already-aborted parent ends it at once; after finish() neither the budget nor the parent aborts it', async () => {
    const gone = new AbortController();
    gone.abort();
    expect(new CaptureProgress(60_000, { parent: gone.signal }).aborted).toBe(true);
    const parent = new AbortController();
    const progress = new CaptureProgress(20, { parent: parent.signal });
    progress.finish();
    parent.abort();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(progress.aborted).toBe(false);
  });

  test('the listener hears every step with its position; one that throws does not steer the capture', () => {
    const heard: StepReport[] = [];
    const progress = new CaptureProgress(60_000, {
      onStep: (report) => {
        heard.push(report);
        throw new Error('listener bug');
      },
    });
    progress.enter('action', "actions[1] wait 'x'", { index: 1, total: 2 });
    progress.finish();
    expect(heard).toEqual([
      { step: 'browser', during: 'the wait for a browser' },
      { step: 'action', during: "actions[1] wait 'x'", index: 1, total: 2 },
    ]);
  });
});

describe('through the bundled provider', () => {
  let browser: Browser;
  let pages: PageServer;
  let provider: PuppeteerCaptureProvider;

  const HOLD = '<!doctype html><body data-state="holding"><p id="here">waiting for #never</p></body>';

  beforeAll(async () => {
    browser = await launchTestBrowser();
    pages = await servePages(PAGES, {
      '/hold': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(HOLD);
      },
    });
    // One capture at a time, so a second call waits for a browser.
    provider = new PuppeteerCaptureProvider({
      flags: () => ({ wsEndpoints: [browser.wsEndpoint()] }),
      env: { ...process.env, DESIGN_PLAYBOOK_MAX_PARALLEL: '1' },
    });
  });

  afterAll(async () => {
    await provider?.close();
    await browser?.close();
    await pages?.close();
  });

  function call(url: string, extra: Record<string, unknown> = {}): { fields: RuntimeFields; request: CaptureRequestSnapshot } {
    const args = {
      schemaVersion: 1,
      url,
      type: 'screenshot',
      state: 'ready',
      artifact_path: 'evidence/x.png',
      viewport: { width: 800, height: 600, devicePixelRatio: 1, colorScheme: 'light' },
      ...extra,
    };
    const contract = parseCaptureContract(args);
    if (!contract.ok) throw new Error(contract.error);
    const parsed = parseRuntimeFields(args);
    if (!parsed.ok) throw new Error(parsed.error);
    return { fields: parsed.fields, request: contract.request };
  }

  /** Browser contexts besides the default one, as the browser itself lists them. */
  async function extraContexts(): Promise<string[]> {
    const session = await browser.target().createCDPSession();
    try {
      return (await session.send('Target.getBrowserContexts')).browserContextIds;
    } finally {
      await session.detach();
    }
  }

  const holdPages = () => browser.targets().filter((t) => t.type() === 'page' && t.url().endsWith('/hold'));

  async function until(condition: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  test("a caller's signal that fires while an action waits ends the capture at once, its context closed", async () => {
    const { fields, request } = call(pages.url('/hold'), { actions: [{ do: 'wait_for_selector', selector: '#never' }] });
    const cancel = new AbortController();
    const heard: StepReport[] = [];
    const outcome = provider.captureWithinLimits(fields, request, { signal: cancel.signal, onStep: (r) => heard.push(r) });
    outcome.catch(() => undefined);
    await until(() => heard.some((r) => r.step === 'action'), 'the action to start');
    await new Promise((resolve) => setTimeout(resolve, 300)); // the action is waiting now
    const cancelledAt = Date.now();
    cancel.abort();
    await expect(outcome).rejects.toThrow("the capture was cancelled by its caller during actions[0] wait_for_selector '#never'; nothing was captured");
    // At once, not at the end of the 10 s action budget.
    expect(Date.now() - cancelledAt).toBeLessThan(5_000);
    expect(await extraContexts()).toEqual([]);
    expect(holdPages()).toEqual([]);
  });

  test('a signal that fires while the call waits for a browser ends it without opening anything; the next capture works', async () => {
    const holder = new AbortController();
    const held = call(pages.url('/hold'), { actions: [{ do: 'wait_for_selector', selector: '#never' }] });
    const first = provider.captureWithinLimits(held.fields, held.request, { signal: holder.signal });
    first.catch(() => undefined);
    await until(() => holdPages().length === 1, 'the first capture to hold the only slot');
    const queued = new AbortController();
    const heard: StepReport[] = [];
    const plain = call(pages.url('/plain.html'));
    const second = provider.captureWithinLimits(plain.fields, plain.request, { signal: queued.signal, onStep: (r) => heard.push(r) });
    second.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 200));
    queued.abort();
    await expect(second).rejects.toThrow('the capture was cancelled by its caller during the wait for a browser; nothing was captured');
    holder.abort();
    await expect(first).rejects.toBeInstanceOf(CaptureCancelled);
    // The queued call never started an attempt: it opened no context and reported no step.
    expect(heard).toEqual([]);
    await until(() => holdPages().length === 0, 'the held page to close');
    expect(await extraContexts()).toEqual([]);
    const next = await provider.captureWithinLimits(plain.fields, plain.request);
    expect(next.payload.result).toBe('captured');
    expect(next.bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  test('an already-cancelled call starts nothing', async () => {
    const cancel = new AbortController();
    cancel.abort();
    const { fields, request } = call(pages.url('/plain.html'));
    await expect(provider.captureWithinLimits(fields, request, { signal: cancel.signal })).rejects.toBeInstanceOf(CaptureCancelled);
    expect(await extraContexts()).toEqual([]);
  });

  test('the step listener hears the steps in order, each action with its position', async () => {
    const heard: StepReport[] = [];
    const { fields, request } = call(pages.url('/plain.html'), {
      actions: [
        { do: 'wait', ms: 20 },
        { do: 'wait_for_selector', selector: 'body' },
      ],
    });
    const outcome = await provider.captureWithinLimits(fields, request, { onStep: (r) => heard.push(r) });
    expect(outcome.payload.result).toBe('captured');
    expect(heard.map((r) => [r.step, r.during, r.index, r.total])).toEqual([
      ['browser', 'the wait for a browser', undefined, undefined],
      ['context', 'opening a browser context', undefined, undefined],
      ['setup', "the page's set-up (viewport, colour scheme, clock)", undefined, undefined],
      ['start', 'the start of the screenshot capture', undefined, undefined],
      ['navigation', `navigation to ${pages.url('/plain.html')}`, undefined, undefined],
      ['settle', 'the freeze after navigation', undefined, undefined],
      ['action', 'actions[0] wait', 0, 2],
      ['action', "actions[1] wait_for_selector 'body'", 1, 2],
      ['settle', 'the freeze after the actions', undefined, undefined],
      ['capture', 'the screenshot capture', undefined, undefined],
      ['probe', 'the render-token probe', undefined, undefined],
      ['observed-state', 'the observed_state read', undefined, undefined],
    ]);
    // The plan a progress total is counted from is the steps as they ran.
    expect(plannedSteps(fields)).toEqual(heard.map((r) => r.step));
  });

  test.each(['a11y tree', 'interaction trace'])('%s: the planned steps are the steps the capture runs', async (type) => {
    const heard: StepReport[] = [];
    const leaf = type === 'a11y tree' ? 'x.json' : 'x.trace.zip';
    const { fields, request } = call(pages.url('/plain.html'), { type, artifact_path: `evidence/${leaf}`, actions: [{ do: 'wait', ms: 20 }] });
    const outcome = await provider.captureWithinLimits(fields, request, { onStep: (r) => heard.push(r) });
    expect(outcome.payload.result).toBe('captured');
    expect(plannedSteps(fields)).toEqual(heard.map((r) => r.step));
  });
});
