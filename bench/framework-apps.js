#!/usr/bin/env node
/**
 * One todo app written in several frameworks (bench/framework-apps/apps:
 * plain DOM, React, Preact, Vue, Svelte, Alpine, Lit and a hand-written
 * custom element with an adopted sheet), each driven as a person would: two
 * items added (fill, Enter, fill, Enter), then the first ticked. Every app
 * keys its records by Date.now() and animates new items and ticked ones.
 *
 * Ours (the built server over MCP, `screenshot` and `a11y tree` with those
 * actions) against Playwright on the same executable doing the same
 * actions, letting 2.5 s of real time pass and shooting with
 * `animations: 'disabled'` (the state a person sees once the page settled);
 * Playwright runs twice and an app whose two shots differ is unstable.
 * Prints, per app, the pixel verdict (bench/lib/pixelDiff.js) and whether
 * the aria snapshots are byte-identical.
 *
 *   node bench/framework-apps/build.js            (once: builds the apps outside the repo)
 *   node bench/framework-apps.js [DIR] [--match RE] [--executable PATH]
 * DIR holds one folder per app (default: where build.js writes); any folder
 * of apps whose page has a text box to add an item and a checkbox in each
 * item works, TodoMVC's examples/ among them (an app's page is the first of
 * ENTRIES that exists).
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport, getDefaultEnvironment } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { runtimeDefault, unnamedEnv, label } = require('./lib/engines');
const { comparePngs, serveStatic } = require('./lib/pixelDiff');

const BIN = path.join(__dirname, '..', 'dist', 'src', 'bin.js');
const argv = process.argv.slice(2);
const option = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : null);
const DIR = path.resolve(
  argv.find((a, i) => !a.startsWith('--') && !['--executable', '--match'].includes(argv[i - 1])) || path.join(os.tmpdir(), 'framework-apps'),
);
const EXECUTABLE = option('--executable');
const MATCH = option('--match') ? new RegExp(option('--match')) : null;
const VIEWPORT = { width: 480, height: 400, devicePixelRatio: 1, colorScheme: 'light' };
const PLAYWRIGHT_SETTLE_MS = 2_500;
/** By role, so apps that name their input and checkboxes differently (TodoMVC's GWT and web-components apps) are driven alike. */
const INPUT = 'role=textbox >> nth=0';
const ACTIONS = [
  { do: 'fill', selector: INPUT, value: 'Buy milk' },
  { do: 'press', selector: INPUT, key: 'Enter' },
  { do: 'fill', selector: INPUT, value: 'Walk the dog' },
  { do: 'press', selector: INPUT, key: 'Enter' },
  { do: 'click', selector: 'role=listitem >> role=checkbox >> nth=0' },
];

async function startOurs() {
  const env = { ...getDefaultEnvironment(), ...unnamedEnv(process.env) };
  if (EXECUTABLE) env.DESIGN_PLAYBOOK_CHROME_PATH = EXECUTABLE;
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN], env, stderr: 'pipe' });
  transport.stderr?.on('data', () => undefined);
  const client = new Client({ name: 'framework-apps', version: '1.0.0' });
  await client.connect(transport);
  const runRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'framework-apps-run-'));
  fs.writeFileSync(path.join(runRoot, 'plan.md'), '# framework apps bench\n');
  let n = 0;
  return {
    async capture(url, type) {
      const leaf = `evidence/app-${n++}.${type === 'screenshot' ? 'png' : 'json'}`;
      const result = await client.callTool(
        {
          name: 'execute_capture_plan',
          arguments: {
            schemaVersion: 1,
            url,
            type,
            state: 'bench',
            artifact_path: leaf,
            overwrite: true,
            viewport: VIEWPORT,
            actions: ACTIONS,
            run_root: runRoot,
          },
        },
        undefined,
        { timeout: 180_000 },
      );
      const payload = result.structuredContent;
      if (result.isError || !payload || payload.result !== 'captured')
        throw new Error(`ours failed: ${payload ? payload.error : JSON.stringify(result.content)}`);
      const bytes = fs.readFileSync(payload.written_path);
      return type === 'screenshot' ? bytes : JSON.parse(bytes.toString('utf8')).tree;
    },
    async close() {
      await client.close();
      fs.rmSync(runRoot, { recursive: true, force: true });
    },
  };
}

