/**
 * `compareEvidence`: the comparison the CLI (`design-playbook-evidence
 * compare`), the library and the opt-in MCP tool (`compare_evidence`) share.
 * Its input is two artifacts of one kind, two run roots, or one run root in
 * rounds (./pairing.ts); its output is the result object (./schema.ts) and,
 * unless asked not to, a folder holding `compare.json`, the diff images and
 * tiles, and `index.html` (./page.ts).
 *
 * The folder is `--out`, or `<run root>/compare/` — never under a run's
 * `evidence/`, which belongs to captures. Everything is written into a
 * staging folder beside it and moved into place at the end, so input that
 * cannot be read (a corrupt PNG, a missing file) leaves nothing behind.
 */
import * as fs from 'fs';
import * as path from 'path';
import { compareFiles, kindOfFile, kindOfType, type CompareOptions, type ItemImages } from './artifacts';
import { CompareInputError, pairRounds, pairRuns, type Pairing, type RunArtifact } from './pairing';
import { COMPARE_SCHEMA_VERSION, compareResultSchema, type ArtifactRef, type CompareItem, type CompareResult } from './schema';
import { renderComparePage } from './page';
import { EVIDENCE_DIR } from '../boundary/containment';

export { CompareInputError } from './pairing';
export type { CompareOptions } from './artifacts';
export type { CompareResult, CompareItem } from './schema';

export const COMPARE_DIR = 'compare';
export const RESULT_FILE = 'compare.json';
export const PAGE_FILE = 'index.html';
const IMAGES_DIR = 'images';

export type CompareInput = { artifacts: [string, string] } | { runs: [string, string] } | { rounds: string };

export interface CompareRunOptions extends CompareOptions {
  /** Where the folder goes; default `<run root>/compare/` (the second run's, in runs mode); required for two artifacts outside a run. */
  out?: string;
  /** Write nothing: the result only (the library's and the tests' choice). */
  write?: boolean;
  /** Told after each pair: how many of how many. */
  onProgress?: (done: number, total: number) => void;
}

