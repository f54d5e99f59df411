/**
 * The pointer as Playwright's page finds it (pageSetup.ts pointerAtOrigin):
 * a trusted mousemove at (0, 0) once the document is parsed, so a page that
 * draws from the pointer, and :hover at the top-left corner, paint as they
 * usually do under Playwright — every time.
 */
import * as fs from 'fs';
import * as path from 'path';
import { executeCapturePlan, closeBundledBrowser } from '../../src/index';
import { decodePng } from '../../src/png/decode';
import { servePages, type PageServer } from '../helpers/browser';
import { captureArgs, makeRunRoot } from '../e2e/harness';

jest.setTimeout(120_000);

let server: PageServer;
let root: string;

beforeAll(async () => {
  server = await servePages(path.join(__dirname, 'pages'));
  root = makeRunRoot('pointer');
});

afterAll(async () => {
  await closeBundledBrowser();
  await server?.close();
});

test('the page receives one trusted mousemove at (0, 0), and the element there is hovered', async () => {
  for (const [i, type] of ['screenshot', 'a11y tree'].entries()) {
    const result = await executeCapturePlan(captureArgs(root, server.url('pointer.html'), `pointer-${i}.${type === 'screenshot' ? 'png' : 'json'}`, { type }));
    expect(result.error).toBe('');
    expect(result.observed_state).toBe('moved-0-0');
    if (type === 'screenshot') {
      const { header, pixels } = decodePng(fs.readFileSync(result.written_path));
      const at = 20 * header.rowBytes + 60 * header.pixelBytes;
      // #d32f2f: the :hover colour of the link under the pointer.
      expect([pixels[at], pixels[at + 1], pixels[at + 2]]).toEqual([0xd3, 0x2f, 0x2f]);
    } else {
      expect(JSON.parse(fs.readFileSync(result.written_path, 'utf8')).tree).toContain('Pointer at 0, 0');
    }
  }
});
