/**
 * Every test file belongs to exactly one jest project, by its name
 * (test/projects/projects.ts), and its name tells the truth as far as its
 * own text shows: a file that starts the built server (directly or through
 * a test helper that does) is `*.e2e.test.ts`; one that drives Chromium
 * itself is `*.browser.test.ts` or `*.e2e.test.ts`. What a file starts
 * through the library is caught when it runs (test/projects/spawnGuard.ts).
 */
import * as fs from 'fs';
import * as path from 'path';
import { PROJECTS, projectOf } from '../projects/projects';
import { whatItStarts } from '../projects/spawnGuard';

const TEST = path.resolve(__dirname, '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- jest.config.js is CommonJS
const CONFIG = require(path.join(TEST, '..', 'jest.config.js')) as { projects: Array<{ displayName: string; testMatch: string[] }> };

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

const FILES = walk(TEST).filter((f) => /\.(ts|js)$/.test(f));
const TEXT = new Map(FILES.map((f) => [f, fs.readFileSync(f, 'utf8')]));

/** The test-side modules `file` imports, itself included, followed transitively. */
function closure(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const m of TEXT.get(file)!.matchAll(/from '(\.[^']+)'|require\('(\.[^']+)'\)/g)) {
    const base = path.resolve(path.dirname(file), m[1] ?? m[2]);
    const target = [`${base}.ts`, `${base}.js`, base].find((c) => TEXT.has(c));
    if (target) closure(target, seen);
  }
  return seen;
}

type Rule = (text: string) => boolean;
/** Starts the built server itself: runs a process and names dist/src/bin.js (BIN) or plugin/server.cjs. */
const RUNS_PROCESS: Rule = (text) => /\b(spawn|spawnSync|execFile|execFileSync|fork)\(|new StdioClientTransport\(/.test(text);
const NAMES_BUILT: Rule = (text) => /\bBIN\b|'dist', 'src'|dist\/src\/|server\.cjs/.test(text);
const STARTS_BUILT: Rule = (text) => RUNS_PROCESS(text) && NAMES_BUILT(text);
/** Starts Chromium itself. */
const STARTS_CHROMIUM: Rule = (text) => /\bpuppeteer\.(launch|connect)\(|\bchromium\.launch\(|launchTestBrowser\(/.test(text);

/** The top-level functions and classes a helper exports, each with its text. */
function exportedBlocks(text: string): Array<{ name: string; body: string }> {
  const parts = text.split(/\n(?=export )/);
  return parts.flatMap((part) => {
    const m = /^export (?:async )?(?:function\*? |class |const )(\w+)/.exec(part);
    return m ? [{ name: m[1], body: part }] : [];
  });
}

/** Names of helper exports that start what `direct` matches, directly or through another such helper. */
function starters(direct: Rule): Set<string> {
  const found = new Set<string>();
  const helpers = [...TEXT].filter(([file]) => !file.endsWith('.test.ts'));
  for (let grew = true; grew;) {
    grew = false;
    for (const [, text] of helpers) {
      for (const { name, body } of exportedBlocks(text)) {
        if (found.has(name)) continue;
        if (direct(body) || [...found].some((f) => new RegExp(`\\b${f}\\(`).test(body))) {
          found.add(name);
          grew = true;
        }
      }
    }
  }
  return found;
}

const BUILT_STARTERS = starters(STARTS_BUILT);
/** Helpers that run whatever script they are given (the wire tests' ServerProcess). */
const PROCESS_STARTERS = starters(RUNS_PROCESS);
const CHROMIUM_STARTERS = starters(STARTS_CHROMIUM);

/** Whether `file` starts it: itself, or by calling a helper export (of the modules it imports) that does. */
function starts(file: string, direct: Rule, helpers: Set<string>): string | null {
  const text = TEXT.get(file)!;
  if (direct(text)) return 'itself';
  const imported = [...closure(file)].filter((m) => m !== file);
  for (const name of helpers) {
    if (new RegExp(`\\b${name}\\b`).test(text) && imported.some((m) => exportedBlocks(TEXT.get(m)!).some((b) => b.name === name))) return name;
  }
  return null;
}

test('the projects are the three the config runs', () => {
  expect(CONFIG.projects.map((p) => p.displayName)).toEqual([...PROJECTS]);
});

test('every test file is in exactly one project, and the one its name says', () => {
  const tests = FILES.filter((f) => f.endsWith('.test.ts')).map((f) => path.relative(TEST, f));
  const misnamed = tests.filter((f) => /\.(browser|e2e)\.(browser|e2e)\.test\.ts$/.test(f));
  expect(misnamed).toEqual([]);
  for (const file of tests) expect({ file, project: projectOf(file) }).toEqual({ file, project: expect.stringMatching(/^(unit|browser|e2e)$/) });
});

test("each test file's name says what it starts", () => {
  const wrong: string[] = [];
  for (const file of FILES.filter((f) => f.endsWith('.test.ts') && f !== __filename)) {
    const project = projectOf(file)!;
    const rel = path.relative(TEST, file);
    const text = TEXT.get(file)!;
    const built = starts(file, STARTS_BUILT, BUILT_STARTERS) ?? (NAMES_BUILT(text) ? starts(file, RUNS_PROCESS, PROCESS_STARTERS) : null);
    const chromium = starts(file, STARTS_CHROMIUM, CHROMIUM_STARTERS);
    if (built && project !== 'e2e') wrong.push(`${rel}: starts the built server (${built}): name it *.e2e.test.ts`);
    else if (chromium && project === 'unit') wrong.push(`${rel}: starts Chromium (${chromium}): name it *.browser.test.ts`);
  }
  expect(wrong).toEqual([]);
  // The rules see the harnesses that start things (else they would pass on anything).
  expect([...BUILT_STARTERS]).toEqual(expect.arrayContaining(['startServer', 'startRun']));
  expect([...PROCESS_STARTERS]).toContain('ServerProcess');
  expect([...CHROMIUM_STARTERS]).toEqual(expect.arrayContaining(['launchTestBrowser']));
});

test('the run-time guard tells a browser and the built server from other processes', () => {
  expect(whatItStarts('/usr/lib/chromium/chromium-headless-shell', ['--headless'])).toBe('browser');
  expect(whatItStarts('/usr/bin/chromium')).toBe('browser');
  expect(whatItStarts(process.execPath, ['/repo/dist/src/bin.js', 'run'])).toBe('built');
  expect(whatItStarts('node', ['plugin/server.cjs'])).toBe('built');
  expect(whatItStarts('git', ['ls-files'])).toBeNull();
  expect(whatItStarts(process.execPath, ['scripts/bundle.js', '--check'])).toBeNull();
});
