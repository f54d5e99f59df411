/**
 * The server as the MCP Python SDK's stdio client sees it (./pythonClient.py):
 * the version it offers is echoed, the listing parses, a capture's result
 * carries the resource links, and `1.0` (how Python's json writes a float)
 * is refused as the original refuses it; against the built server and a
 * real Chromium, a call the client gives up on (`read_timeout_seconds`,
 * which sends notifications/cancelled) writes nothing and the next call is
 * answered at once, and `progress_callback` hears every step in order. Runs
 * where a Python with the `mcp` package is found: DESIGN_PLAYBOOK_PYTHON
 * (scripts/ci-clients.sh), else `python3`.
 */
import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { pathToFileURL } from 'url';
import { BIN, FAKE_SERVER, assertBuilt, childEnv } from './serverProcess';
import { CHROMIUM_PATH, servePages, type PageServer } from '../helpers/browser';
import { PAGES, captureArgs, screenshotProgressMessages } from '../e2e/harness';

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

maybe(
  'initialize, tools/list and two calls through the Python SDK',
  () => {
    const viewport = { width: 800, height: 600, devicePixelRatio: 1.5, colorScheme: 'light' };
    const capture = {
      schemaVersion: 1,
      url: 'http://127.0.0.1:9/x.html',
      type: 'screenshot',
      state: 'ready',
      artifact_path: 'evidence/py.png',
      viewport,
      run_root: runRoot,
    };
    const spec = {
      command: process.execPath,
      args: [FAKE_SERVER],
      cwd: runRoot,
      calls: [capture, { ...capture, artifact_path: 'evidence/py-float.png', schemaVersion: 'FLOAT' }],
    };
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
      expect.objectContaining({
        uri: pathToFileURL(path.join(runRoot, 'evidence', 'py.probe.json')).href,
        name: 'py.probe.json',
        mimeType: 'application/json',
      }),
    ]);
    expect(float).toMatchObject({
      isError: false,
      structuredContent: { result: 'failed', error: 'unsupported capture schemaVersion 1.0; recapture with capture contract schemaVersion=1' },
    });
  },
  90_000,
);

describe('cancellation and progress through the Python SDK, on the built server and a real Chromium', () => {
  let pages: PageServer;
  beforeAll(async () => {
    pages = await servePages(PAGES);
  });
  afterAll(async () => {
    await pages?.close();
  });

  maybe(
    'a call given up on after 3 s of an 8 s wait writes nothing, the next is answered at once; progress_callback hears each step in order',
    async () => {
      const url = pages.url('/plain.html');
      const spec = {
        command: process.execPath,
        args: [BIN],
        cwd: runRoot,
        // The SDK hands the server only a few variables of its own unless told.
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DESIGN_PLAYBOOK_CHROME_PATH: CHROMIUM_PATH },
        calls: [
          // The first also launches the browser, so the second's 3 s fall inside its wait.
          { call: captureArgs(runRoot, url, 'py-progress.png', { actions: [{ do: 'wait', ms: 20 }] }), progress: true },
          { call: captureArgs(runRoot, url, 'py-cancelled.png', { actions: [{ do: 'wait', ms: 8_000 }] }), read_timeout_seconds: 3 },
          { call: captureArgs(runRoot, url, 'py-next.png') },
        ],
      };
      // Asynchronous, so this process's page server answers the browser meanwhile.
      const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(python!, [SCRIPT, JSON.stringify(spec)], { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
        const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
        child.on('exit', (status) => {
          clearTimeout(timer);
          resolve({ status, stdout, stderr });
        });
      });
      expect({ status: run.status, stderr: run.status === 0 ? '' : run.stderr }).toEqual({ status: 0, stderr: '' });
      const [progress, cancelled, next] = JSON.parse(run.stdout).calls;

      expect(progress.result.structuredContent).toMatchObject({ result: 'captured' });
      const heard = progress.progress as Array<{ progress: number; total: number; message: string }>;
      expect(heard.map((p) => p.message)).toEqual(screenshotProgressMessages(url, ['wait'], 'evidence/py-progress.png'));
      expect(heard.map((p) => p.progress)).toEqual(heard.map((_, i) => i + 1));
      expect(heard.map((p) => p.total)).toEqual(heard.map(() => heard.length));

      expect(cancelled.result).toBeUndefined();
      expect(cancelled.error).toMatch(/timed out|timeout/i);
      expect(cancelled.seconds).toBeLessThan(5);
      // The next call did not wait for the rest of the 8 s wait.
      expect(next.result.structuredContent).toMatchObject({ result: 'captured', observed_state: 'plain' });
      expect(next.seconds).toBeLessThan(5);
      expect(fs.readdirSync(path.join(runRoot, 'evidence')).filter((f) => f.startsWith('py-cancelled') || f.endsWith('.partial'))).toEqual([]);
      expect(fs.existsSync(path.join(runRoot, 'evidence', 'py-next.png'))).toBe(true);
    },
    120_000,
  );
});
