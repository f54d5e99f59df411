/**
 * The run report end to end: a run made by the built server (MCP SDK
 * client), its report built by the built CLI, then opened from file:// in
 * Chromium: no console errors or failed requests, every image decoded, each
 * finding box drawn over its sidecar sample box (within 1 px, at every zoom),
 * filters, the trace frames from the ZIP, and the loose-end sections.
 */
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { pathToFileURL } from 'url';
import JSZip from 'jszip';
import type { Browser, Page } from 'puppeteer-core';
import { CHROMIUM_PATH, launchTestBrowser, type PageServer } from '../helpers/browser';
import { runBin as runBuiltBin, type BinRun, type RunningServer } from '../e2e/harness';
import { generateRun, startRunServices, type GeneratedRun } from './run';

jest.setTimeout(240_000);

let pages: PageServer;
let server: RunningServer;
let run: GeneratedRun;
let browser: Browser;
let indexPath: string;
let evidenceBefore: Map<string, string>;

function runBin(args: string[], env: Record<string, string> = {}): Promise<BinRun> {
  const childEnv: Record<string, string> = { ...(process.env as Record<string, string>), DESIGN_PLAYBOOK_CHROME_PATH: CHROMIUM_PATH, ...env };
  if (!('DESIGN_PLAYBOOK_RUN_ROOT' in env)) delete childEnv.DESIGN_PLAYBOOK_RUN_ROOT;
  return runBuiltBin(args, { env: childEnv, timeoutMs: 120_000 });
}

/** Every file under a folder with the SHA-256 of its bytes and its mtime. */
function snapshotTree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const dirent of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, dirent.name);
      if (dirent.isDirectory()) walk(p);
      else out.set(path.relative(dir, p), `${crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex')} ${fs.statSync(p).mtimeMs}`);
    }
  };
  walk(dir);
  return out;
}

interface PageWatch {
  page: Page;
  problems: string[];
}

async function openReport(scheme: 'light' | 'dark' = 'light', width = 1280): Promise<PageWatch> {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warn') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${(e as Error).message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }]);
  await page.setViewport({ width, height: 900 });
  await page.goto(pathToFileURL(indexPath).href, { waitUntil: 'load' });
  return { page, problems };
}

/** Scrolls every image into view (they lazy-load) and waits until each is decoded. */
async function decodeAllImages(page: Page): Promise<{ src: string; ok: boolean }[]> {
  return page.evaluate(async () => {
    const results: { src: string; ok: boolean }[] = [];
    for (const img of Array.from(document.images)) {
      img.scrollIntoView({ block: 'center' });
      let ok = true;
      try {
        await img.decode();
      } catch {
        ok = false;
      }
      results.push({ src: img.currentSrc || img.src, ok: ok && img.complete && img.naturalWidth > 0 });
    }
    return results;
  });
}

beforeAll(async () => {
  ({ pages, server } = await startRunServices());
  run = await generateRun(pages, server);
  evidenceBefore = snapshotTree(run.evidence);
  const built = await runBin(['report', run.root]);
  expect(built.stderr).toMatch(/^report: /m);
  expect(built.code).toBe(0);
  indexPath = built.stdout.trim();
  browser = await launchTestBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await pages?.close();
  if (run?.root) fs.rmSync(run.root, { recursive: true, force: true });
});

test('the CLI prints index.html under <run root>/report and leaves evidence/ exactly as it was', () => {
  expect(indexPath).toBe(path.join(run.root, 'report', 'index.html'));
  expect(fs.statSync(indexPath).isFile()).toBe(true);
  expect(snapshotTree(run.evidence)).toEqual(evidenceBefore);
  // Nothing but the report folder was added to the run root.
  expect(fs.readdirSync(run.root).sort()).toEqual(['evidence', 'plan.md', 'report']);
});

test('opened from file://: no console error, no failed request, every image decoded', async () => {
  for (const scheme of ['light', 'dark'] as const) {
    const { page, problems } = await openReport(scheme);
    const images = await decodeAllImages(page);
    expect(images.filter((i) => !i.ok)).toEqual([]);
    // The screenshots, the unbound image and trace frames, all from the report folder or data: URLs.
    expect(images.length).toBeGreaterThanOrEqual(8);
    for (const image of images) expect(image.src).toMatch(/^(file:\/\/|data:image\/svg\+xml)/);
    expect(problems).toEqual([]);
    await page.close();
  }
});

