/**
 * The layering test: the rules in ./layering.ts hold for every module of
 * src/ and cdp/, and each rule is shown catching a made-up violation (so the
 * test cannot pass by checking nothing).
 */
import { ALLOWED_STATE, LAYERS, ROOT_MODULE, checkLayering, repositorySources, type SourceFile } from './layering';

const tree = repositorySources();

test('the tree holds every layering rule', () => {
  expect(tree.length).toBeGreaterThan(50);
  expect(checkLayering(tree)).toEqual([]);
});

test('every module the rules name exists (a renamed module cannot silently drop out of a rule)', () => {
  const files = new Set(tree.map((f) => f.file));
  const held = LAYERS.flatMap((layer) => layer.holds);
  const named = [ROOT_MODULE, ...Object.keys(ALLOWED_STATE), ...held.filter((m) => !m.endsWith('/'))];
  expect(named.filter((m) => !files.has(m))).toEqual([]);
  for (const folder of held.filter((m) => m.endsWith('/')))
    expect({ folder, holds: tree.some((f) => f.file.startsWith(folder)) }).toEqual({ folder, holds: true });
  // Each layer names only layers listed before it (lowest first), so the order is one.
  LAYERS.forEach((layer, at) => expect(layer.mayImport.filter((name) => !LAYERS.slice(0, at).some((l) => l.name === name))).toEqual([]));
});

describe('each rule catches a violation', () => {
  const withFiles = (...files: SourceFile[]) => {
    const replaced = new Set(files.map((f) => f.file));
    return checkLayering([...tree.filter((f) => !replaced.has(f.file)), ...files]);
  };
  const append = (file: string, text: string): SourceFile => ({ file, text: tree.find((f) => f.file === file)!.text + '\n' + text });

  test('an import cycle', () => {
    const found = withFiles(append('src/contract/captureContract.ts', "import { TOOL_NAME } from './toolDeclaration';"));
    expect(found.filter((v) => v.rule === 'cycle').map((v) => v.detail)).toEqual([expect.stringContaining('src/contract/captureContract.ts')]);
  });

  test('cdp/ importing from src/', () => {
    const found = withFiles(append('cdp/ariaSnapshot.ts', "import type { Viewport } from '../src/contract';"));
    expect(found).toEqual([expect.objectContaining({ rule: 'cdp-imports-src', file: 'cdp/ariaSnapshot.ts' })]);
  });

  // Each: the rule, then the lines added (file, import) and what the violation's detail names.
  test.each<[string, string, Array<[string, string, string]>]>([
    [
      'cdp/ importing Puppeteer (either package name, a type only included)',
      'cdp-imports-puppeteer',
      [
        ['cdp/ariaSnapshot.ts', "import type { CDPSession } from 'puppeteer-core';", 'puppeteer'],
        ['cdp/trace/writer.ts', "import { Page } from 'puppeteer-core/lib/types';", 'puppeteer-core/lib/types'],
      ],
    ],
    [
      'in-page code importing the Node side or a package',
      'injected-imports-outside',
      [
        ['cdp/injected/aria/names.ts', "import type { CdpSession } from '../../types';", 'cdp/types.ts'],
        ['cdp/injected/selectors/layout.ts', "import { createHash } from 'crypto';", 'crypto'],
      ],
    ],
  ])('%s', (_title, rule, added) => {
    const found = withFiles(...added.map(([file, line]) => append(file, line)));
    expect(found).toEqual(added.map(([file, , named]) => expect.objectContaining({ rule, file, detail: expect.stringContaining(named) })));
  });

  test('browser/ importing the server or the boundary', () => {
    const found = withFiles(append('src/browser/page/freeze.ts', "import { executeCapturePlan } from '../../boundary';"));
    expect(found.map((v) => v.rule)).toContain('upward-import');
    const planStep = withFiles(append('src/browser/page/observedState.ts', "import type { CapturePlan } from '../../boundary/plan';"));
    expect(planStep).toEqual([expect.objectContaining({ rule: 'upward-import', file: 'src/browser/page/observedState.ts' })]);
  });

  test('a capture-type spec importing browser code', () => {
    const found = withFiles(append('src/contract/captureTypes/screenshot.ts', "import type { CaptureTypeModule } from '../../browser/capture/types/types';"));
    expect(found).toContainEqual(expect.objectContaining({ rule: 'upward-import', file: 'src/contract/captureTypes/screenshot.ts' }));
  });

  // Each: a module, an import added to it, and the layer the violation names as refused.
  test.each<[string, string, string]>([
    ['src/common/log.ts', "import type { Viewport } from '../contract/captureContract';", 'not contract'],
    ['src/browser/page/freeze.ts', "import type { CaptureProgress } from '../capture/progress';", 'not browser/capture'],
    ['src/browser/page/pageSetup.ts', "import type { BrowserSession } from '../fleet/browserSession';", 'not browser/fleet'],
    ['src/browser/fleet/limiter.ts', "import { runActions } from '../capture/actionRunner';", 'not browser/capture'],
    ['src/mcp/transport.ts', "import { runMain } from '../app/main';", 'not app'],
  ])('an upward import: %s', (file, line, refused) => {
    expect(withFiles(append(file, line)).filter((v) => v.rule !== 'cycle')).toEqual([
      expect.objectContaining({ rule: 'upward-import', file, detail: expect.stringContaining(refused) }),
    ]);
  });

  test('a module in no layer', () => {
    expect(withFiles({ file: 'src/helpers/misc.ts', text: 'export const x = 1;' })).toEqual([
      expect.objectContaining({ rule: 'no-layer', file: 'src/helpers/misc.ts' }),
    ]);
  });

  test('Puppeteer outside src/browser/', () => {
    const found = withFiles(append('src/boundary/plan.ts', "import type { Page } from 'puppeteer-core';"));
    expect(found).toEqual([expect.objectContaining({ rule: 'puppeteer-outside-browser', file: 'src/boundary/plan.ts' })]);
  });

  test('a lazy require', () => {
    const found = withFiles(append('src/common/log.ts', "export const later = () => require('./contract');"));
    expect(found).toEqual([expect.objectContaining({ rule: 'dynamic-load', file: 'src/common/log.ts' })]);
  });

  test('a cycle hidden behind a lazy import()', () => {
    const found = withFiles(append('src/common/log.ts', "export const later = () => import('../app/main');"));
    expect(found.filter((v) => v.rule === 'cycle').map((v) => v.detail)).toEqual([expect.stringContaining('src/app/main.ts')]);
  });

  test('process-wide state outside the root', () => {
    const found = withFiles(append('src/common/log.ts', 'let lines = 0;\nconst hooks: Array<() => void> = [];'));
    expect(found.filter((v) => v.rule === 'module-state').map((v) => v.detail)).toEqual([
      expect.stringContaining('let lines'),
      expect.stringContaining('const hooks = []'),
    ]);
  });
});
