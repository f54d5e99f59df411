/**
 * The stale-build guard (scripts/build-stamp.js), on a made-up tree: a
 * finished build is current until a source's content changes (not its file
 * time), a build that did not finish counts as none, and each message names
 * what changed and `npm run build`.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the build's own CommonJS helper
const stamp = require('../../scripts/build-stamp.js') as {
  beginStamp(root: string): void;
  sealStamp(root: string): void;
  staleness(group: 'bundles' | 'dist', root: string): string | null;
};

function tree(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'build-stamp-'));
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  };
  write('src/a.ts', 'export const a = 1;\n');
  write('cdp/injected/page.ts', 'export const p = 1;\n');
  write('cdp/generated/page.ts', 'export const source = "";\n');
  write('tsconfig.json', '{}\n');
  return root;
}

test('a finished build is current; a changed, new or deleted source makes it stale', () => {
  const root = tree();
  expect(stamp.staleness('dist', root)).toMatch(/no finished build .*run `npm run build`/);
  stamp.beginStamp(root);
  // Begun but not sealed: the build failed half way.
  expect(stamp.staleness('dist', root)).toMatch(/no finished build/);
  stamp.sealStamp(root);
  expect(stamp.staleness('dist', root)).toBeNull();
  expect(stamp.staleness('bundles', root)).toBeNull();

  // A new file time alone (a fresh checkout) changes nothing.
  const later = new Date(Date.now() + 3_600_000);
  fs.utimesSync(path.join(root, 'src/a.ts'), later, later);
  expect(stamp.staleness('dist', root)).toBeNull();
  // Generated files are outputs: rewriting them is not a source change.
  fs.writeFileSync(path.join(root, 'cdp/generated/page.ts'), 'export const source = "x";\n');
  expect(stamp.staleness('dist', root)).toBeNull();

  fs.writeFileSync(path.join(root, 'src/a.ts'), 'export const a = 2;\n');
  expect(stamp.staleness('dist', root)).toBe('dist/ is older than the sources: src/a.ts changed since the last build; run `npm run build`');
  // The in-page bundles do not depend on src/a.ts.
  expect(stamp.staleness('bundles', root)).toBeNull();

  fs.writeFileSync(path.join(root, 'cdp/injected/new.ts'), '');
  fs.rmSync(path.join(root, 'cdp/injected/page.ts'));
  expect(stamp.staleness('bundles', root)).toBe(
    'the generated bundles (cdp/generated/, src/report/generated/, src/compare/pixels/generated/) are older than the sources: cdp/injected/new.ts (new), cdp/injected/page.ts (deleted) changed since the last build; run `npm run build`',
  );
  fs.rmSync(root, { recursive: true, force: true });
});
