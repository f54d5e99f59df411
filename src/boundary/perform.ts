/**
 * The perform step of the boundary: `performCapture(plan, provider)` carries
 * out a CapturePlan (./plan.ts). The provider captures; the runtime stages
 * what it returns (the type's sidecars beside the artifact: a screenshot's
 * probe sidecar beside its PNG), commits it in one step, and verifies the
 * artifact is a regular file at the target inside evidence/. A capture that
 * fails at any point leaves no file behind; every outcome is a result.
 */
import * as path from 'path';
import * as fs from 'fs';
import type { RuntimeFields } from '../request';
import type { CaptureFile } from '../capture/types';
import { failedResult, UNKNOWN_STATE, type CaptureResult } from '../result';
import type { CaptureProvider, ProviderPayload } from '../provider';
import { writeFailure } from '../failures';
import { readArtifact } from './containment';
import { ArtifactWriter, WriteRefusal } from './safeWrite';
import type { CapturePlan } from './plan';

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

/** Runs the provider and commits what it produced. */
export async function performCapture(plan: CapturePlan, provider: CaptureProvider): Promise<PerformedCapture> {
  const result = await captureAndCommit(plan, provider);
  return { result, written: result.result === 'captured' ? plan.files : [] };
}

async function captureAndCommit(plan: CapturePlan, provider: CaptureProvider): Promise<CaptureResult> {
  const { fields, request, target } = plan;
  const warnings = [...plan.warnings];
  const fail = (error: string) => failedResult({ artifact: fields.artifactPath, error, writtenPath: target.path, request, warnings });
  // An existing file (overwrite=true) must not pass as this capture's artifact unless it was written again.
  const earlier = fileFingerprint(target.path);
  let writer: ArtifactWriter | null = null;
  let settled = false;
  let payload: ProviderPayload;
  try {
    payload = await provider.capture(
      { ...plan.args },
      {
        writtenPath: target.path,
        runRoot: plan.runRoot,
        request,
        fields,
        writeArtifact(bytes) {
          // Bytes staged after capture returned would never be committed or discarded.
          if (settled) throw new Error('writeArtifact called after capture returned: nothing was staged');
          // A second call replaces what the first staged (two staged copies would collide at commit).
          (writer as ArtifactWriter | null)?.discard();
          writer = ArtifactWriter.open(target, fields.artifactPath);
          writer.stage(target.leaf, bytes);
        },
      },
    );
  } catch (err) {
    (writer as ArtifactWriter | null)?.discard();
    return fail(err instanceof Error ? err.message : String(err));
  } finally {
    settled = true;
  }
  const staged = writer as ArtifactWriter | null;
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

  if (!staged && earlier !== null && fileFingerprint(target.path) === earlier) {
    return fail(`provider ${provider.toolName} reported captured but did not write ${target.path}: it still holds the earlier file`);
  }

  // The artifact must be a regular file at the target, inside evidence/.
  const artifactProblem = (): CaptureResult | null => {
    const verified = readArtifact(plan.runRoot, fields.artifactPath);
    if (verified.ok && verified.path === target.path) return null;
    return fail(
      `provider ${provider.toolName} reported captured but ${target.path} is not a regular file inside the evidence/ subtree (${verified.ok ? 'resolved elsewhere' : verified.code})`,
    );
  };
  // A provider that wrote the file itself is checked before a sidecar goes beside it.
  if (!staged) {
    const problem = artifactProblem();
    if (problem) return problem;
  }

  let sidecarWriter: ArtifactWriter | null = null;
  try {
    const sidecars = plan.files.flatMap(({ path: p, sidecar }) => (sidecar ? [{ leaf: path.basename(p), text: sidecar.contents(payload, request) }] : []));
    if (staged) {
      for (const { leaf, text } of sidecars) staged.stage(leaf, text);
      staged.commit(fields.overwrite);
    } else if (sidecars.length) {
      sidecarWriter = ArtifactWriter.open(target, fields.artifactPath);
      for (const { leaf, text } of sidecars) sidecarWriter.stage(leaf, text);
      sidecarWriter.commit(fields.overwrite);
    }
  } catch (err) {
    // A stage that failed before commit leaves temporary files only discard removes.
    staged?.discard();
    (sidecarWriter as ArtifactWriter | null)?.discard();
    return fail(err instanceof WriteRefusal ? err.message : writeFailure(err, fields.artifactPath));
  }

  if (staged) {
    const problem = artifactProblem();
    if (problem) return problem;
  }
  return {
    artifact: fields.artifactPath,
    observed_state: typeof payload.observed_state === 'string' && payload.observed_state.trim() ? payload.observed_state.trim() : UNKNOWN_STATE,
    result: 'captured',
    error: '',
    written_path: target.path,
    request,
    warnings,
  };
}
