/**
 * `design-playbook-evidence report [RUN_ROOT] [--out DIR]`: builds the static
 * HTML run report and prints the path of its index.html. The run root is
 * resolved as the server resolves it (src/boundary/runRoot.ts): the RUN_ROOT argument
 * (a relative one is taken from the current folder) must be a run folder,
 * else DESIGN_PLAYBOOK_RUN_ROOT, else the current folder.
 */
import * as fs from 'fs';
import * as path from 'path';
import { resolveRunRoot } from '../boundary/runRoot';
import { buildReport, ReportOutputError } from '../report';
import { flagRows, flagSpec, helpRows, parseFlags, single, UsageError } from './args';
import { ENVIRONMENT } from '../common/settings';
import { flagsOf } from './flags';

export const REPORT_USAGE = `Usage: design-playbook-evidence report [RUN_ROOT] [--out DIR]

Reads RUN_ROOT/evidence/ (the manifest.jsonl lines and every evidence file)
and writes a static HTML report that opens offline from file://, then prints
the path of its index.html. Nothing under evidence/ is written or changed.

${helpRows([
  ['RUN_ROOT', `the run folder (it holds plan.md or point-back.md); default: ${ENVIRONMENT.runRoot.name}, else the current folder`],
  ...flagRows(flagsOf('report', { browser: false })),
])}`;

export async function runReportCli(argv: string[], out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  const flags = parseFlags(argv, flagSpec('report'));
  if (flags.switches.has('help')) {
    out.write(REPORT_USAGE);
    return 0;
  }
  if (flags.positionals.length > 1) throw new UsageError(`takes one RUN_ROOT, got ${flags.positionals.length}: ${flags.positionals.join(' ')}`);
  const given = flags.positionals[0];
  const resolved = resolveRunRoot(given === undefined ? undefined : path.resolve(given));
  if (!resolved.ok) {
    err.write(`report: ${resolved.error}\n`);
    return 1;
  }
  for (const warning of resolved.warnings) err.write(`report: warning: ${warning}\n`);
  const evidenceDir = path.join(resolved.root, 'evidence');
  if (!fs.existsSync(evidenceDir) || !fs.statSync(evidenceDir).isDirectory()) {
    err.write(`report: ${resolved.root} has no evidence/ folder, so there is nothing to report; pass the run folder whose evidence/ holds the captures\n`);
    return 1;
  }
  const outFlag = single(flags, 'out');
  try {
    const built = await buildReport({ runRoot: resolved.root, outDir: outFlag === undefined ? undefined : path.resolve(outFlag) });
    const m = built.model;
    err.write(
      `report: ${m.items.length} bound artifact(s) in ${m.criteria.length} criteria, ${m.missing.length} missing, ` +
        `${m.unbound.length} unbound file(s), ${m.flagged.length} flagged line(s)\n`,
    );
    out.write(`${built.indexPath}\n`);
    return 0;
  } catch (error) {
    if (error instanceof ReportOutputError) {
      err.write(`report: ${error.message}\n`);
      return 1;
    }
    err.write(`report: the report could not be built (nothing was replaced): ${(error as Error).message}\n`);
    return 1;
  }
}
