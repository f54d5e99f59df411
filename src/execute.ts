/**
 * The boundary every capture passes: BOUNDARY_CHECKS below, in the order
 * contract-facts gives (each fails before the next runs). A check returns a
 * refusal or null:
 *   - `input`: the arguments themselves are refused (unknown fields, runtime
 *     field shapes); the server answers `isError: true`, as the original
 *     adapter did by raising;
 *   - `failed`: a normal result with `result: "failed"`, built from what the
 *     earlier checks established (no `request` before the contract passed,
 *     `written_path` "" until a target is resolved).
 * Then src/commit.ts runs the provider, stages, commits and verifies.
 */
import * as path from 'path';
import * as fs from 'fs';
import { isPlainObject, parseCaptureContract, type CaptureRequestSnapshot } from './contract';
import { ToolInputError } from './errors';
import { parseRuntimeFields, refuseUnknownFields, type RuntimeFields } from './request';
import { resolveRunRoot } from './runRoot';
import { CONTAINMENT_MESSAGES, writeTarget, type ResolvedArtifact } from './containment';
import { existingOtherMessage, existsMessage } from './safeWrite';
import { failedResult, type CaptureResult } from './result';
import type { CaptureProvider } from './provider';
import { captureAndCommit } from './commit';
import { CAPTURE_TYPE_SPECS, captureFiles, type CaptureFile } from './capture/types';

export { sidecarLeaf } from './capture/types';

export const MANIFEST_REFUSAL = 'provider never writes manifest.jsonl';
const MAX_NAME_BYTES = 255;

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

/** Why a call ends before the capture. */
export interface Refusal {
  kind: 'input' | 'failed';
  message: string;
}

/** What the boundary answers: a refusal of the arguments, or a result payload and the files it wrote (none unless captured). */
export type BoundaryOutcome = { kind: 'input'; message: string } | { kind: 'result'; result: CaptureResult | SkippedCapture; written: CaptureFile[] };

/** What the checks have established so far; a failed result is built from it. */
interface CallState {
  readonly raw: unknown;
  readonly env: NodeJS.ProcessEnv;
  readonly skipExisting: boolean;
  args: Record<string, unknown>;
  /** The artifact echo: artifact_path as given, trimmed ('' until known). */
  artifact: string;
  request?: CaptureRequestSnapshot;
  fields?: RuntimeFields;
  root?: string;
  target?: ResolvedArtifact;
  warnings: string[];
  /** --skip-existing found the artifact on disk. */
  skipped?: boolean;
}

interface BoundaryCheck {
  step: string;
  check(state: CallState): Refusal | null;
}

const input = (message: string): Refusal => ({ kind: 'input', message });
const failed = (message: string): Refusal => ({ kind: 'failed', message });

/** The parsers of the argument shapes throw ToolInputError; here it becomes an input refusal. */
function asInputRefusal(parse: () => void): Refusal | null {
  try {
    parse();
    return null;
  } catch (err) {
    if (err instanceof ToolInputError) return input(err.message);
    throw err;
  }
}

function isManifestName(name: string): boolean {
  return name.trim().toLowerCase() === 'manifest.jsonl';
}

function existsAs(p: string): 'none' | 'file' | 'other' {
  try {
    const st = fs.lstatSync(p);
    return st.isFile() || st.isSymbolicLink() ? 'file' : 'other';
  } catch {
    return 'none';
  }
}

/** The files a capture writes: its artifact, and its type's sidecars beside it. */
function outputFiles(state: CallState): CaptureFile[] {
  return captureFiles(CAPTURE_TYPE_SPECS[state.fields!.type], state.target!.path);
}

