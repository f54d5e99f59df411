/**
 * The boundary every capture passes: plan, then perform. planCapture
 * (./plan.ts) runs the contract's checks in order and answers a CapturePlan
 * or a Refusal (data, never thrown); performCapture (./perform.ts) runs the
 * provider on the plan and stages, commits and verifies what it produced.
 * The server (src/mcp/server.ts) and the batch runner call the two steps
 * themselves; below are the entry points for library callers.
 *
 * The folder holds the boundary's own file-system rules too: run root
 * resolution (./runRoot.ts), containment (./containment.ts) and the atomic
 * writer (./safeWrite.ts).
 */
import { ToolInputError } from '../common/errors';
import type { CaptureResult } from '../contract/result';
import type { CaptureProvider } from '../contract/captureProvider';
import type { SecretStore } from '../common/secrets';
import type { SessionSettings } from '../contract/sessions';
import { planCapture, type SkippedCapture } from './plan';
import { performCapture, type PerformOptions } from './perform';

export { planCapture, MANIFEST_REFUSAL, type CapturePlan, type PlanOutcome, type PresentArtifact, type Refusal, type SkippedCapture } from './plan';
export { performCapture, type CaptureProgressNote, type PerformedCapture, type PerformOptions } from './perform';

/** `signal` cancels the call (nothing is written); `onProgress` hears each step (./perform.ts). */
export interface ExecuteOptions extends PerformOptions {
  /** The provider that captures (the program passes the active one: src/app/main.ts). */
  provider: CaptureProvider;
  env?: NodeJS.ProcessEnv;
  /** The secrets actions may name (--secrets): the plan checks names against them, the guard looks for their values. */
  secrets?: SecretStore;
  /** Where sessions come from (the program passes the flags' and the environment's); absent: the environment's. */
  sessions?: SessionSettings;
}

/** Plans and performs one call; a refusal of the arguments throws ToolInputError. */
async function planAndPerform(raw: unknown, options: ExecuteOptions, skipExisting: boolean): Promise<CaptureResult | SkippedCapture> {
  const planned = planCapture(raw, options.env ?? process.env, { skipExisting, secrets: options.secrets, sessions: options.sessions });
  switch (planned.kind) {
    case 'input':
      throw new ToolInputError(planned.message);
    case 'failed':
      return planned.result;
    case 'present':
      return planned.skipped;
    case 'plan':
      return (await performCapture(planned, options.provider, options)).result;
  }
}

/**
 * The boundary for library callers: a refusal of the arguments throws
 * ToolInputError (its message is what the server's isError result carries);
 * every other outcome is the result payload.
 */
export async function executeCapturePlan(rawArgs: unknown, options: ExecuteOptions): Promise<CaptureResult> {
  return (await planAndPerform(rawArgs, options, false)) as CaptureResult;
}

/**
 * The same boundary, except that an artifact already on disk ends the call as
 * skipped (whatever `overwrite` says) instead of being refused or replaced:
 * re-running a half-finished plan captures only what is missing.
 */
export async function executeCapturePlanUnlessPresent(rawArgs: unknown, options: ExecuteOptions): Promise<CaptureResult | SkippedCapture> {
  return planAndPerform(rawArgs, options, true);
}
