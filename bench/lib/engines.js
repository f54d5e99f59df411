/**
 * The two Chromium engines a bench can drive: the full browser (Debian's
 * `chromium`, what the guide's Playwright peer is pointed at) and the headless
 * shell (`chromium-headless-shell`, the engine Playwright itself launches for
 * headless Chromium and the one the runtime prefers when it is installed).
 * DESIGN_PLAYBOOK_CHROME_PATH pins the full browser's slot to another binary.
 * Which file is a headless shell, and where one is looked for, come from the
 * runtime's own findBrowser (dist/ must be built).
 */
const path = require('path');
const { findBrowser, isHeadlessShell, systemLocations, BROWSER_PATH_VARIABLES } = require(
  path.join(__dirname, '..', '..', 'dist', 'src', 'browser', 'fleet', 'findBrowser.js'),
);

const FULL = process.env.DESIGN_PLAYBOOK_CHROME_PATH || '/usr/bin/chromium';

/** An environment with no browser named: the runtime chooses. */
function unnamedEnv(env = process.env) {
  const out = { ...env };
  for (const name of BROWSER_PATH_VARIABLES) delete out[name];
  return out;
}

/** What the runtime launches when no browser is named. */
const runtimeDefault = () => findBrowser({ env: unnamedEnv() }).executablePath;

/** The headless shell the runtime would find here, or null. */
const SHELL = (() => {
  const shells = systemLocations().filter(isHeadlessShell);
  try {
    const found = findBrowser({ env: {}, locations: shells, puppeteerBrowsers: () => [] });
    return found.headlessShell ? found.executablePath : null;
  } catch {
    return null;
  }
})();

/** Puppeteer's `headless` option for an executable. */
const headlessMode = (p) => (isHeadlessShell(p) ? 'shell' : true);
const label = (p) => (isHeadlessShell(p) ? `headless shell (${p})` : `full browser (${p})`);

/** The flags a bench's own browsers get (root in a container, no network): the guide's offline set. */
const BENCH_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/**
 * The benches' floor browser (speed.js and batch.js --floor): bare Puppeteer on `executable` with the
 * runtime's own launch flags, so the floor differs from ours only in what a capture does.
 */
function launchFloorBrowser(executable) {
  const { launchArgs } = require(path.join(__dirname, '..', '..', 'dist', 'src', 'browser', 'fleet', 'browserSession.js'));
  return require('puppeteer-core').launch({
    executablePath: executable,
    headless: headlessMode(executable),
    args: launchArgs(),
    defaultViewport: null,
    pipe: true,
  });
}

/** The floor's page: a fresh context on `browser` with one page at `viewport` (CSS size and device pixel ratio). */
async function openFloorPage(browser, viewport) {
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    await page.setViewport({ width: viewport.width, height: viewport.height, deviceScaleFactor: viewport.devicePixelRatio });
    return { context, page };
  } catch (err) {
    await context.close().catch(() => undefined);
    throw err;
  }
}

/** What the floor does for a page: the load (to the load event), and with `shot` the full-page PNG's bytes. */
async function floorLoad(page, url, { shot = false } = {}) {
  await page.goto(url, { waitUntil: 'load', timeout: 30000 });
  return shot ? page.screenshot({ fullPage: true, optimizeForSpeed: true }) : null;
}

module.exports = { FULL, SHELL, runtimeDefault, unnamedEnv, headlessMode, label, BENCH_ARGS, launchFloorBrowser, openFloorPage, floorLoad };
