/**
 * The npm package as a new user gets it: the packed tarball installed into a
 * fresh folder and run with npx, offline, from an empty npm cache, in a clean
 * environment (PATH and a new HOME only: no PUPPETEER_* or DESIGN_PLAYBOOK_*
 * variables, no user npm config), with npm's own script policy (install
 * scripts run, and npm names any package whose scripts it was not told to
 * allow), so that any script that wanted to download would run and any
 * install script would be named. Then: what the tarball holds (no dead
 * weight), the bin (--version, doctor, its fast start, serving and a
 * screenshot), the `exports` map, a capture through the installed library,
 * and the types against a tiny TypeScript consumer.
 *
 * Packs with `npm pack` and its scripts, as a user would: `prepack`
 * (scripts/prepack.js) builds only when dist/ is not the build of the
 * sources (the e2e project runs on a current build, so nothing here rebuilds
 * dist/ under the tests running beside this file), then deletes what nothing
 * reads from the bundled dependencies' folders.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as http from 'http';
import type { AddressInfo } from 'net';
import { spawn, spawnSync, type SpawnSyncReturns } from 'child_process';
import { findBrowser } from '../../src/browser/fleet/findBrowser';

const REPO = path.resolve(__dirname, '..', '..');
const PACKAGE = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  dependencies: Record<string, string>;
};
const TSC = path.join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');

let dir: string;
let tarball: string;
let packed: { files: Array<{ path: string; size: number }>; bundled: string[]; size: number; unpackedSize: number };
let consumer: string;
let installed: string;
let install: SpawnSyncReturns<string>;
let env: NodeJS.ProcessEnv;

/** A clean environment: PATH, a new HOME, and npm told to work offline from an empty cache, install scripts enabled under npm's default policy. */
function cleanEnv(home: string, cache: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    HOME: home,
    npm_config_cache: cache,
    npm_config_offline: 'true',
    npm_config_ignore_scripts: 'false',
    npm_config_foreground_scripts: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    npm_config_loglevel: 'http',
  };
}

function run(command: string, args: string[], cwd: string, options: { input?: string; timeout?: number } = {}): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, env, encoding: 'utf8', input: options.input ?? '', timeout: options.timeout ?? 180_000, maxBuffer: 64 * 1024 * 1024 });
}

