/**
 * A Storybook's story index, read from a built folder (`storybook-static/`)
 * or a running Storybook's URL: `index.json` (Storybook 7 to 10: `v` 4 or 5,
 * `entries`, each a `story` or a `docs` entry) or, when there is none,
 * `stories.json` (Storybook 6: `v` 3, `stories`, docs-only pages marked in
 * their parameters). Only reads: nothing here renders a story.
 */
import * as fs from 'fs';
import * as path from 'path';
import { EvidenceError } from '../common/errors';
import { STORY_INDEX_FETCH_MS } from '../common/time';

/** The source cannot be read as a Storybook: not a Storybook folder, a URL that does not answer, an index that does not parse. */
export class StorySourceError extends EvidenceError<'story-source'> {
  override name = 'StorySourceError';
  constructor(message: string) {
    super('story-source', message);
  }
}

/** One entry of the index, stories and docs pages alike. */
export interface StoryEntry {
  id: string;
  title: string;
  name: string;
  tags: string[];
  /** A docs page (MDX, autodocs, a docs-only story of Storybook 6): never captured. */
  docs: boolean;
}

export interface StoryIndex {
  /** A built folder (absolute) or the running Storybook's base URL (ending in `/`). */
  source: { folder: string } | { url: string };
  /** The file the index came from (`index.json` or `stories.json`) and its version (`v`). */
  file: string;
  version: number | null;
  entries: StoryEntry[];
}

const INDEX_FILES = ['index.json', 'stories.json'] as const;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The entries of an index file's JSON, or why they cannot be read. */
export function parseStoryIndex(json: unknown, where: string): { version: number | null; entries: StoryEntry[] } {
  if (!isObject(json)) throw new StorySourceError(`${where} is not a Storybook index: it holds no JSON object`);
  const version = typeof json.v === 'number' ? json.v : null;
  const table = isObject(json.entries) ? json.entries : isObject(json.stories) ? json.stories : null;
  if (!table) throw new StorySourceError(`${where} is not a Storybook index: it has neither "entries" (index.json) nor "stories" (stories.json)`);
  const entries: StoryEntry[] = [];
  for (const [key, raw] of Object.entries(table)) {
    if (!isObject(raw)) throw new StorySourceError(`${where}: entry ${JSON.stringify(key)} is not an object`);
    const id = typeof raw.id === 'string' ? raw.id : key;
    // Storybook 6 calls the title `kind`.
    const title = typeof raw.title === 'string' ? raw.title : typeof raw.kind === 'string' ? raw.kind : '';
    const name = typeof raw.name === 'string' ? raw.name : typeof raw.story === 'string' ? raw.story : id;
    const tags = Array.isArray(raw.tags) ? raw.tags.filter((t): t is string => typeof t === 'string') : [];
    const parameters = isObject(raw.parameters) ? raw.parameters : {};
    const docs = raw.type === 'docs' || parameters.docsOnly === true;
    entries.push({ id, title, name, tags, docs });
  }
  return { version, entries };
}

/** A base URL for a running Storybook given as its root, its manager page or a story's iframe URL. */
export function storybookBaseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new StorySourceError(`SOURCE ${text} is neither a folder nor a URL (a running Storybook is given as http://host:port/)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new StorySourceError(`SOURCE ${text}: a running Storybook is reached over http:// or https://`);
  url.search = '';
  url.hash = '';
  // `…/index.html` or `…/iframe.html` name a page of the Storybook: its folder is the base.
  if (!url.pathname.endsWith('/')) url.pathname = url.pathname.replace(/\/[^/]*\.html?$/i, '/').replace(/([^/])$/, '$1/');
  return url;
}

/** Reads the index of a built Storybook folder. */
export function readFolderIndex(folder: string): StoryIndex {
  const root = path.resolve(folder);
  const present = INDEX_FILES.find((file) => fs.existsSync(path.join(root, file)));
  if (!present || !fs.existsSync(path.join(root, 'iframe.html'))) {
    const missing = [!present ? 'index.json (or stories.json)' : null, !fs.existsSync(path.join(root, 'iframe.html')) ? 'iframe.html' : null].filter(Boolean);
    throw new StorySourceError(
      `${root} is not a built Storybook: it has no ${missing.join(' and no ')} (build one with \`storybook build\`, which writes storybook-static/)`,
    );
  }
  const file = path.join(root, present);
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new StorySourceError(`${file} cannot be read as JSON: ${(err as Error).message}`);
  }
  return { source: { folder: root }, file: present, ...parseStoryIndex(json, file) };
}

/** Reads the index of a running Storybook: index.json, else stories.json. */
export async function fetchUrlIndex(text: string): Promise<StoryIndex> {
  const base = storybookBaseUrl(text);
  const tried: string[] = [];
  for (const file of INDEX_FILES) {
    const url = new URL(file, base).href;
    let response: Response;
    try {
      response = await fetch(url, { signal: AbortSignal.timeout(STORY_INDEX_FETCH_MS), redirect: 'follow' });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const why =
        (err as Error).name === 'TimeoutError' ? `no answer within ${STORY_INDEX_FETCH_MS} ms` : (cause?.code ?? cause?.message ?? (err as Error).message);
      throw new StorySourceError(`the Storybook at ${base.href} cannot be reached (${why}): start it (\`storybook dev\`) or give its built folder`);
    }
    if (response.status === 404) {
      tried.push(`${file} (404)`);
      continue;
    }
    if (!response.ok) throw new StorySourceError(`${url} answered HTTP ${response.status}: the story index cannot be read`);
    let json: unknown;
    try {
      json = JSON.parse(await response.text());
    } catch (err) {
      throw new StorySourceError(`${url} is not JSON (${(err as Error).message}): is ${base.href} a Storybook?`);
    }
    return { source: { url: base.href }, file, ...parseStoryIndex(json, url) };
  }
  throw new StorySourceError(`${base.href} is not a Storybook: it serves no story index (tried ${tried.join(', ')})`);
}

/** Reads SOURCE: a folder on disk, else a URL. */
export async function readStoryIndex(source: string): Promise<StoryIndex> {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) return fetchUrlIndex(source);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(source);
  } catch {
    throw new StorySourceError(`SOURCE ${source}: no such folder (give a built Storybook folder or the URL of a running Storybook)`);
  }
  if (!stat.isDirectory()) throw new StorySourceError(`SOURCE ${source} is a file, not a built Storybook folder`);
  return readFolderIndex(source);
}
