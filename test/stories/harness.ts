/**
 * The `stories` subcommand as users run it: the built bin as a child
 * process, on the committed Storybook fixture.
 */
import * as fs from 'fs';
import * as path from 'path';
import { spawn, type ChildProcess } from 'child_process';
import { CHROMIUM_PATH } from '../helpers/browser';
import { BIN, assertBuilt } from '../e2e/harness';

export const FIXTURE = path.join(__dirname, '..', 'fixtures', 'storybook', 'static');

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runStories(args: string[], options: { cwd?: string } = {}): Promise<Finished> {
  return startStories(args, options).finished;
}

/** The command started: its process, and what it printed once it ends. */
export function startStories(args: string[], options: { cwd?: string } = {}): { child: ChildProcess; finished: Promise<Finished> } {
  assertBuilt();
  const env: Record<string, string> = { ...(process.env as Record<string, string>), DESIGN_PLAYBOOK_CHROME_PATH: CHROMIUM_PATH };
  delete env.DESIGN_PLAYBOOK_RUN_ROOT;
  delete env.DESIGN_PLAYBOOK_CDP_URL;
  const child = spawn(process.execPath, [BIN, 'stories', ...args], { env, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return { child, finished: new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr }))) };
}

/** Every file under a folder, relative, sorted ([] when it is not there). */
export function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(child);
      else out.push(child);
    }
  };
  walk('');
  return out.sort();
}
