/**
 * The bundled BrowserAdapter: Puppeteer + raw CDP. One capture =
 *   own browser context -> emulation -> navigation -> freeze -> actions ->
 *   freeze again -> the capture type's bytes -> observed_state -> context closed.
 * Captures run in parallel up to DESIGN_PLAYBOOK_MAX_PARALLEL (the rest
 * queue), each within DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS; a capture that runs
 * out of budget (a page hanging its main thread) has its context closed from
 * the browser side, and the server keeps serving.
 */
import type { BrowserContext, CDPSession } from 'puppeteer';
import type { AdapterOutcome, BrowserAdapter, CaptureJob } from './bundledProvider';
import { BrowserSession, withTimeout } from './browserSession';
import { Limiter } from './limiter';
import { captureTimeoutMs, fixedTime, maxParallel } from './options';
import { PageClock, fixedTimeWarning } from './pageClock';
import { emulate, navigate } from './pageSetup';
import { applyFreeze } from './freeze';
import { runActions } from './actions';
import { readObservedState } from './observedState';
import { CAPTURE_TYPE_MODULES, type CaptureTypeRun } from './captureTypes';

/** Each cleanup step's limit, so a stuck page cannot hold the reply. */
const CLEANUP_STEP_MS = 5_000;

class CaptureAborted extends Error {
  constructor() {
    super('capture aborted');
    this.name = 'CaptureAborted';
  }
}

/** One capture's page and what it opened, so a budget overrun can tear it down from outside. */
class CaptureRun {
  stage = 'waiting for the browser';
  private aborted = false;
  private context: BrowserContext | null = null;
  private cdp: CDPSession | null = null;
  private typeRun: CaptureTypeRun | null = null;
  private cleaned: Promise<void> | null = null;
  readonly warnings: string[] = [];

  constructor(
    private readonly session: BrowserSession,
    private readonly job: CaptureJob,
  ) {}

  private check(): void {
    if (this.aborted) throw new CaptureAborted();
  }

  async execute(): Promise<AdapterOutcome> {
    const { job } = this;
    const { fields, request } = job;
    const browser = await this.session.acquire();
    this.check();
    this.stage = 'opening a browser context';
    const opened = await this.session.newContextAndPage(browser);
    this.context = opened.context;
    const page = opened.page;
    this.check();
    await emulate(page, request.viewport);
    this.cdp = await page.createCDPSession();
    this.check();
    const fixed = fixedTime();
    if (request.freeze.enabled) {
      await PageClock.install(page, this.cdp, fixed);
      if (fixed) this.warnings.push(fixedTimeWarning(fixed));
    } else if (fixed) {
      this.warnings.push(`fixed clock not applied: freeze.enabled is false, so the page ran on the wall clock (${fixed.source} is set)`);
    }
    this.check();
    this.stage = `starting the ${fields.type} capture`;
    const module = CAPTURE_TYPE_MODULES[fields.type];
    if (!module) throw new Error(`capture type '${fields.type}' is not available in this build`);
    const typeRun = (this.typeRun = await module.start({ browser, page, cdp: this.cdp, job }));
    this.check();

    this.stage = `navigating to ${fields.url}`;
    const go = () => navigate(page, fields.url, request.freeze);
    if (typeRun.navigate) await typeRun.navigate(fields.url, go);
    else await go();
    this.check();
    this.stage = 'freezing the page after navigation';
    this.warnings.push(...(await applyFreeze(page, request.freeze)));
    this.check();
    if (fields.actions.length) {
      await runActions(page, fields.actions, {
        session: this.cdp,
        wrap: async (index, action, run) => {
          this.check();
          this.stage = `running actions[${index}] ${action.do}`;
          if (typeRun.wrapAction) await typeRun.wrapAction(index, action, run);
          else await run();
        },
      });
      this.check();
      this.stage = 'freezing the page after the actions';
      this.warnings.push(...(await applyFreeze(page, request.freeze)));
      this.check();
    }
    this.stage = `capturing the ${fields.type}`;
    const output = await typeRun.finish();
    this.check();
    this.stage = 'reading observed_state';
    const observedState = await readObservedState(page);
    const outcome: AdapterOutcome = { bytes: output.bytes, observedState };
    if (output.renderTokens !== undefined) outcome.renderTokens = output.renderTokens;
    if (output.pageFacts !== undefined) outcome.pageFacts = output.pageFacts;
    const warnings = [...new Set([...this.warnings, ...(output.warnings ?? [])])];
    if (warnings.length) outcome.warnings = warnings;
    return outcome;
  }

