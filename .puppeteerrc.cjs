// The project never downloads a browser: it finds a system Chromium/Chrome
// (see src/browser/findBrowser.ts) or attaches to a running one.
module.exports = { skipDownload: true };
