#!/usr/bin/env bash
# Sets up a fresh machine: a system Chromium (the project never downloads
# one), then the npm dependencies and the build (npm ci runs `postprepare`).
set -euo pipefail
cd "$(dirname "$0")/.."

find_chromium() {
  for candidate in "${DESIGN_PLAYBOOK_CHROME_PATH:-}" "${PUPPETEER_EXECUTABLE_PATH:-}" "${CHROME_PATH:-}" \
      /usr/bin/chromium /usr/bin/chromium-browser /usr/bin/google-chrome /usr/bin/google-chrome-stable; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then echo "$candidate"; return 0; fi
  done
  return 1
}

can_apt() { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; }
apt_updated=
apt_install() {
  [ -n "$apt_updated" ] || { apt-get update -qq && apt_updated=1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

if ! browser=$(find_chromium); then
  if can_apt; then
    echo "setup: no Chromium found; installing Debian's chromium with apt-get" >&2
    apt_install chromium
    browser=/usr/bin/chromium
  else
    echo "setup: no Chromium or Chrome found. Install one (Debian/Ubuntu: sudo apt-get install chromium;" >&2
    echo "       macOS: install Google Chrome), or set DESIGN_PLAYBOOK_CHROME_PATH to its executable," >&2
    echo "       or attach to a running Chrome with DESIGN_PLAYBOOK_CDP_URL=http://127.0.0.1:9222." >&2
    exit 1
  fi
fi
echo "setup: using browser $browser" >&2

# The headless shell: the same Blink without the desktop browser, about a third of
# the CPU per capture; the runtime launches it when it is there (docs/browser.md,
# "Which browser"). Optional: without it the full browser above is launched.
if ! [ -x /usr/lib/chromium/chromium-headless-shell ] && ! [ -x /usr/bin/chromium-headless-shell ] && [ "$browser" = /usr/bin/chromium ] && can_apt; then
  echo "setup: installing Debian's chromium-headless-shell with apt-get" >&2
  apt_install chromium-headless-shell || echo "setup: chromium-headless-shell could not be installed; the full chromium will be launched" >&2
fi

# Xvfb: a display for `login --headed`'s test (a visible browser for a person to sign in). Optional.
if ! command -v Xvfb >/dev/null && [ "$(uname)" = Linux ] && can_apt; then
  echo "setup: installing Debian's xvfb with apt-get (login --headed's test)" >&2
  apt_install xvfb || echo "setup: xvfb could not be installed; login --headed's test will fail" >&2
fi
# A window manager and its command-line client: the test closes the login window as a person does (WM_DELETE_WINDOW).
if ! command -v wmctrl >/dev/null && [ "$(uname)" = Linux ] && can_apt; then
  echo "setup: installing Debian's openbox and wmctrl with apt-get (login --headed's window-close test)" >&2
  apt_install --no-install-recommends openbox wmctrl || echo "setup: openbox/wmctrl could not be installed; login --headed's window-close test will fail" >&2
fi

if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
# npm ci runs `postprepare` (the build); build again in case lifecycle scripts are disabled.
[ -f dist/src/bin.js ] || npm run build
