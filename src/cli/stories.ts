/**
 * `design-playbook-evidence stories SOURCE`: every story of a Storybook as
 * capture plans. SOURCE is a built folder (`storybook-static/`) or a running
 * Storybook's URL. Without --run it writes the plan (the batch runner's
 * format) or, with --list, the stories; with --run it also serves a built
 * folder on 127.0.0.1, runs the plan into --out through the batch runner
 * (resuming a run that stopped), writes the manifest and the run report;
 * with --baseline it compares that run with an earlier one (src/compare/) and
 * says per component which stories changed, are new or are gone.
 *
 * Everything the command line and the index can get wrong is refused before
 * anything is written or started.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { Program } from './program';
import { BROWSER_FLAGS_HELP, flagRows, flagSpec, helpRows, parseFlags, single, UsageError } from './args';
import { flagsOf } from './flags';
import { parseViewportFlag } from './capture';
import { CAPTURE_TYPES, captureFiles, envelopeTree, findCaptureType, type CaptureType } from '../contract/captureTypes';
import { COLOR_SCHEMES, echoJson } from '../contract/captureContract';
import type { CaptureResult } from '../contract/result';
import { PlanRunner, type LineResult } from '../batch/runner';
import { ProgressReporter, formatDuration } from '../batch/progress';
import { attachTargets, maxParallel } from '../browser/options';
import { buildReport } from '../report';
import { readManifest } from '../manifest';
import { manifestLine } from '../manifest/line';
import { compareEvidence, exitStatusOf, type CompareResult } from '../compare/run';
import { CompareInputError } from '../compare/pairing';
import { readStoryIndex, StorySourceError, type StoryEntry, type StoryIndex } from '../stories/storyIndex';
import { selectStories, StorySelectionError, type Selection } from '../stories/selectStories';
import { checkUrlPairs, storyPlan, type StoryPlanLine, type StoryViewport } from '../stories/storyPlan';
import { serveFolder, type ServedFolder } from '../stories/serveFolder';
import { renderStoryIndexPage, type StoryCaptureRow } from '../stories/indexPage';

export const STORIES_USAGE = `Usage: design-playbook-evidence stories SOURCE [filters] [plan options]
       design-playbook-evidence stories SOURCE --run --out RUN_ROOT [--baseline RUN_ROOT] [...]

SOURCE is a built Storybook folder (storybook-static/) or the URL of a
running Storybook. Reads its story index (index.json, or stories.json of
Storybook 6), skips docs pages and stories opted out with tags: ['!test'],
and writes a capture plan: one execute_capture_plan line per story, capture
type, viewport and colour scheme (run it with \`run PLAN\`). Details:
docs/stories.md.

With --run the plan runs into RUN_ROOT (a built folder is served on
127.0.0.1 meanwhile, nothing else is fetched), each story's capture waits
for Storybook to say it rendered and its play function finished, a story
that errors is failed with Storybook's message; then evidence/manifest.jsonl
and the run report are written. Run again with the same --out to resume.

${helpRows([['SOURCE', 'a built Storybook folder, or http(s)://host:port/ of a running one'], ...flagRows(flagsOf('stories', { browser: false }))])}
Exit status: 0 every story captured, 1 some failed, 2 bad input (nothing
written); with --baseline, compare's: 0 nothing changed, 1 changes, 2 trouble.

${BROWSER_FLAGS_HELP}`;

/** What the story list and the plan need, read and checked from the command line. */
interface StoriesCommand {
  source: string;
  selection: Selection;
  index: StoryIndex;
  types: CaptureType[];
  viewports: StoryViewport[];
  colorSchemes: string[];
  design?: unknown;
  globals?: string;
  args?: string;
  baseUrl?: string;
  planFile?: string;
  list: boolean;
  /** --fresh-loads: no story is switched to in a kept preview. */
  freshLoads: boolean;
  run: boolean;
  out?: string;
  baseline?: string;
  parallel?: number;
}

function parseTypes(text: string): CaptureType[] {
  const types = text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const unknown = types.filter((t) => !(CAPTURE_TYPES as readonly string[]).includes(t));
  if (!types.length || unknown.length) throw new UsageError(`--types takes a comma list of ${CAPTURE_TYPES.map((t) => `'${t}'`).join(', ')} (got '${text}')`);
  return [...new Set(types)] as CaptureType[];
}

