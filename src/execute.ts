/**
 * executeCapturePlan: the boundary every capture passes, in the contract's
 * order (each check fails before the next runs):
 *   1. unknown fields                      -> ToolInputError (isError result)
 *   2. capture contract (+ design shape)   -> failed, written_path "", no request
 *   3. runtime fields                      -> ToolInputError
 *   4. run root, containment               -> failed, written_path ""
 *   5. type-specific name rule (.zip)      -> failed
 *   6. manifest refusal                    -> failed
 *   7. overwrite refusal (before any browser work)
 *   8. the provider's capture, then the artifact must be a regular file
 *      inside evidence/; screenshot sidecars are written with the PNG.
 */
import * as path from 'path';
import * as fs from 'fs';
import { isPlainObject, parseCaptureContract, type CaptureRequestSnapshot } from './contract';
import { ToolInputError } from './errors';
import { parseRuntimeFields, refuseUnknownFields, type RuntimeFields } from './request';
import { resolveRunRoot } from './runRoot';
import { CONTAINMENT_MESSAGES, readArtifact, writeTarget, type ResolvedArtifact } from './containment';
import { ArtifactWriter, WriteRefusal, existsMessage } from './safeWrite';
import { failedResult, UNKNOWN_STATE, type CaptureResult } from './result';
import type { CaptureProvider, ProviderPayload } from './provider';
import { buildProbeSidecar } from './probe';
import { writeFailure } from './failures';

export const MANIFEST_REFUSAL = 'provider never writes manifest.jsonl';
const MAX_NAME_BYTES = 255;

/** `evidence/L6.2-x.png` -> `L6.2-x.probe.json` (the screenshot's probe sidecar). */
export function sidecarLeaf(leaf: string): string {
  const ext = path.extname(leaf);
  const stem = ext && ext !== leaf ? leaf.slice(0, -ext.length) : leaf;
  return `${stem}.probe.json`;
}

function isManifestName(name: string): boolean {
  return name.trim().toLowerCase() === 'manifest.jsonl';
}

/** Names a capture type's artifact must have; the trace viewer only opens ZIPs. */
function artifactNameRule(fields: RuntimeFields, target: ResolvedArtifact): string | null {
  // The resolved name too: a link named x.zip may lead to a file that is not.
  if (fields.type === 'interaction trace' && !(fields.artifactPath.toLowerCase().endsWith('.zip') && target.leaf.toLowerCase().endsWith('.zip'))) {
    return `interaction trace artifacts are Playwright trace ZIPs: artifact_path must end in .zip (got '${fields.artifactPath}'); name it evidence/<leaf>.trace.zip`;
  }
  return null;
}

function existsAs(p: string): 'none' | 'file' | 'other' {
  try {
    const st = fs.lstatSync(p);
    return st.isFile() || st.isSymbolicLink() ? 'file' : 'other';
  } catch {
    return 'none';
  }
}

export interface ExecuteOptions {
  /** The provider that captures (the program passes the active one: src/main.ts). */
  provider: CaptureProvider;
  env?: NodeJS.ProcessEnv;
}

/** A plan line whose artifact was already there (the batch runner's --skip-existing). */
export interface SkippedCapture {
  result: 'skipped';
  artifact: string;
  written_path: string;
  warnings: string[];
}

export async function executeCapturePlan(rawArgs: unknown, options: ExecuteOptions): Promise<CaptureResult> {
  return (await checkThenCapture(rawArgs, options, false)) as CaptureResult;
}

/**
 * The same boundary, except that an artifact already on disk ends the call as
 * skipped (whatever `overwrite` says) instead of being refused or replaced:
 * re-running a half-finished plan captures only what is missing.
 */
export async function executeCapturePlanUnlessPresent(rawArgs: unknown, options: ExecuteOptions): Promise<CaptureResult | SkippedCapture> {
  return checkThenCapture(rawArgs, options, true);
}

