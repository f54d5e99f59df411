/**
 * The documentation holds together: every relative link in README.md and
 * docs/*.md reaches a file that exists (and, for a link with `#anchor`, a
 * heading of that page with that anchor, as GitHub makes them); the README
 * stays short (at most 250 lines), its Quick start is the two commands, and
 * its at-a-glance lists name exactly the tool's arguments and actions, so
 * adding one without saying so in the README fails here.
 */
import * as fs from 'fs';
import * as path from 'path';
import { ACTION_KINDS } from '../../src/contract/actions';
import { RUNTIME_OBJECT_FIELDS } from '../../src/contract/toolArguments';

const REPO = path.resolve(__dirname, '..', '..');
const README = 'README.md';
const PAGES = [
  README,
  ...fs
    .readdirSync(path.join(REPO, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
const read = (file: string) => fs.readFileSync(path.join(REPO, file), 'utf8');

/** The page's lines outside fenced code blocks (a link in a code sample is not a link). */
function proseLines(text: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else if (!fenced) out.push(line);
  }
  return out;
}

/** Each `[text](target)` / `![alt](target)` of the page, inline code left out. */
function linksOf(text: string): string[] {
  const links: string[] = [];
  for (const line of proseLines(text)) {
    const prose = line.replace(/`[^`]*`/g, '');
    for (const match of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) links.push(match[1]);
  }
  return links;
}

/** A heading's anchor as GitHub makes it: inline markup dropped, lower case, punctuation gone, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a page's headings give, a repeated one numbered as GitHub numbers it. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of proseLines(text)) {
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

test('the slug rule makes the anchors GitHub makes', () => {
  expect(slug('Where evidence lands (run root)')).toBe('where-evidence-lands-run-root');
  expect(slug("The SDK's low-level `Server`, not `McpServer.registerTool`")).toBe('the-sdks-low-level-server-not-mcpserverregistertool');
  expect(slug('2026-12-03, 17:11 UTC: the floor — what no capture can undercut')).toBe('2026-12-03-1711-utc-the-floor--what-no-capture-can-undercut');
  expect([...anchorsOf('# A\n## Speed\n```\n# not a heading\n```\n## Speed\n')]).toEqual(['a', 'speed', 'speed-1']);
});

test.each(PAGES.map((page) => [page]))('every relative link in %s reaches a file, and its anchor a heading', (page) => {
  const broken: string[] = [];
  const links = linksOf(read(page)).filter((link) => !/^[a-z][a-z0-9+.-]*:/i.test(link));
  for (const link of links) {
    const [target, anchor] = link.split('#', 2);
    const file = target === '' ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), decodeURI(target)));
    if (file.startsWith('..') || !fs.existsSync(path.join(REPO, file))) {
      broken.push(`${link}: no file ${file}`);
      continue;
    }
    if (anchor !== undefined && file.endsWith('.md') && !anchorsOf(read(file)).has(anchor))
      broken.push(`${link}: no heading of ${file} has the anchor #${anchor}`);
  }
  expect(broken).toEqual([]);
});

describe('the README', () => {
  const text = read(README);

  test('is at most 250 lines', () => {
    expect(text.replace(/\n$/, '').split('\n').length).toBeLessThanOrEqual(250);
  });

  test('links every page of docs/', () => {
    const linked = new Set(linksOf(text).map((link) => link.split('#')[0]));
    const unlinked = PAGES.filter((page) => page !== README && !linked.has(page));
    expect(unlinked).toEqual([]);
  });

  test('its Quick start is one fenced block of exactly the two commands', () => {
    const section = /^## Quick start\n([\s\S]*?)(?=^## )/m.exec(text)?.[1] ?? '';
    const blocks = [...section.matchAll(/^```[a-z]*\n([\s\S]*?)^```$/gm)].map((m) => m[1].trim().split('\n'));
    expect(blocks).toEqual([['bash scripts/setup.sh && npm run demo', 'npm test']]);
  });

  test("its argument table names the tool's arguments, in the tool's order", () => {
    const section = /^## The tool at a glance\n([\s\S]*?)(?=^## )/m.exec(text)?.[1] ?? '';
    const names = [...section.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]);
    expect(names).toEqual([...RUNTIME_OBJECT_FIELDS]);
  });

  test('its list of actions names every action, in the table order', () => {
    const list = /^\*\*Actions\*\* \(`do`\): ([\s\S]*?)\. /m.exec(text)?.[1] ?? '';
    const names = [...list.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    expect(names).toEqual([...ACTION_KINDS]);
  });
});
