/**
 * The plugin manifests a host reads when it installs this repository as a
 * plugin: the rules their users depend on. No run root pinned in `env` (a
 * pinned value once sent evidence into the read-only plugin cache); the run
 * root forwarded by name through `env_vars`; Claude launches through
 * ${CLAUDE_PLUGIN_ROOT} with no cwd; Codex with cwd "." and relative
 * arguments; both start the committed bundle, which needs nothing installed.
 */
import * as fs from 'fs';
import * as path from 'path';
import { execFileSync } from 'child_process';

const REPO = path.resolve(__dirname, '..', '..');
const SERVER = 'design-playbook-evidence';
const RUN_ROOT_ENV = 'DESIGN_PLAYBOOK_RUN_ROOT';
const BUNDLE = 'plugin/server.cjs';

const readJson = (rel: string) => JSON.parse(fs.readFileSync(path.join(REPO, rel), 'utf8'));
const pkg = readJson('package.json');
const tracked = new Set(execFileSync('git', ['ls-files'], { cwd: REPO, encoding: 'utf8' }).split('\n').filter(Boolean));

type Entry = { command: string; args: string[]; env?: Record<string, string>; env_vars?: string[]; cwd?: string };

function evidenceEntry(rel: string): Entry {
  const doc = readJson(rel);
  expect(Object.keys(doc)).toEqual(['mcpServers']);
  expect(Object.keys(doc.mcpServers)).toEqual([SERVER]);
  return doc.mcpServers[SERVER];
}

describe.each([
  ['.mcp.json (Claude Code)', '.mcp.json'],
  ['.codex-plugin/mcp.json (Codex)', '.codex-plugin/mcp.json'],
])('%s', (_name, rel) => {
  const entry = evidenceEntry(rel);

  test('pins no run root in env and forwards it by name through env_vars', () => {
    expect(entry.env?.[RUN_ROOT_ENV]).toBeUndefined();
    // Nothing else pinned either: every variable comes from the host.
    expect(entry.env).toBeUndefined();
    expect(entry.env_vars).toEqual([RUN_ROOT_ENV]);
  });

  test('runs the committed bundle with node: nothing to install or build first', () => {
    expect(entry.command).toBe('node');
    expect(entry.args).toHaveLength(1);
    expect(entry.args[0].endsWith(`/${BUNDLE}`)).toBe(true);
    expect(tracked.has(BUNDLE)).toBe(true);
    expect(entry.args.join(' ')).not.toMatch(/dist\/|node_modules|npx|npm /);
  });
});

describe('the Claude Code entry', () => {
  const entry = evidenceEntry('.mcp.json');
  test('launches through ${CLAUDE_PLUGIN_ROOT}, with no cwd', () => {
    expect(entry.cwd).toBeUndefined();
    expect(entry.args).toEqual([`\${CLAUDE_PLUGIN_ROOT}/${BUNDLE}`]);
  });
});

describe('the Codex entry', () => {
  const entry = evidenceEntry('.codex-plugin/mcp.json');
  test('keeps cwd "." and relative arguments that resolve inside the plugin', () => {
    expect(entry.cwd).toBe('.');
    for (const arg of entry.args) {
      expect(path.isAbsolute(arg)).toBe(false);
      expect(arg).not.toContain('${');
      expect(path.posix.normalize(arg).startsWith('..')).toBe(false);
    }
    expect(fs.existsSync(path.join(REPO, entry.args[0]))).toBe(true);
  });
});

describe('plugin metadata', () => {
  test('.claude-plugin/plugin.json names the package at its version', () => {
    const manifest = readJson('.claude-plugin/plugin.json');
    expect([manifest.name, manifest.version]).toEqual([pkg.name, pkg.version]);
    expect(manifest.description.length).toBeGreaterThan(20);
  });

  test('.codex-plugin/plugin.json names the package at its version and points at its mcp.json', () => {
    const manifest = readJson('.codex-plugin/plugin.json');
    expect([manifest.name, manifest.version]).toEqual([pkg.name, pkg.version]);
    expect(manifest.mcpServers).toBe('./.codex-plugin/mcp.json');
  });

  test('the marketplace files list this repository as the plugin', () => {
    const claude = readJson('.claude-plugin/marketplace.json');
    expect(claude.plugins).toEqual([expect.objectContaining({ name: pkg.name, source: './', version: pkg.version })]);
    const codex = readJson('.agents/plugins/marketplace.json');
    expect(codex.plugins).toEqual([expect.objectContaining({ name: pkg.name, source: { source: 'local', path: './' } })]);
  });

  test('mcp.example.toml stays for manual set-up', () => {
    expect(fs.readFileSync(path.join(REPO, 'mcp.example.toml'), 'utf8')).toContain(`[mcp_servers.${SERVER}]`);
  });
});

describe('the committed bundle is kept honest', () => {
  test('`npm run bundle` writes it and CI checks it against the sources before the tests', () => {
    expect(pkg.scripts.bundle).toBe('node scripts/bundle.js');
    const ci = fs.readFileSync(path.join(REPO, '.ci', 'run'), 'utf8');
    // Commands only, not the comments that mention them.
    const commands = ci.split('\n').filter((line) => !line.trimStart().startsWith('#'));
    const at = (command: string) => commands.findIndex((line) => line.includes(command));
    expect(at('node scripts/bundle.js --check')).toBeGreaterThan(at('scripts/setup.sh'));
    expect(at('node scripts/bundle.js --check')).toBeLessThan(at('npm test'));
    expect(at('scripts/setup.sh')).toBeGreaterThanOrEqual(0);
  });

  test('git treats it as generated: no diffs, no hand merges', () => {
    const attrs = execFileSync('git', ['check-attr', 'diff', 'merge', 'linguist-generated', '--', BUNDLE], { cwd: REPO, encoding: 'utf8' });
    expect(attrs).toContain(`${BUNDLE}: diff: unset`);
    expect(attrs).toContain(`${BUNDLE}: merge: unset`);
    expect(attrs).toContain(`${BUNDLE}: linguist-generated: true`);
  });
});