test('every image loads lazily and the page needs nothing outside the report folder', async () => {
  const html = fs.readFileSync(indexPath, 'utf8');
  const tags = html.match(/<img [^>]*>/g) ?? [];
  expect(tags.length).toBeGreaterThan(0);
  for (const tag of tags) {
    if (/src="data:/.test(tag)) continue;
    expect(tag).toContain('loading="lazy"');
    const src = /src="([^"]+)"/.exec(tag)![1];
    expect(src).not.toMatch(/^[a-z]+:|^\/|\.\./);
    expect(fs.existsSync(path.join(path.dirname(indexPath), decodeURIComponent(src)))).toBe(true);
  }
  expect(html).not.toMatch(/<link |<script src|@import|url\((?!data:)/);
});

/** Reads each drawn box and where its sidecar box lands on the displayed image. */
async function boxGeometry(page: Page, articleId: string, dpr: number) {
  return page.evaluate(
    (id, ratio) => {
      const article = document.getElementById(id)!;
      const img = article.querySelector<HTMLImageElement>('.shot img')!;
      const imgRect = img.getBoundingClientRect();
      const shown = imgRect.width / img.naturalWidth;
      return Array.from(article.querySelectorAll<HTMLElement>('.box')).map((box) => {
        const [x, y, w, h] = box.dataset.cssBox!.split(',').map(Number);
        const rect = box.getBoundingClientRect();
        return {
          drawn: { left: rect.left, top: rect.top, width: rect.width, height: rect.height },
          expected: { left: imgRect.left + x * ratio * shown, top: imgRect.top + y * ratio * shown, width: w * ratio * shown, height: h * ratio * shown },
        };
      });
    },
    articleId,
    dpr,
  );
}

test('each finding box lies over its sidecar sample box, scaled to the displayed image, within 1 px, at every zoom', async () => {
  const sidecar = JSON.parse(fs.readFileSync(path.join(run.evidence, 'findings.probe.json'), 'utf8'));
  expect(sidecar.page.devicePixelRatio).toBe(2);
  const rules = new Set(sidecar.renderTokens.findings.map((f: { rule: string }) => f.rule));
  expect([...rules].sort()).toEqual(['color-off-palette', 'concentric-radius', 'font-size-off-scale', 'radius-off-scale']);
  const { page, problems } = await openReport();
  const id = await page.$eval('article[data-findings="true"]', (a) => a.id);
  // One drawn box per sample; a concentric pair draws its inner and outer box.
  const expectedCount = sidecar.renderTokens.findings.reduce(
    (n: number, f: { rule: string; samples: unknown[] }) => n + (f.rule === 'concentric-radius' ? 2 : f.samples.length),
    0,
  );
  const drawnBoxes = await page.$$eval(`#${id} .box`, (boxes) =>
    boxes.map((b) => ({ rule: (b as HTMLElement).dataset.rule, part: b.className, css: (b as HTMLElement).dataset.cssBox })),
  );
  expect(drawnBoxes).toHaveLength(expectedCount);
  for (const finding of sidecar.renderTokens.findings) {
    for (const sample of finding.samples) {
      const css = [sample.box.x, sample.box.y, sample.box.width, sample.box.height].join(',');
      expect(drawnBoxes.some((b) => b.rule === finding.rule && b.css === css)).toBe(true);
    }
  }
  expect(
    drawnBoxes
      .filter((b) => b.rule === 'concentric-radius')
      .map((b) => b.part)
      .sort(),
  ).toEqual(['box part-inner', 'box part-outer']);
  for (const zoom of ['fit', '0.5', '1', '2']) {
    await page.click(`#${id} button[data-zoom="${zoom}"]`);
    await page.$eval(`#${id} .shot img`, async (img) => (img as HTMLImageElement).decode());
    const geometry = await boxGeometry(page, id, 2);
    for (const { drawn, expected } of geometry) {
      expect(Math.abs(drawn.left - expected.left)).toBeLessThanOrEqual(1);
      expect(Math.abs(drawn.top - expected.top)).toBeLessThanOrEqual(1);
      expect(Math.abs(drawn.width - expected.width)).toBeLessThanOrEqual(1);
      expect(Math.abs(drawn.height - expected.height)).toBeLessThanOrEqual(1);
    }
  }
  // At 100% the image is shown at its pixel size.
  await page.click(`#${id} button[data-zoom="1"]`);
  const shownWidth = await page.$eval(`#${id} .shot img`, (img) => img.getBoundingClientRect().width);
  expect(shownWidth).toBe(1280);
  // A rule's toggle hides its boxes; hovering a box shows its selector and value.
  await page.click(`#${id} input[data-rule-toggle="color-off-palette"]`);
  const hidden = await page.$$eval(`#${id} .box[data-rule="color-off-palette"]`, (boxes) => boxes.map((b) => getComputedStyle(b).display));
  expect(hidden.length).toBeGreaterThan(0);
  expect(new Set(hidden)).toEqual(new Set(['none']));
  const fontBox = await page.$(`#${id} .box[data-rule="font-size-off-scale"]`);
  await fontBox!.scrollIntoView();
  await fontBox!.hover();
  const tip = await page.$eval(`#${id} .box[data-rule="font-size-off-scale"] .tip`, (t) => ({
    shown: getComputedStyle(t).display !== 'none',
    text: t.textContent,
  }));
  expect(tip.shown).toBe(true);
  const fontFinding = sidecar.renderTokens.findings.find((f: { rule: string }) => f.rule === 'font-size-off-scale');
  expect(tip.text).toContain(fontFinding.samples[0].selector);
  expect(tip.text).toContain(fontFinding.value);
  expect(problems).toEqual([]);
  await page.close();
});