function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The real path of `p`, or of its nearest existing ancestor with the rest appended. */
function realish(p: string): string {
  const parts: string[] = [];
  let current = path.resolve(p);
  for (;;) {
    try {
      return path.join(fs.realpathSync(current), ...parts.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return path.resolve(p);
      parts.push(path.basename(current));
      current = parent;
    }
  }
}

/** The run root an artifact named directly sits in (the folder above its `evidence/`), if any. */
function runRootOf(file: string): string | null {
  let dir = path.dirname(realish(file));
  for (;;) {
    if (path.basename(dir) === EVIDENCE_DIR) return path.dirname(dir);
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

function refOf(artifact: RunArtifact): ArtifactRef {
  return { artifact: artifact.artifact, path: artifact.path, line: artifact.line, observedState: artifact.observedState };
}

const fileRef = (file: string): ArtifactRef => ({ artifact: null, path: path.resolve(file), line: null, observedState: null });

/** Where the output goes, refused when it would land under a run's evidence/. */
function outputFolder(input: CompareInput, options: CompareRunOptions): string {
  const roots =
    'runs' in input ? input.runs : 'rounds' in input ? [input.rounds] : (input.artifacts.map(runRootOf).filter((r): r is string => r !== null) as string[]);
  let out = options.out;
  if (!out) {
    const root = 'runs' in input ? input.runs[1] : 'rounds' in input ? input.rounds : roots[roots.length - 1];
    if (!root) {
      const named = 'artifacts' in input ? input.artifacts[1] : '';
      throw new CompareInputError(
        `${named}: not inside a run's evidence/ folder, so there is no <run root>/compare/ to write to; name the output folder with --out DIR`,
      );
    }
    out = path.join(root, COMPARE_DIR);
  }
  const resolved = realish(out);
  for (const root of roots) {
    const evidence = realish(path.join(root, EVIDENCE_DIR));
    if (isInside(resolved, evidence)) {
      throw new CompareInputError(
        `--out ${out} is under ${evidence}, which holds captures only; write the comparison elsewhere, e.g. ${path.join(root, COMPARE_DIR)}`,
      );
    }
  }
  return path.resolve(out);
}

/** Writes the staged folder into place: a folder that is not a comparison's is never replaced. */
function publish(staging: string, out: string): void {
  if (fs.existsSync(out)) {
    const entries = fs.readdirSync(out);
    if (entries.length && !entries.includes(RESULT_FILE)) {
      throw new CompareInputError(`${out} holds files that are not a comparison's (no ${RESULT_FILE}); name an empty or new folder with --out`);
    }
    const old = `${out}.old-${process.pid}-${Date.now()}`;
    fs.renameSync(out, old);
    fs.renameSync(staging, out);
    fs.rmSync(old, { recursive: true, force: true });
  } else {
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.renameSync(staging, out);
  }
}

/** Pairs for two artifacts named directly: one pair of one kind. */
function artifactPairing(a: string, b: string): { kind: ReturnType<typeof kindOfFile>; before: string; after: string } {
  const [ka, kb] = [kindOfFile(a), kindOfFile(b)];
  if (ka !== kb) throw new CompareInputError(`${a} is ${article(ka)} ${ka} and ${b} is ${article(kb)} ${kb}: compare two artifacts of one kind`);
  return { kind: ka, before: path.resolve(a), after: path.resolve(b) };
}

const article = (word: string) => (/^[aeiou]/i.test(word) ? 'an' : 'a');

interface PlannedPair {
  criterion: string | null;
  kind: NonNullable<ReturnType<typeof kindOfType>>;
  before: ArtifactRef;
  after: ArtifactRef;
}

export async function compareEvidence(input: CompareInput, options: CompareRunOptions = {}): Promise<CompareResult> {
  const write = options.write !== false;
  let pairing: Pairing | null = null;
  const planned: PlannedPair[] = [];
  let before: string;
  let after: string;
  if ('artifacts' in input) {
    const pair = artifactPairing(...input.artifacts);
    planned.push({ criterion: null, kind: pair.kind, before: fileRef(pair.before), after: fileRef(pair.after) });
    [before, after] = [pair.before, pair.after];
  } else {
    pairing = 'runs' in input ? pairRuns(...input.runs) : pairRounds(input.rounds);
    [before, after] = [pairing.before, pairing.after];
    // A file a manifest line names and that cannot be read is trouble, as diff's missing file is.
    const broken = [...pairing.notComparable.flatMap((u) => [u.after, u.before]), ...pairing.onlyBefore, ...pairing.onlyAfter].find((a) => a?.broken);
    if (broken) throw new CompareInputError(`${broken.unreadable}; recapture it, or remove the line from the manifest`);
    for (const pair of pairing.pairs) {
      const kind = kindOfType(pair.type);
      if (!kind) {
        pairing.notComparable.push({ ...pair, reason: `capture type '${pair.type}' has no comparison (screenshot, a11y tree and interaction trace have)` });
        continue;
      }
      planned.push({ criterion: pair.criterion, kind, before: refOf(pair.before), after: refOf(pair.after) });
    }
  }
  // Decide where the output goes before comparing anything: a refusal costs no work and writes nothing.
  const out = write ? outputFolder(input, options) : null;

  const items: CompareItem[] = [];
  const images: Array<ItemImages | null> = [];
  for (const [i, pair] of planned.entries()) {
    const compared = await compareFiles(pair.kind, pair.before.path!, pair.after.path!, options);
    items.push({ criterion: pair.criterion, before: pair.before, after: pair.after, ...compared.item });
    images.push(compared.images);
    options.onProgress?.(i + 1, planned.length);
  }

  const notComparable = (pairing?.notComparable ?? []).map((u) => ({
    criterion: u.criterion,
    type: u.type,
    before: u.before ? refOf(u.before) : null,
    after: u.after ? refOf(u.after) : null,
    reason: u.reason,
  }));
  const fresh = (pairing?.onlyAfter ?? []).map((a) => ({ criterion: a.criterion, type: a.type, after: refOf(a) }));
  const gone = (pairing?.onlyBefore ?? []).map((a) => ({ criterion: a.criterion, type: a.type, before: refOf(a) }));
  const changed = items.filter((i) => i.status === 'changed').length;
  const result: CompareResult = {
    schemaVersion: COMPARE_SCHEMA_VERSION,
    mode: 'artifacts' in input ? 'artifacts' : 'runs' in input ? 'runs' : 'rounds',
    before,
    after,
    status: changed || fresh.length || gone.length ? 'changed' : 'unchanged',
    summary: { compared: items.length, unchanged: items.length - changed, changed, new: fresh.length, gone: gone.length, notComparable: notComparable.length },
    options: {
      threshold: items.find((i) => i.pixels)?.pixels?.threshold ?? options.threshold ?? 0,
      includeAA: options.includeAA ?? false,
      ignoreRects: options.ignoreRects ?? [],
      ignoreSelectors: options.ignoreSelectors ?? [],
    },
    items,
    new: fresh,
    gone,
    notComparable,
    skippedLines: pairing?.skippedLines ?? [],
    out,
  };
  if (out) writeOutput(out, result, images);
  return compareResultSchema.parse(result);
}

/** Stages compare.json, the images and the page beside `out`, then moves them into place. */
function writeOutput(out: string, result: CompareResult, images: Array<ItemImages | null>): void {
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const staging = fs.mkdtempSync(path.join(path.dirname(out), `.${path.basename(out)}.staging-`));
  try {
    fs.mkdirSync(path.join(staging, IMAGES_DIR));
    result.items.forEach((item, i) => {
      const bytes = images[i];
      if (!bytes) return;
      const stem = `${String(i + 1).padStart(3, '0')}-${(item.criterion ?? 'pair').replace(/[^A-Za-z0-9._-]/g, '_')}`;
      const diff = bytes.diff ? `${IMAGES_DIR}/${stem}-diff.png` : null;
      if (bytes.diff && diff) fs.writeFileSync(path.join(staging, diff), bytes.diff);
      const tiles = bytes.tiles.map((tile) => {
        const names = {
          region: tile.region,
          before: `${IMAGES_DIR}/${stem}-r${tile.region + 1}-before.png`,
          after: `${IMAGES_DIR}/${stem}-r${tile.region + 1}-after.png`,
        };
        fs.writeFileSync(path.join(staging, names.before), tile.before);
        fs.writeFileSync(path.join(staging, names.after), tile.after);
        return names;
      });
      item.images = { diff, tiles };
    });
    fs.writeFileSync(path.join(staging, RESULT_FILE), JSON.stringify(result, null, 2) + '\n');
    fs.writeFileSync(path.join(staging, PAGE_FILE), renderComparePage(result, out, new Date()));
    publish(staging, out);
  } catch (err) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw err;
  }
}

/** diff's exit status: 0 no change, 1 changes, 2 trouble (thrown errors are the caller's 2). */
export function exitStatusOf(result: CompareResult): 0 | 1 {
  return result.status === 'changed' ? 1 : 0;
}
