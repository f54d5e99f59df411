/**
 * The plan step of the boundary. `planCapture(args, env)` runs the checks
 * contract-facts lists, in its order (each fails before the next runs), and
 * answers what the call will do — a CapturePlan: what is captured, into
 * which target, writing which files — or why it will not, a Refusal:
 *   - `input`: the arguments themselves are refused (not an object, unknown
 *     fields, runtime field shapes); the server answers `isError: true`, as
 *     the original adapter did by raising;
 *   - `failed`: a normal result with `result: "failed"`, built from what the
 *     earlier checks established (no `request` before the contract passed,
 *     `written_path` "" until a target is resolved).
 * Refusals are data: nothing here throws one.
 *
 * Pure in what matters for a plan: it starts no browser and writes nothing.
 * It does read the file system, because that is what a plan is made of: the
 * run root's marker file, containment's realpath of the target's folders,
 * and whether the files it would write are already there (the overwrite
 * refusal). (An unmarked working directory is also logged once per process,
 * runRoot.ts.) Performing a plan is ./perform.ts.
 */
import * as path from 'path';
import * as fs from 'fs';
import { isPlainObject, parseCaptureContract, type CaptureRequestSnapshot } from '../contract/captureContract';
import { checkUnknownFields, parseRuntimeFields, type RuntimeFields } from '../contract/toolArguments';
import { CAPTURE_TYPE_SPECS, captureFiles, type CaptureFile, type CaptureTypeSpec } from '../contract/captureTypes';
import { failedResult, type CaptureResult } from '../contract/result';
import { chooseSession, SESSION_ARGUMENT, sessionSettings, type SessionSettings, type StartState } from '../contract/sessions';
import { resolveRunRoot } from './runRoot';
import { containmentRefusal, MAX_SEGMENT_BYTES, writeTarget, type ResolvedArtifact } from './containment';
import { existingOtherMessage, existsMessage } from './safeWrite';
import { secretNameProblem } from '../contract/actions';
import type { SecretStore } from '../common/secrets';

export const MANIFEST_REFUSAL = 'provider never writes manifest.jsonl';

/** Why a call ends before the capture. */
export type Refusal = { kind: 'input'; message: string } | { kind: 'failed'; result: CaptureResult };

/** What a call will capture, and where; ./perform.ts carries it out. */
export interface CapturePlan {
  kind: 'plan';
  /** The caller's arguments as sent (the provider receives them: an unbound call has no `design` key). */
  args: Record<string, unknown>;
  fields: RuntimeFields;
  /** The normalized contract echo, `design` included when bound. */
  request: CaptureRequestSnapshot;
  runRoot: string;
  target: ResolvedArtifact;
  type: CaptureTypeSpec;
  /** What the capture writes: the artifact at `target.path`, then its type's sidecars. */
  files: CaptureFile[];
  /** The run root's notices; the capture adds its own to a copy. */
  warnings: readonly string[];
  /** The secrets loaded (--secrets): the actions' names resolve against them, and the guard looks for every value before the commit. */
  secrets?: SecretStore;
  /** The state the capture starts from (a session, or --storage-state); absent: an empty context. Never echoed or logged. */
  start?: StartState;
}

/** A plan line whose artifact was already there (the batch runner's --skip-existing). */
export interface SkippedCapture {
  result: 'skipped';
  artifact: string;
  written_path: string;
  warnings: string[];
}

/** With `skipExisting`: the artifact is on disk already, so nothing is captured. */
export interface PresentArtifact {
  kind: 'present';
  skipped: SkippedCapture;
  /** The files a capture would have written (the artifact first): whether each is there is the caller's to ask. */
  files: CaptureFile[];
}

export type PlanOutcome = CapturePlan | PresentArtifact | Refusal;