test('the sidecar is read in its order: measurement_status, then undecidable, then findings', async () => {
  const { page } = await openReport();
  const order = await page.$eval('article[data-findings="true"]', (article) =>
    Array.from(article.querySelectorAll('.probe-order dt, h5')).map((e) => e.textContent!.trim()),
  );
  expect(order.slice(0, 5)).toEqual(['1. measurement_status', '2. undecidable', '3. findings', 'Undecidable', 'Findings']);
  await page.close();
});

test('filters change what is shown', async () => {
  const { page, problems } = await openReport();
  const visible = () =>
    page.$$eval('article.item', (items) => items.filter((i) => (i as HTMLElement).offsetParent !== null).map((i) => i.querySelector('.artifact')!.textContent));
  const all = await visible();
  expect(all.sort()).toEqual(['findings.png', 'flow.trace.zip', 'manual-shot.png', 'never-written.png', 'plain.png', 'tree.json', 'unreachable.png'].sort());
  await page.select('#filter-type', 'a11y tree');
  expect(await visible()).toEqual(['tree.json']);
  await page.select('#filter-type', '');
  await page.select('#filter-result', 'failed');
  expect(await visible()).toEqual(['unreachable.png']);
  await page.select('#filter-result', '');
  await page.click('#filter-findings');
  expect(await visible()).toEqual(['findings.png']);
  await page.click('#filter-findings');
  await page.click('#filter-differs');
  // plain.png was expected "loaded" and observed "ready"; the failed capture observed "unknown".
  expect((await visible()).sort()).toEqual(['plain.png', 'unreachable.png']);
  expect(await page.$eval('#filter-status', (s) => s.textContent)).toBe('Showing 2 of 7 artifacts.');
  // A criterion with nothing left to show is hidden with its link.
  expect(await page.$eval('#criterion-L6-3', (s) => (s as HTMLElement).hidden)).toBe(true);
  await page.click('#filter-reset');
  await page.waitForFunction(() => document.getElementById('filter-status')!.textContent === 'Showing all 7 artifacts.');
  expect(await visible()).toHaveLength(7);
  expect(problems).toEqual([]);
  await page.close();
});

test('the trace section lists the actions with before/after frames taken from the ZIP, the error counts and the viewer command', async () => {
  const zipPath = path.join(run.evidence, 'flow.trace.zip');
  const zip = await JSZip.loadAsync(fs.readFileSync(zipPath));
  const { page } = await openReport();
  const trace = await page.$eval('section.view.trace', (section) => ({
    actions: Array.from(section.querySelectorAll('.actions > li .act strong')).map((s) => s.textContent),
    frames: Array.from(section.querySelectorAll<HTMLImageElement>('.frames img')).map((img) => img.getAttribute('src')),
    counts: Array.from(section.querySelectorAll('.counts li')).map((li) => li.textContent!.replace(/\s+/g, ' ').trim()),
    command: section.querySelector('.command code')!.textContent,
    problems: section.textContent,
  }));
  expect(trace.actions).toEqual(['Navigate', 'Fill', 'Click', 'Wait for selector']);
  // Every action after the navigation has a before and an after frame.
  expect(trace.frames.length).toBeGreaterThanOrEqual(2 * trace.actions.length - 1);
  for (const src of trace.frames) {
    const shown = fs.readFileSync(path.join(path.dirname(indexPath), decodeURIComponent(src!)));
    const inZip = await zip.file(`resources/${path.basename(src!)}`)!.async('nodebuffer');
    expect(shown.equals(inZip)).toBe(true);
  }
  expect(trace.command).toBe(`npx playwright show-trace ${zipPath}`);
  const count = (label: string) => Number(trace.counts.find((c) => c.endsWith(label))!.split(' ')[0]);
  expect(count('console errors')).toBeGreaterThanOrEqual(1);
  expect(count('failed requests')).toBe(1);
  expect(count('HTTP error responses')).toBe(1);
  expect(trace.problems).toContain('report-fixture-error: the send handler logs this');
  expect(trace.problems).toContain('/dropped-connection');
  expect(trace.problems).toContain('/missing-resource');
  await page.close();
});

