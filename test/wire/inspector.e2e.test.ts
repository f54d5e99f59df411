/**
 * The MCP Inspector's own CLI against the built bin: `tools/list --strict`
 * lists the one tool with no portability finding, and `tools/call` captures
 * a page (Chromium) and shows the resource links. The Inspector is not a
 * dependency (about 110 MB with its web UI); these run where it is installed:
 * DESIGN_PLAYBOOK_INSPECTOR names its package folder (for example after
 * `npm install --prefix /tmp/inspector @modelcontextprotocol/inspector`), or
 * it resolves from this project. docs/reference.md's `--strict` command is run as
 * written, and pins the Inspector CI installs (scripts/ci-clients.sh).
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { pathToFileURL } from 'url';
import { BIN, REPO, assertBuilt, childEnv } from './serverProcess';

/** The Inspector's package folder and its CLI launcher, or null where it is not installed. */
function inspectorInstall(): { folder: string; launcher: string } | null {
  const named = process.env.DESIGN_PLAYBOOK_INSPECTOR;
  let folder: string | null = named ?? null;
  if (!folder) {
    try {
      folder = path.dirname(require.resolve('@modelcontextprotocol/inspector/package.json', { paths: [REPO] }));
    } catch {
      return null;
    }
  }
  const bin = JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8')).bin?.['mcp-inspector'];
  return bin ? { folder, launcher: path.join(folder, bin) } : null;
}

const install = inspectorInstall();
const launcher = install?.launcher ?? null;
const maybe = launcher ? test : test.skip;
if (!launcher) process.stderr.write('inspector.e2e.test.ts: the MCP Inspector is not installed here; set DESIGN_PLAYBOOK_INSPECTOR to run it\n');

let base: string;
beforeAll(() => {
  assertBuilt();
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-inspector-')));
  fs.mkdirSync(path.join(base, 'run', 'evidence'), { recursive: true });
  fs.writeFileSync(path.join(base, 'run', 'plan.md'), '');
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

/** The Inspector CLI with its catalog under the test folder (it writes one to $HOME). */
function inspector(args: string[]) {
  const run = spawnSync(process.execPath, [launcher!, '--cli', process.execPath, BIN, ...args], {
    cwd: base,
    env: childEnv({ HOME: base }),
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** docs/reference.md's Inspector command: the package spec it pins and the arguments after it. */
function documentedCommand(): { version: string; args: string[] } {
  const page = fs.readFileSync(path.join(REPO, 'docs', 'reference.md'), 'utf8');
  const line = /^npx -y @modelcontextprotocol\/inspector@(\S+) (.+--strict)$/m.exec(page);
  if (!line) throw new Error('docs/reference.md has no `npx -y @modelcontextprotocol/inspector@<version> ... --strict` line');
  return { version: line[1], args: line[2].split(' ') };
}

test("the reference's --strict command pins the Inspector version CI installs", () => {
  const pinned = /^INSPECTOR_VERSION=(\S+)$/m.exec(fs.readFileSync(path.join(REPO, 'scripts', 'ci-clients.sh'), 'utf8'))?.[1];
  expect(documentedCommand().version).toBe(pinned);
});

maybe("the reference's --strict command, as written, from the checkout: one tool, exit 0", () => {
  const { version, args } = documentedCommand();
  const installed = JSON.parse(fs.readFileSync(path.join(install!.folder, 'package.json'), 'utf8')).version;
  expect(installed).toBe(version);
  // `node` as the page says: the first on PATH, this test's own Node first.
  const run = spawnSync(process.execPath, [launcher!, ...args], {
    cwd: REPO,
    env: childEnv({ HOME: base, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}` }),
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect({ code: run.status, stderr: run.status === 0 ? '' : run.stderr }).toEqual({ code: 0, stderr: '' });
  expect(JSON.parse(run.stdout).tools.map((t: { name: string }) => t.name)).toEqual(['execute_capture_plan']);
});

maybe('tools/list --strict: one tool, no portability finding, exit 0', () => {
  const { code, stdout, stderr } = inspector(['--method', 'tools/list', '--strict']);
  expect({ code, stderr: stderr.split('\n').filter((l) => /^(Warning|Error)|portability/.test(l)) }).toEqual({ code: 0, stderr: [] });
  const { tools } = JSON.parse(stdout);
  expect(tools.map((t: { name: string }) => t.name)).toEqual(['execute_capture_plan']);
  expect(tools[0].annotations).toMatchObject({ destructiveHint: true });
});

maybe(
  'tools/call captures a page and links the PNG and its sidecar',
  () => {
    const runRoot = path.join(base, 'run');
    const page = pathToFileURL(path.join(REPO, 'test', 'e2e', 'pages', 'plain.html')).href;
    const { code, stdout, stderr } = inspector([
      '--method',
      'tools/call',
      '--tool-name',
      'execute_capture_plan',
      '--tool-arg',
      'schemaVersion=1',
      `url=${page}`,
      'type=screenshot',
      'state=ready',
      'artifact_path=evidence/inspector.png',
      'viewport={"width":400,"height":300,"devicePixelRatio":1,"colorScheme":"dark"}',
      `run_root=${runRoot}`,
    ]);
    expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' });
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({ isError: false, structuredContent: { result: 'captured', written_path: path.join(runRoot, 'evidence', 'inspector.png') } });
    const links = result.content.filter((c: { type: string }) => c.type === 'resource_link');
    expect(links.map((l: { uri: string }) => l.uri)).toEqual(
      ['inspector.png', 'inspector.probe.json'].map((leaf) => pathToFileURL(path.join(runRoot, 'evidence', leaf)).href),
    );
    expect(
      fs
        .readFileSync(path.join(runRoot, 'evidence', 'inspector.png'))
        .subarray(1, 4)
        .toString('latin1'),
    ).toBe('PNG');
  },
  150_000,
);
