/**
 * The library API without the server: executeCapturePlan with the bundled
 * provider captures in-process, and closeBundledBrowser closes the browser it
 * launched (no Chromium and no temporary profile left behind).
 */
import * as fs from 'fs';
import * as path from 'path';
import { executeCapturePlan, closeBundledBrowser } from '../../src/index';
import { servePages, type PageServer } from '../helpers/browser';
import { captureArgs, makeRunRoot, launchedBrowser, profileDirOf, isAlive, waitFor } from './harness';

let server: PageServer;
beforeAll(async () => {
  server = await servePages(path.join(__dirname, 'pages'));
});
afterAll(async () => {
  await closeBundledBrowser();
  await server.close();
});

test('executeCapturePlan captures in-process and closeBundledBrowser leaves no browser or profile', async () => {
  const root = makeRunRoot('library');
  const pages = fs.readdirSync(path.join(__dirname, 'pages')).filter((f) => f.endsWith('.html'));
  const result = await executeCapturePlan(captureArgs(root, server.url(pages[0]), 'lib.png'));
  expect(result.result).toBe('captured');
  expect(fs.statSync(path.join(root, 'evidence', 'lib.png')).size).toBeGreaterThan(0);
  expect(fs.existsSync(path.join(root, 'evidence', 'lib.probe.json'))).toBe(true);

  const browser = launchedBrowser(process.pid);
  expect(browser).toBeDefined();
  const profile = profileDirOf(browser!);
  await closeBundledBrowser();
  await waitFor(() => !isAlive(browser!.pid), 15000, 'the launched browser to exit');
  await waitFor(() => !fs.existsSync(profile), 15000, 'the temporary profile to be removed');
});