test('missing artifacts, unbound files and flagged lines have their own sections', async () => {
  const { page } = await openReport();
  const text = (selector: string) => page.$eval(selector, (e) => e.textContent!.replace(/\s+/g, ' '));
  const missing = await text('#missing');
  expect(missing).toContain('evidence/never-written.png');
  // A failed capture names no file: it is not "missing".
  expect(missing).not.toContain('unreachable.png');
  const unbound = await page.$$eval('#unbound li', (lis) => lis.map((li) => li.textContent!.replace(/\s+/g, ' ').trim()));
  expect(unbound).toHaveLength(2);
  expect(unbound[0]).toContain('evidence/notes.txt');
  expect(unbound[1]).toContain('evidence/stray.png');
  expect(unbound[1]).toContain('with its probe sidecar stray.probe.json');
  expect(unbound[1]).toContain('named by flagged line 10');
  const flagged = await text('#flagged');
  expect(flagged).toContain('line 10');
  expect(flagged).toContain('missing_schema_version');
  expect(flagged).toContain('line 11');
  expect(flagged).toContain('malformed_json');
  // The superseded line, the manual provider's screenshot without a sidecar, the failed capture's error.
  const l61 = await text('#criterion-L6-1');
  expect(l61).toContain('supersedes line 1');
  expect(l61).not.toContain('an-older-state');
  const l66 = await text('#criterion-L6-6');
  expect(l66).toContain('manual');
  expect(l66).toContain('Opened the plain page');
  expect(l66).toContain('no probe sidecar manual-shot.probe.json beside the image');
  const l65 = await text('#criterion-L6-5');
  expect(l65).toContain(run.payloads.failed.error);
  expect(l65).toContain('the capture failed');
  await page.close();
});

test('keyboard: the first Tab reaches the skip link, which moves focus to the main content', async () => {
  const { page } = await openReport();
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement!.textContent)).toBe('Skip to the evidence');
  await page.keyboard.press('Enter');
  expect(await page.evaluate(() => document.activeElement!.id)).toBe('main');
  await page.close();
});

