/**
 * The bundled capture provider: Puppeteer + raw CDP. One capture =
 *   own browser context -> emulation -> navigation -> freeze -> actions ->
 *   freeze again -> the capture type's bytes -> observed_state -> context closed.
 * Captures run on the least-loaded browser of the pool (browserPool.ts), up
 * to DESIGN_PLAYBOOK_MAX_PARALLEL on each (the rest queue), each within
 * DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS; a capture that runs
 * out of budget (a page hanging its main thread) has its context closed from
 * the browser side, and the server keeps serving.
 *
 * It implements CaptureProvider itself: the capture type's output already
 * carries the payload fields the boundary reads (render_tokens, page_facts,
 * warnings), so the bytes are staged with context.writeArtifact and the rest
 * is returned as is.
 */
import type { BrowserContext, CDPSession } from 'puppeteer';
import type { CaptureContext, CaptureProvider, ProviderPayload } from '../provider';
import type { CaptureRequestSnapshot } from '../contract';
import type { RuntimeFields } from '../request';
import { captureToolDeclaration, TOOL_NAME } from '../toolDeclaration';
import { CLEANUP_STEP_MS, stepWithin, withDeadline } from '../deadline';
import type { BrowserSession } from './browserSession';
import { BrowserPool } from './browserPool';
import { captureTimeoutMs, fixedTime, type BrowserFlags } from './options';
import { PageClock, fixedTimeWarning } from './pageClock';
import { emulate, navigate } from './pageSetup';
import { applyFreeze } from './freeze';
import { runActions } from './actionRunner';
import { readObservedState } from './observedState';
import { CAPTURE_TYPE_MODULES, type CaptureTypeRun } from './captureTypes';

/** What one capture produced: the artifact's bytes and the payload that reports it. */
interface CaptureOutcome {
  bytes: Buffer;
  payload: ProviderPayload;
}

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
    private readonly fields: RuntimeFields,
    private readonly request: CaptureRequestSnapshot,
    private readonly flags: BrowserFlags,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  private check(): void {
    if (this.aborted) throw new CaptureAborted();
  }

  async execute(): Promise<CaptureOutcome> {
    const { fields, request } = this;
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
    const fixed = fixedTime(this.flags, this.env);
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
    const typeRun = (this.typeRun = await module.start({ browser, page, cdp: this.cdp, fields, request }));
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
    const { bytes, ...measured } = await typeRun.finish();
    this.check();
    this.stage = 'reading observed_state';
    const payload: ProviderPayload = { result: 'captured', ...measured, observed_state: await readObservedState(page) };
    const warnings = [...new Set([...this.warnings, ...(measured.warnings ?? [])])];
    if (warnings.length) payload.warnings = warnings;
    else delete payload.warnings;
    return { bytes, payload };
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
        await stepWithin(this.typeRun?.dispose() ?? Promise.resolve(), CLEANUP_STEP_MS, 'disposing the capture type').catch(() => undefined);
        await stepWithin(this.cdp?.detach() ?? Promise.resolve(), CLEANUP_STEP_MS, 'detaching the CDP session').catch(() => undefined);
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
    await stepWithin(this.typeRun?.dispose() ?? Promise.resolve(), CLEANUP_STEP_MS, 'disposing the capture type').catch(() => undefined);
    if (this.context) await this.session.closeContext(this.context);
  }
}

export interface PuppeteerProviderOptions {
  /** The browser flags, read whenever a browser is started (the CLI sets them). */
  flags?: () => BrowserFlags;
  session?: BrowserSession;
  env?: NodeJS.ProcessEnv;
}

export class PuppeteerCaptureProvider implements CaptureProvider {
  readonly toolName = TOOL_NAME;
  /** The browsers captures run on: one launched, or a pool of attached endpoints. */
  readonly browsers: BrowserPool;
  private readonly env: NodeJS.ProcessEnv;
  private readonly flags: () => BrowserFlags;

  constructor(options: PuppeteerProviderOptions = {}) {
    this.env = options.env ?? process.env;
    this.flags = options.flags ?? (() => ({}));
    this.browsers = new BrowserPool(options.flags, this.env, options.session);
  }

  describe() {
    return captureToolDeclaration();
  }

  async capture(_args: Record<string, unknown>, context: CaptureContext): Promise<ProviderPayload> {
    const { bytes, payload } = await this.captureWithinLimits(context.fields, context.request);
    context.writeArtifact(bytes);
    return payload;
  }

  /** One capture on the least-loaded browser, queued while every browser runs its DESIGN_PLAYBOOK_MAX_PARALLEL. */
  async captureWithinLimits(fields: RuntimeFields, request: CaptureRequestSnapshot): Promise<CaptureOutcome> {
    const { value, warnings } = await this.browsers.run((session) => this.runWithinBudget(session, fields, request));
    if (warnings.length) value.payload.warnings = [...(value.payload.warnings ?? []), ...warnings];
    return value;
  }

  private async runWithinBudget(session: BrowserSession, fields: RuntimeFields, request: CaptureRequestSnapshot): Promise<CaptureOutcome> {
    const budgetMs = captureTimeoutMs(this.env);
    const run = new CaptureRun(session, fields, request, this.flags(), this.env);
    const generation = session.generation;
    let overran = false;
    const work = run.execute();
    try {
      return await withDeadline(work, budgetMs, () => {
        overran = true;
        run.abort();
        return new Error(
          `capture did not finish within the ${budgetMs} ms whole-capture budget (DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS) while ${run.stage}; ` +
            'the page may be hanging its main thread. Its browser context was closed; nothing was captured',
        );
      });
    } catch (err) {
      throw this.explain(err, session, generation);
    } finally {
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
  private explain(err: unknown, session: BrowserSession, generation: number): Error {
    const error = err instanceof Error ? err : new Error(String(err));
    if (!session.lostSince(generation)) return error;
    const target = session.attachTarget();
    const message = target
      ? `the attached browser at ${target.url} went away during the capture (${error.message}); the next capture reconnects`
      : `the browser exited during the capture — crashed or killed (${error.message}); the next capture launches a new one`;
    return new Error(message);
  }

  async close(): Promise<void> {
    await this.browsers.close();
  }
}
