#!/usr/bin/env node
/**
 * Builds bench/framework-apps' todo apps (one app, written in each of several
 * frameworks, driven the same way by bench/framework-apps.js) into a folder
 * outside the repository. The frameworks are installed from the npm registry
 * at the versions pinned below into that folder's .deps/, never into the
 * project: the bench's sources are committed, the frameworks are not.
 *
 *   node bench/framework-apps/build.js [--out DIR]   (default: $TMPDIR/framework-apps)
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const esbuild = require('esbuild');

const FRAMEWORKS = {
  react: '19.3.1',
  'react-dom': '19.3.1',
  preact: '11.2.0',
  vue: '3.5.47',
  lit: '3.3.3',
  svelte: '5.60.1',
  alpinejs: '3.17.5',
};
const HERE = __dirname;
const argv = process.argv.slice(2);
const OUT = path.resolve(argv.includes('--out') ? argv[argv.indexOf('--out') + 1] : path.join(os.tmpdir(), 'framework-apps'));

function installFrameworks() {
  const deps = path.join(OUT, '.deps');
  const wanted = JSON.stringify({ name: 'framework-apps-deps', private: true, dependencies: FRAMEWORKS }, null, 2);
  const manifest = path.join(deps, 'package.json');
  const installed = fs.existsSync(manifest) && fs.readFileSync(manifest, 'utf8') === wanted && fs.existsSync(path.join(deps, 'node_modules'));
  if (!installed) {
    fs.mkdirSync(deps, { recursive: true });
    fs.writeFileSync(manifest, wanted);
    console.error(
      `installing ${Object.entries(FRAMEWORKS)
        .map(([n, v]) => `${n}@${v}`)
        .join(' ')} into ${deps}`,
    );
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], { cwd: deps, stdio: ['ignore', 'inherit', 'inherit'] });
  }
  return path.join(deps, 'node_modules');
}

/** Compiles .svelte files with the installed compiler (esbuild has no Svelte loader of its own). */
function sveltePlugin(nodeModules) {
  return {
    name: 'svelte',
    setup(build) {
      build.onLoad({ filter: /\.svelte$/ }, async (args) => {
        const { compile } = await import(path.join(nodeModules, 'svelte', 'src', 'compiler', 'index.js'));
        const { js } = compile(fs.readFileSync(args.path, 'utf8'), { filename: args.path, generate: 'client' });
        return { contents: js.code, loader: 'js', resolveDir: path.dirname(args.path) };
      });
    },
  };
}

async function main() {
  const nodeModules = installFrameworks();
  const page = fs.readFileSync(path.join(HERE, 'page.html'), 'utf8');
  fs.copyFileSync(path.join(HERE, 'todo.css'), path.join(OUT, 'todo.css'));
  const apps = fs.readdirSync(path.join(HERE, 'apps')).sort();
  for (const app of apps) {
    const dir = path.join(HERE, 'apps', app);
    const entry = ['app.jsx', 'app.js'].map((f) => path.join(dir, f)).find((f) => fs.existsSync(f));
    const out = path.join(OUT, app);
    fs.mkdirSync(out, { recursive: true });
    await esbuild.build({
      entryPoints: [entry],
      outfile: path.join(out, 'app.js'),
      bundle: true,
      minify: true,
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      logLevel: 'error',
      nodePaths: [nodeModules],
      loader: { '.css': 'text' },
      jsx: app === 'react' ? 'automatic' : 'transform',
      jsxFactory: app === 'preact' ? 'h' : undefined,
      define: {
        'process.env.NODE_ENV': '"production"',
        __VUE_OPTIONS_API__: 'true',
        __VUE_PROD_DEVTOOLS__: 'false',
        __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false',
      },
      plugins: [sveltePlugin(nodeModules)],
    });
    const bodyFile = path.join(dir, 'body.html');
    const body = fs.existsSync(bodyFile) ? fs.readFileSync(bodyFile, 'utf8').trim() : '<div id="app"></div>';
    fs.writeFileSync(path.join(out, 'index.html'), page.replace('TITLE', app).replace('BODY', body));
  }
  console.log(`built ${apps.length} apps into ${OUT}: ${apps.join(', ')}`);
}

main().catch((err) => {
  console.error(err.message || err);
  process.exit(1);
});