async function checkThenCapture(rawArgs: unknown, options: ExecuteOptions, skipExisting: boolean): Promise<CaptureResult | SkippedCapture> {
  const args = rawArgs === undefined || rawArgs === null ? {} : rawArgs;
  if (!isPlainObject(args)) throw new ToolInputError('execute_capture_plan arguments must be a JSON object');
  refuseUnknownFields(args);
  const artifactEcho = typeof args.artifact_path === 'string' ? args.artifact_path.trim() : '';

  const contract = parseCaptureContract(args);
  if (!contract.ok) return failedResult({ artifact: artifactEcho, error: contract.error });
  const request = contract.request;

  const fields = parseRuntimeFields(args);

  const runRoot = resolveRunRoot(args.run_root, options.env ?? process.env);
  if (!runRoot.ok) return failedResult({ artifact: fields.artifactPath, error: runRoot.error, request });
  const warnings = [...runRoot.warnings];

  const target = writeTarget(runRoot.root, fields.artifactPath);
  if (!target.ok) return failedResult({ artifact: fields.artifactPath, error: CONTAINMENT_MESSAGES[target.code], request, warnings });
  const fail = (error: string) => failedResult({ artifact: fields.artifactPath, error, writtenPath: target.path, request, warnings });

  const nameRule = artifactNameRule(fields, target);
  if (nameRule) return fail(nameRule);
  if (isManifestName(path.basename(fields.artifactPath.replace(/\\/g, '/'))) || isManifestName(target.leaf)) return fail(MANIFEST_REFUSAL);

  const outputs = [target.leaf];
  if (fields.type === 'screenshot') {
    const sidecar = sidecarLeaf(target.leaf);
    // Refuse now rather than after the browser work: the file system would refuse the name at commit.
    if (Buffer.byteLength(sidecar) > MAX_NAME_BYTES) {
      return fail(`artifact name too long for its probe sidecar ${sidecar} (over ${MAX_NAME_BYTES} bytes); shorten the artifact_path leaf`);
    }
    outputs.push(sidecar);
  }
  if (skipExisting && existsAs(target.path) === 'file') {
    return { result: 'skipped', artifact: fields.artifactPath, written_path: target.path, warnings };
  }
  const folder = path.dirname(target.path);
  for (const leaf of outputs) {
    const p = path.join(folder, leaf);
    const state = existsAs(p);
    if (state === 'other') return fail(`artifact path names an existing folder or special file: ${p}`);
    if (state === 'file' && !fields.overwrite) return fail(existsMessage(p));
  }

  return runProvider(options.provider, args, { fields, request, target, rootDir: runRoot.root, warnings, fail });
}

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

interface ProviderRun {
  fields: RuntimeFields;
  request: CaptureRequestSnapshot;
  target: ResolvedArtifact;
  rootDir: string;
  warnings: string[];
  fail: (error: string) => CaptureResult;
}

async function runProvider(provider: CaptureProvider, args: Record<string, unknown>, run: ProviderRun): Promise<CaptureResult> {
  const { fields, request, target, warnings, fail } = run;
  // An existing file (overwrite=true) must not pass as this capture's artifact unless it was written again.
  const earlier = fileFingerprint(target.path);
  let writer: ArtifactWriter | null = null;
  let settled = false;
  let payload: ProviderPayload;
  try {
    payload = await provider.capture(
      { ...args },
      {
        writtenPath: target.path,
        runRoot: run.rootDir,
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
    const verified = readArtifact(run.rootDir, fields.artifactPath);
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
    const sidecar =
      fields.type === 'screenshot'
        ? JSON.stringify(buildProbeSidecar({ pageFacts: payload.page_facts ?? null, renderTokens: payload.render_tokens as never, design: request.design }), null, 2) + '\n'
        : null;
    if (staged) {
      if (sidecar !== null) staged.stage(sidecarLeaf(target.leaf), sidecar);
      staged.commit(fields.overwrite);
    } else if (sidecar !== null) {
      sidecarWriter = ArtifactWriter.open(target, fields.artifactPath);
      sidecarWriter.stage(sidecarLeaf(target.leaf), sidecar);
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
