/**
 * scripts/bundle.js: the same sources build the same bytes, and --check
 * fails with the command that fixes it when a file differs from them. (The
 * committed plugin/server.cjs itself is compared by .ci/run, not here: while
 * the sources change, regenerating it is one command.)
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { findBrowser } from '../../src/browser/fleet/findBrowser';

const REPO = path.resolve(__dirname, '..', '..');
const SCRIPT = path.join(REPO, 'scripts', 'bundle.js');
let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-bundle-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const bundle = (...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], { cwd: REPO, encoding: 'utf8', timeout: 240_000 });

test('two builds are byte-identical; --check passes on one and fails on a changed copy, naming the fix', () => {
  const first = path.join(dir, 'first.cjs');
  const second = path.join(dir, 'second.cjs');
  for (const out of [first, second]) {
    const r = bundle('--out', out);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  }
  const bytes = fs.readFileSync(first);
  expect(fs.readFileSync(second).equals(bytes)).toBe(true);
  // Self-contained: nothing but Node's own modules and the two optional
  // packages it means to leave out. (ajv's code generator writes require("ajv/...") into
  // the source text of standalone validators; those are strings, not calls.)
  const required = new Set([...bytes.toString('utf8').matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]));
  const builtins = new Set(require('module').builtinModules as string[]);
  const foreign = [...required].filter((name) => !builtins.has(name.replace(/^node:/, '')) && !name.startsWith('ajv'));
  expect(foreign.sort()).toEqual(['bufferutil', 'utf-8-validate']);

  const ok = bundle('--check', '--out', first);
  expect(ok.status).toBe(0);
  expect(ok.stdout).toContain('matches the sources');

  const drifted = path.join(dir, 'drifted.cjs');
  fs.writeFileSync(drifted, Buffer.concat([bytes, Buffer.from('\n// edited by hand\n')]));
  const bad = bundle('--check', '--out', drifted);
  expect(bad.status).toBe(1);
  expect(bad.stderr).toContain('does not match the sources: run `npm run bundle` and commit');

  const missing = bundle('--check', '--out', path.join(dir, 'missing.cjs'));
  expect(missing.status).toBe(1);
  expect(missing.stderr).toContain('is missing: run `npm run bundle`');
});

test('the bundle, copied anywhere, answers initialize and --version with the package version, and its doctor finds the browser', async () => {
  // A bundle that read package.json relative to itself answered 0.0.0 from a plain clone.
  const out = path.join(dir, 'anywhere', 'server.cjs');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  expect(bundle('--out', out).status).toBe(0);
  const { version } = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
  const init = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
  });
  const r = spawnSync(process.execPath, [out], {
    cwd: dir,
    input: init + '\n',
    encoding: 'utf8',
    timeout: 30_000,
    env: { PATH: process.env.PATH ?? '', HOME: dir },
  });
  const reply = JSON.parse(r.stdout.split('\n').find((line) => line.includes('"id":1')) ?? '{}');
  expect(reply.result?.serverInfo).toEqual({ name: 'design-playbook-evidence', version });

  const cleanEnv = { PATH: process.env.PATH ?? '', HOME: dir };
  const printed = spawnSync(process.execPath, [out, '--version'], { cwd: dir, encoding: 'utf8', timeout: 30_000, env: cleanEnv });
  expect({ status: printed.status, stdout: printed.stdout }).toEqual({ status: 0, stdout: `${version}\n` });

  // The bundle carries puppeteer-core and @puppeteer/browsers: it finds and launches the browser the checkout would.
  const doctor = spawnSync(process.execPath, [out, 'doctor', '--json'], { cwd: dir, encoding: 'utf8', timeout: 120_000, env: cleanEnv });
  const report = JSON.parse(doctor.stdout);
  const expected = findBrowser({ env: cleanEnv });
  expect(report.browser).toMatchObject({ mode: 'launch', where: expected.executablePath, source: expected.source, works: true });
  expect(doctor.status).toBe(0);
});