export interface PlanOptions {
  /** An artifact already on disk makes the call `present` (whatever `overwrite` says) instead of refused or replaced. */
  skipExisting?: boolean;
  /** The secrets actions may name (--secrets); an action naming another is refused here, before any browser starts. */
  secrets?: SecretStore;
  /** Where sessions come from (the flags' and the environment's); absent: the environment's alone. */
  sessions?: SessionSettings;
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

/** The first of the type's file-name rules the target breaks: its own rule, then a sidecar name too long for the file system. */
function fileNameProblem(type: CaptureTypeSpec, artifactPath: string, leaf: string): string | null {
  const refused = type.refuseName(artifactPath, leaf);
  if (refused) return refused;
  // Refused now rather than after the browser work: the file system would refuse the name at commit.
  for (const sidecar of type.sidecars) {
    const name = sidecar.leafOf(leaf);
    if (Buffer.byteLength(name) > MAX_SEGMENT_BYTES) {
      return `artifact name too long for its ${sidecar.name} ${name} (over ${MAX_SEGMENT_BYTES} bytes); shorten the artifact_path leaf`;
    }
  }
  return null;
}

/** The overwrite refusal: a file the capture would write is there (and `overwrite` is not set), or something that is not a file is. */
function overwriteProblem(files: CaptureFile[], overwrite: boolean): string | null {
  for (const { path: p } of files) {
    const found = existsAs(p);
    if (found === 'other') return existingOtherMessage(p);
    if (found === 'file' && !overwrite) return existsMessage(p);
  }
  return null;
}

/** The checks, in the contract's order; see the top of this module. Without `skipExisting` nothing is `present`. */
export function planCapture(raw: unknown, env?: NodeJS.ProcessEnv, options?: PlanOptions & { skipExisting?: false }): CapturePlan | Refusal;
export function planCapture(raw: unknown, env: NodeJS.ProcessEnv | undefined, options: PlanOptions): PlanOutcome;
export function planCapture(raw: unknown, env: NodeJS.ProcessEnv = process.env, options: PlanOptions = {}): PlanOutcome {
  // 1. one JSON object (absent arguments read as {}).
  const args = raw === undefined || raw === null ? {} : raw;
  if (!isPlainObject(args)) return { kind: 'input', message: 'execute_capture_plan arguments must be a JSON object' };

  // 2. unknown fields (`session` is one unless a sessions folder is configured).
  const sessions = options.sessions ?? sessionSettings({}, env);
  const unknown = checkUnknownFields(args, sessions.sessionsDir ? [SESSION_ARGUMENT] : []);
  if (unknown) return { kind: 'input', message: unknown };

  // 3. the capture contract, before any path is resolved: no request, no written_path.
  const contract = parseCaptureContract(args);
  if (!contract.ok) {
    const echo = typeof args.artifact_path === 'string' ? args.artifact_path.trim() : '';
    return { kind: 'failed', result: failedResult({ artifact: echo, error: contract.error }) };
  }
  const { request } = contract;

  // 4. runtime fields and actions.
  const parsed = parseRuntimeFields(args);
  if (!parsed.ok) return { kind: 'input', message: parsed.error };
  const { fields } = parsed;
  const unknownSecret = secretNameProblem(fields.actions, options.secrets?.names());
  if (unknownSecret) return { kind: 'input', message: unknownSecret };
  const warnings: string[] = [];
  const failed = (error: string, writtenPath?: string): Refusal => ({
    kind: 'failed',
    result: failedResult({ artifact: fields.artifactPath, error, writtenPath, request, warnings }),
  });

  // 4b. the session the capture starts from (the name is echoed; the state never is).
  const session = chooseSession(args, sessions);
  if (!session.ok && session.kind === 'input') return { kind: 'input', message: session.error };
  if (session.ok && session.start?.session !== undefined) request.session = session.start.session;
  if (!session.ok) return failed(session.error);

  // 5. run root.
  const runRoot = resolveRunRoot(args.run_root, env);
  if (!runRoot.ok) return failed(runRoot.error);
  warnings.push(...runRoot.warnings, ...session.warnings);

  // 6. containment of artifact_path.
  const target = writeTarget(runRoot.root, fields.artifactPath);
  if (!target.ok) return failed(containmentRefusal(target.code, runRoot.root, fields.artifactPath));

  // 7. the names the capture type's files must have.
  const type: CaptureTypeSpec = CAPTURE_TYPE_SPECS[fields.type];
  const nameProblem = fileNameProblem(type, fields.artifactPath, target.leaf);
  if (nameProblem) return failed(nameProblem, target.path);

  // 8. the manifest refusal, on the name as given and as resolved.
  const given = path.basename(fields.artifactPath.replace(/\\/g, '/'));
  if (isManifestName(given) || isManifestName(target.leaf)) return failed(MANIFEST_REFUSAL, target.path);

  // 9. the overwrite refusal, before any browser work (--skip-existing: the skip).
  const files = captureFiles(type, target.path);
  if (options.skipExisting && existsAs(target.path) === 'file') {
    return { kind: 'present', skipped: { result: 'skipped', artifact: fields.artifactPath, written_path: target.path, warnings }, files };
  }
  const existing = overwriteProblem(files, fields.overwrite);
  if (existing) return failed(existing, target.path);

  const plan: CapturePlan = { kind: 'plan', args, fields, request, runRoot: runRoot.root, target, type, files, warnings };
  if (options.secrets) plan.secrets = options.secrets;
  if (session.start) plan.start = session.start;
  return plan;
}
