/**
 * Secrets by name against real Chromium, pages on 127.0.0.1: a login page
 * with a text field and a password field posting a form. A secret typed into
 * each is in no artifact of any type — the screenshot (the fields painted
 * over) and its sidecar, the aria snapshot, the trace ZIP with every entry
 * inflated, the login POST's body included — in any of the guard's forms,
 * nor in the result; a page that echoes the secret fails closed with
 * nothing written; credential headers are masked in every trace.
 */
import * as fs from 'fs';
import * as path from 'path';
import { executeCapturePlan } from '../../src/boundary';
import { PuppeteerCaptureProvider } from '../../src/browser/capture/puppeteerProvider';
import { secretForms, secretStore } from '../../src/common/secrets';
import { zipEntries } from '../../src/boundary/secretGuard';
import { decodePng } from '../../src/png/decode';
import { CHROMIUM_PATH, launchTestBrowser, type PageServer } from '../helpers/browser';
import type { Browser } from 'puppeteer-core';
import { BEARER, PASSWORD, SESSION_COOKIE, USER, serveLoginApp } from './loginApp';
import { startTraceViewer } from '../trace/viewer';
import { makeRunFixture, listFiles, type RunFixture } from '../foundation/fixtures';

jest.setTimeout(120_000);

const secrets = secretStore({ APP_PASSWORD: PASSWORD, APP_USER: USER });

let pages: PageServer;
let provider: PuppeteerCaptureProvider;
let fx: RunFixture;

beforeAll(async () => {
  pages = await serveLoginApp();
  provider = new PuppeteerCaptureProvider({ flags: () => ({ executablePath: CHROMIUM_PATH }), env: { ...process.env } });
});

afterAll(async () => {
  await provider?.close();
  await pages?.close();
});

beforeEach(() => (fx = makeRunFixture()));
afterEach(() => fx.cleanup());

const FILL_BOTH = [
  { do: 'fill', selector: '#user', secret: 'APP_USER' },
  { do: 'type', selector: '#password', secret: 'APP_PASSWORD' },
];

function args(type: string, artifact: string, actions: unknown[], url = pages.url(`/login.html#${BEARER}`)): Record<string, unknown> {
  return {
    schemaVersion: 1,
    url,
    type,
    state: 'login',
    artifact_path: artifact,
    run_root: fx.root,
    viewport: { width: 400, height: 300, devicePixelRatio: 1, colorScheme: 'light' },
    actions,
  };
}

/** Every byte sequence of the run's files, each ZIP entry inflated too. */
function everyFile(): Array<{ where: string; bytes: Buffer }> {
  const files: Array<{ where: string; bytes: Buffer }> = [];
  for (const leaf of listFiles(fx.evidence)) {
    const bytes = fs.readFileSync(path.join(fx.evidence, leaf));
    files.push({ where: leaf, bytes });
    if (leaf.endsWith('.zip')) for (const entry of zipEntries(bytes)) files.push({ where: `${leaf}:${entry.name}`, bytes: entry.bytes });
  }
  return files;
}

/** Where any form of either secret shows in the evidence or in `texts`. */
function leaks(...texts: string[]): string[] {
  const found: string[] = [];
  const places = [...everyFile(), ...texts.map((text, i) => ({ where: `text ${i}`, bytes: Buffer.from(text) }))];
  for (const [name, value] of secrets.entries()) {
    for (const form of secretForms(value))
      for (const place of places) if (place.bytes.includes(form.bytes)) found.push(`${name} ${form.encoding} in ${place.where}`);
  }
  return found;
}