beforeAll(() => {
  if (!fs.existsSync(path.join(REPO, 'dist', 'src', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-tarball-'));
  fs.mkdirSync(path.join(dir, 'home'));
  env = cleanEnv(path.join(dir, 'home'), path.join(dir, 'npm-cache'));

  // Packing needs no network either; the repository's own npm settings apply.
  const pack = spawnSync('npm', ['pack', '--json', '--pack-destination', dir], {
    cwd: REPO,
    encoding: 'utf8',
    timeout: 180_000,
    // The report lists every file, the carried (bundleDependencies) ones' too.
    maxBuffer: 256 * 1024 * 1024,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
  });
  if (pack.status !== 0) throw new Error(`npm pack failed (${pack.error?.message ?? `exit ${pack.status}`}): ${pack.stderr}`);
  const report = JSON.parse(pack.stdout)[0];
  packed = report;
  tarball = path.join(dir, report.filename);

  consumer = path.join(dir, 'consumer');
  fs.mkdirSync(consumer);
  fs.writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
  install = run('npm', ['install', `../${path.basename(tarball)}`, '--offline', '--no-audit', '--no-fund'], consumer, { timeout: 240_000 });
  installed = path.join(consumer, 'node_modules', PACKAGE.name);
}, 480_000);

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the tarball', () => {
  const own = () => packed.files.map((f) => f.path).filter((p) => !p.startsWith('node_modules/'));

  test('ships LICENSE, README, every doc the README links, the schemas, the MCP example and the demo', () => {
    const files = new Set(own());
    const readme = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8');
    const linked = [...readme.matchAll(/\]\(((?!https?:|#)[^)\s]+)\)/g)].map((m) => m[1].split('#')[0]);
    expect(linked.length).toBeGreaterThan(0);
    for (const link of linked) expect([link, files.has(path.posix.normalize(link))]).toEqual([link, true]);
    for (const file of ['LICENSE', 'README.md', 'package.json', 'mcp.example.toml', 'demo/index.html', 'schemas/manifest_v1.schema.json']) {
      expect([file, files.has(file)]).toEqual([file, true]);
    }
    expect(fs.readFileSync(path.join(installed, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} .+/);
  });

  test('holds no source map and no compiled file that names one (the .ts sources are not shipped)', () => {
    expect(own().filter((p) => p.endsWith('.map'))).toEqual([]);
    const js = own().filter((p) => p.startsWith('dist/') && p.endsWith('.js'));
    expect(js.length).toBeGreaterThan(50);
    const naming = js.filter((p) => /sourceMappingURL=/.test(fs.readFileSync(path.join(installed, p), 'utf8')));
    expect(naming).toEqual([]);
  });

  test('carries no dead weight: nothing of its bundled dependencies that nothing reads, no build bookkeeping', () => {
    const all = packed.files.map((f) => f.path);
    const carried = all.filter((p) => p.startsWith('node_modules/'));
    expect(carried.length).toBeGreaterThan(1000);
    const dead = carried.filter(
      (p) => p.endsWith('.map') || (/\.[cm]?ts$/.test(p) && !/\.d\.[cm]?ts$/.test(p)) || /\.(bare|c|h|pdl)$/.test(p) || p.endsWith('/CMakeLists.txt'),
    );
    expect(dead).toEqual([]);
    // What a TypeScript consumer's compile reads stays, and so does every licence.
    expect(all).toEqual(expect.arrayContaining(['node_modules/puppeteer-core/lib/types.d.ts', 'node_modules/zod/index.d.cts', 'node_modules/ws/LICENSE']));
    expect(carried.filter((p) => /^node_modules\/(@[^/]+\/)?[^/]+\/package\.json$/.test(p)).length).toBeGreaterThan(50);
    // The build's bookkeeping for the tests stays home; the bundle's record of its modules ships with it.
    expect(all).not.toContain('dist/build-stamp.json');
    expect(all).toEqual(expect.arrayContaining(['dist/server.cjs', 'dist/server.cjs.modules.json', 'dist/server.cjs.cache', 'dist/server.cjs.cache.json']));
  });

  test("docs/package.md's size of the tarball is the measured one (within 10 %)", () => {
    const page = fs.readFileSync(path.join(REPO, 'docs', 'package.md'), 'utf8');
    const stated = /the tarball is ([\d.]+) MB \(([\d.]+) MB\s+unpacked/i.exec(page);
    expect(stated).not.toBeNull();
    const [packedMb, unpackedMb] = [Number(stated![1]), Number(stated![2])];
    expect(Math.abs(packedMb * 1e6 - packed.size) / packed.size).toBeLessThan(0.1);
    expect(Math.abs(unpackedMb * 1e6 - packed.unpackedSize) / packed.unpackedSize).toBeLessThan(0.1);
  });

  test('package.json names the repository, homepage and bug tracker, and maps its exports', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8'));
    expect(manifest.license).toBe('MIT');
    expect(manifest.repository).toEqual({
      type: 'git',
      url: 'git+https://github.com/Bandersnatch0x/design-playbook.git',
      directory: 'packages/design-playbook-evidence',
    });
    expect(manifest.homepage).toMatch(/^https:\/\/github\.com\/Bandersnatch0x\/design-playbook\b/);
    expect(manifest.bugs.url).toBe('https://github.com/Bandersnatch0x/design-playbook/issues');
    expect(manifest.exports['.']).toEqual({ types: './dist/src/index.d.ts', default: './dist/src/index.js' });
  });

  test('carries every runtime dependency, and none of them is puppeteer (whose postinstall downloads Chrome)', () => {
    expect(packed.bundled).toEqual(expect.arrayContaining(Object.keys(PACKAGE.dependencies)));
    expect(packed.bundled).not.toContain('puppeteer');
    expect(Object.keys(PACKAGE.dependencies)).toContain('puppeteer-core');
  });
});

describe('installed offline into a fresh folder', () => {
  test('npm install succeeds with install scripts enabled, from an empty cache, and names no install script', () => {
    expect({ status: install.status, stderr: install.status === 0 ? '' : install.stderr }).toEqual({ status: 0, stderr: '' });
    // npm 11 names every installed package with an install script (prepare included) its policy does not cover.
    expect(install.stderr).not.toMatch(/install-scripts|install script/i);
    // Nothing was fetched: offline, any request would have failed the install; none was even tried.
    expect(install.stderr).not.toMatch(/http fetch/);
    expect(fs.existsSync(path.join(installed, 'dist', 'src', 'bin.js'))).toBe(true);
  });

  test('no package in the installed tree has an install script, and no browser was downloaded', () => {
    const withScripts: string[] = [];
    const names = new Set<string>();
    const walk = (modules: string) => {
      if (!fs.existsSync(modules)) return;
      for (const entry of fs.readdirSync(modules)) {
        if (entry.startsWith('.')) continue;
        const dirs = entry.startsWith('@') ? fs.readdirSync(path.join(modules, entry)).map((e) => path.join(modules, entry, e)) : [path.join(modules, entry)];
        for (const pkgDir of dirs) {
          const manifestPath = path.join(pkgDir, 'package.json');
          if (!fs.existsSync(manifestPath)) continue;
          const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
          names.add(manifest.name);
          const scripts = manifest.scripts ?? {};
          // binding.gyp makes npm run `node-gyp rebuild` as the install script.
          if (scripts.preinstall || scripts.install || scripts.postinstall || fs.existsSync(path.join(pkgDir, 'binding.gyp'))) {
            withScripts.push(`${manifest.name}@${manifest.version}`);
          }
          walk(path.join(pkgDir, 'node_modules'));
        }
      }
    };
    walk(path.join(consumer, 'node_modules'));
    expect(names.has('puppeteer-core')).toBe(true);
    expect(names.has('puppeteer')).toBe(false);
    expect(withScripts).toEqual([]);
    expect(fs.existsSync(path.join(dir, 'home', '.cache', 'puppeteer'))).toBe(false);
  });

  test('the bin prints the package version for --version and -v', () => {
    const bin = path.join(consumer, 'node_modules', '.bin', PACKAGE.name);
    for (const flag of ['--version', '-v']) {
      const r = run(bin, [flag], consumer);
      expect({ status: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({ status: 0, stdout: `${PACKAGE.version}\n`, stderr: '' });
    }
    const help = run(bin, ['--help'], consumer);
    expect(help.stdout).toContain('--version');
  });

  test('the installed bin starts on its bundle and code cache, the files as npm unpacked them', () => {
    const bin = path.join(consumer, 'node_modules', '.bin', PACKAGE.name);
    const r = run(bin, ['doctor', '--json'], consumer, { timeout: 60_000 });
    expect(JSON.parse(r.stdout).start).toEqual({ from: 'bundle', file: path.join(fs.realpathSync(installed), 'dist', 'server.cjs'), cache: 'used' });
  });

  test('the installed bin serves MCP: initialize, then a screenshot of a 127.0.0.1 page', async () => {
    const page = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>t</title><body data-state="ready"><h1>Installed</h1></body>');
    });
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(page.address() as AddressInfo).port}/`;
    const runRoot = path.join(dir, 'served');
    fs.mkdirSync(runRoot);
    fs.writeFileSync(path.join(runRoot, 'plan.md'), '# plan\n');
    const child = spawn(path.join(consumer, 'node_modules', '.bin', PACKAGE.name), [], { cwd: consumer, env, stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const replies = new Map<number, Record<string, unknown>>();
    const waiters = new Map<number, (reply: Record<string, unknown>) => void>();
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const lines = stdout.split('\n');
      stdout = lines.pop() ?? '';
      for (const line of lines.filter((l) => l.trim())) {
        const message = JSON.parse(line);
        replies.set(message.id, message);
        waiters.get(message.id)?.(message);
      }
    });
    const call = (id: number, method: string, params: unknown) =>
      new Promise<Record<string, unknown>>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no reply to ${method} in 60 s; stderr: ${stderr}`)), 60_000);
        waiters.set(id, (reply) => {
          clearTimeout(timer);
          resolve(reply);
        });
        child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
      });
    try {
      const init = await call(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } });
      expect((init.result as { serverInfo: unknown }).serverInfo).toEqual({ name: PACKAGE.name, version: PACKAGE.version });
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
      const shot = await call(2, 'tools/call', {
        name: 'execute_capture_plan',
        arguments: {
          schemaVersion: 1,
          url,
          type: 'screenshot',
          state: 'ready',
          artifact_path: 'evidence/installed.png',
          run_root: runRoot,
          viewport: { width: 640, height: 400, devicePixelRatio: 1, colorScheme: 'light' },
        },
      });
      const result = (shot.result as { structuredContent: Record<string, unknown> }).structuredContent;
      expect({ result: result.result, error: result.error, observed_state: result.observed_state }).toEqual({
        result: 'captured',
        error: '',
        observed_state: 'ready',
      });
      expect(
        fs
          .readFileSync(path.join(runRoot, 'evidence', 'installed.png'))
          .subarray(1, 4)
          .toString('latin1'),
      ).toBe('PNG');
    } finally {
      child.stdin.end();
      await exited;
      await new Promise((resolve) => page.close(resolve));
    }
    expect(stderr).toContain('serving design-playbook-evidence on stdio');
  }, 120_000);

  test('the exports map: the main entry, the documented subpaths, and nothing else', () => {
    const script = `
      const lib = require(${JSON.stringify(PACKAGE.name)});
      const fs = require('fs');
      const out = {
        functions: ['executeCapturePlan', 'registerCaptureProvider', 'serveStdio', 'createServer', 'readManifest', 'manifestSchemaPath', 'closeBundledBrowser']
          .filter((name) => typeof lib[name] === 'function'),
        version: require(${JSON.stringify(`${PACKAGE.name}/package.json`)}).version,
        schemaMatches: JSON.stringify(require(${JSON.stringify(`${PACKAGE.name}/schemas/manifest_v1.schema.json`)})) ===
          JSON.stringify(JSON.parse(fs.readFileSync(lib.manifestSchemaPath(), 'utf8'))),
        schemaInPackage: lib.manifestSchemaPath().startsWith(${JSON.stringify(fs.realpathSync(consumer))}),
      };
      try { require(${JSON.stringify(`${PACKAGE.name}/dist/src/app/main.js`)}); out.deep = 'loaded'; } catch (e) { out.deep = e.code; }
      process.stdout.write(JSON.stringify(out));
    `;
    const r = run(process.execPath, ['-e', script], consumer);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({
      functions: ['executeCapturePlan', 'registerCaptureProvider', 'serveStdio', 'createServer', 'readManifest', 'manifestSchemaPath', 'closeBundledBrowser'],
      version: PACKAGE.version,
      schemaMatches: true,
      schemaInPackage: true,
      deep: 'ERR_PACKAGE_PATH_NOT_EXPORTED',
    });
    // An ES module consumer gets the same named exports.
    const esm = run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { executeCapturePlan, TOOL_NAME } from ${JSON.stringify(PACKAGE.name)}; process.stdout.write(typeof executeCapturePlan + ' ' + TOOL_NAME);`,
      ],
      consumer,
    );
    expect({ stdout: esm.stdout, stderr: esm.stderr }).toEqual({ stdout: 'function execute_capture_plan', stderr: '' });
  });

  test('the installed library captures the shipped demo page', () => {
    const runRoot = path.join(dir, 'run');
    fs.mkdirSync(runRoot);
    fs.writeFileSync(path.join(runRoot, 'plan.md'), '# plan\n');
    const demo = path.join(installed, 'demo', 'index.html');
    const script = `
      const { executeCapturePlan, closeBundledBrowser } = require(${JSON.stringify(PACKAGE.name)});
      executeCapturePlan({
        schemaVersion: 1, url: ${JSON.stringify(`file://${demo}`)}, type: 'screenshot', state: 'demo',
        artifact_path: 'evidence/demo.png', run_root: ${JSON.stringify(runRoot)},
        viewport: { width: 800, height: 600, devicePixelRatio: 1, colorScheme: 'light' },
      }).then(async (result) => { await closeBundledBrowser(); process.stdout.write(JSON.stringify(result)); });
    `;
    const r = run(process.execPath, ['-e', script], consumer);
    const result = JSON.parse(r.stdout);
    expect({ result: result.result, error: result.error }).toEqual({ result: 'captured', error: '' });
    expect(result.written_path).toBe(path.join(fs.realpathSync(runRoot), 'evidence', 'demo.png'));
    expect(fs.readFileSync(result.written_path).subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(fs.existsSync(path.join(runRoot, 'evidence', 'demo.probe.json'))).toBe(true);
  }, 120_000);

  test('the types compile against a tiny TypeScript consumer, and reject a wrong argument', () => {
    const good = `
      import { executeCapturePlan, type CapturePlanArguments, type CapturePlanAction, type CaptureResult, type CaptureViewport } from '${PACKAGE.name}';
      const viewport: CaptureViewport = { width: 1280, height: 800, devicePixelRatio: 2, colorScheme: 'dark' };
      const actions: CapturePlanAction[] = [{ do: 'click', selector: '#open' }, { do: 'wait', ms: 100 }];
      const args: CapturePlanArguments = {
        schemaVersion: 1, url: 'http://127.0.0.1:8080/', type: 'a11y tree', state: 'open', actions,
        artifact_path: 'evidence/L1.json', viewport, freeze: { networkIdle: true }, design: { fontSizes: [14, '16px'] },
      };
      export async function capture(): Promise<string> {
        const result: CaptureResult = await executeCapturePlan(args);
        const state: string = result.observed_state;
        const outcome: 'captured' | 'failed' = result.result;
        return outcome === 'captured' ? state : result.error;
      }
    `;
    const bad = `
      import type { CapturePlanArguments } from '${PACKAGE.name}';
      export const args: CapturePlanArguments = {
        schemaVersion: 1, url: 'http://127.0.0.1:8080/', type: 'video', state: 'open', artifact_path: 'evidence/x.png',
        viewport: { width: 'wide', height: 800, devicePixelRatio: 1, colorScheme: 'light' },
      };
    `;
    const project = path.join(consumer, 'ts');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'good.ts'), good);
    fs.writeFileSync(path.join(project, 'bad.ts'), bad);
    // node16 resolution reads the exports map; node10 reads "types". One tsc run
    // per resolution compiles both files: every error must be bad.ts's.
    for (const [moduleKind, resolution] of [
      ['node16', 'node16'],
      ['commonjs', 'node10'],
    ]) {
      const r = run(
        process.execPath,
        [
          TSC,
          '--noEmit',
          '--strict',
          '--skipLibCheck',
          '--target',
          'ES2022',
          '--module',
          moduleKind,
          '--moduleResolution',
          resolution,
          '--types',
          'node',
          '--typeRoots',
          path.join(REPO, 'node_modules', '@types'),
          path.join(project, 'good.ts'),
          path.join(project, 'bad.ts'),
        ],
        consumer,
        { timeout: 120_000 },
      );
      const errors = r.stdout.split('\n').filter((line) => / error TS/.test(line));
      expect([resolution, errors.filter((line) => !line.startsWith('ts/bad.ts('))]).toEqual([resolution, []]);
      expect(errors.some((line) => /bad\.ts\(\d+,\d+\): error TS2322: Type '"video"' is not assignable/.test(line))).toBe(true);
      expect(errors.some((line) => /bad\.ts\(\d+,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/.test(line))).toBe(true);
    }
  }, 240_000);
});

describe('installed globally, offline', () => {
  test('npm install -g <tarball>: the bin on PATH starts on its bundle and code cache, and npm names no install script', () => {
    const prefix = path.join(dir, 'global');
    const global = run('npm', ['install', '-g', '--prefix', prefix, tarball, '--offline', '--no-audit', '--no-fund'], dir, { timeout: 240_000 });
    expect({ status: global.status, stderr: global.status === 0 ? '' : global.stderr }).toEqual({ status: 0, stderr: '' });
    expect(global.stderr).not.toMatch(/install-scripts|install script/i);
    const bin = path.join(prefix, 'bin', PACKAGE.name);
    const report = JSON.parse(run(bin, ['doctor', '--json'], dir, { timeout: 60_000 }).stdout);
    expect(report.start).toEqual({ from: 'bundle', file: path.join(prefix, 'lib', 'node_modules', PACKAGE.name, 'dist', 'server.cjs'), cache: 'used' });
  }, 300_000);
});

describe('run with npx, offline', () => {
  // From a folder that has not installed it: npx installs the tarball into its
  // own cache (npm-cache/_npx). Each npx of a tarball installs it afresh (a
  // minute here), so npx runs once; the rest runs the bin that npx installed.
  let elsewhere: string;
  let doctor: SpawnSyncReturns<string>;
  beforeAll(() => {
    elsewhere = path.join(dir, 'elsewhere');
    fs.mkdirSync(elsewhere);
    doctor = run('npx', ['-y', `../${path.basename(tarball)}`, 'doctor', '--json'], elsewhere, { timeout: 300_000 });
  }, 320_000);

  /** The bin npx installed and ran. */
  function npxBin(): string {
    const root = path.join(dir, 'npm-cache', '_npx');
    const bins = fs
      .readdirSync(root)
      .map((hash) => path.join(root, hash, 'node_modules', '.bin', PACKAGE.name))
      .filter((p) => fs.existsSync(p));
    expect(bins).toHaveLength(1);
    return bins[0];
  }

  test('npx <tarball> doctor finds and launches the system browser the checkout finds, on the fast start', () => {
    expect({ status: doctor.status, stderr: doctor.status === 0 ? '' : doctor.stderr }).toEqual({ status: 0, stderr: '' });
    expect(doctor.stderr).not.toMatch(/install-scripts|install script/i);
    const report = JSON.parse(doctor.stdout);
    expect(report.start).toMatchObject({ from: 'bundle', cache: 'used' });
    const expected = findBrowser({ env: { PATH: env.PATH, HOME: env.HOME } });
    expect(expected.source).toBe('system location');
    expect(report.browser).toMatchObject({ mode: 'launch', where: expected.executablePath, source: 'system location', works: true });
    expect(report.ok).toBe(true);

    const text = run(npxBin(), ['doctor'], elsewhere);
    expect(text.status).toBe(0);
    expect(text.stdout).toContain(`browser:   launch ${expected.executablePath} (system location)`);
    expect(text.stdout).toContain('ready: captures can run');
  });

  test('what npx installed prints the version, and with no subcommand serves MCP on stdio until input ends', () => {
    const bin = npxBin();
    const version = run(bin, ['--version'], elsewhere);
    expect({ status: version.status, stdout: version.stdout }).toEqual({ status: 0, stdout: `${PACKAGE.version}\n` });

    const init = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
    });
    const r = run(bin, [], elsewhere, { input: `${init}\n`, timeout: 60_000 });
    expect(r.status).toBe(0);
    const reply = JSON.parse(r.stdout.split('\n').find((line) => line.includes('"id":1')) ?? '{}');
    expect(reply.result?.serverInfo).toEqual({ name: PACKAGE.name, version: PACKAGE.version });
    expect(r.stderr).toContain('serving design-playbook-evidence on stdio');
  });
});
