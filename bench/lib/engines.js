/**
 * The two Chromium engines a bench can drive: the full browser (Debian's
 * `chromium`, what the guide's Playwright peer is pointed at) and the headless
 * shell (`chromium-headless-shell`, the engine Playwright itself launches for
 * headless Chromium and the one the runtime prefers when it is installed).
 * DESIGN_PLAYBOOK_CHROME_PATH pins the full browser's slot to another binary.
 */
const fs = require('fs');
const path = require('path');

const FULL = process.env.DESIGN_PLAYBOOK_CHROME_PATH || '/usr/bin/chromium';
const SHELL_CANDIDATES = ['/usr/lib/chromium/chromium-headless-shell', '/usr/bin/chromium-headless-shell', '/usr/bin/chrome-headless-shell'];
const SHELL = SHELL_CANDIDATES.find((p) => fs.existsSync(p)) || null;

/** What the runtime launches when no browser is named (dist/ must be built). */
function runtimeDefault() {
  const { findBrowser } = require(path.join(__dirname, '..', '..', 'dist', 'src', 'browser', 'findBrowser.js'));
  const env = { ...process.env };
  for (const name of ['DESIGN_PLAYBOOK_CHROME_PATH', 'PUPPETEER_EXECUTABLE_PATH', 'CHROME_PATH']) delete env[name];
  return findBrowser({ env }).executablePath;
}

const isShell = (p) => /headless[-_]shell$/.test(path.basename(p));
const label = (p) => (isShell(p) ? `headless shell (${p})` : `full browser (${p})`);

module.exports = { FULL, SHELL, runtimeDefault, isShell, label };
