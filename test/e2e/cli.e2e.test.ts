/**
 * The CLI on the same bin: `capture` prints the result payload and exits 0
 * captured / 1 failed / 2 usage error; `doctor` reports the browser, whether
 * it launches and where captures land; `demo` captures the shipped page into
 * a run folder; `--help` works everywhere.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { servePages, CHROMIUM_PATH, type PageServer } from '../helpers/browser';
import { readManifest } from '../../src/manifest';
import { assertBuilt, makeRunRoot, pngSize, PAGES, PROFILE_PREFIX, runBin as runBuiltBin, type BinRun } from './harness';

jest.setTimeout(120_000);

function runBin(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<BinRun> {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    DESIGN_PLAYBOOK_CHROME_PATH: CHROMIUM_PATH,
    // A private temp folder, so the profile check below sees only these runs' profiles.
    TMPDIR: childTmp,
    ...(options.env ?? {}),
  };
  delete env.DESIGN_PLAYBOOK_RUN_ROOT;
  return runBuiltBin(args, { cwd: options.cwd, env, timeoutMs: 110_000 });
}

let pages: PageServer;
let root: string;
const childTmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-cli-tmp-'));

beforeAll(async () => {
  assertBuilt();
  pages = await servePages(PAGES);
  root = makeRunRoot('cli');
});

afterAll(async () => {
  await pages?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(childTmp, { recursive: true, force: true });
});

test('capture prints the payload and exits 0 when captured', async () => {
  const run = await runBin([
    'capture',
    '--url',
    pages.url('/delayed.html'),
    '--out',
    'evidence/cli.png',
    '--state',
    'done',
    '--action',
    '{"do":"click","selector":"#go"}',
    '--action',
    '{"do":"wait_for_state","state":"done"}',
    '--viewport',
    '500x300@2',
    '--color-scheme',
    'dark',
    '--run-root',
    root,
  ]);
  expect(run.code).toBe(0);
  const payload = JSON.parse(run.stdout);
  expect(payload.result).toBe('captured');
  expect(payload.observed_state).toBe('done');
  expect(payload.written_path).toBe(path.join(root, 'evidence', 'cli.png'));
  expect(payload.request.viewport).toEqual({ width: 500, height: 300, devicePixelRatio: 2, colorScheme: 'dark' });
  expect(pngSize(payload.written_path).width).toBe(1000);
  expect(fs.existsSync(path.join(root, 'evidence', 'cli.probe.json'))).toBe(true);
  // The refused second run (no --overwrite) is a failed payload, exit 1; nothing launched a browser it left behind.
  const again = await runBin(['capture', '--url', pages.url('/plain.html'), '--out', 'evidence/cli.png', '--run-root', root]);
  expect(again.code).toBe(1);
  expect(JSON.parse(again.stdout).error).toContain('artifact already exists');
});

test('capture exits 1 with a failed payload when the capture fails, and 2 on a usage error', async () => {
  const failed = await runBin(['capture', '--url', 'http://127.0.0.1:1/', '--out', 'evidence/nope.png', '--run-root', root]);
  expect(failed.code).toBe(1);
  const payload = JSON.parse(failed.stdout);
  expect(payload.result).toBe('failed');
  expect(payload.observed_state).toBe('unknown');
  expect(fs.existsSync(path.join(root, 'evidence', 'nope.png'))).toBe(false);

  const usage = await runBin(['capture', '--url', pages.url('/plain.html')]);
  expect(usage.code).toBe(2);
  expect(usage.stderr).toContain('--out is required');
  expect(usage.stdout).toBe('');
});

test('doctor names the browser, its version, that it launches, and the run root', async () => {
  const cwd = makeRunRoot('doctor-cwd');
  try {
    const run = await runBin(['doctor', '--json'], { cwd });
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.browser.mode).toBe('launch');
    expect(report.browser.where).toBe(CHROMIUM_PATH);
    expect(report.browser.source).toBe('DESIGN_PLAYBOOK_CHROME_PATH');
    expect(report.browser.version).toMatch(/\d+\.\d+/);
    expect(report.browser.works).toBe(true);
    expect(fs.realpathSync(report.runRoot.root)).toBe(fs.realpathSync(cwd));
    expect(report.runRoot.markers).toEqual(['plan.md']);
    const text = await runBin(['doctor'], { cwd });
    expect(text.stdout).toContain(`browser:   launch ${CHROMIUM_PATH}`);
    expect(text.stdout).toContain('markers:   plan.md');
  } finally {
    fs.rmSync(cwd, { recursive: true, force: true });
  }
});

test('a capture with no browser to be found fails saying how to get one', async () => {
  const run = await runBin([
    'capture',
    '--executable-path',
    '/nonexistent/chrome',
    '--url',
    pages.url('/plain.html'),
    '--out',
    'evidence/nobrowser.png',
    '--run-root',
    root,
  ]);
  expect(run.code).toBe(1);
  const payload = JSON.parse(run.stdout);
  expect(payload.result).toBe('failed');
  expect(payload.error).toContain('--executable-path names /nonexistent/chrome');
  expect(payload.error).toContain('apt-get install chromium');
  expect(fs.existsSync(path.join(root, 'evidence', 'nobrowser.png'))).toBe(false);
});

test('doctor says how to get a browser when none is found, and exits 1', async () => {
  const run = await runBin(['doctor', '--executable-path', '/nonexistent/chrome']);
  expect(run.code).toBe(1);
  expect(run.stdout).toContain('NOT FOUND');
  expect(run.stdout).toContain('apt-get install chromium');
  expect(run.stdout).toContain('--browser-url');
});

test('demo captures the shipped page into its run folder and prints where the files are', async () => {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-demo-'));
  try {
    const run = await runBin(['demo'], { cwd });
    expect(run.stderr + run.stdout).not.toMatch(/✗/);
    expect(run.code).toBe(0);
    const evidence = path.join(fs.realpathSync(cwd), 'demo-run', 'evidence');
    expect(fs.existsSync(path.join(cwd, 'demo-run', 'plan.md'))).toBe(true);
    for (const leaf of ['demo-idle.png', 'demo-idle.probe.json', 'demo-submitted-dark.png', 'demo-submitted.a11y.json', 'demo-submitted.trace.zip']) {
      expect(fs.statSync(path.join(evidence, leaf)).size).toBeGreaterThan(0);
      expect(run.stdout).toContain(leaf);
    }
    const sidecar = JSON.parse(fs.readFileSync(path.join(evidence, 'demo-idle.probe.json'), 'utf8'));
    expect(sidecar.renderTokens.measurement_status).toBe('measured');
    expect(sidecar.design).toBeDefined();
    expect(run.stdout).toContain('observed_state submitted');
    // As the orchestrator, the demo binds each capture in a valid manifest and ends with the run report.
    const manifest = readManifest(path.join(evidence, 'manifest.jsonl'));
    expect(manifest.facts).toEqual([]);
    expect(manifest.entries.map((e) => e.criterion)).toEqual(['L6.1', 'L6.2', 'L6.3', 'L6.4']);
    const report = path.join(fs.realpathSync(cwd), 'demo-run', 'report', 'index.html');
    expect(run.stdout.trim().split('\n')).toContain(`report: ${report}`);
    expect(fs.readFileSync(report, 'utf8')).toContain('Criterion L6.4');
  } finally {
    fs.rmSync(cwd, { recursive: true, force: true });
  }
});

test('--help works for the bin and every subcommand', async () => {
  const main = await runBin(['--help']);
  expect(main.code).toBe(0);
  for (const sub of ['capture', 'doctor', 'demo', 'report']) {
    expect(main.stdout).toContain(sub);
    const help = await runBin([sub, '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(`design-playbook-evidence ${sub}`);
  }
  expect(main.stdout).toContain('--browser-url');
});

test('every CLI run removed the temporary profile of the browser it launched', () => {
  expect(fs.readdirSync(childTmp).filter((name) => name.startsWith(PROFILE_PREFIX))).toEqual([]);
});
