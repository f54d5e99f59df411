/**
 * The package as installed: its bin is the built server, its main exports the
 * library API, a checkout builds on `npm ci` while the package has no install
 * script of its own, and the shipped client configs point at the bin without
 * pinning a run root.
 */
import * as fs from 'fs';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { BIN, REPO, assertBuilt } from './serverProcess';

const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));

beforeAll(() => assertBuilt());

test('bin design-playbook-evidence is the built server, executable, with a node shebang', () => {
  expect(path.resolve(REPO, pkg.bin['design-playbook-evidence'])).toBe(BIN);
  expect(fs.readFileSync(BIN, 'utf8').startsWith('#!/usr/bin/env node')).toBe(true);
  expect(fs.statSync(BIN).mode & 0o111).not.toBe(0);
});

test('npm ci builds a checkout (postprepare) and npm pack builds too (prepack), with no install script npm would name for the tarball', () => {
  expect(pkg.scripts.postprepare).toBe('npm run build');
  expect(pkg.scripts.prepack).toBe('node scripts/prepack.js');
  // What npm counts as a dependency's install scripts (prepare too, though it never runs it for a tarball).
  for (const script of ['preinstall', 'install', 'postinstall', 'prepare']) expect([script, pkg.scripts[script]]).toEqual([script, undefined]);
});

test('main exports the library API', () => {
  const lib = require(path.resolve(REPO, pkg.main));
  for (const name of [
    'executeCapturePlan',
    'parseCaptureContract',
    'validateCaptureSnapshot',
    'writeTarget',
    'readArtifact',
    'registerCaptureProvider',
    'serveStdio',
  ]) {
    expect(typeof lib[name]).toBe('function');
  }
  expect(lib.validateCaptureSnapshot({})).toBe('missing_schema_version');
});

test('requiring the library prints nothing and starts no server', () => {
  const run = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(path.resolve(REPO, pkg.main))})`], { encoding: 'utf8', timeout: 20_000 });
  expect(run.status).toBe(0);
  expect(run.stdout).toBe('');
});

test('.mcp.json runs the committed plugin bundle and forwards DESIGN_PLAYBOOK_RUN_ROOT by name (rules: test/plugin/manifests.e2e.test.ts)', () => {
  const config = JSON.parse(fs.readFileSync(path.join(REPO, '.mcp.json'), 'utf8'));
  const server = config.mcpServers['design-playbook-evidence'];
  expect([server.command, ...(server.args ?? [])].join(' ')).toBe('node ${CLAUDE_PLUGIN_ROOT}/plugin/server.cjs');
  expect(server.env?.DESIGN_PLAYBOOK_RUN_ROOT).toBeUndefined();
  expect(server.env_vars).toContain('DESIGN_PLAYBOOK_RUN_ROOT');
});

test('mcp.example.toml names the server and a command for the bin', () => {
  const toml = fs.readFileSync(path.join(REPO, 'mcp.example.toml'), 'utf8');
  expect(toml).toContain('[mcp_servers.design-playbook-evidence]');
  expect(toml).toMatch(/^command\s*=\s*"(npx|node)"/m);
  expect(toml).toMatch(/design-playbook-evidence|dist\/src\/bin\.js/);
});
