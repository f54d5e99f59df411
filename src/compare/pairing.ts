/**
 * Which artifacts a comparison sets side by side, read from the runs'
 * manifests (`evidence/manifest.jsonl`, through src/manifest) — the one owner
 * of pairing:
 *
 * - two run roots: by criterion and capture type, the binding capture of
 *   each side (the latest `ts`); what has no partner on either side is listed;
 * - one run root, in rounds: successive captures of the same criterion and
 *   type in manifest order (`L6.1-empty-r1.png` then `-r2.png`). A capture
 *   that overwrote the file of the one before it leaves nothing to compare
 *   with: the pair is listed as overwritten.
 *
 * Artifacts are read only through the containment module's read side, so a
 * manifest line cannot point a comparison outside `<run root>/evidence/`.
 * Nothing here reads an artifact's bytes.
 */
import * as path from 'path';
import { readArtifact, EVIDENCE_DIR } from '../boundary/containment';
import { readManifest, type ManifestEntry } from '../manifest';
import { EvidenceError } from '../common/errors';
import { isFile } from '../common/files';

export const MANIFEST_FILE = 'manifest.jsonl';

/** A comparison's input that cannot be used: the file and the rule it breaks, and what to do. */
export class CompareInputError extends EvidenceError<'compare-input'> {
  override name = 'CompareInputError';
  constructor(message: string) {
    super('compare-input', message);
  }
}

/** One capture of a run, as its manifest line names it. */
export interface RunArtifact {
  criterion: string;
  /** The manifest's `capture.type`. */
  type: string;
  /** Relative to evidence/, as the line writes it. */
  artifact: string;
  /** The manifest line it comes from (1-based). */
  line: number;
  ts: string;
  result: string;
  observedState: string;
  /** The artifact's absolute path when it is a readable regular file under evidence/; null otherwise. */
  path: string | null;
  /** Why `path` is null (missing, refused by containment, a failed capture). */
  unreadable?: string;
  /** The file a line names cannot be read (missing, or outside evidence/): the run is broken, not just different. */
  broken?: boolean;
}

export interface ArtifactPair {
  criterion: string;
  type: string;
  before: RunArtifact;
  after: RunArtifact;
}

export interface Unpaired {
  criterion: string;
  type: string;
  before?: RunArtifact;
  after?: RunArtifact;
  /** Why the two cannot be compared (an overwritten file, a failed capture, a file that is not there). */
  reason: string;
}

export interface Pairing {
  mode: 'runs' | 'rounds';
  before: string;
  after: string;
  pairs: ArtifactPair[];
  /** Criterion and type in the first run only (runs) — gone. */
  onlyBefore: RunArtifact[];
  /** Criterion and type in the second run only (runs) — new. */
  onlyAfter: RunArtifact[];
  /** Set side by side, but not comparable. */
  notComparable: Unpaired[];
  /** Lines of a manifest that were not paired, and why (a request snapshot the reader refuses). */
  skippedLines: string[];
}

/** The manifest facts that leave a line without a criterion, a type or an artifact to pair by. */
const PAIRING_FIELDS = new Set(['criterion', 'artifact', 'capture', 'capture.type']);
const UNPAIRABLE_CODES = new Set(['unreadable', 'malformed_json', 'invalid_entry']);

/** A run root's manifest entries, in line order; a line that cannot be paired is an error naming the file, the line and the rule. */
export function readRun(root: string): { root: string; entries: ManifestEntry[]; skipped: string[] } {
  const absolute = path.resolve(root);
  const manifest = path.join(absolute, EVIDENCE_DIR, MANIFEST_FILE);
  if (!isFile(manifest)) {
    throw new CompareInputError(
      `${absolute} is not a run root: it holds no ${EVIDENCE_DIR}/${MANIFEST_FILE}; name a run folder whose evidence/ holds the manifest the captures were recorded in`,
    );
  }
  const report = readManifest(manifest);
  const fatal = report.facts.filter((f) => UNPAIRABLE_CODES.has(f.code) || (f.field !== undefined && PAIRING_FIELDS.has(f.field)));
  if (fatal.length) {
    const first = fatal[0];
    const more = fatal.length > 1 ? ` (and ${fatal.length - 1} more line${fatal.length > 2 ? 's' : ''} like it)` : '';
    throw new CompareInputError(`${manifest}:${first.line}: ${first.detail}; ${first.repair}${more}`);
  }
  const skipped = report.facts.filter((f) => !fatal.includes(f)).map((f) => `${manifest}:${f.line}: not paired: ${f.detail}`);
  return { root: absolute, entries: report.entries, skipped: [...new Set(skipped)] };
}

