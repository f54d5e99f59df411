/**
 * The plan for a set of stories: one execute_capture_plan argument object
 * per story × capture type × viewport × colour scheme, in the batch runner's
 * format (src/batch/planFile.ts), each aimed at the story's own page,
 * `iframe.html?id=…&viewMode=story`, with Storybook's `globals` and `args`
 * URL parameters when given. Every line is still judged by the tool's
 * boundary when it runs; this module only writes the arguments.
 *
 * Names: the artifact is `evidence/stories/<story id>/<W>x<H>@<DPR>-<scheme>`
 * with the type's ending; the criterion a manifest binds it to is
 * `L6.<n>`, n a 48-bit hash of the story id, the viewport and the scheme, so
 * the same story at the same size is the same criterion in every build and
 * a comparison pairs it across runs.
 */
import type { CaptureType } from '../contract/captureTypes';
import { StorySelectionError } from './selectStories';
import type { StoryEntry } from './storyIndex';

/** The artifact's ending for each capture type. */
export const STORY_ARTIFACT_ENDINGS: { readonly [T in CaptureType]: string } = {
  screenshot: '.png',
  'a11y tree': '.a11y.json',
  'interaction trace': '.trace.zip',
};

export const STORIES_EVIDENCE_DIR = 'evidence/stories';

export interface StoryViewport {
  width: number;
  height: number;
  devicePixelRatio: number;
}

export interface StoryPlanOptions {
  /** Where the Storybook is served, ending in `/` (a running Storybook, or the command's own loopback server). */
  baseUrl: string;
  types: CaptureType[];
  viewports: StoryViewport[];
  colorSchemes: string[];
  /** Declared scales every capture is bound to (the tool's `design`). */
  design?: unknown;
  /** Storybook's URL parameters, `key:value;key:value`. */
  globals?: string;
  args?: string;
  /** Written into every line (the run root of `--run`); else the runner's `--run-root` or its default applies. */
  runRoot?: string;
}

/** One line of the plan and the story it captures. */
export interface StoryPlanLine {
  args: Record<string, unknown>;
  story: StoryEntry;
  /** `1280x800@1-light`. */
  variant: string;
  criterion: string;
}

/** Storybook's own id charset (its sanitizer writes a-z, 0-9 and `-`); anything else cannot name a folder safely. */
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** `key:value;key:value`, as Storybook reads `globals` and `args` from the URL. */
const URL_PAIRS = /^[A-Za-z0-9_ .-]+:[^;]*(;[A-Za-z0-9_ .-]+:[^;]*)*;?$/;

/** Checks a `--globals`/`--args` value, or says why it is not Storybook's `key:value;key:value`. */
export function checkUrlPairs(flag: string, value: string): string {
  if (!URL_PAIRS.test(value))
    throw new StorySelectionError(`--${flag} must be key:value pairs joined by ';', as Storybook's URL takes them (theme:dark;locale:fr), got '${value}'`);
  return value;
}

function encodePairs(value: string): string {
  return value
    .split(';')
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf(':');
      return `${encodeURIComponent(pair.slice(0, at))}:${encodeURIComponent(pair.slice(at + 1))}`;
    })
    .join(';');
}

/** The page of one story, as Storybook's preview renders it alone. */
export function storyUrl(baseUrl: string, id: string, options: { globals?: string; args?: string } = {}): string {
  let url = `${new URL('iframe.html', baseUrl).href}?id=${encodeURIComponent(id)}&viewMode=story`;
  if (options.globals) url += `&globals=${encodePairs(options.globals)}`;
  if (options.args) url += `&args=${encodePairs(options.args)}`;
  return url;
}

/** A stable 48-bit number for `text` (FNV-1a, 64-bit, folded): a criterion number that does not move when stories are added. */
export function criterionNumber(text: string): number {
  let hash = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(text, 'utf8')) hash = BigInt.asUintN(64, (hash ^ BigInt(byte)) * 0x100000001b3n);
  return Number((hash ^ (hash >> 48n)) & 0xffffffffffffn);
}

export function variantOf(viewport: StoryViewport, colorScheme: string): string {
  return `${viewport.width}x${viewport.height}@${viewport.devicePixelRatio}-${colorScheme}`;
}

export function storyCriterion(id: string, variant: string): string {
  return `L6.${criterionNumber(`${id} ${variant}`)}`;
}

export function storyPlan(stories: StoryEntry[], options: StoryPlanOptions): StoryPlanLine[] {
  const lines: StoryPlanLine[] = [];
  for (const story of stories) {
    if (!SAFE_ID.test(story.id))
      throw new StorySelectionError(`story id ${JSON.stringify(story.id)} cannot name an artifact folder (letters, digits, '.', '_' and '-' only)`);
    const url = storyUrl(options.baseUrl, story.id, options);
    for (const viewport of options.viewports) {
      for (const colorScheme of options.colorSchemes) {
        const variant = variantOf(viewport, colorScheme);
        const criterion = storyCriterion(story.id, variant);
        for (const type of options.types) {
          const args: Record<string, unknown> = {
            schemaVersion: 1,
            url,
            type,
            state: 'default',
            actions: [],
            artifact_path: `${STORIES_EVIDENCE_DIR}/${story.id}/${variant}${STORY_ARTIFACT_ENDINGS[type]}`,
            viewport: { ...viewport, colorScheme },
          };
          if (options.design !== undefined) args.design = options.design;
          if (options.runRoot !== undefined) args.run_root = options.runRoot;
          lines.push({ args, story, variant, criterion });
        }
      }
    }
  }
  // Two variants that hash alike would be paired as one story across runs: said, not silently merged.
  const owners = new Map<string, string>();
  for (const line of lines) {
    const key = `${line.story.id} ${line.variant}`;
    const owner = owners.get(line.criterion);
    if (owner && owner !== key) throw new StorySelectionError(`criterion ${line.criterion} names both ${owner} and ${key}; rename one of the stories`);
    owners.set(line.criterion, key);
  }
  return lines;
}
