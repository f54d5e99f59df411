/**
 * Temporary run folders for boundary tests: a run root (with a marker unless
 * asked otherwise) next to an `outside` folder that must never receive a byte.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as crypto from 'crypto';

export interface RunFixture {
  /** Temp folder holding everything below (realpath'd, so comparisons are exact). */
  base: string;
  /** The run root: holds plan.md unless created with marker: null. */
  root: string;
  /** <root>/evidence (created). */
  evidence: string;
  /** A sibling of the run root that no capture may touch. */
  outside: string;
  cleanup(): void;
}

export function makeRunFixture(options: { marker?: 'plan.md' | 'point-back.md' | null; evidence?: boolean } = {}): RunFixture {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-foundation-')));
  const root = path.join(base, 'run');
  const evidence = path.join(root, 'evidence');
  const outside = path.join(base, 'outside');
  fs.mkdirSync(root);
  fs.mkdirSync(outside);
  if (options.evidence !== false) fs.mkdirSync(evidence);
  const marker = options.marker === undefined ? 'plan.md' : options.marker;
  if (marker) fs.writeFileSync(path.join(root, marker), '# plan\n');
  return { base, root, evidence, outside, cleanup: () => fs.rmSync(base, { recursive: true, force: true }) };
}

/** Every entry under `dir` (links not followed): relative path -> kind and content digest. */
export function snapshotTree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    const abs = path.join(dir, rel);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(abs);
    } catch {
      return;
    }
    if (st.isSymbolicLink()) out.set(rel, `link:${fs.readlinkSync(abs)}`);
    else if (st.isDirectory()) {
      out.set(rel, 'dir');
      for (const name of fs.readdirSync(abs).sort()) walk(path.join(rel, name));
    } else if (st.isFile()) out.set(rel, `file:${crypto.createHash('sha256').update(fs.readFileSync(abs)).digest('hex')}`);
    else out.set(rel, 'other');
  };
  walk('.');
  return out;
}

/** Regular files under `dir`, relative paths, links not followed. */
export function listFiles(dir: string): string[] {
  return [...snapshotTree(dir).entries()].filter(([, kind]) => kind.startsWith('file:')).map(([rel]) => rel.replace(/^\.\//, ''));
}

/** Leftover temporary files (the writer's `.partial` names) anywhere under `dir`. */
export function partialFiles(dir: string): string[] {
  return listFiles(dir).filter((f) => f.endsWith('.partial'));
}

export const VIEWPORT = { width: 800, height: 600, devicePixelRatio: 1, colorScheme: 'light' } as const;

/** A complete, valid argument object for `root`; override any field (undefined deletes it). */
export function validArgs(root: string | undefined, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const args: Record<string, unknown> = {
    schemaVersion: 1,
    url: 'http://127.0.0.1:9/page.html',
    type: 'screenshot',
    state: 'ready',
    artifact_path: 'evidence/shot.png',
    viewport: { ...VIEWPORT },
  };
  if (root !== undefined) args.run_root = root;
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete args[key];
    else args[key] = value;
  }
  return args;
}
