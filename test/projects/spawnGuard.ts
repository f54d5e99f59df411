/**
 * Holds each test file to the project its name puts it in (see
 * test/projects/projects.ts): a setup file of the unit and browser projects
 * that makes starting what the project does not allow fail the test at
 * once, naming the rename that fixes it. Unit tests start no browser and
 * no built server; browser tests start no built server (dist/, the plugin
 * bundle). Restored after the file, as a jest worker also runs files of
 * the other projects.
 */
import childProcess from 'child_process';
import * as path from 'path';

export type Forbidden = 'browser' | 'built';

const PATCHED = ['spawn', 'spawnSync', 'execFile', 'execFileSync', 'fork', 'exec', 'execSync'] as const;

/** What a command line starts, if it is a browser or the built server. */
export function whatItStarts(command: string, args: readonly unknown[] = []): Forbidden | null {
  const words = [command, ...args.filter((a): a is string => typeof a === 'string')];
  if (words.some((w) => /(^|[\s/\\])(dist[/\\]src[/\\]|plugin[/\\]server\.cjs)/.test(w))) return 'built';
  const executable = path.basename(command.trim().split(/\s+/)[0] ?? '');
  if (/chrom(e|ium)|headless[-_]shell/i.test(executable)) return 'browser';
  return null;
}

export function guardSpawns(forbidden: readonly Forbidden[], project: string): void {
  const cp = childProcess as unknown as Record<string, (...a: unknown[]) => unknown>;
  const originals = Object.fromEntries(PATCHED.map((name) => [name, cp[name]]));
  const testFile = path.relative(process.cwd(), expect.getState().testPath ?? '');
  for (const name of PATCHED) {
    cp[name] = function guarded(this: unknown, ...callArgs: unknown[]) {
      const [command, maybeArgs] = callArgs;
      const args: unknown[] = Array.isArray(maybeArgs) ? maybeArgs : [];
      const started = typeof command === 'string' ? whatItStarts(command, args) : null;
      if (started && forbidden.includes(started)) {
        const rename = started === 'built' ? '*.e2e.test.ts' : '*.browser.test.ts (or *.e2e.test.ts when it also starts the built server)';
        throw new Error(
          `${testFile} is a ${project} test (by its name) but starts ${started === 'built' ? 'the built server' : 'a browser'} (${[command, ...args].join(' ').slice(0, 160)}): name it ${rename}`,
        );
      }
      return originals[name].apply(this, callArgs);
    };
  }
  afterAll(() => {
    for (const name of PATCHED) cp[name] = originals[name];
  });
}
