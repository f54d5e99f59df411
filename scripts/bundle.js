#!/usr/bin/env node
// Builds plugin/server.cjs: the whole server (src/bin.ts) and its runtime
// dependencies (puppeteer-core, ws, the MCP SDK, zod, jszip)
// in one CommonJS file, so a plugin host can start the server from a plain
// clone — no npm install, no build, offline. The file is committed; CI
// rebuilds it and compares byte for byte (--check), so it cannot drift from
// the sources.
//
//   node scripts/bundle.js           write plugin/server.cjs
//   node scripts/bundle.js --check   rebuild in memory, compare, exit 1 on drift
//   --out FILE                       write or compare FILE instead (tests)
//   node scripts/bundle.js --dist    write dist/server.cjs: the program (entry
//                                    src/app/bundleEntry.ts) as one file for the
//                                    built bin's fast start, its names kept (its
//                                    stack traces stay readable), and beside it
//                                    the record of the compiled modules it stands
//                                    for; run by `npm run build` right after tsc
//                                    (src/app/bundledProgram.ts)
//
// Inputs: the sources, the in-page bundles (regenerated here first), the
// package.json version, and node_modules as the lock file pins them
// (run `npm ci` first). The same inputs give the same bytes.
const esbuild = require('esbuild');
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const root = path.join(__dirname, '..');
const outFlag = process.argv.indexOf('--out');
const DIST = process.argv.includes('--dist');
const defaultTarget = DIST ? path.join(root, 'dist', 'server.cjs') : path.join(root, 'plugin', 'server.cjs');
const target = outFlag > 0 ? path.resolve(process.argv[outFlag + 1]) : defaultTarget;
const relTarget = path.relative(root, target);
const REGENERATE = 'npm run bundle';

// Required at run time only on paths the server never takes, and left out of
// the bundle so it stays small: bufferutil and utf-8-validate, optional native
// speed-ups that ws tries to load and falls back from when absent.
const NOT_BUNDLED = ['bufferutil', 'utf-8-validate'];

// The server reports the package version in `initialize` and `--version`.
// src/common/version.ts reads it from package.json relative to dist/ unless
// BUNDLED_PACKAGE_VERSION is defined: the bundle carries it, so it does not
// depend on where it sits.
const { version: PACKAGE_VERSION } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

// @puppeteer/browsers uses proxy-agent (and through it a PAC interpreter,
// FTP and SOCKS clients: a quarter of the bundle) only for HTTP requests that
// download or look up a browser build. The server never downloads a browser
// (src/browser/fleet/findBrowser.ts), so the bundle carries a stand-in that says so
// if anything ever tries.
const noBrowserDownloads = {
  name: 'no-browser-downloads',
  setup(build) {
    build.onResolve({ filter: /^proxy-agent$/ }, () => ({ path: 'proxy-agent', namespace: 'no-browser-downloads' }));
    build.onLoad({ filter: /.*/, namespace: 'no-browser-downloads' }, () => ({
      contents:
        'class ProxyAgent { constructor() { throw new Error("design-playbook-evidence never downloads a browser: ' +
        'install Chrome or Chromium, or set DESIGN_PLAYBOOK_CHROME_PATH"); } }\n' +
        'module.exports = { ProxyAgent };\n',
      loader: 'js',
    }));
  },
};

// tsc compiles the sources' `import` statements to require(), so the built
// server runs each package's CommonJS build. The bundle takes the same builds:
// an import of a package from our sources resolves as a require would
// (esbuild would otherwise pick the ESM builds, which evaluate eagerly here
// and are other code than the server runs).
const sameBuildsAsNode = {
  name: 'same-builds-as-node',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.kind !== 'import-statement') return undefined;
      return build.resolve(args.path, { kind: 'require-call', resolveDir: args.resolveDir, importer: args.importer });
    });
  },
};

async function buildBundle() {
  // The in-page code is bundled into cdp/generated/ first, as `npm run build` does (which --dist runs within).
  if (!DIST) {
    execFileSync(process.execPath, [path.join(__dirname, 'build-injected.js')], { cwd: root, stdio: 'inherit' });
    execFileSync(process.execPath, [path.join(__dirname, 'build-report-page.js')], { cwd: root, stdio: 'inherit' });
  }
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [DIST ? 'src/app/bundleEntry.ts' : 'src/bin.ts'],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    tsconfig: 'tsconfig.json',
    external: NOT_BUNDLED,
    plugins: [sameBuildsAsNode, noBrowserDownloads],
    define: { BUNDLED_PACKAGE_VERSION: JSON.stringify(PACKAGE_VERSION) },
    // The dist bundle keeps its identifiers (readable stack traces) but not its whitespace: less to read and decode at each start.
    // No keepNames: its helper calls would land inside functions Puppeteer sends to the page as source.
    ...(DIST ? { minifyWhitespace: true, minifySyntax: true } : { minify: true }),
    // Licence notices of the bundled packages, gathered at the end of the file.
    legalComments: 'eof',
    charset: 'utf8',
    banner: {
      // esbuild keeps src/bin.ts's #! line above this banner.
      js: DIST
        ? `// design-playbook-evidence, the program as one file for the built bin's fast start (src/app/bundledProgram.ts).\n` +
          `// Generated by \`npm run build\` (scripts/bundle.js --dist); do not edit.`
        : `// design-playbook-evidence MCP server, bundled with its runtime dependencies by scripts/bundle.js.\n` +
          `// Generated; do not edit. Regenerate with \`${REGENERATE}\`; CI checks it matches the sources.`,
    },
    write: false,
    logLevel: 'error',
  });
  return Buffer.from(result.outputFiles[0].contents);
}

async function main() {
  const check = process.argv.includes('--check');
  const bytes = await buildBundle();
  const size = `${(bytes.length / 1024 / 1024).toFixed(2)} MB`;
  if (check) {
    const current = fs.existsSync(target) ? fs.readFileSync(target) : null;
    if (!current || !current.equals(bytes)) {
      process.stderr.write(
        `${relTarget} ${current ? 'does not match the sources' : 'is missing'}: ` +
          `run \`${REGENERATE}\` and commit ${relTarget} (rebuilt ${size}` +
          `${current ? `, committed ${(current.length / 1024 / 1024).toFixed(2)} MB` : ''}).\n` +
          `It must be rebuilt from a tree installed with \`npm ci\` (the lock file pins what it holds).\n`,
      );
      process.exit(1);
    }
    process.stdout.write(`${relTarget} matches the sources (${size})\n`);
    return;
  }
  fs.mkdirSync(path.dirname(target), { recursive: true });
  if (DIST) {
    // The bundle stands for the modules tsc just wrote beside it: their record last, so a bundle without one is never used.
    const distDir = path.dirname(target);
    const { bundleFiles, modulesRecordFor } = require(path.join(distDir, 'src', 'app', 'bundledProgram.js'));
    const { modules } = bundleFiles(distDir);
    fs.rmSync(modules, { force: true });
    fs.writeFileSync(target, bytes, { mode: 0o755 });
    fs.chmodSync(target, 0o755);
    fs.writeFileSync(modules, JSON.stringify(modulesRecordFor(distDir), null, 2) + '\n');
    process.stdout.write(`wrote ${relTarget} (${size}) and ${path.relative(root, modules)}\n`);
    return;
  }
  fs.writeFileSync(target, bytes, { mode: 0o755 });
  fs.chmodSync(target, 0o755);
  process.stdout.write(`wrote ${relTarget} (${size})\n`);
}

main().catch((err) => {
  process.stderr.write(`bundle failed: ${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
