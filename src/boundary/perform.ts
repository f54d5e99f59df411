/**
 * The perform step of the boundary: `performCapture(plan, provider)` carries
 * out a CapturePlan (./plan.ts). The provider captures; the runtime stages
 * what it returns (the type's sidecars beside the artifact: a screenshot's
 * probe sidecar beside its PNG), commits it in one step, and verifies the
 * artifact is a regular file at the target inside evidence/. A capture that
 * fails at any point leaves no file behind; every outcome is a result.
 *
 * The caller may watch the capture: its signal is handed to the provider and,
 * once it fired, nothing is committed (a cancelled capture writes nothing,
 * whatever the provider returns); its progress listener hears each step the
 * provider tells, numbered, and the commit last.
 */
import * as path from 'path';
import * as fs from 'fs';
import type { RuntimeFields } from '../contract/toolArguments';
import type { CaptureFile } from '../contract/captureTypes';
import { failedResult, UNKNOWN_STATE, type CaptureResult } from '../contract/result';
import type { CaptureProvider, CaptureStepReport, ProviderPayload } from '../contract/captureProvider';
import { CaptureCancelled, writeFailure } from '../common/failures';
import { readArtifact } from './containment';
import { ArtifactWriter, WriteRefusal } from './safeWrite';
import type { CapturePlan } from './plan';
import { guardFile, SecretInEvidence } from './secretGuard';
import { maskSecretValues } from '../common/secrets';

/** A provider's own `artifact` / `written_path` claim that names anything but the runtime's target. */
function claimMismatch(payload: ProviderPayload, fields: RuntimeFields, targetPath: string): string | null {
  const { artifact, written_path: writtenPath } = payload;
  if (artifact !== undefined && artifact !== '' && (typeof artifact !== 'string' || artifact.trim() !== fields.artifactPath)) {
    return `reported artifact ${JSON.stringify(artifact)}, not the requested ${JSON.stringify(fields.artifactPath)}`;
  }
  if (writtenPath !== undefined && writtenPath !== '') {
    if (typeof writtenPath !== 'string' || !path.isAbsolute(writtenPath)) return `reported written_path ${JSON.stringify(writtenPath)}, not an absolute path`;
    let reported = path.resolve(writtenPath);
    try {
      // The target's folders are resolved; resolve the reported folder the same way.
      reported = path.join(fs.realpathSync.native(path.dirname(reported)), path.basename(reported));
    } catch {
      // A folder that does not exist cannot hold the target either; compare as written.
    }
    if (reported !== targetPath) return `reported written_path ${writtenPath}, not the capture target ${targetPath}`;
  }
  return null;
}