function artifactOf(root: string, entry: ManifestEntry): RunArtifact {
  const out: RunArtifact = {
    criterion: entry.criterion,
    type: entry.capture.type,
    artifact: entry.artifact,
    line: entry.line,
    ts: entry.ts,
    result: entry.result,
    observedState: entry.observed_state,
    path: null,
  };
  if (entry.result !== 'captured') {
    out.unreadable = `the capture on line ${entry.line} failed: nothing was written`;
    return out;
  }
  const resolved = readArtifact(root, `${EVIDENCE_DIR}/${entry.artifact}`);
  if (resolved.ok) out.path = resolved.path;
  else {
    out.broken = true;
    out.unreadable =
      resolved.code === 'not_regular_file'
        ? `${path.join(root, EVIDENCE_DIR, entry.artifact)} is not there (line ${entry.line} names it)`
        : `line ${entry.line} names ${entry.artifact}, which resolves outside ${path.join(root, EVIDENCE_DIR)} (${resolved.code})`;
  }
  return out;
}

const keyOf = (criterion: string, type: string) => `${criterion}\u0000${type}`;

/** The binding capture per criterion and type: the latest `ts` as an instant, the later line on a tie. */
function bindings(entries: readonly ManifestEntry[]): Map<string, ManifestEntry> {
  const out = new Map<string, ManifestEntry>();
  for (const entry of entries) {
    const key = keyOf(entry.criterion, entry.capture.type);
    const best = out.get(key);
    if (!best || entry.tsMs > best.tsMs || (entry.tsMs === best.tsMs && entry.line > best.line)) out.set(key, entry);
  }
  return out;
}

/** Natural order for criteria (L6.2 before L6.10), then type. */
function byCriterion(a: { criterion: string; type: string }, b: { criterion: string; type: string }): number {
  return a.criterion.localeCompare(b.criterion, 'en', { numeric: true }) || a.type.localeCompare(b.type);
}

function pairOrNot(criterion: string, type: string, before: RunArtifact, after: RunArtifact): ArtifactPair | Unpaired {
  const reason = before.unreadable ?? after.unreadable;
  return reason ? { criterion, type, before, after, reason } : { criterion, type, before, after };
}

/** Two runs, paired by criterion and type. */
export function pairRuns(beforeRoot: string, afterRoot: string): Pairing {
  const a = readRun(beforeRoot);
  const b = readRun(afterRoot);
  const left = bindings(a.entries);
  const right = bindings(b.entries);
  const pairing: Pairing = {
    mode: 'runs',
    before: a.root,
    after: b.root,
    pairs: [],
    onlyBefore: [],
    onlyAfter: [],
    notComparable: [],
    skippedLines: [...a.skipped, ...b.skipped],
  };
  for (const [key, entry] of left) {
    const other = right.get(key);
    const before = artifactOf(a.root, entry);
    if (!other) {
      pairing.onlyBefore.push(before);
      continue;
    }
    const paired = pairOrNot(entry.criterion, entry.capture.type, before, artifactOf(b.root, other));
    if ('reason' in paired) pairing.notComparable.push(paired);
    else pairing.pairs.push(paired);
  }
  for (const [key, entry] of right) if (!left.has(key)) pairing.onlyAfter.push(artifactOf(b.root, entry));
  for (const list of [pairing.pairs, pairing.onlyBefore, pairing.onlyAfter, pairing.notComparable]) list.sort(byCriterion);
  return pairing;
}

/** One run's successive captures of each criterion and type, in manifest order. */
export function pairRounds(root: string): Pairing {
  const run = readRun(root);
  const pairing: Pairing = {
    mode: 'rounds',
    before: run.root,
    after: run.root,
    pairs: [],
    onlyBefore: [],
    onlyAfter: [],
    notComparable: [],
    skippedLines: run.skipped,
  };
  const rounds = new Map<string, ManifestEntry[]>();
  for (const entry of run.entries) {
    const key = keyOf(entry.criterion, entry.capture.type);
    rounds.set(key, [...(rounds.get(key) ?? []), entry]);
  }
  for (const entries of rounds.values()) {
    for (let i = 1; i < entries.length; i++) {
      const [previous, next] = [entries[i - 1], entries[i]];
      const before = artifactOf(run.root, previous);
      const after = artifactOf(run.root, next);
      if (previous.artifact === next.artifact) {
        pairing.notComparable.push({
          criterion: next.criterion,
          type: next.capture.type,
          before: { ...before, path: null },
          after,
          reason: `overwritten: line ${next.line} recaptured ${next.artifact} in place, so line ${previous.line}'s capture is gone; give each round its own name (${revisionName(next.artifact)})`,
        });
        continue;
      }
      const paired = pairOrNot(next.criterion, next.capture.type, before, after);
      if ('reason' in paired) pairing.notComparable.push(paired);
      else pairing.pairs.push(paired);
    }
  }
  for (const list of [pairing.pairs, pairing.notComparable]) list.sort(byCriterion);
  return pairing;
}

/** `L6.1-empty.png` → `L6.1-empty-r2.png`: the revision name the playbook uses for a recapture. */
export function revisionName(artifact: string): string {
  const match = /^(.*?)((?:\.probe)?\.json|\.trace\.zip|\.[^./]+)?$/.exec(artifact)!;
  return `${match[1]}-r2${match[2] ?? ''}`;
}
