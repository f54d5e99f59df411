/**
 * The guard looks for the session's cookie values too: a capture that
 * started from a storageState fails closed when what it would write holds
 * one of its cookie values (a page that prints its session token), naming
 * the cookie and where, never the value, and writes nothing. A trace of the
 * same session whose requests carry the cookie is captured (the Cookie
 * header's value is masked before the guard looks), and a short cookie
 * value (`theme=dark`) is ordinary text the page may show.
 */
import * as fs from 'fs';
import * as http from 'http';
import * as os from 'os';
import * as path from 'path';
import type { AddressInfo } from 'net';
import { executeCapturePlan, closeBundledBrowser } from '../../src/index';
import { captureArgs, makeRunRoot } from '../e2e/harness';

jest.setTimeout(120_000);

const TOKEN = 'tok-5f3a9c2e7b1d4a60';
let server: http.Server;
let origin: string;
let root: string;
let stateFile: string;

function page(body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>guard</title></head><body data-state="ready">${body}</body></html>`;
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const cookies = Object.fromEntries((req.headers.cookie ?? '').split(/;\s*/).map((pair) => pair.split('=') as [string, string]));
    res.setHeader('content-type', 'text/html; charset=utf-8');
    if (req.url === '/echo') res.end(page(`<p>Your session: ${cookies.sid ?? 'none'}</p>`));
    else if (req.url === '/theme') res.end(page(`<p>Theme: ${cookies.theme ?? 'none'}</p><p>Signed in: ${cookies.sid ? 'yes' : 'no'}</p>`));
    else res.end(page(`<p>Signed in: ${cookies.sid ? 'yes' : 'no'}</p><script>fetch('/api').catch(() => {})</script>`));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dpe-session-guard-'));
  stateFile = path.join(dir, 'state.json');
  const cookie = (name: string, value: string) => ({
    name,
    value,
    domain: '127.0.0.1',
    path: '/',
    expires: -1,
    httpOnly: true,
    secure: false,
    sameSite: 'Lax',
  });
  fs.writeFileSync(stateFile, JSON.stringify({ cookies: [cookie('sid', TOKEN), cookie('theme', 'dark')], origins: [] }), { mode: 0o600 });
  root = makeRunRoot('session-guard');
});

afterAll(async () => {
  await closeBundledBrowser();
  await new Promise((resolve) => server.close(resolve));
});

/** Every file under the run's evidence folder, as text, and the result. */
async function capture(url: string, type: string, leaf: string) {
  const result = await executeCapturePlan(captureArgs(root, url, leaf, { type }), { sessions: { storageState: stateFile } });
  return result as unknown as Record<string, unknown>;
}

function evidenceFiles(): string[] {
  const dir = path.join(root, 'evidence');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
}

test.each([
  ['screenshot', 'echo.png'],
  ['a11y tree', 'echo.json'],
  ['interaction trace', 'echo.trace.zip'],
])('a page that prints the session token fails closed (%s): the cookie named, not its value, nothing written', async (type, leaf) => {
  const before = evidenceFiles();
  const result = await capture(`${origin}/echo`, type, leaf);
  expect(result.result).toBe('failed');
  expect(String(result.error)).toMatch(/cookie sid of the storage state found in .*; the capture failed closed and nothing was written/);
  expect(JSON.stringify(result)).not.toContain(TOKEN);
  expect(evidenceFiles()).toEqual(before);
});

test('a trace whose requests carry the session cookie is captured: the header value is masked before the guard looks', async () => {
  const result = await capture(`${origin}/plain`, 'interaction trace', 'plain.trace.zip');
  expect(result.result).toBe('captured');
  const zip = fs.readFileSync(path.join(root, 'evidence', 'plain.trace.zip'));
  expect(zip.includes(Buffer.from(TOKEN))).toBe(false);
});

test('a short cookie value (theme=dark) is not looked for: the page may show it', async () => {
  const result = await capture(`${origin}/theme`, 'a11y tree', 'theme.json');
  expect(result.result).toBe('captured');
  const tree = JSON.parse(fs.readFileSync(path.join(root, 'evidence', 'theme.json'), 'utf8')).tree as string;
  expect(tree).toContain('Theme: dark');
  expect(tree).toContain('Signed in: yes');
});