/** Identity and last change of a file, or null when there is none. */
function fileFingerprint(p: string): string | null {
  try {
    const st = fs.lstatSync(p, { bigint: true });
    return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch {
    return null;
  }
}

/** What performing a plan answers: the result payload, and the files it wrote (none unless captured). */
export interface PerformedCapture {
  result: CaptureResult;
  written: CaptureFile[];
}

/** A step of the capture as the caller of performCapture hears it. */
export interface CaptureProgressNote {
  step: string;
  /** The step for a person to read (an action's adds `(2 of 3)`). */
  message: string;
  /** 1 for the first step, one more for each after it. */
  progress: number;
  /** How many steps the capture takes, the commit included, when the provider says how many it expects. */
  total?: number;
}

export interface PerformOptions {
  /** The caller's cancellation: handed to the provider (`context.signal`); once it fired, nothing is committed. */
  signal?: AbortSignal;
  /** Told each step as it starts, the runtime's `commit` last. A listener that throws is ignored. */
  onProgress?(note: CaptureProgressNote): void;
}

/** Runs the provider and commits what it produced (unless `options.signal` fired first). */
export async function performCapture(plan: CapturePlan, provider: CaptureProvider, options: PerformOptions = {}): Promise<PerformedCapture> {
  const result = await captureAndCommit(plan, provider, options);
  return { result, written: result.result === 'captured' ? plan.files : [] };
}

/**
 * Numbers the steps a provider tells for a progress listener: `progress`
 * counts every step told, `total` is the provider's expected count plus the
 * commit, left out once the steps outnumber it (a retried attempt). Keeps the
 * last step's message, which a cancellation names.
 */
class StepTally {
  private told = 0;
  private total: number | undefined;
  last = 'the start of the capture';

  constructor(private readonly listener: PerformOptions['onProgress']) {}

  tell(report: CaptureStepReport): void {
    if (typeof report?.message !== 'string') return;
    this.last = report.message;
    this.told++;
    if (typeof report.expectedSteps === 'number') this.total = report.expectedSteps + 1;
    if (!this.listener) return;
    const counted = typeof report.index === 'number' && typeof report.count === 'number' ? ` (${report.index + 1} of ${report.count})` : '';
    const note: CaptureProgressNote = { step: String(report.step), message: report.message + counted, progress: this.told };
    if (this.total !== undefined && this.total >= this.told) note.total = this.total;
    try {
      this.listener(note);
    } catch {
      // A listener is told; it does not steer the capture.
    }
  }
}

async function captureAndCommit(plan: CapturePlan, provider: CaptureProvider, options: PerformOptions): Promise<CaptureResult> {
  const { fields, request, target } = plan;
  const { signal } = options;
  const warnings = [...plan.warnings];
  // No value reaches the result: an error or a warning that quotes one (a page's message, a refusal's echo) shows the name.
  const masked = (text: string) => maskSecretValues(text, plan.secrets);
  const fail = (error: string) =>
    failedResult({ artifact: fields.artifactPath, error: masked(error), writtenPath: target.path, request, warnings: warnings.map(masked) });
  const steps = new StepTally(options.onProgress);
  // The provider's own words when it stopped for the cancellation, else the step it was in.
  const cancelled = (err?: unknown) => fail(err instanceof CaptureCancelled ? err.message : new CaptureCancelled(steps.last).message);
  if (signal?.aborted) return cancelled();
  // An existing file (overwrite=true) must not pass as this capture's artifact unless it was written again.
  const earlier = fileFingerprint(target.path);
  let writer: ArtifactWriter | null = null;
  let settled = false;
  // The guard's refusal of the artifact, kept so a provider that swallowed it still fails.
  let guarded: SecretInEvidence | null = null;
  let payload: ProviderPayload;
  try {
    payload = await provider.capture(
      { ...plan.args },
      {
        writtenPath: target.path,
        runRoot: plan.runRoot,
        request,
        fields,
        ...(plan.start ? { startState: plan.start.state } : {}),
        writeArtifact(bytes) {
          // Bytes staged after capture returned would never be committed or discarded.
          if (settled) throw new Error('writeArtifact called after capture returned: nothing was staged');
          // The last line: bytes holding a secret's value are never staged (./secretGuard.ts).
          try {
            guardFile(fields.artifactPath, bytes, plan.secrets, plan.start);
          } catch (err) {
            (writer as ArtifactWriter | null)?.discard();
            writer = null;
            guarded = err as SecretInEvidence;
            throw err;
          }
          // A second call replaces what the first staged (two staged copies would collide at commit).
          (writer as ArtifactWriter | null)?.discard();
          writer = ArtifactWriter.open(target, fields.artifactPath);
          writer.stage(target.leaf, bytes);
        },
        signal,
        onStep(report) {
          if (!settled) steps.tell(report);
        },
        ...(plan.secrets ? { secrets: plan.secrets } : {}),
      },
    );
  } catch (err) {
    (writer as ArtifactWriter | null)?.discard();
    if (signal?.aborted) return cancelled(err);
    return fail(err instanceof Error ? err.message : String(err));
  } finally {
    settled = true;
  }
  const staged = writer as ArtifactWriter | null;
  if (guarded) {
    staged?.discard();
    return fail((guarded as SecretInEvidence).message);
  }
  if (Array.isArray(payload?.warnings)) warnings.push(...payload.warnings.filter((w) => typeof w === 'string'));
  if (!payload || payload.result !== 'captured') {
    staged?.discard();
    return fail(typeof payload?.error === 'string' && payload.error ? payload.error : 'capture failed without an error message');
  }

  const claim = claimMismatch(payload, fields, target.path);
  if (claim) {
    staged?.discard();
    return fail(`provider ${provider.toolName} ${claim}; a provider may only produce the artifact the runtime resolved`);
  }

  // The artifact must be a regular file at the target, inside evidence/.
  const artifactProblem = (): CaptureResult | null => {
    const verified = readArtifact(plan.runRoot, fields.artifactPath);
    if (verified.ok && verified.path === target.path) return null;
    return fail(
      `provider ${provider.toolName} reported captured but ${target.path} is not a regular file inside the evidence/ subtree (${verified.ok ? 'resolved elsewhere' : verified.code})`,
    );
  };
  if (!staged) {
    if (earlier !== null && fileFingerprint(target.path) === earlier) {
      return fail(`provider ${provider.toolName} reported captured but did not write ${target.path}: it still holds the earlier file`);
    }
    // A provider that wrote the file itself is checked before a sidecar goes beside it.
    const problem = artifactProblem();
    if (problem) return problem;
  }

  let sidecarWriter: ArtifactWriter | null = null;
  // A stage that failed before commit leaves temporary files only discard removes.
  const discardGroup = () => {
    staged?.discard();
    (sidecarWriter as ArtifactWriter | null)?.discard();
  };
  const writeFailed = (err: unknown): CaptureResult => {
    discardGroup();
    return fail(err instanceof WriteRefusal || err instanceof SecretInEvidence ? err.message : writeFailure(err, fields.artifactPath));
  };
  // A provider that finished in spite of a cancellation gets nothing committed.
  const cancelledBeforeCommit = (): CaptureResult | null => {
    if (!signal?.aborted) return null;
    discardGroup();
    return cancelled();
  };

  // The commit's notice goes out before the flush: a client hears it well before the answer (transport.ts).
  // A cancellation that came before it is named by the provider's last step.
  const early = cancelledBeforeCommit();
  if (early) return early;
  steps.tell({ step: 'commit', message: `writing ${fields.artifactPath}` });
  // Every file of the group is on disk before any is placed. The artifact's flush began when it was
  // staged (it ran alongside the provider's last steps); the sidecars' begins here. This is the one
  // wait after the provider returned, and it comes before the cancellation check below.
  try {
    const sidecars = plan.files.flatMap(({ path: p, sidecar }) => (sidecar ? [{ leaf: path.basename(p), text: sidecar.contents(payload, request) }] : []));
    for (const { leaf, text } of sidecars) guardFile(path.join(path.dirname(fields.artifactPath), leaf), text, plan.secrets, plan.start);
    if (!staged && sidecars.length) sidecarWriter = ArtifactWriter.open(target, fields.artifactPath);
    const group = staged ?? sidecarWriter;
    for (const { leaf, text } of sidecars) group!.stage(leaf, text);
    await group?.flushed();
  } catch (err) {
    return writeFailed(err);
  }

  // From here on nothing waits, so a cancellation comes either before this check or after the answer.
  const late = cancelledBeforeCommit();
  if (late) return late;
  try {
    (staged ?? sidecarWriter)?.commit(fields.overwrite);
  } catch (err) {
    return writeFailed(err);
  }

  if (staged) {
    const problem = artifactProblem();
    if (problem) return problem;
  }
  return {
    artifact: fields.artifactPath,
    observed_state: typeof payload.observed_state === 'string' && payload.observed_state.trim() ? masked(payload.observed_state.trim()) : UNKNOWN_STATE,
    result: 'captured',
    error: '',
    written_path: target.path,
    request,
    warnings: warnings.map(masked),
  };
}