/** The boundary, in order. Each check may rely on what the ones before it set. */
export const BOUNDARY_CHECKS: readonly BoundaryCheck[] = [
  {
    step: 'arguments are one JSON object',
    check(state) {
      const raw = state.raw === undefined || state.raw === null ? {} : state.raw;
      if (!isPlainObject(raw)) return input('execute_capture_plan arguments must be a JSON object');
      state.args = raw;
      return null;
    },
  },
  {
    step: 'unknown fields',
    check(state) {
      const refusal = asInputRefusal(() => refuseUnknownFields(state.args));
      if (typeof state.args.artifact_path === 'string') state.artifact = state.args.artifact_path.trim();
      return refusal;
    },
  },
  {
    step: 'capture contract (schemaVersion, viewport, freeze, design shape)',
    check(state) {
      const contract = parseCaptureContract(state.args);
      if (!contract.ok) return failed(contract.error);
      state.request = contract.request;
      return null;
    },
  },
  {
    step: 'runtime fields (url, type, state, actions, artifact_path, overwrite)',
    check(state) {
      return asInputRefusal(() => {
        state.fields = parseRuntimeFields(state.args);
        state.artifact = state.fields.artifactPath;
      });
    },
  },
  {
    step: 'run root',
    check(state) {
      const runRoot = resolveRunRoot(state.args.run_root, state.env);
      if (!runRoot.ok) return failed(runRoot.error);
      state.root = runRoot.root;
      state.warnings.push(...runRoot.warnings);
      return null;
    },
  },
  {
    step: 'containment of artifact_path',
    check(state) {
      const target = writeTarget(state.root!, state.fields!.artifactPath);
      if (!target.ok) return failed(CONTAINMENT_MESSAGES[target.code]);
      state.target = target;
      return null;
    },
  },
  {
    step: "names the capture type's files must have",
    check(state) {
      const { fields, target } = state as Required<CallState>;
      const spec = CAPTURE_TYPE_SPECS[fields.type];
      const refused = spec.refuseName(fields.artifactPath, target.leaf);
      if (refused) return failed(refused);
      // Refused now rather than after the browser work: the file system would refuse the name at commit.
      for (const sidecar of spec.sidecars) {
        const leaf = sidecar.leafOf(target.leaf);
        if (Buffer.byteLength(leaf) > MAX_NAME_BYTES) {
          return failed(`artifact name too long for its ${sidecar.name} ${leaf} (over ${MAX_NAME_BYTES} bytes); shorten the artifact_path leaf`);
        }
      }
      return null;
    },
  },
  {
    step: 'manifest refusal',
    check(state) {
      const given = path.basename(state.fields!.artifactPath.replace(/\\/g, '/'));
      return isManifestName(given) || isManifestName(state.target!.leaf) ? failed(MANIFEST_REFUSAL) : null;
    },
  },
  {
    step: 'overwrite refusal, before any browser work (--skip-existing: the skip)',
    check(state) {
      const target = state.target!;
      if (state.skipExisting && existsAs(target.path) === 'file') {
        state.skipped = true;
        return null;
      }
      for (const { path: p } of outputFiles(state)) {
        const found = existsAs(p);
        if (found === 'other') return failed(existingOtherMessage(p));
        if (found === 'file' && !state.fields!.overwrite) return failed(existsMessage(p));
      }
      return null;
    },
  },
];

function failedFrom(state: CallState, error: string): CaptureResult {
  return failedResult({ artifact: state.artifact, error, writtenPath: state.target?.path, request: state.request, warnings: state.warnings });
}

/** Runs the checks, then the capture; never throws for a refusal. */
export async function runBoundary(raw: unknown, options: ExecuteOptions & { skipExisting?: boolean }): Promise<BoundaryOutcome> {
  const state: CallState = { raw, env: options.env ?? process.env, skipExisting: options.skipExisting === true, args: {}, artifact: '', warnings: [] };
  for (const { check } of BOUNDARY_CHECKS) {
    const refusal = check(state);
    if (!refusal) continue;
    return refusal.kind === 'input' ? { kind: 'input', message: refusal.message } : { kind: 'result', result: failedFrom(state, refusal.message), written: [] };
  }
  const { fields, request, target, root, warnings } = state as Required<CallState>;
  if (state.skipped) return { kind: 'result', result: { result: 'skipped', artifact: fields.artifactPath, written_path: target.path, warnings }, written: [] };
  const result = await captureAndCommit(options.provider, state.args, {
    fields,
    request,
    target,
    rootDir: root,
    warnings,
    fail: (error) => failedFrom(state, error),
  });
  if (result.result !== 'captured') return { kind: 'result', result, written: [] };
  return { kind: 'result', result, written: outputFiles(state) };
}

async function resultOrThrow(raw: unknown, options: ExecuteOptions & { skipExisting?: boolean }): Promise<CaptureResult | SkippedCapture> {
  const outcome = await runBoundary(raw, options);
  if (outcome.kind === 'input') throw new ToolInputError(outcome.message);
  return outcome.result;
}

/**
 * The boundary for library callers: a refusal of the arguments throws
 * ToolInputError (its message is what the server's isError result carries);
 * every other outcome is the result payload.
 */
export async function executeCapturePlan(rawArgs: unknown, options: ExecuteOptions): Promise<CaptureResult> {
  return (await resultOrThrow(rawArgs, options)) as CaptureResult;
}

/**
 * The same boundary, except that an artifact already on disk ends the call as
 * skipped (whatever `overwrite` says) instead of being refused or replaced:
 * re-running a half-finished plan captures only what is missing.
 */
export async function executeCapturePlanUnlessPresent(rawArgs: unknown, options: ExecuteOptions): Promise<CaptureResult | SkippedCapture> {
  return resultOrThrow(rawArgs, { ...options, skipExisting: true });
}
