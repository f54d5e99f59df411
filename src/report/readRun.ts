/**
 * Reads a run for the report, touching nothing: the manifest through the
 * project's reader (src/manifest) and a listing of every file under
 * `evidence/`. Symbolic links are listed but never followed, so a link that
 * leads out of the run is reported, not read.
 */
import * as fs from 'fs';
import * as path from 'path';
import { readManifest, type ManifestReport } from '../manifest';

export const MANIFEST_LEAF = 'manifest.jsonl';

export interface EvidenceFile {
  /** Relative to evidence/, with `/` separators (as a manifest line's `artifact` is written). */
  rel: string;
  abs: string;
  size: number;
  /** `file` = regular file; `link` = symbolic link (not followed); `other` = socket, fifo, ... */
  kind: 'file' | 'link' | 'other';
}

export interface RunContents {
  runRoot: string;
  evidenceDir: string;
  manifestPath: string;
  manifestPresent: boolean;
  manifest: ManifestReport;
  /** The manifest's physical lines (for showing flagged lines as written). */
  manifestLines: string[];
  files: EvidenceFile[];
}

/** True for the manifest in any case variant, as the runtime's refusal reads it. */
export function isManifestName(rel: string): boolean {
  return rel.trim().toLowerCase() === MANIFEST_LEAF;
}

function listEvidence(evidenceDir: string): EvidenceFile[] {
  const files: EvidenceFile[] = [];
  const walk = (dir: string, prefix: string) => {
    let names: fs.Dirent[];
    try {
      names = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const dirent of names) {
      const abs = path.join(dir, dirent.name);
      const rel = prefix ? `${prefix}/${dirent.name}` : dirent.name;
      if (dirent.isDirectory()) {
        walk(abs, rel);
        continue;
      }
      if (!prefix && isManifestName(dirent.name)) continue;
      let st: fs.Stats;
      try {
        st = fs.lstatSync(abs);
      } catch {
        continue;
      }
      files.push({ rel, abs, size: st.size, kind: st.isFile() ? 'file' : st.isSymbolicLink() ? 'link' : 'other' });
    }
  };
  walk(evidenceDir, '');
  return files.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
}

export function readRun(runRoot: string): RunContents {
  const evidenceDir = path.join(runRoot, 'evidence');
  const manifestPath = path.join(evidenceDir, MANIFEST_LEAF);
  const manifestPresent = fs.existsSync(manifestPath);
  let manifestLines: string[] = [];
  if (manifestPresent) {
    try {
      manifestLines = fs
        .readFileSync(manifestPath, 'utf8')
        .replace(/^\uFEFF/, '')
        .split('\n')
        .map((line) => line.replace(/\r$/, ''));
    } catch {
      manifestLines = [];
    }
  }
  // No manifest is a fact of the run (every file is then unbound), not an error.
  const manifest: ManifestReport = manifestPresent ? readManifest(manifestPath) : { entries: [], facts: [] };
  return { runRoot, evidenceDir, manifestPath, manifestPresent, manifest, manifestLines, files: listEvidence(evidenceDir) };
}
