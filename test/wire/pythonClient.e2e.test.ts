/**
 * The server as the MCP Python SDK's stdio client sees it (./pythonClient.py):
 * the version it offers is echoed, the listing parses, a capture's result
 * carries the resource links, and `1.0` (how Python's json writes a float)
 * is refused as the original refuses it. Runs where a Python with the `mcp`
 * package is found: DESIGN_PLAYBOOK_PYTHON, else `python3`.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { pathToFileURL } from 'url';
import { FAKE_SERVER, assertBuilt, childEnv } from './serverProcess';

const SCRIPT = path.join(__dirname, 'pythonClient.py');

function pythonWithSdk(): string | null {
  const python = process.env.DESIGN_PLAYBOOK_PYTHON ?? 'python3';
  const probe = spawnSync(python, ['-c', 'import mcp.client.stdio'], { encoding: 'utf8' });
  return probe.status === 0 ? python : null;
}

const python = pythonWithSdk();
const maybe = python ? test : test.skip;
if (!python) process.stderr.write('pythonClient.e2e.test.ts: no Python with the mcp package here; set DESIGN_PLAYBOOK_PYTHON to run it\n');

let runRoot: string;
beforeAll(() => {
  assertBuilt();
  runRoot = path.join(fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-python-'))), 'run');
  fs.mkdirSync(path.join(runRoot, 'evidence'), { recursive: true });
  fs.writeFileSync(path.join(runRoot, 'plan.md'), '');
});
afterAll(() => fs.rmSync(path.dirname(runRoot), { recursive: true, force: true }));

maybe('initialize, tools/list and two calls through the Python SDK', () => {
  const viewport = { width: 800, height: 600, devicePixelRatio: 1.5, colorScheme: 'light' };
  const capture = { schemaVersion: 1, url: 'http://127.0.0.1:9/x.html', type: 'screenshot', state: 'ready', artifact_path: 'evidence/py.png', viewport, run_root: runRoot };
  const spec = { command: process.execPath, args: [FAKE_SERVER], cwd: runRoot, calls: [capture, { ...capture, artifact_path: 'evidence/py-float.png', schemaVersion: 'FLOAT' }] };
  // Python reads `1.0` in this text as a float, and its client's json.dumps sends it on as `1.0`.
  const argv = JSON.stringify(spec).replace('"schemaVersion":"FLOAT"', '"schemaVersion":1.0');
  expect(argv).toContain('"schemaVersion":1.0');
  const run = spawnSync(python!, [SCRIPT, argv], { env: childEnv(), encoding: 'utf8', timeout: 60_000 });
  expect({ status: run.status, stderr: run.status === 0 ? '' : run.stderr }).toEqual({ status: 0, stderr: '' });
  const out = JSON.parse(run.stdout);

  // The Python SDK offers its newest handshake version; the server supports it, so it is echoed.
  expect(['2025-06-18', '2025-11-25']).toContain(out.initialize.protocolVersion);
  expect(out.initialize.serverInfo.name).toBe('design-playbook-evidence');
  expect(out.tools.tools.map((t: { name: string }) => t.name)).toEqual(['execute_capture_plan']);
  expect(out.tools.tools[0].annotations).toMatchObject({ destructiveHint: true });

  const [captured, float] = out.calls;
  expect(captured).toMatchObject({ isError: false, structuredContent: { result: 'captured' } });
  const links = captured.content.filter((c: { type: string }) => c.type === 'resource_link');
  expect(links).toEqual([
    expect.objectContaining({ uri: pathToFileURL(path.join(runRoot, 'evidence', 'py.png')).href, name: 'py.png', mimeType: 'image/png' }),
    expect.objectContaining({ uri: pathToFileURL(path.join(runRoot, 'evidence', 'py.probe.json')).href, name: 'py.probe.json', mimeType: 'application/json' }),
  ]);
  expect(float).toMatchObject({
    isError: false,
    structuredContent: { result: 'failed', error: 'unsupported capture schemaVersion 1.0; recapture with capture contract schemaVersion=1' },
  });
}, 90_000);
