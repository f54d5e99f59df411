/**
 * The batch runner as users run it: the built bin's `run` subcommand as a
 * child process, its stdout read as JSON lines while it runs.
 */
import * as fs from 'fs';
import * as path from 'path';
import { spawn, type ChildProcess } from 'child_process';
import { CHROMIUM_PATH } from '../helpers/browser';
import { BIN, assertBuilt } from '../e2e/harness';

export interface RunningPlan {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** The JSON lines printed so far. */
  results(): Array<Record<string, any>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startRun(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}): RunningPlan {
  assertBuilt();
  const env: Record<string, string> = { ...(process.env as Record<string, string>), DESIGN_PLAYBOOK_CHROME_PATH: CHROMIUM_PATH, ...(options.env ?? {}) };
  delete env.DESIGN_PLAYBOOK_RUN_ROOT;
  if (!options.env?.DESIGN_PLAYBOOK_CDP_URL) delete env.DESIGN_PLAYBOOK_CDP_URL;
  const child = spawn(process.execPath, [BIN, 'run', ...args], { env, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    results: () =>
      stdout
        .split('\n')
        .filter((line) => line.trim())
        .map((line) => JSON.parse(line)),
    exited,
  };
}

export const VIEWPORT = { width: 640, height: 400, devicePixelRatio: 1, colorScheme: 'light' };

export const EXTENSION: Record<string, string> = { screenshot: 'png', 'a11y tree': 'json', 'interaction trace': 'trace.zip' };

/** One plan line: tool arguments with no run_root (the runner's --run-root supplies it). */
export function planLine(url: string, type: string, leaf: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { schemaVersion: 1, url, type, state: 'ready', artifact_path: `evidence/${leaf}.${EXTENSION[type]}`, viewport: VIEWPORT, ...extra };
}

export function writePlan(file: string, lines: Array<Record<string, unknown> | string>): void {
  fs.writeFileSync(file, lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n') + '\n');
}

/** Every file under a folder, relative, sorted. */
export function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else out.push(path.relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

export async function waitUntil(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
