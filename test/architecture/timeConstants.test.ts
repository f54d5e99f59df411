/**
 * Time constants (`const SOMETHING_MS = …`) are named once, in one module
 * per tree: every one of src/ in src/common/time.ts, every one of cdp/ in
 * cdp/deadline.ts, which src/ reuses (cdp/ imports nothing from src/, so it
 * keeps its own). The one exception is in-page code (cdp/injected/, which
 * can import nothing but itself): its few waits stay in the modules
 * cdp/deadline.ts's header names. A constant added anywhere else, or a name
 * given in both trees, fails here, naming its file.
 */
import { repositorySources, type SourceFile as Source } from './layering';

/** Each tree's time module. */
const TIME_MODULES: Record<string, string> = { src: 'src/common/time.ts', cdp: 'cdp/deadline.ts' };

const TIME_CONSTANT = /^(?:export )?const ([A-Z][A-Z0-9_]*_MS)\b/gm;

/** The leading comment of a module. */
const headerOf = (text: string) => /^\/\*\*[\s\S]*?\*\//.exec(text)?.[0] ?? '';

/** In-page modules cdp/deadline.ts's header names as keeping their own waits. */
function inPageHomes(sources: Source[]): string[] {
  const header = headerOf(sources.find((s) => s.file === TIME_MODULES.cdp)?.text ?? '');
  return [...header.matchAll(/\b(cdp\/injected\/[\w/]+\.ts)\b/g)].map((m) => m[1]);
}

/** `file: NAME_MS` for each time constant outside its tree's time module (in-page homes aside), and each name both time modules give. */
function misplacedTimeConstants(sources: Source[]): string[] {
  const homes = inPageHomes(sources);
  const out: string[] = [];
  const named = new Map<string, string>();
  for (const source of sources) {
    const tree = source.file.split('/')[0];
    for (const match of source.text.matchAll(TIME_CONSTANT)) {
      if (source.file === TIME_MODULES[tree]) {
        const other = named.get(match[1]);
        if (other) out.push(`${source.file}: ${match[1]} (also in ${other})`);
        named.set(match[1], source.file);
      } else if (!homes.includes(source.file)) out.push(`${source.file}: ${match[1]}`);
    }
  }
  return out;
}

const tree = repositorySources();

test('every time constant lives in its tree time module, named once', () => {
  expect(Object.values(TIME_MODULES).filter((file) => !tree.some((s) => s.file === file))).toEqual([]);
  expect(misplacedTimeConstants(tree)).toEqual([]);
});

test('a constant added elsewhere, in src/ or in cdp/, or named again in the other tree, is caught', () => {
  const withExtra = tree.map((s) => {
    if (s.file === 'src/browser/page/freeze.ts' || s.file === 'cdp/trace/snapshotter.ts') return { ...s, text: `${s.text}\nconst EXTRA_WAIT_MS = 10;\n` };
    if (s.file === 'src/common/time.ts') return { ...s, text: `${s.text}\nexport const TRACE_STEP_TIMEOUT_MS = 5_000;\n` };
    return s;
  });
  expect(misplacedTimeConstants(withExtra).sort()).toEqual([
    'cdp/deadline.ts: TRACE_STEP_TIMEOUT_MS (also in src/common/time.ts)',
    'cdp/trace/snapshotter.ts: EXTRA_WAIT_MS',
    'src/browser/page/freeze.ts: EXTRA_WAIT_MS',
  ]);
});

test('every in-page module the cdp header names holds a time constant (the header stays true)', () => {
  const homes = inPageHomes(tree);
  expect(homes.length).toBeGreaterThan(0);
  for (const file of homes) {
    const source = tree.find((s) => s.file === file);
    expect({ file, holds: !!source && /^(?:export )?const [A-Z][A-Z0-9_]*_MS\b/m.test(source.text) }).toEqual({ file, holds: true });
  }
});
