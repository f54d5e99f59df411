/**
 * Path containment: the one owner of "may this artifact_path be written or
 * read under <run root>/evidence/". Returns stable reason codes; callers map
 * codes to messages and never re-check.
 *
 * Refusals, in order: absolute_path, dotdot_segment, resolution_failure,
 * canonical_escape, symlink_escape, and on the read side not_regular_file.
 */
import * as fs from 'fs';
import * as path from 'path';

export const EVIDENCE_DIR = 'evidence';
export const CONTAINMENT_CODES = ['absolute_path', 'dotdot_segment', 'resolution_failure', 'canonical_escape', 'symlink_escape', 'not_regular_file'] as const;
export type ContainmentCode = (typeof CONTAINMENT_CODES)[number];

/** Write-side messages, keyed by code (the wording callers match on). */
export const CONTAINMENT_MESSAGES: Record<Exclude<ContainmentCode, 'not_regular_file'>, string> & { not_regular_file: string } = {
  absolute_path: 'artifact_path must be relative to the configured run root',
  dotdot_segment: "artifact_path must not contain '..' segments",
  resolution_failure: 'artifact_path could not be resolved under the evidence/ subtree',
  canonical_escape: 'artifact_path must stay under the evidence/ subtree',
  symlink_escape: 'artifact_path symlink escapes the evidence/ subtree',
  not_regular_file: 'artifact_path does not name an existing regular file under the evidence/ subtree',
};

/**
 * The write-side refusal for `code` as a caller reads it: the message above
 * (the phrase callers match on), then what to write instead when the path
 * itself shows it. An absolute path is told the run root and its
 * run-root-relative spelling: the part from the run root's evidence/ when
 * it lies there, else from its last `evidence` folder, else evidence/<its leaf>.
 */
export function containmentRefusal(code: ContainmentCode, runRoot: string, artifactPath: string): string {
  if (code !== 'absolute_path') return CONTAINMENT_MESSAGES[code];
  const segments = artifactPath.split(/[\\/]+/).filter((s) => s !== '' && s !== '.' && !/^[A-Za-z]:$/.test(s));
  const inRoot = path.relative(runRoot, artifactPath).split(path.sep);
  const fromEvidence = segments.slice(segments.lastIndexOf(EVIDENCE_DIR));
  const leaf = segments[segments.length - 1];
  let example: string[];
  if (path.isAbsolute(artifactPath) && inRoot[0] === EVIDENCE_DIR && inRoot.length > 1 && !inRoot.includes('..')) example = inRoot;
  else if (fromEvidence[0] === EVIDENCE_DIR && fromEvidence.length > 1 && !fromEvidence.includes('..')) example = fromEvidence;
  else example = [EVIDENCE_DIR, leaf && leaf !== '..' ? leaf : '<leaf>.png'];
  return `${CONTAINMENT_MESSAGES.absolute_path}; write it relative to the run root ${runRoot}, e.g. ${example.join('/')}`;
}

export interface ResolvedArtifact {
  ok: true;
  /** Absolute path of the artifact, symlinks inside evidence/ resolved. */
  path: string;
  /** Canonical absolute path of <run root>/evidence (may not exist yet on the write side). */
  evidenceRoot: string;
  /** Path segments from evidenceRoot down to the artifact's folder. */
  folderSegments: string[];
  /** The artifact's file name. */
  leaf: string;
}
export type ContainmentResult = ResolvedArtifact | { ok: false; code: ContainmentCode };

const MAX_PATH_BYTES = 4096;
/** The longest file name (one path segment) file systems take. */
export const MAX_SEGMENT_BYTES = 255;

/** Absolute on any host: POSIX `/x`, Windows `C:\x`, `C:/x`, `C:x`, `\x`, `\\server\share`. */
export function isAbsoluteOnAnyHost(p: string): boolean {
  return p.startsWith('/') || p.startsWith('\\') || /^[A-Za-z]:/.test(p);
}

function segmentsOf(p: string): string[] {
  return p.split(/[\\/]+/).filter((s) => s !== '' && s !== '.');
}

function isInside(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith(path.sep) ? parent : parent + path.sep);
}