test('a second build replaces the report; a refused output folder changes nothing', async () => {
  const marker = path.join(path.dirname(indexPath), 'files', 'findings.png');
  expect(fs.existsSync(marker)).toBe(true);
  const again = await runBin(['report', run.root]);
  expect(again.code).toBe(0);
  expect(fs.readdirSync(run.root).sort()).toEqual(['evidence', 'plan.md', 'report']);
  const inside = await runBin(['report', run.root, '--out', path.join(run.evidence, 'report')]);
  expect(inside.code).toBe(1);
  expect(inside.stderr).toContain('never writes inside evidence/');
  const foreign = fs.mkdtempSync(path.join(run.root, 'mine-'));
  fs.writeFileSync(path.join(foreign, 'keep.txt'), 'mine');
  const refused = await runBin(['report', run.root, '--out', foreign]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('was not written by this command');
  expect(fs.readFileSync(path.join(foreign, 'keep.txt'), 'utf8')).toBe('mine');
  fs.rmSync(foreign, { recursive: true, force: true });
  expect(snapshotTree(run.evidence)).toEqual(evidenceBefore);
});

test('the run root resolves as the server resolves it: a folder without a run marker is refused, DESIGN_PLAYBOOK_RUN_ROOT is honoured', async () => {
  const bare = fs.mkdtempSync(path.join(path.dirname(run.root), 'dpe-bare-'));
  const refused = await runBin(['report', bare]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('holds no run marker');
  fs.rmSync(bare, { recursive: true, force: true });
  const out = path.join(run.root, 'report-env');
  const viaEnv = await runBin(['report', '--out', out], { DESIGN_PLAYBOOK_RUN_ROOT: run.root });
  expect(viaEnv.code).toBe(0);
  expect(viaEnv.stdout.trim()).toBe(path.join(out, 'index.html'));
  fs.rmSync(out, { recursive: true, force: true });
});

describe('dogfood: the report captured by this server', () => {
  let dogRoot: string;
  beforeAll(() => {
    dogRoot = fs.mkdtempSync(path.join(path.dirname(run.root), 'dpe-dogfood-'));
    fs.writeFileSync(path.join(dogRoot, 'plan.md'), '# dogfood\n');
  });
  afterAll(() => {
    if (dogRoot) fs.rmSync(dogRoot, { recursive: true, force: true });
  });

  const args = (leaf: string, extra: Record<string, unknown>) => ({
    schemaVersion: 1,
    url: pathToFileURL(indexPath).href,
    type: 'screenshot',
    state: 'report',
    artifact_path: `evidence/${leaf}`,
    viewport: { width: 1280, height: 800, devicePixelRatio: 1, colorScheme: 'light' },
    run_root: dogRoot,
    ...extra,
  });

  test('its aria snapshot has a main landmark, a heading per criterion and only named controls', async () => {
    const payload = await server.capture(args('report.a11y.json', { type: 'a11y tree' }));
    expect(payload.result).toBe('captured');
    const tree: string = JSON.parse(fs.readFileSync(payload.written_path, 'utf8')).tree;
    const lines = tree.split('\n');
    expect(lines.some((l) => /^\s*- main:?$/.test(l))).toBe(true);
    expect(lines.some((l) => /^\s*- banner:?$/.test(l))).toBe(true);
    expect(lines.some((l) => /^\s*- navigation "Criteria and sections":?$/.test(l))).toBe(true);
    for (const criterion of ['L6.1', 'L6.2', 'L6.3', 'L6.4', 'L6.5', 'L6.6', 'L6.7']) {
      expect(lines.some((l) => l.includes(`- heading "Criterion ${criterion} `) && l.includes('[level=2]'))).toBe(true);
    }
    const controls = lines.filter((l) => /^\s*- (button|checkbox|combobox|searchbox|textbox|radio|slider|spinbutton)\b/.test(l));
    expect(controls.length).toBeGreaterThan(10);
    for (const control of controls) expect(control).toMatch(/^\s*- [a-z]+ "[^"]+"/);
    expect(controls.some((l) => l.includes('combobox "Type"'))).toBe(true);
    expect(controls.some((l) => l.includes('checkbox "Has findings"'))).toBe(true);
    expect(controls.some((l) => l.includes('searchbox "Search the tree"'))).toBe(true);
  });

  test('its screenshot bound to its own declared tokens is measured with zero findings, in light and dark', async () => {
    const { REPORT_DESIGN } = await import('../../src/report/tokens');
    for (const colorScheme of ['light', 'dark']) {
      const payload = await server.capture(
        args(`report-${colorScheme}.png`, { design: REPORT_DESIGN, viewport: { width: 1280, height: 800, devicePixelRatio: 1, colorScheme } }),
      );
      expect(payload.result).toBe('captured');
      const sidecar = JSON.parse(fs.readFileSync(payload.written_path.replace(/\.png$/, '.probe.json'), 'utf8'));
      expect(sidecar.renderTokens.measurement_status).toBe('measured');
      expect(sidecar.renderTokens.undecidable).toEqual([]);
      expect(sidecar.renderTokens.findings).toEqual([]);
      // The report's text sizes are exactly its declared scale.
      expect(sidecar.renderTokens.distinctFontSizes).toEqual(REPORT_DESIGN.fontSizes);
    }
  });

  test('the same capture holds the tokens for real: leaving the muted text colour out of the palette is found', async () => {
    const { REPORT_DESIGN, LIGHT } = await import('../../src/report/tokens');
    const design = { ...REPORT_DESIGN, colors: REPORT_DESIGN.colors.filter((c) => c !== LIGHT.muted) };
    const payload = await server.capture(args('report-control.png', { design }));
    const sidecar = JSON.parse(fs.readFileSync(payload.written_path.replace(/\.png$/, '.probe.json'), 'utf8'));
    const muted = `rgb(${[1, 3, 5].map((i) => parseInt(LIGHT.muted.slice(i, i + 2), 16)).join(', ')})`;
    expect(sidecar.renderTokens.findings.map((f: { rule: string; value: string }) => [f.rule, f.value])).toEqual([['color-off-palette', muted]]);
  });
});
