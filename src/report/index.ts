/**
 * `buildReport`: reads a run (manifest through the project's reader, every
 * file under evidence/) and writes a static, self-contained HTML report to
 * `<run root>/report/` (or `outDir`). Reads the run only; writes only the
 * report folder.
 */
import * as path from 'path';
import { readRun } from './readRun';
import { buildReportModel, type ReportModel } from './model';
import { renderReport, type ReportComparison } from './render';

export type { ReportComparison } from './render';
import { checkOutputFolder, writeReportFolder } from './writeReport';

export { REPORT_DESIGN } from './tokens';
export { ReportOutputError, REPORT_MARKER } from './writeReport';

export interface BuildReportOptions {
  runRoot: string;
  /** Default: <runRoot>/report. */
  outDir?: string;
  /** For reproducible output in tests. */
  now?: Date;
  /** A comparison to show (report --rounds / --compare: src/cli/report.ts builds it first). */
  comparison?: ReportComparison;
}

export interface BuiltReport {
  indexPath: string;
  outDir: string;
  model: ReportModel;
}

export function defaultReportDir(runRoot: string): string {
  return path.join(runRoot, 'report');
}

export async function buildReport(options: BuildReportOptions): Promise<BuiltReport> {
  const runRoot = path.resolve(options.runRoot);
  const outDir = path.resolve(options.outDir ?? defaultReportDir(runRoot));
  const run = readRun(runRoot);
  checkOutputFolder(outDir, run.evidenceDir);
  const model = await buildReportModel(run);
  const html = renderReport(model, options.now ?? new Date(), options.comparison);
  const indexPath = writeReportFolder(outDir, { html, copies: model.copies, blobs: model.blobs });
  return { indexPath, outDir, model };
}
