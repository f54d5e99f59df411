/**
 * One error hierarchy: every error class of src/ extends EvidenceError
 * (src/common/errors.ts), directly or through another, so each carries a
 * typed code; the two exceptions the base's header names are the only ones.
 * cdp/ keeps its own (it imports nothing from src/).
 */
import { repositorySources, type SourceFile } from './layering';

/** The one class besides the base allowed to extend Error itself: the MCP server's JSON-RPC error, whose code is a number. */
const OUTSIDE = ['src/mcp/server.ts: InvalidParams'];

/** `file: Class` for every class of src/ that extends Error (or any *Error outside the hierarchy). */
function outsideHierarchy(sources: SourceFile[]): string[] {
  const known = new Set<string>(['EvidenceError']);
  const classes: Array<{ file: string; name: string; base: string }> = [];
  for (const source of sources.filter((s) => s.file.startsWith('src/'))) {
    for (const match of source.text.matchAll(/class (\w+)(?:<[^>]*>)? extends (\w+)/g)) classes.push({ file: source.file, name: match[1], base: match[2] });
  }
  // Known: EvidenceError and whatever extends a known class, to a fixed point.
  for (let grew = true; grew;) {
    grew = false;
    for (const c of classes) if (!known.has(c.name) && known.has(c.base)) grew = !!known.add(c.name);
  }
  return classes.filter((c) => /Error$/.test(c.base) && !known.has(c.name)).map((c) => `${c.file}: ${c.name}`);
}

const tree = repositorySources();

test('every error class of src/ is an EvidenceError, but the one the header names', () => {
  expect(outsideHierarchy(tree)).toEqual(OUTSIDE);
});

test('a class extending Error on its own is caught', () => {
  const extra = { file: 'src/boundary/extra.ts', text: 'export class LooseError extends Error {}\nexport class Looser extends TypeError {}' };
  expect(outsideHierarchy([...tree, extra])).toEqual([...OUTSIDE, 'src/boundary/extra.ts: LooseError', 'src/boundary/extra.ts: Looser']);
});