function resolve(runRoot: string, artifactPath: string): ContainmentResult {
  if (typeof artifactPath !== 'string' || artifactPath.length === 0) return { ok: false, code: 'resolution_failure' };
  if (isAbsoluteOnAnyHost(artifactPath)) return { ok: false, code: 'absolute_path' };
  // Both separators count: `evidence\..\x` must not slip through on POSIX.
  if (artifactPath.split(/[\\/]/).some((s) => s === '..')) return { ok: false, code: 'dotdot_segment' };
  if (
    artifactPath.includes('\0') ||
    Buffer.byteLength(artifactPath) > MAX_PATH_BYTES ||
    artifactPath.split(/[\\/]/).some((s) => Buffer.byteLength(s) > MAX_SEGMENT_BYTES) ||
    /[\\/]$/.test(artifactPath)
  ) {
    return { ok: false, code: 'resolution_failure' };
  }
  let rootReal: string;
  try {
    rootReal = fs.realpathSync.native(runRoot);
  } catch {
    return { ok: false, code: 'resolution_failure' };
  }
  // Backslashes are separators here too, so a Windows-style path means the same on every host.
  const segments = segmentsOf(artifactPath);
  if (segments.length < 2 || segments[0] !== EVIDENCE_DIR) return { ok: false, code: 'canonical_escape' };
  const evidenceRoot = path.join(rootReal, EVIDENCE_DIR);

  // Walk what exists, component by component, following links only to see
  // where they lead: any hop that lands outside evidence/ is an escape.
  let current = evidenceRoot;
  let evidenceReal = evidenceRoot;
  try {
    const st = fs.lstatSync(evidenceRoot);
    if (st.isSymbolicLink()) return { ok: false, code: 'symlink_escape' };
    if (!st.isDirectory()) return { ok: false, code: 'resolution_failure' };
    evidenceReal = fs.realpathSync.native(evidenceRoot);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return { ok: false, code: 'resolution_failure' };
    // evidence/ does not exist yet: nothing below it can be a link.
    return {
      ok: true,
      path: path.join(evidenceRoot, ...segments.slice(1)),
      evidenceRoot,
      folderSegments: segments.slice(1, -1),
      leaf: segments[segments.length - 1],
    };
  }
  current = evidenceReal;
  const rest = segments.slice(1);
  for (let i = 0; i < rest.length; i++) {
    const next = path.join(current, rest[i]);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(next);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        // The missing suffix is allowed on the write side.
        const remaining = rest.slice(i);
        const target = path.join(current, ...remaining);
        const folder = path.dirname(target);
        return {
          ok: true,
          path: target,
          evidenceRoot: evidenceReal,
          folderSegments: path.relative(evidenceReal, folder).split(path.sep).filter(Boolean),
          leaf: path.basename(target),
        };
      }
      return { ok: false, code: 'resolution_failure' };
    }
    if (st.isSymbolicLink()) {
      let real: string;
      try {
        real = fs.realpathSync.native(next);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') {
          // A dangling link: judge where it points without following further.
          try {
            const pointed = path.resolve(current, fs.readlinkSync(next));
            if (!isInside(pointed, evidenceReal)) return { ok: false, code: 'symlink_escape' };
          } catch {
            return { ok: false, code: 'resolution_failure' };
          }
        }
        return { ok: false, code: 'resolution_failure' };
      }
      if (!isInside(real, evidenceReal) || real === evidenceReal) return { ok: false, code: 'symlink_escape' };
      current = real;
    } else {
      if (i < rest.length - 1 && !st.isDirectory()) return { ok: false, code: 'resolution_failure' };
      current = next;
    }
  }
  return {
    ok: true,
    path: current,
    evidenceRoot: evidenceReal,
    folderSegments: path.relative(evidenceReal, path.dirname(current)).split(path.sep).filter(Boolean),
    leaf: path.basename(current),
  };
}

/** Where `artifactPath` may be written under `<runRoot>/evidence/` (a missing suffix is allowed). */
export function writeTarget(runRoot: string, artifactPath: string): ContainmentResult {
  try {
    return resolve(runRoot, artifactPath);
  } catch {
    return { ok: false, code: 'resolution_failure' };
  }
}

/** An existing regular file under `<runRoot>/evidence/`, or a refusal. */
export function readArtifact(runRoot: string, artifactPath: string): ContainmentResult {
  const resolved = writeTarget(runRoot, artifactPath);
  if (!resolved.ok) return resolved;
  try {
    if (!fs.statSync(resolved.path).isFile()) return { ok: false, code: 'not_regular_file' };
  } catch {
    return { ok: false, code: 'not_regular_file' };
  }
  return resolved;
}
