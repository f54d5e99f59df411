/**
 * Where evidence lands: the `run_root` argument (this call only), else
 * DESIGN_PLAYBOOK_RUN_ROOT, else the process working directory. A root named
 * by the argument must prove it is a run folder (a marker file); it never
 * falls back to another root.
 */
import * as fs from 'fs';
import * as path from 'path';
import { envValue } from '../common/settings';
import { log } from '../common/log';
import { isDirectory } from '../common/files';

export const RUN_MARKERS = ['plan.md', 'point-back.md'] as const;
/** Relative DESIGN_PLAYBOOK_RUN_ROOT values resolve against the cwd at process start. */
export const START_CWD = process.cwd();

export type RunRootSource = 'run_root' | 'DESIGN_PLAYBOOK_RUN_ROOT' | 'cwd';
export type RunRootResolution = { ok: true; root: string; source: RunRootSource; warnings: string[] } | { ok: false; error: string };

let cwdWarningLogged = false;

export function hasRunMarker(root: string): boolean {
  return RUN_MARKERS.some((marker) => {
    try {
      return fs.statSync(path.join(root, marker)).isFile();
    } catch {
      return false;
    }
  });
}

export function resolveRunRoot(argument: unknown, env: NodeJS.ProcessEnv = process.env): RunRootResolution {
  if (argument !== undefined) {
    if (typeof argument !== 'string' || argument.trim() === '' || argument.includes('\0')) {
      return { ok: false, error: `run_root must be a non-empty absolute path string (got ${JSON.stringify(argument)})` };
    }
    const root = argument.trim();
    if (!path.isAbsolute(root)) {
      return {
        ok: false,
        error:
          `run_root must be an absolute path (got '${root}'); pass the run folder's full path, ` +
          `e.g. '${path.resolve(root)}' if it is relative to the server's working directory`,
      };
    }
    if (!isDirectory(root)) return { ok: false, error: `run_root is not an existing folder: ${root}` };
    if (!hasRunMarker(root)) {
      return {
        ok: false,
        error: `run_root ${root} holds no run marker (${RUN_MARKERS.join(' or ')}); pass the run folder that holds one, or omit run_root`,
      };
    }
    return { ok: true, root: path.resolve(root), source: 'run_root', warnings: [] };
  }
  const configured = envValue(env, 'runRoot');
  if (configured !== undefined && configured !== '' && configured !== '.') {
    const root = path.resolve(START_CWD, configured);
    if (!isDirectory(root)) {
      return { ok: false, error: `DESIGN_PLAYBOOK_RUN_ROOT does not name an existing folder: ${root}` };
    }
    const warnings = hasRunMarker(root)
      ? []
      : [`run root ${root} (DESIGN_PLAYBOOK_RUN_ROOT) holds no run marker (${RUN_MARKERS.join(' or ')}); check that it is the run folder`];
    return { ok: true, root, source: 'DESIGN_PLAYBOOK_RUN_ROOT', warnings };
  }
  const root = process.cwd();
  if (hasRunMarker(root)) return { ok: true, root, source: 'cwd', warnings: [] };
  const warning =
    `DESIGN_PLAYBOOK_RUN_ROOT is unset or '.': evidence resolves under the MCP process cwd ${root}, ` +
    `which holds no run marker (${RUN_MARKERS.join(' or ')}); set DESIGN_PLAYBOOK_RUN_ROOT to the run root or pass run_root`;
  if (!cwdWarningLogged) {
    cwdWarningLogged = true;
    log(`warning: ${warning}`);
  }
  return { ok: true, root, source: 'cwd', warnings: [warning] };
}
