/**
 * The bundled capture provider: Puppeteer + raw CDP. One capture =
 *   own browser context -> emulation -> navigation -> freeze -> actions ->
 *   freeze again -> the capture type's bytes -> observed_state -> context closed,
 * each attempt owned from start to cleanup by captureAttempt.ts.
 * Captures run on the least-loaded browser of the pool (browserPool.ts), up
 * to DESIGN_PLAYBOOK_MAX_PARALLEL on each (the rest queue), each within
 * DESIGN_PLAYBOOK_CAPTURE_TIMEOUT_MS; a capture that runs
 * out of budget (a page hanging its main thread, a body that never ends) has
 * its context closed from the browser side, and the server keeps serving.
 *
 * Every step races against the capture being lost (the page's renderer
 * crashing, its target closing, the browser going away), ending at once with
 * the failures.ts wording naming the step (`the page's renderer crashed (out
 * of memory?) during actions[0] click '#boom'`): the attempt's to tell.
 * Closing the provider (shutdown) ends the captures in flight the same way,
 * with ShutdownError.
 *
 * It implements CaptureProvider itself: the capture type's output already
 * carries the payload fields the boundary reads (render_tokens, page_facts,
 * warnings), so the bytes are staged with context.writeArtifact and the rest
 * is returned as is.
 */
import type { CaptureContext, CaptureProvider, ProviderPayload } from '../../contract/captureProvider';
import type { CaptureRequestSnapshot } from '../../contract/captureContract';
import type { RuntimeFields } from '../../contract/toolArguments';
import { captureToolDeclaration, TOOL_NAME } from '../../contract/toolDeclaration';
import { CaptureCancelled, ShutdownError } from '../../common/failures';
import type { BrowserSession } from '../fleet/browserSession';
import { BrowserPool } from '../fleet/browserPool';
import type { BrowserFlags } from '../options';
import { CaptureAttempt, plannedSteps, type CaptureHooks, type CaptureOutcome } from './captureAttempt';

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
  /** The attempts under way, so a shutdown can end them at once. */
  private readonly running = new Set<CaptureAttempt>();
  /** Contexts of answered captures still closing (off the answer's path); a shutdown waits for them. */
  private readonly closingAfterAnswer = new Set<Promise<void>>();
  private closing = false;

  constructor(options: PuppeteerProviderOptions = {}) {
    this.env = options.env ?? process.env;
    this.flags = options.flags ?? (() => ({}));
    this.browsers = new BrowserPool(options.flags, this.env, options.session);
  }

  describe() {
    return captureToolDeclaration();
  }

  /** The seam's capture: the caller's signal cancels it, and each step is told to `context.onStep` with the steps planned. */
  async capture(_args: Record<string, unknown>, context: CaptureContext): Promise<ProviderPayload> {
    const hooks: CaptureHooks = { signal: context.signal, secrets: context.secrets };
    if (context.startState) hooks.startState = context.startState;
    if (context.onStep) {
      const expectedSteps = plannedSteps(context.fields).length;
      hooks.onStep = (r) => context.onStep?.({ step: r.step, message: r.during, index: r.index, count: r.total, expectedSteps });
    }
    const { bytes, payload } = await this.captureWithinLimits(context.fields, context.request, hooks);
    context.writeArtifact(bytes);
    return payload;
  }

  /**
   * One capture on the least-loaded browser, queued while every browser runs
   * its DESIGN_PLAYBOOK_MAX_PARALLEL (the pool runs a lost attempt once more
   * elsewhere). `hooks.signal` cancels it, queued or running; `hooks.onStep`
   * is told each step.
   */
  async captureWithinLimits(fields: RuntimeFields, request: CaptureRequestSnapshot, hooks: CaptureHooks = {}): Promise<CaptureOutcome> {
    let attempts = 0;
    const pooled = this.browsers.run(async (session) => {
      attempts++;
      try {
        return await this.attempt(session, fields, request, hooks);
      } finally {
        attempts--;
      }
    });
    const { value, warnings } = await (hooks.signal ? untilCancelledWhileQueued(pooled, hooks.signal, () => attempts > 0) : pooled);
    if (warnings.length) value.payload.warnings = [...(value.payload.warnings ?? []), ...warnings];
    return value;
  }

  /** One attempt on `session`, known to shutdown while it runs; the cleanup it leaves running after its answer is waited for at shutdown. */
  private async attempt(session: BrowserSession, fields: RuntimeFields, request: CaptureRequestSnapshot, hooks: CaptureHooks): Promise<CaptureOutcome> {
    if (this.closing) throw new ShutdownError();
    const attempt = new CaptureAttempt(session, fields, request, this.flags(), this.env, hooks);
    this.running.add(attempt);
    try {
      return await attempt.run();
    } catch (err) {
      if (this.closing) throw new ShutdownError();
      throw err;
    } finally {
      this.running.delete(attempt);
      const closing = attempt.closingAfterAnswer;
      if (closing) {
        this.closingAfterAnswer.add(closing);
        void closing.finally(() => this.closingAfterAnswer.delete(closing));
      }
    }
  }

  /** Ends the captures under way (answered with ShutdownError), then closes the browsers. */
  async close(): Promise<void> {
    this.closing = true;
    for (const attempt of this.running) attempt.shutdown();
    await Promise.all(this.closingAfterAnswer);
    await this.browsers.close();
  }
}

/**
 * The pool's run, or CaptureCancelled as soon as `signal` fires while no
 * attempt is running (waiting for a slot, or for the retry's); a running
 * attempt ends through its own progress, naming its step. An attempt that
 * starts after the cancellation ends at once.
 */
function untilCancelledWhileQueued<T>(pooled: Promise<T>, signal: AbortSignal, running: () => boolean): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const cancel = () => {
      if (!running()) reject(new CaptureCancelled('the wait for a browser'));
    };
    if (signal.aborted) cancel();
    else signal.addEventListener('abort', cancel, { once: true });
    pooled.then(resolve, reject).finally(() => signal.removeEventListener('abort', cancel));
  });
}