test('screenshot: the fields holding a secret are painted over, and neither value is in the PNG, its sidecar or the result', async () => {
  const result = await executeCapturePlan(args('screenshot', 'evidence/login.png', FILL_BOTH), { provider, env: {}, secrets });
  expect(result).toMatchObject({ result: 'captured', error: '' });
  expect(listFiles(fx.evidence).sort()).toEqual(['login.png', 'login.probe.json']);
  const { header, pixels } = decodePng(fs.readFileSync(result.written_path));
  const pixel = (x: number, y: number) => [...pixels.subarray(y * header.rowBytes + x * header.pixelBytes, y * header.rowBytes + x * header.pixelBytes + 3)];
  // Playwright's mask colour over each field's box, and the page around them as it was.
  expect(pixel(30, 35)).toEqual([255, 0, 255]);
  expect(pixel(300, 85)).toEqual([255, 0, 255]);
  expect(pixel(350, 250)).toEqual([255, 255, 255]);
  expect(leaks(JSON.stringify(result))).toEqual([]);
});

test('aria snapshot: the password shows as bullets, the text field by the name of its secret', async () => {
  const result = await executeCapturePlan(args('a11y tree', 'evidence/login.json', FILL_BOTH), { provider, env: {}, secrets });
  expect(result).toMatchObject({ result: 'captured', error: '' });
  const tree = JSON.parse(fs.readFileSync(result.written_path, 'utf8')).tree as string;
  expect(tree).toContain('textbox "User": <secret APP_USER>');
  expect(tree).toContain(`textbox "Password": ${'\u2022'.repeat(PASSWORD.length)}`);
  expect(leaks(JSON.stringify(result))).toEqual([]);
});

test('trace: a sign-in is captured with neither value in any entry: actions by name, snapshots masked, the POST body masked, credential headers masked', async () => {
  const actions = [...FILL_BOTH, { do: 'click', selector: '#go' }, { do: 'wait_for_state', state: 'signed-in' }];
  const result = await executeCapturePlan(args('interaction trace', 'evidence/login.trace.zip', actions), { provider, env: {}, secrets });
  expect(result).toMatchObject({ result: 'captured', error: '' });
  expect(leaks(JSON.stringify(result))).toEqual([]);
  const entries = new Map(zipEntries(fs.readFileSync(result.written_path)).map((e) => [e.name, e.bytes.toString('utf8')]));
  const trace = entries.get('trace.trace')!;
  const network = entries.get('trace.network')!;
  expect(trace).toContain('"value":"<secret APP_USER>"');
  expect(trace).toContain('"text":"<secret APP_PASSWORD>"');
  // The DOM snapshots: the text field's value by its name, the password as bullets.
  expect(trace).toContain('"__playwright_value_":"<secret APP_USER>"');
  expect(trace).toContain(`"__playwright_value_":"${'\u2022'.repeat(PASSWORD.length)}"`);
  // The login form's POST body, form-encoded, with each value masked.
  const login = network
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line).snapshot)
    .find((s) => s.request.method === 'POST');
  expect(Object.fromEntries(new URLSearchParams(login.request.postData.text))).toEqual({ user: '<secret APP_USER>', password: '<secret APP_PASSWORD>' });
  // Credential headers: names kept, values masked; the values nowhere.
  const snapshots = network
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line).snapshot);
  const headers = snapshots.flatMap((s) => [...s.request.headers, ...s.response.headers]);
  const valuesOf = (name: string) => headers.filter((h: { name: string }) => h.name.toLowerCase() === name).map((h: { value: string }) => h.value);
  expect(valuesOf('authorization')).toEqual(['<masked>']);
  // Chromium reports Cookie and Set-Cookie in its extra-info events, which the recorder does not read; wherever they show, they are masked.
  for (const name of ['cookie', 'set-cookie']) for (const value of valuesOf(name)) expect(value).toBe('<masked>');
  expect(network).not.toContain(BEARER);
  expect(network).not.toContain(SESSION_COOKIE);
  expect(trace).not.toContain(SESSION_COOKIE);
});

