/**
 * Writes the report folder all at once: everything is built in a fresh
 * sibling folder, which then replaces the previous report by rename, so a
 * build that fails leaves the old report (or nothing) and never half a
 * report. The folder is marked as ours, and only a folder carrying that
 * mark (or an empty one) is ever replaced: `--out` cannot wipe anything else.
 */
import * as fs from 'fs';
import * as path from 'path';
import { EvidenceError } from '../common/errors';

/** Marks a folder this command wrote, so a later build may replace it. */
export const REPORT_MARKER = '.design-playbook-report';

export class ReportOutputError extends EvidenceError<'report-output'> {
  constructor(message: string) {
    super('report-output', message);
    this.name = 'ReportOutputError';
  }
}

function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function realOrSelf(p: string): string {
  // Resolve links on the nearest existing ancestor, so a link cannot smuggle the output into evidence/.
  let existing = p;
  const rest: string[] = [];
  while (!fs.existsSync(existing)) {
    rest.unshift(path.basename(existing));
    const parent = path.dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  try {
    return path.join(fs.realpathSync(existing), ...rest);
  } catch {
    return p;
  }
}

/** Refuses an output folder that is, or holds, or sits inside the run's evidence/, or is a folder we did not write. */
export function checkOutputFolder(outDir: string, evidenceDir: string): void {
  const out = realOrSelf(path.resolve(outDir));
  const evidence = realOrSelf(path.resolve(evidenceDir));
  if (isInside(out, evidence))
    throw new ReportOutputError(
      `--out ${outDir} is inside ${evidenceDir}: the report never writes inside evidence/; choose a folder outside it (default <run root>/report)`,
    );
  if (isInside(evidence, out))
    throw new ReportOutputError(
      `--out ${outDir} holds ${evidenceDir}: the report replaces its output folder, so it must not contain the evidence; choose a folder of its own (default <run root>/report)`,
    );
  if (!fs.existsSync(out)) return;
  const st = fs.lstatSync(out);
  if (!st.isDirectory()) throw new ReportOutputError(`--out ${outDir} exists and is not a folder; choose a new or empty folder`);
  const names = fs.readdirSync(out);
  if (names.length && !names.includes(REPORT_MARKER)) {
    throw new ReportOutputError(`${outDir} exists, is not empty and was not written by this command (no ${REPORT_MARKER}); choose a new or empty folder`);
  }
}

export interface ReportFiles {
  html: string;
  copies: { from: string; to: string }[];
  blobs: { to: string; bytes: Buffer }[];
}

function safeJoin(root: string, rel: string): string {
  const target = path.resolve(root, ...rel.split('/'));
  if (!isInside(target, root) || target === root) throw new ReportOutputError(`refusing to write ${rel} outside the report folder`);
  return target;
}

/** Builds the folder next to `outDir` and swaps it in. Returns the path of index.html. */
export function writeReportFolder(outDir: string, files: ReportFiles): string {
  const out = path.resolve(outDir);
  const parent = path.dirname(out);
  fs.mkdirSync(parent, { recursive: true });
  const staging = fs.mkdtempSync(path.join(parent, `.${path.basename(out)}.building-`));
  // mkdtemp makes the folder private; a report is as readable as any other file the user writes.
  fs.chmodSync(staging, 0o755);
  try {
    for (const copy of files.copies) {
      const target = safeJoin(staging, copy.to);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.copyFileSync(copy.from, target);
    }
    for (const blob of files.blobs) {
      const target = safeJoin(staging, blob.to);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, blob.bytes);
    }
    fs.writeFileSync(path.join(staging, REPORT_MARKER), 'Written by `design-playbook-evidence report`; the next report build replaces this folder.\n');
    fs.writeFileSync(path.join(staging, 'index.html'), files.html);
  } catch (err) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw err;
  }
  let retired: string | null = null;
  if (fs.existsSync(out)) {
    retired = path.join(parent, `.${path.basename(out)}.old-${process.pid}-${Date.now()}`);
    fs.renameSync(out, retired);
  }
  try {
    fs.renameSync(staging, out);
  } catch (err) {
    if (retired) fs.renameSync(retired, out);
    fs.rmSync(staging, { recursive: true, force: true });
    throw err;
  }
  if (retired) fs.rmSync(retired, { recursive: true, force: true });
  return path.join(out, 'index.html');
}
