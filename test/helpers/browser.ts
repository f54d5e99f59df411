/**
 * Test-side browser and page server. Tests drive the same system Chromium the
 * runtime finds; pages are served from 127.0.0.1 only.
 */
import * as http from 'http';
import * as fs from 'fs';
import * as path from 'path';
import type { AddressInfo } from 'net';
import puppeteer, { Browser } from 'puppeteer-core';
import { findBrowser, isHeadlessShell, systemLocations } from '../../src/browser/fleet/findBrowser';

/** The browser the runtime itself would launch here (a headless shell when one is installed), unless one is named. */
export const CHROMIUM_PATH = process.env.DESIGN_PLAYBOOK_CHROME_PATH || process.env.PUPPETEER_EXECUTABLE_PATH || findBrowser({ env: {} }).executablePath;

/**
 * The full browser (the `chromium` package), for the tests that stand for a
 * Chrome someone already runs, and for the captures on the other engine.
 * Null when only a headless shell is installed.
 */
export const FULL_CHROMIUM_PATH: string | null = systemLocations().find((p) => !isHeadlessShell(p) && fs.existsSync(p)) ?? null;

/** Flags a root-run, offline container needs (see DEVELOPERS.md). */
export const CHROMIUM_TEST_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export async function launchTestBrowser(): Promise<Browser> {
  return puppeteer.launch({ executablePath: CHROMIUM_PATH, headless: isHeadlessShell(CHROMIUM_PATH) ? 'shell' : true, args: CHROMIUM_TEST_ARGS });
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

export interface PageServer {
  origin: string;
  url(p: string): string;
  close(): Promise<void>;
  /** The HTTP server itself (a test that speaks WebSocket listens for its upgrades). */
  http: http.Server;
}

/**
 * Serves `dir` on 127.0.0.1 at an ephemeral port. `routes` adds dynamic pages
 * (path -> handler) for tests that need slow or hanging responses.
 */
export async function servePages(dir: string, routes: Record<string, (req: http.IncomingMessage, res: http.ServerResponse) => void> = {}): Promise<PageServer> {
  const server = http.createServer((req, res) => {
    const urlPath = decodeURIComponent((req.url || '/').split('?')[0]);
    const route = routes[urlPath];
    if (route) return route(req, res);
    const file = path.join(dir, path.normalize(urlPath).replace(/^(\.\.[/\\])+/, ''));
    if (!file.startsWith(path.resolve(dir)) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': MIME[path.extname(file)] || 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    http: server,
    url: (p: string) => origin + (p.startsWith('/') ? p : '/' + p),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
