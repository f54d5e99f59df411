/**
 * `design-playbook-evidence manifest check <path> [--json]`: checks a
 * caller-written manifest.jsonl against the v1 line rules. Prints one fact
 * per line (`<path>:<line>: <code>: <detail>; to fix: <repair>`) and a
 * summary naming the bad lines, or the report as JSON with --json. Exit 0 when every line is good, 1 when any fact was
 * found (including an unreadable file), 2 on a usage error; --help prints
 * the usage and exits 0.
 */
import * as fs from 'fs';
import * as path from 'path';
import { readManifest } from '../manifest';
import { flagsOf, isFlag } from './flags';
import { flagHelp } from './args';

export const MANIFEST_USAGE = `Usage:
  design-playbook-evidence manifest check <path/to/manifest.jsonl> [--json]
  (a run root or its evidence/ folder names the manifest.jsonl inside it)

${flagHelp(flagsOf('manifest check', { browser: false }))}`;

/** A run root or an evidence/ folder stands for the manifest inside it. */
function manifestFile(given: string): string {
  try {
    if (!fs.statSync(given).isDirectory()) return given;
  } catch {
    return given;
  }
  const inRunRoot = path.join(given, 'evidence', 'manifest.jsonl');
  return fs.existsSync(inRunRoot) ? inRunRoot : path.join(given, 'manifest.jsonl');
}

export function runManifestCli(argv: string[], out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): number {
  const [sub, ...rest] = argv;
  if ([sub, ...rest].some((arg) => isFlag(arg, 'help'))) {
    out.write(MANIFEST_USAGE);
    return 0;
  }
  const json = rest.some((arg) => isFlag(arg, 'json'));
  const paths = rest.filter((arg) => !isFlag(arg, 'json'));
  if (sub !== 'check' || paths.length !== 1) {
    err.write(MANIFEST_USAGE);
    return 2;
  }
  const file = manifestFile(paths[0]);
  const report = readManifest(file);
  if (json) {
    out.write(JSON.stringify({ path: file, entries: report.entries.length, facts: report.facts }, null, 2) + '\n');
  } else {
    for (const fact of report.facts) out.write(`${file}:${fact.line}: ${fact.code}: ${fact.detail}; to fix: ${fact.repair}\n`);
    const badLines = [...new Set(report.facts.map((f) => f.line))];
    const good = `${report.entries.length} good entr${report.entries.length === 1 ? 'y' : 'ies'}`;
    out.write(
      report.facts.length
        ? `${file}: ${badLines.length} bad line${badLines.length === 1 ? '' : 's'} (${badLines.join(', ')}), ${good}\n`
        : `${file}: ok, ${report.entries.length} entr${report.entries.length === 1 ? 'y' : 'ies'}\n`,
    );
  }
  return report.facts.length ? 1 : 0;
}