  abort(): void {
    this.aborted = true;
  }

  /**
   * Idempotent: closes the context first — the browser disposes it even when
   * its renderer hangs, and every call still waiting on that page then fails
   * at once — then releases the capture type and the CDP session (bounded).
   */
  cleanup(): Promise<void> {
    if (!this.cleaned) {
      this.cleaned = (async () => {
        if (this.context) await this.session.closeContext(this.context);
        await withTimeout(this.typeRun?.dispose() ?? Promise.resolve(), CLEANUP_STEP_MS, 'disposing the capture type').catch(() => undefined);
        await withTimeout(this.cdp?.detach() ?? Promise.resolve(), CLEANUP_STEP_MS, 'detaching the CDP session').catch(() => undefined);
      })();
    }
    return this.cleaned;
  }

  /**
   * After an overrun the pipeline may still open a context (it was mid-await);
   * once it settles, whatever it opened is closed. Closing twice is harmless:
   * the session skips contexts it already closed.
   */
  async cleanupLate(): Promise<void> {
    await this.cleanup();
    await withTimeout(this.typeRun?.dispose() ?? Promise.resolve(), CLEANUP_STEP_MS, 'disposing the capture type').catch(() => undefined);
    if (this.context) await this.session.closeContext(this.context);
  }
}

export interface PuppeteerAdapterOptions {
  session?: BrowserSession;
  env?: NodeJS.ProcessEnv;
}

export class PuppeteerAdapter implements BrowserAdapter {
  readonly acceptsDesign = true;
  readonly session: BrowserSession;
  private readonly limiter: Limiter;
  private readonly env: NodeJS.ProcessEnv;

  constructor(options: PuppeteerAdapterOptions = {}) {
    this.env = options.env ?? process.env;
    this.session = options.session ?? new BrowserSession(undefined, this.env);
    this.limiter = new Limiter(maxParallel(this.env));
  }

  async captureAndProbe(job: CaptureJob): Promise<AdapterOutcome> {
    const release = await this.limiter.acquire();
    try {
      return await this.runWithinBudget(job);
    } finally {
      release();
      this.session.prepareSpare();
    }
  }

  private async runWithinBudget(job: CaptureJob): Promise<AdapterOutcome> {
    const budgetMs = captureTimeoutMs(this.env);
    const run = new CaptureRun(this.session, job);
    const generation = this.session.generation;
    let timer: NodeJS.Timeout | undefined;
    let overran = false;
    const work = run.execute();
    const overrun = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        overran = true;
        run.abort();
        reject(
          new Error(
            `capture did not finish within the ${budgetMs} ms whole-capture budget (DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS) while ${run.stage}; ` +
              'the page may be hanging its main thread. Its browser context was closed; nothing was captured',
          ),
        );
      }, budgetMs);
    });
    try {
      return await Promise.race([work, overrun]);
    } catch (err) {
      throw this.explain(err, generation);
    } finally {
      clearTimeout(timer);
      await run.cleanup();
      if (overran) {
        // The pipeline may still be between awaits; whatever it opens next is closed too.
        work.then(
          () => run.cleanupLate(),
          () => run.cleanupLate(),
        );
      }
    }
  }

  /** Turns "Target closed"-style errors into what happened: the browser went away. */
  private explain(err: unknown, generation: number): Error {
    const error = err instanceof Error ? err : new Error(String(err));
    if (this.session.generation === generation) return error;
    const target = this.session.attachTarget();
    const message = target
      ? `the attached browser at ${target.url} went away during the capture (${error.message}); the next capture reconnects`
      : `the browser exited during the capture — crashed or killed (${error.message}); the next capture launches a new one`;
    return new Error(message);
  }

  async close(): Promise<void> {
    await this.session.shutdown();
  }
}

let defaultAdapter: PuppeteerAdapter | null = null;

/** The process-wide adapter the bundled provider uses; closed by the server's shutdown hooks. */
export function defaultPuppeteerAdapter(): PuppeteerAdapter {
  if (!defaultAdapter) {
    defaultAdapter = new PuppeteerAdapter();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { onShutdown } = require('../server') as typeof import('../server');
    onShutdown(() => closeDefaultAdapter());
  }
  return defaultAdapter;
}

/** Closes the default adapter's browser (the CLI calls this when its command is done). */
export async function closeDefaultAdapter(): Promise<void> {
  const adapter = defaultAdapter;
  defaultAdapter = null;
  await adapter?.close();
}