async function playwrightSide(browser, url) {
  const context = await browser.newContext({ viewport: { width: VIEWPORT.width, height: VIEWPORT.height }, deviceScaleFactor: 1, colorScheme: 'light' });
  try {
    const page = await context.newPage();
    // networkidle: an app that boots through require.js binds its input after
    // the load event; a person waits for it, and Playwright typing into the
    // box before it is bound loses the first item (ours rests first).
    await page.goto(url, { waitUntil: 'networkidle' });
    for (const a of ACTIONS) {
      if (a.do === 'fill') await page.fill(a.selector, a.value);
      else if (a.do === 'press') await page.press(a.selector, a.key);
      else await page.click(a.selector);
    }
    await page.waitForTimeout(PLAYWRIGHT_SETTLE_MS);
    return { png: await page.screenshot({ fullPage: true, animations: 'disabled' }), tree: await page.ariaSnapshot() };
  } finally {
    await context.close();
  }
}

/** Where an app's page is: a built one first (TodoMVC's examples keep theirs in dist/ and the like), else its index.html. */
const ENTRIES = ['dist/browser/index.html', 'dist/index.html', 'todomvc/dist/index.html', 'www/index.html', 'index.html', 'web/index.html'];
const entryOf = (app) => ENTRIES.find((e) => fs.existsSync(path.join(DIR, app, e)));

async function main() {
  if (!fs.existsSync(DIR)) {
    console.error(`no apps in ${DIR}: run node bench/framework-apps/build.js first`);
    process.exit(2);
  }
  const apps = fs
    .readdirSync(DIR)
    .map((app) => ({ app, entry: entryOf(app) }))
    .filter((a) => a.entry && (!MATCH || MATCH.test(a.app)))
    .sort((a, b) => a.app.localeCompare(b.app));
  const executable = EXECUTABLE || runtimeDefault();
  // The folder's parent is the site root, so an app that names its assets from the root (TodoMVC's Ember app: /examples/emberjs/…) finds them.
  const server = await serveStatic([path.dirname(DIR)]);
  const [ours, pw] = await Promise.all([startOurs(), chromium.launch({ executablePath: executable, args: ['--no-sandbox'] })]);
  console.log(`engine: ${label(executable)}; ${apps.length} apps; actions: fill, Enter, fill, Enter, tick the first`);
  const rows = [];
  for (const { app, entry } of apps) {
    const url = server.url(`${path.basename(DIR)}/${app}/${entry}`);
    const row = { app };
    try {
      const first = await playwrightSide(pw, url).catch((err) => ({ error: `playwright: ${err.message}` }));
      const [png, tree] = [await ours.capture(url, 'screenshot'), await ours.capture(url, 'a11y tree')];
      if (first.error) throw new Error(`${first.error} (ours captured it: ${(tree.match(/- listitem/g) || []).length} list items)`);
      const second = await playwrightSide(pw, url);
      const pixels = comparePngs(png, first.png);
      row.unstable = comparePngs(first.png, second.png).verdict !== 'identical' || first.tree !== second.tree;
      row.pixels =
        pixels.verdict === 'identical'
          ? 'identical'
          : `${pixels.verdict} (${pixels.reason === 'size' ? `size ${pixels.sizes.join(' vs ')}` : `${pixels.diffPixels} px`})`;
      row.aria = tree === first.tree ? 'identical' : 'different';
      row.items = (tree.match(/- listitem/g) || []).length;
      if (row.aria !== 'identical') row.ariaDiff = { ours: tree, playwright: first.tree };
    } catch (err) {
      row.error = String(err && err.message ? err.message : err).split('\n')[0];
    }
    rows.push(row);
    console.log(
      row.error
        ? `error     ${app}: ${row.error}`
        : `${app.padEnd(15)} pixels ${row.pixels.padEnd(22)} aria ${row.aria.padEnd(10)} items ${row.items}${row.unstable ? ' [unstable]' : ''}`,
    );
    if (row.ariaDiff) console.log(`  ours:\n${row.ariaDiff.ours}\n  playwright:\n${row.ariaDiff.playwright}`);
  }
  await Promise.all([ours.close(), pw.close(), server.close()]);
  const stable = rows.filter((r) => !r.error && !r.unstable);
  const both = stable.filter((r) => r.pixels === 'identical' && r.aria === 'identical').length;
  console.log(
    `\n${rows.length} apps: ${stable.length} stable; pixels and aria both equal to Playwright's on ${both} of ${stable.length}; errors ${rows.filter((r) => r.error).length}`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
