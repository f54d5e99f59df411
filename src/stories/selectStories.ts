/**
 * Which stories of an index are captured: docs pages never; a story opted
 * out the way Storybook's own test runner reads it (Storybook 8+ gives every
 * story the `dev` and `test` tags, and `tags: ['!test']` removes `test`;
 * Storybook 7 keeps `!test` as written)
 * unless asked for; then the caller's filters: `--story ID` (exact ids),
 * `--include`/`--exclude` globs on the title or the id, `--tag` (any of) and
 * `--exclude-tag`.
 */
import { EvidenceError } from '../common/errors';
import type { StoryEntry } from './storyIndex';

/** The filters leave nothing, or name a story the index does not have. */
export class StorySelectionError extends EvidenceError<'story-selection'> {
  override name = 'StorySelectionError';
  constructor(message: string) {
    super('story-selection', message);
  }
}

export interface StoryFilters {
  stories?: string[];
  include?: string[];
  exclude?: string[];
  tags?: string[];
  excludeTags?: string[];
  /** Keep the stories opted out with `!test`. */
  optedOut?: boolean;
}

export type SkipReason = 'docs' | 'opted out' | 'filtered';

export interface Selection {
  stories: StoryEntry[];
  skipped: Array<{ entry: StoryEntry; reason: SkipReason }>;
}

/** A glob on a title or an id: `*` any run of characters but `/`, `**` any run at all, `?` one character; the whole text must match. */
export function globPattern(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      source += '.*';
      i++;
    } else if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/**
 * Opted out of visual checks as the test runner reads it: Storybook 8+'s
 * default tags are there but `!test` removed `test`; Storybook 7 resolves no
 * negation, so its index carries `!test` itself.
 */
export function isOptedOut(entry: StoryEntry): boolean {
  return entry.tags.includes('!test') || (entry.tags.includes('dev') && !entry.tags.includes('test'));
}

export function selectStories(entries: StoryEntry[], filters: StoryFilters = {}): Selection {
  const known = new Set(entries.filter((e) => !e.docs).map((e) => e.id));
  const unknown = (filters.stories ?? []).filter((id) => !known.has(id));
  if (unknown.length) {
    const near = entries
      .filter((e) => !e.docs)
      .slice(0, 5)
      .map((e) => e.id);
    throw new StorySelectionError(
      `--story ${unknown.join(', ')}: no such story in the index (${known.size} stories${near.length ? `, e.g. ${near.join(', ')}` : ''}); \`stories SOURCE --list\` lists them`,
    );
  }
  const include = (filters.include ?? []).map(globPattern);
  const exclude = (filters.exclude ?? []).map(globPattern);
  const matches = (patterns: RegExp[], entry: StoryEntry) => patterns.some((p) => p.test(entry.title) || p.test(entry.id));
  const selection: Selection = { stories: [], skipped: [] };
  for (const entry of entries) {
    let reason: SkipReason | null = null;
    if (entry.docs) reason = 'docs';
    else if (filters.stories?.length && !filters.stories.includes(entry.id)) reason = 'filtered';
    else if (!filters.stories?.length && !filters.optedOut && isOptedOut(entry)) reason = 'opted out';
    else if (include.length && !matches(include, entry)) reason = 'filtered';
    else if (matches(exclude, entry)) reason = 'filtered';
    else if (filters.tags?.length && !filters.tags.some((t) => entry.tags.includes(t))) reason = 'filtered';
    else if (filters.excludeTags?.some((t) => entry.tags.includes(t))) reason = 'filtered';
    if (reason) selection.skipped.push({ entry, reason });
    else selection.stories.push(entry);
  }
  if (!selection.stories.length) {
    const counts = (['docs', 'opted out', 'filtered'] as const).map((r) => `${selection.skipped.filter((s) => s.reason === r).length} ${r}`).join(', ');
    throw new StorySelectionError(`no story left to capture: ${entries.length} index entries, ${counts}; loosen --include/--exclude/--tag/--exclude-tag`);
  }
  return selection;
}