/** The [r, g, b] of each point of a JPEG, decoded by the browser. */
async function jpegPixels(browser: Browser, jpeg: Buffer, points: Array<[number, number]>): Promise<number[][]> {
  const page = await browser.newPage();
  try {
    return await page.evaluate(
      async (src, pts) => {
        const img = new Image();
        img.src = src;
        await img.decode();
        const canvas = document.createElement('canvas');
        canvas.width = img.width;
        canvas.height = img.height;
        const ctx = canvas.getContext('2d')!;
        ctx.drawImage(img, 0, 0);
        return pts.map(([x, y]) => [...ctx.getImageData(x, y, 1, 1).data.slice(0, 3)]);
      },
      `data:image/jpeg;base64,${jpeg.toString('base64')}`,
      points,
    );
  } finally {
    await page.close();
  }
}

test('trace: no frame of the film strip shows the text of either field, and the fields are painted over once a secret is typed', async () => {
  const actions = [...FILL_BOTH, { do: 'wait', ms: 100 }, { do: 'click', selector: '#go' }, { do: 'wait_for_state', state: 'signed-in' }];
  const result = await executeCapturePlan(args('interaction trace', 'evidence/strip.trace.zip', actions), { provider, env: {}, secrets });
  expect(result).toMatchObject({ result: 'captured', error: '' });
  const entries = new Map(zipEntries(fs.readFileSync(result.written_path)).map((e) => [e.name, e.bytes]));
  const frames = entries
    .get('trace.trace')!
    .toString()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((e) => e.type === 'screencast-frame');
  expect(frames.length).toBeGreaterThan(1);
  // Points along where each field draws its text (inside its border).
  const points: Array<[number, number]> = [];
  for (const y of [35, 85]) for (let x = 26; x < 300; x += 6) points.push([x, y]);
  const browser = await launchTestBrowser();
  let painted = 0;
  try {
    for (const frame of frames) {
      const name = frame.sha1 ?? frame.file;
      const pixels = await jpegPixels(browser, (entries.get(`resources/${name}`) ?? entries.get(name))!, points);
      const dark = pixels.filter(([r, g, b]) => r < 120 && g < 120 && b < 120);
      expect(dark).toEqual([]);
      if (pixels.some(([r, g, b]) => r > 200 && g < 80 && b > 200)) painted++;
    }
  } finally {
    await browser.close();
  }
  expect(painted).toBeGreaterThan(0);
});

test('trace without secrets: the credential headers are masked all the same', async () => {
  const result = await executeCapturePlan(args('interaction trace', 'evidence/plain.trace.zip', []), { provider, env: {} });
  expect(result).toMatchObject({ result: 'captured', error: '' });
  const network = zipEntries(fs.readFileSync(result.written_path))
    .find((e) => e.name === 'trace.network')!
    .bytes.toString();
  expect(network).toContain('"name":"Authorization","value":"<masked>"');
  expect(network).not.toContain(BEARER);
  expect(network).not.toContain(SESSION_COOKIE);
});

test.each([
  ['screenshot', 'evidence/echo.png'],
  ['a11y tree', 'evidence/echo.json'],
  ['interaction trace', 'evidence/echo.trace.zip'],
])('%s of a page that echoes the secret fails closed, naming it, and writes nothing', async (type, artifact) => {
  const result = await executeCapturePlan(args(type, artifact, [{ do: 'fill', selector: '#user', secret: 'APP_USER' }], pages.url('/echo.html')), {
    provider,
    env: {},
    secrets,
  });
  expect(result.result).toBe('failed');
  expect(result.error).toContain('secret APP_USER is shown on the page outside its field');
  expect(result.error).toContain('nothing was written');
  expect(listFiles(fx.evidence)).toEqual([]);
  expect(leaks(JSON.stringify(result))).toEqual([]);
});