function readDesign(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--design ${file} cannot be read: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--design ${file} is not JSON (${(err as Error).message}); it holds the declared scales, e.g. {"fontSizes":[14,16],"radii":[4,8]}`);
  }
}

/** A folder that can hold the run: new, empty, or already a run root (a run to resume). */
function checkRunFolder(out: string): void {
  if (!fs.existsSync(out)) return;
  if (!fs.statSync(out).isDirectory()) throw new UsageError(`--out ${out} is a file; name a new folder or an earlier run of this command to resume`);
  const marked = ['plan.md', 'point-back.md'].some((marker) => fs.existsSync(path.join(out, marker)));
  if (!marked && fs.readdirSync(out).length)
    throw new UsageError(`--out ${out} holds files but no plan.md (it is not a run folder); name a new or empty folder`);
}

function checkBaseline(baseline: string, out: string): void {
  const manifest = path.join(baseline, 'evidence', 'manifest.jsonl');
  if (!fs.existsSync(manifest)) throw new UsageError(`--baseline ${baseline} is not an earlier run: it has no evidence/manifest.jsonl`);
  if (path.resolve(baseline) === path.resolve(out)) throw new UsageError('--baseline names the run folder itself (--out); name an earlier run');
}

async function readCommand(argv: string[]): Promise<StoriesCommand> {
  const flags = parseFlags(argv, flagSpec('stories'));
  if (flags.positionals.length !== 1)
    throw new UsageError(
      flags.positionals.length ? `one SOURCE, not ${flags.positionals.length}` : 'SOURCE is required: a built Storybook folder or the URL of a running one',
    );
  const source = flags.positionals[0];
  const list = flags.switches.has('list');
  const freshLoads = flags.switches.has('fresh-loads');
  const run = flags.switches.has('run');
  const out = single(flags, 'out');
  const baseline = single(flags, 'baseline');
  if (run && !out) throw new UsageError('--run needs --out RUN_ROOT: the run folder the captures go to');
  if (!run && out) throw new UsageError('--out is the run folder of --run; without --run the plan goes to standard output or --plan FILE');
  if (baseline && !run) throw new UsageError('--baseline compares the run --run makes; give --run --out RUN_ROOT too');
  if (run && list) throw new UsageError('--list prints the stories only; leave it out to --run them');
  const parallelText = single(flags, 'parallel');
  let parallel: number | undefined;
  if (parallelText !== undefined) {
    parallel = Number(parallelText);
    if (!/^\s*\d+\s*$/.test(parallelText) || !Number.isInteger(parallel) || parallel < 1)
      throw new UsageError(`--parallel must be a positive integer (got '${parallelText}')`);
  }
  const types = parseTypes(single(flags, 'types') ?? 'screenshot');
  // A size or scheme given twice would name the same files twice: each is kept once.
  const viewports = [...new Map((flags.values.viewport ?? ['1280x800@1']).map(parseViewportFlag).map((v) => [JSON.stringify(v), v])).values()];
  const colorSchemes = [...new Set(flags.values['color-scheme'] ?? ['light'])];
  for (const scheme of colorSchemes) {
    if (!(COLOR_SCHEMES as readonly string[]).includes(scheme))
      throw new UsageError(`--color-scheme must be one of ${COLOR_SCHEMES.join(', ')} (got '${scheme}')`);
  }
  const designFile = single(flags, 'design');
  const design = designFile === undefined ? undefined : readDesign(designFile);
  const globals = single(flags, 'globals');
  const args = single(flags, 'args');
  if (globals !== undefined) checkUrlPairs('globals', globals);
  if (args !== undefined) checkUrlPairs('args', args);
  if (out) checkRunFolder(path.resolve(out));
  if (baseline && out) checkBaseline(path.resolve(baseline), path.resolve(out));

  const index = await readStoryIndex(source);
  const baseUrl = single(flags, 'base-url');
  if ('folder' in index.source && !run && !list && !baseUrl) {
    throw new UsageError(
      `${source} is a built folder, served only while --run runs: give --run --out RUN_ROOT, or --base-url URL where you serve it, for a plan`,
    );
  }
  if (baseUrl !== undefined && !/^https?:\/\//i.test(baseUrl)) throw new UsageError(`--base-url must be an http:// or https:// URL (got '${baseUrl}')`);
  const selection = selectStories(index.entries, {
    stories: flags.values.story,
    include: flags.values.include,
    exclude: flags.values.exclude,
    tags: flags.values.tag,
    excludeTags: flags.values['exclude-tag'],
    optedOut: flags.switches.has('opted-out'),
  });
  return {
    source,
    selection,
    index,
    types,
    viewports,
    colorSchemes,
    design,
    globals,
    args,
    baseUrl: baseUrl === undefined ? undefined : baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`,
    planFile: single(flags, 'plan'),
    list,
    freshLoads,
    run,
    out: out === undefined ? undefined : path.resolve(out),
    baseline: baseline === undefined ? undefined : path.resolve(baseline),
    parallel,
  };
}

function planLines(command: StoriesCommand, baseUrl: string, runRoot?: string): StoryPlanLine[] {
  return storyPlan(command.selection.stories, {
    baseUrl,
    types: command.types,
    viewports: command.viewports,
    colorSchemes: command.colorSchemes,
    design: command.design,
    globals: command.globals,
    args: command.args,
    runRoot,
  });
}

function selectionSummary(index: StoryIndex, selection: Selection): string {
  const count = (reason: string) => selection.skipped.filter((s) => s.reason === reason).length;
  return `${index.file} (v${index.version ?? '?'}): ${selection.stories.length} stories selected; skipped ${count('docs')} docs, ${count('opted out')} opted out, ${count('filtered')} filtered`;
}

const storyJson = (entry: StoryEntry) => ({ id: entry.id, title: entry.title, name: entry.name, tags: entry.tags });

export async function runStoriesCli(argv: string[], program: Program): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(STORIES_USAGE);
    return 0;
  }
  let command: StoriesCommand;
  let lines: StoryPlanLine[] = [];
  try {
    command = await readCommand(argv);
    if (!command.run && !command.list) lines = planLines(command, command.baseUrl ?? ('url' in command.index.source ? command.index.source.url : ''));
  } catch (err) {
    if (err instanceof StorySourceError || err instanceof StorySelectionError || err instanceof UsageError) {
      process.stderr.write(`stories: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  process.stderr.write(`${selectionSummary(command.index, command.selection)}\n`);
  if (command.list) {
    for (const story of command.selection.stories) process.stdout.write(`${JSON.stringify(storyJson(story))}\n`);
    for (const { entry, reason } of command.selection.skipped) process.stdout.write(`${JSON.stringify({ ...storyJson(entry), skipped: reason })}\n`);
    return 0;
  }
  if (!command.run) {
    const text = lines.map((line) => `${echoJson(line.args)}\n`).join('');
    if (command.planFile) {
      try {
        fs.writeFileSync(command.planFile, text);
      } catch (err) {
        process.stderr.write(`stories: --plan ${command.planFile} cannot be written: ${(err as Error).message}\n`);
        return 2;
      }
      process.stderr.write(`plan: ${lines.length} lines written to ${command.planFile}\n`);
    } else process.stdout.write(text);
    return 0;
  }
  return runStories(command, program);
}

// ------------------------------------------------------------------ --run

const RUN_MARKER = `# Stories run

Made by \`design-playbook-evidence stories --run\`. This file marks the folder
as a run root: the captures are in \`evidence/stories/\`, bound to their
criteria in \`evidence/manifest.jsonl\`; the plan is \`stories/plan.jsonl\`.
`;

/** The manifest line for one story's capture (docs/manifest.md), naming the story it is evidence of. */
export function storyManifestLine(line: StoryPlanLine, result: CaptureResult, ts: Date): string | null {
  // A line the boundary refused has no request snapshot, so it cannot be a manifest entry.
  if (!result.request) return null;
  return manifestLine(line.criterion, line.args, result, ts, {
    note: `story ${line.story.id} (${line.story.title} / ${line.story.name}), ${line.variant}`,
    fields: { story: { id: line.story.id, title: line.story.title, name: line.story.name, variant: line.variant } },
  });
}

/**
 * A run killed part way may have written a capture but not its manifest
 * line, or half a line: the cut line is dropped, and a capture no line
 * binds is removed so it is captured again (else it would be skipped and
 * missing from the manifest).
 */
function prepareResume(runRoot: string, manifestPath: string, lines: StoryPlanLine[]): void {
  if (!fs.existsSync(manifestPath)) return;
  const text = fs.readFileSync(manifestPath, 'utf8');
  // Every line is written with its newline in one append: text after the last newline is a cut line.
  if (text && !text.endsWith('\n')) fs.truncateSync(manifestPath, Buffer.byteLength(text.slice(0, text.lastIndexOf('\n') + 1)));
  const bound = new Set(readManifest(manifestPath).entries.map((entry) => entry.artifact));
  for (const line of lines) {
    const artifactPath = String(line.args.artifact_path);
    if (bound.has(artifactPath.replace(/^evidence\//, ''))) continue;
    const spec = findCaptureType(String(line.args.type));
    for (const file of spec ? captureFiles(spec, path.join(runRoot, artifactPath)) : []) fs.rmSync(file.path, { force: true });
  }
}

function concurrencyOf(program: Program, parallel: number | undefined): number {
  if (parallel !== undefined) program.configureBrowser({ ...program.browserFlags, parallel });
  let browsers: number;
  try {
    browsers = Math.max(1, attachTargets(program.browserFlags, process.env).length);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  return maxParallel(process.env, program.browserFlags) * browsers;
}

async function runStories(command: StoriesCommand, program: Program): Promise<number> {
  const runRoot = command.out!;
  // Stories may be switched to in previews kept loaded (src/browser/page/storySwitch.ts) unless --fresh-loads.
  program.configureBrowser({ ...program.browserFlags, storySwitching: !command.freshLoads });
  let concurrency: number;
  try {
    concurrency = concurrencyOf(program, command.parallel);
  } catch (err) {
    process.stderr.write(`stories: ${(err as Error).message}\n`);
    return 2;
  }
  let served: ServedFolder | null = null;
  let lines: StoryPlanLine[];
  try {
    const baseUrl = 'folder' in command.index.source ? (served = await serveFolder(command.index.source.folder)).url : command.index.source.url;
    lines = planLines(command, baseUrl, runRoot);
  } catch (err) {
    await served?.close();
    if (err instanceof StorySelectionError) {
      process.stderr.write(`stories: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  fs.mkdirSync(path.join(runRoot, 'evidence'), { recursive: true });
  fs.mkdirSync(path.join(runRoot, 'stories'), { recursive: true });
  if (!fs.existsSync(path.join(runRoot, 'plan.md')) && !fs.existsSync(path.join(runRoot, 'point-back.md')))
    fs.writeFileSync(path.join(runRoot, 'plan.md'), RUN_MARKER);
  fs.writeFileSync(path.join(runRoot, 'stories', 'plan.jsonl'), lines.map((line) => `${echoJson(line.args)}\n`).join(''));
  const manifestPath = path.join(runRoot, 'evidence', 'manifest.jsonl');
  prepareResume(runRoot, manifestPath, lines);
  const out = process.stdout;
  out.write(
    `stories: ${lines.length} captures of ${command.selection.stories.length} stories into ${runRoot}${served ? ` (served from ${served.url})` : ''}\n`,
  );

  const failures: Array<{ line: StoryPlanLine; error: string }> = [];
  const runner = new PlanRunner(
    lines.map((line, i) => ({ line: i + 1, args: line.args })),
    {
      concurrency,
      // A run that stopped resumes: what is on disk with its sidecars is kept.
      skipExisting: true,
      provider: program.activeProvider(),
      onResult(result: LineResult) {
        const line = lines[result.line - 1];
        if (result.result !== 'skipped') {
          if (result.result === 'failed') failures.push({ line, error: result.error ?? '' });
          // Appended as each capture ends, so a run that is killed keeps the lines of what it wrote.
          const entry = storyManifestLine(line, result as CaptureResult, new Date());
          if (entry) fs.appendFileSync(manifestPath, `${entry}\n`);
        }
        progress.update();
      },
    },
  );
  const progress = new ProgressReporter(process.stderr, runner);
  let interrupts = 0;
  const onInterrupt = () => {
    interrupts++;
    if (interrupts === 1) {
      runner.stop();
      progress.note('interrupted: starting no new capture (Ctrl-C again to abandon those in flight); run again with the same --out to resume');
    } else {
      runner.abandon();
      void program.close().catch(() => undefined);
    }
  };
  process.on('SIGINT', onInterrupt);
  let summary;
  try {
    summary = await runner.run();
  } finally {
    progress.finish();
    process.off('SIGINT', onInterrupt);
    await program.close();
    await served?.close();
  }
  const parts = [`${summary.captured} captured`, `${summary.failed} failed`];
  if (summary.skipped) parts.push(`${summary.skipped} already there`);
  if (summary.not_run) parts.push(`${summary.not_run} not run`);
  out.write(`${summary.interrupted ? 'interrupted' : 'done'}: ${summary.lines} captures, ${parts.join(', ')} in ${formatDuration(summary.seconds)}\n`);
  for (const { line, error } of failures) out.write(`✗ ${line.story.id} (${line.variant}, ${line.args.type}): ${error}\n`);
  out.write(`manifest: ${manifestPath}\n`);
  try {
    const report = await buildReport({ runRoot });
    out.write(`report: ${report.indexPath}\n`);
  } catch (err) {
    process.stderr.write(`stories: the run report could not be built: ${(err as Error).message}\n`);
  }
  if (summary.interrupted) {
    writeStoryIndex(runRoot, lines, null);
    return 130;
  }
  if (!command.baseline) {
    writeStoryIndex(runRoot, lines, null);
    return summary.failed ? 1 : 0;
  }
  return compareWithBaseline(command.baseline, runRoot, lines);
}

// ------------------------------------------------------- the story index

interface Comparison {
  result: CompareResult;
  before: Map<string, StoryRef>;
}

/** The run's story index page (src/stories/indexPage.ts), from the plan, the manifest, the probe sidecars and the comparison. */
function writeStoryIndex(runRoot: string, lines: StoryPlanLine[], comparison: Comparison | null): void {
  const manifest = readManifest(path.join(runRoot, 'evidence', 'manifest.jsonl'));
  const latest = new Map<string, (typeof manifest.entries)[number]>();
  for (const entry of manifest.entries) {
    const held = latest.get(entry.artifact);
    if (!held || entry.tsMs >= held.tsMs) latest.set(entry.artifact, entry);
  }
  const changes = new Map<string, { status: string; summary: string[] }>();
  if (comparison) {
    const { result } = comparison;
    for (const item of result.items) if (item.criterion) changes.set(`${item.criterion} ${item.kind}`, { status: item.status, summary: item.summary });
    for (const n of result.new) changes.set(`${n.criterion} ${n.type}`, { status: 'new', summary: [] });
    for (const u of result.notComparable) changes.set(`${u.criterion} ${u.type}`, { status: 'not comparable', summary: [u.reason] });
  }
  const rows: StoryCaptureRow[] = lines.map((line) => {
    const artifactPath = String(line.args.artifact_path);
    const type = String(line.args.type);
    const entry = latest.get(artifactPath.replace(/^evidence\//, ''));
    const row: StoryCaptureRow = {
      id: line.story.id,
      title: line.story.title,
      name: line.story.name,
      variant: line.variant,
      type,
      result: entry?.result ?? 'not run',
    };
    if (entry?.result === 'failed') row.error = String(entry.raw.error ?? '');
    const file = path.join(runRoot, artifactPath);
    if (entry?.result === 'captured' && fs.existsSync(file)) row.href = `../${artifactPath}`;
    // What the page shows of it is the type's report view (the table's, src/contract/captureTypes/).
    const view = findCaptureType(type)?.reportView;
    if (view) row.view = view;
    if (row.href && view === 'image') row.findings = findingsOf(file);
    if (row.href && view === 'a11y') row.ariaTree = ariaTreeOf(file);
    const change = changes.get(`${line.criterion} ${type}`);
    if (change) row.change = change;
    return row;
  });
  const gone = comparison
    ? comparison.result.gone.map((g) => {
        const story = comparison.before.get(g.criterion);
        return story
          ? { title: story.title, label: `${story.name} [${story.id}, ${story.variant}] (${g.type})` }
          : { title: '(not a story)', label: `${g.criterion} (${g.type})` };
      })
    : undefined;
  const html = renderStoryIndexPage({
    runRoot,
    generatedAt: new Date(),
    rows,
    gone,
    comparePage: comparison?.result.out ? '../compare/index.html' : undefined,
  });
  const file = path.join(runRoot, 'stories', 'index.html');
  fs.writeFileSync(file, html);
  process.stdout.write(`stories: ${file}\n`);
}

/** An aria snapshot's tree text, cut to what a page shows at a glance (the file has it all). */
function ariaTreeOf(file: string): string | undefined {
  try {
    const tree = envelopeTree(JSON.parse(fs.readFileSync(file, 'utf8')));
    return tree === null ? undefined : tree.length > ARIA_TREE_SHOWN ? `${tree.slice(0, ARIA_TREE_SHOWN)}\n… (the rest in the file)` : tree;
  } catch {
    return undefined;
  }
}

const ARIA_TREE_SHOWN = 4000;

/** A screenshot's token findings, from its probe sidecar (none when it cannot be read). */
function findingsOf(png: string): StoryCaptureRow['findings'] {
  const spec = findCaptureType('screenshot')!;
  const sidecar = captureFiles(spec, png)[1]?.path;
  try {
    const tokens = JSON.parse(fs.readFileSync(sidecar, 'utf8')).renderTokens;
    return (Array.isArray(tokens?.findings) ? tokens.findings : []).map((f: Record<string, unknown>) => ({
      axis: String(f.axis),
      rule: String(f.rule),
      value: String(f.value),
      count: Number(f.count),
    }));
  } catch {
    return undefined;
  }
}

// ------------------------------------------------------------ --baseline

interface StoryRef {
  id: string;
  title: string;
  name: string;
  variant: string;
}

/** Criterion → story, from a run's manifest lines (the `story` field this command writes). */
function storiesOfManifest(runRoot: string): Map<string, StoryRef> {
  const stories = new Map<string, StoryRef>();
  for (const entry of readManifest(path.join(runRoot, 'evidence', 'manifest.jsonl')).entries) {
    const story = entry.raw.story as Partial<StoryRef> | undefined;
    if (story && typeof story.id === 'string')
      stories.set(entry.criterion, { id: story.id, title: String(story.title ?? ''), name: String(story.name ?? ''), variant: String(story.variant ?? '') });
  }
  return stories;
}

/** Per component (story title): the stories changed, new and gone, each with what changed. */
export function componentSummary(result: CompareResult, before: Map<string, StoryRef>, after: Map<string, StoryRef>): string {
  type Component = { changed: string[]; new: string[]; gone: string[]; notComparable: string[] };
  const components = new Map<string, Component>();
  const of = (story: StoryRef | undefined, criterion: string): { title: string; label: string } =>
    story ? { title: story.title || '(untitled)', label: `${story.name} [${story.id}, ${story.variant}]` } : { title: '(not a story)', label: criterion };
  const component = (title: string) => {
    let c = components.get(title);
    if (!c) components.set(title, (c = { changed: [], new: [], gone: [], notComparable: [] }));
    return c;
  };
  for (const item of result.items) {
    if (item.status !== 'changed' || !item.criterion) continue;
    const { title, label } = of(after.get(item.criterion) ?? before.get(item.criterion), item.criterion);
    component(title).changed.push(
      `${label} (${item.kind}):${item.summary
        .slice(0, 6)
        .map((s) => `\n      ${s}`)
        .join('')}`,
    );
  }
  for (const n of result.new) {
    const { title, label } = of(after.get(n.criterion), n.criterion);
    component(title).new.push(`${label} (${n.type})`);
  }
  for (const g of result.gone) {
    const { title, label } = of(before.get(g.criterion), g.criterion);
    component(title).gone.push(`${label} (${g.type})`);
  }
  for (const u of result.notComparable) {
    const { title, label } = of(after.get(u.criterion) ?? before.get(u.criterion), u.criterion);
    component(title).notComparable.push(`${label} (${u.type}): ${u.reason}`);
  }
  const s = result.summary;
  const head = `against the baseline: ${result.status}: ${s.compared} compared, ${s.changed} changed, ${s.unchanged} unchanged, ${s.new} new, ${s.gone} gone, ${s.notComparable} not comparable`;
  const body = [...components.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([title, c]) =>
      [
        `${title}:`,
        ...c.changed.map((x) => `  changed: ${x}`),
        ...c.new.map((x) => `  new: ${x}`),
        ...c.gone.map((x) => `  gone: ${x}`),
        ...c.notComparable.map((x) => `  not comparable: ${x}`),
      ].join('\n'),
    );
  return [head, ...body].join('\n');
}

async function compareWithBaseline(baseline: string, runRoot: string, lines: StoryPlanLine[]): Promise<number> {
  const after = new Map(lines.map((line) => [line.criterion, { id: line.story.id, title: line.story.title, name: line.story.name, variant: line.variant }]));
  for (const [criterion, story] of storiesOfManifest(runRoot)) if (!after.has(criterion)) after.set(criterion, story);
  const before = storiesOfManifest(baseline);
  let result: CompareResult;
  try {
    result = await compareEvidence({ runs: [baseline, runRoot] });
  } catch (err) {
    process.stderr.write(`stories: ${err instanceof CompareInputError ? err.message : `the comparison failed: ${(err as Error).message}`}\n`);
    writeStoryIndex(runRoot, lines, null);
    return 2;
  }
  process.stdout.write(`${componentSummary(result, before, after)}\ncompare: ${result.out}\n`);
  writeStoryIndex(runRoot, lines, { result, before });
  return exitStatusOf(result);
}
