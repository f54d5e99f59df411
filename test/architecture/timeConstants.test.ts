/**
 * Every time constant (`const SOMETHING_MS = …`) lives where a header says
 * it does: in src/common/time.ts or cdp/deadline.ts, or in a module that
 * deadline header names as the home of its own (the virtual clock's frame,
 * the pool's back-off, in-page waits). A constant added anywhere else fails
 * here, naming its file, until it moves or the header names its module.
 */
import { repositorySources, type SourceFile as Source } from './layering';

/** Each tree's time module. */
const TIME_MODULES: Record<string, string> = { src: 'src/common/time.ts', cdp: 'cdp/deadline.ts' };

/** The leading comment of a module. */
const headerOf = (text: string) => /^\/\*\*[\s\S]*?\*\//.exec(text)?.[0] ?? '';

/** `file: NAME_MS` for each time constant outside its tree's deadline module that the header does not name. */
function misplacedTimeConstants(sources: Source[]): string[] {
  const homes: Record<string, { file: string; header: string }> = {};
  for (const [tree, file] of Object.entries(TIME_MODULES)) {
    const deadline = sources.find((s) => s.file === file);
    homes[tree] = { file, header: deadline ? headerOf(deadline.text) : '' };
  }
  const out: string[] = [];
  for (const source of sources) {
    const home = homes[source.file.split('/')[0]];
    if (!home || source.file === home.file) continue;
    for (const match of source.text.matchAll(/^(?:export )?const ([A-Z][A-Z0-9_]*_MS)\b/gm)) {
      if (!home.header.includes(source.file)) out.push(`${source.file}: ${match[1]}`);
    }
  }
  return out;
}

const tree = repositorySources();

test('every time constant lives where a deadline header says', () => {
  expect(tree.some((s) => s.file === 'src/common/time.ts')).toBe(true);
  expect(misplacedTimeConstants(tree)).toEqual([]);
});

test('a constant added elsewhere is caught, in src/ and in cdp/', () => {
  const withExtra = tree.map((s) =>
    s.file === 'src/browser/page/freeze.ts' || s.file === 'cdp/trace/snapshotter.ts' ? { ...s, text: `${s.text}\nconst EXTRA_WAIT_MS = 10;\n` } : s,
  );
  expect(misplacedTimeConstants(withExtra)).toEqual(['src/browser/page/freeze.ts: EXTRA_WAIT_MS', 'cdp/trace/snapshotter.ts: EXTRA_WAIT_MS']);
});

test('every module a deadline header names as a home holds a time constant (the header stays true)', () => {
  for (const home of Object.values(TIME_MODULES)) {
    const header = headerOf(tree.find((s) => s.file === home)!.text);
    const named = [...header.matchAll(/\b((?:src|cdp)\/[\w/]+\.ts)\b/g)].map((m) => m[1]).filter((f) => !Object.values(TIME_MODULES).includes(f));
    for (const file of named) {
      const source = tree.find((s) => s.file === file);
      expect({ file, exists: !!source, holds: !!source && /^(?:export )?const [A-Z][A-Z0-9_]*_MS\b/m.test(source.text) }).toEqual({
        file,
        exists: true,
        holds: true,
      });
    }
  }
});