test("Playwright's trace viewer opens a masked sign-in: the actions by the secrets' names, the fields as masked", async () => {
  const result = await executeCapturePlan(args('interaction trace', 'evidence/viewer.trace.zip', FILL_BOTH), { provider, env: {}, secrets });
  expect(result).toMatchObject({ result: 'captured', error: '' });
  const viewer = await startTraceViewer(result.written_path);
  const browser = await launchTestBrowser();
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(viewer.url, { waitUntil: 'load' });
    await page.waitForFunction(() => document.querySelectorAll('.actions-tree-view .tree-view-entry').length >= 3, { timeout: 60_000 });
    const titles = await page.$$eval('.actions-tree-view .tree-view-entry', (entries) =>
      entries.map((e) => (e.querySelector('.action-title-method')?.textContent ?? '').trim()),
    );
    expect(titles).toEqual(['Navigate', 'Fill "<secret APP_USER>"', 'Type "<secret APP_PASSWORD>"']);
    // The last action's After snapshot, as the viewer renders it.
    await (await page.$$('.actions-tree-view .tree-view-entry'))[2].click();
    for (const tab of await page.$$('.snapshot-tab .tabbed-pane-tab')) if ((await tab.evaluate((el) => el.textContent?.trim())) === 'After') await tab.click();
    let values: string[] = [];
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      const frame = await (await page.$('iframe.snapshot-visible'))?.contentFrame();
      if (!frame || !frame.url().includes('phase=after')) continue;
      values = await frame.$$eval('input', (inputs) => inputs.map((i) => (i as HTMLInputElement).value)).catch(() => []);
      if (values.length === 2 && values[0]) break;
    }
    expect(values).toEqual(['<secret APP_USER>', '\u2022'.repeat(PASSWORD.length)]);
  } finally {
    await browser.close();
    await viewer.close();
  }
});

test.each([
  ['screenshot', 'evidence/editor.png'],
  ['a11y tree', 'evidence/editor.json'],
])('%s of a secret typed into an editable element: its own field, so captured, and masked', async (type, artifact) => {
  const result = await executeCapturePlan(args(type, artifact, [{ do: 'fill', selector: '#note', secret: 'APP_USER' }], pages.url('/editor.html')), {
    provider,
    env: {},
    secrets,
  });
  expect(result).toMatchObject({ result: 'captured', error: '' });
  expect(leaks(JSON.stringify(result))).toEqual([]);
  if (type === 'screenshot') {
    const { header, pixels } = decodePng(fs.readFileSync(result.written_path));
    const at = 40 * header.rowBytes + 100 * header.pixelBytes;
    expect([...pixels.subarray(at, at + 3)]).toEqual([255, 0, 255]);
  } else {
    expect(fs.readFileSync(result.written_path, 'utf8')).toContain('<secret APP_USER>');
  }
});

test('trace of a page that echoes the secret and then clears it fails closed at the action that showed it (the film strip would have it)', async () => {
  const actions = [
    { do: 'fill', selector: '#user', secret: 'APP_USER' },
    { do: 'click', selector: '#clear' },
  ];
  const result = await executeCapturePlan(args('interaction trace', 'evidence/echo-cleared.trace.zip', actions, pages.url('/echo.html')), {
    provider,
    env: {},
    secrets,
  });
  expect(result.result).toBe('failed');
  expect(result.error).toContain("actions[0] fill '#user' failed: secret APP_USER is shown on the page outside its field");
  expect(listFiles(fx.evidence)).toEqual([]);
  expect(leaks(JSON.stringify(result))).toEqual([]);
});

test('screenshot: a field of a same-origin frame holding the value is painted over too', async () => {
  const result = await executeCapturePlan(
    args('screenshot', 'evidence/framed.png', [{ do: 'fill', selector: '#user', secret: 'APP_USER' }], pages.url('/framed.html')),
    {
      provider,
      env: {},
      secrets,
    },
  );
  expect(result).toMatchObject({ result: 'captured', error: '' });
  const { header, pixels } = decodePng(fs.readFileSync(result.written_path));
  const pixel = (x: number, y: number) => [...pixels.subarray(y * header.rowBytes + x * header.pixelBytes, y * header.rowBytes + x * header.pixelBytes + 3)];
  expect(pixel(100, 35)).toEqual([255, 0, 255]);
  // The frame's field: at (20 + 10, 100 + 10) in the page, 200 x 30.
  expect(pixel(100, 125)).toEqual([255, 0, 255]);
  expect(leaks(JSON.stringify(result))).toEqual([]);
});
