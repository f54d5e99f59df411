/**
 * Builds the report model from a read run: which line binds each criterion
 * and artifact (the reader's latest-`ts` rule), what each bound artifact
 * shows (screenshot with its probe sidecar, aria snapshot, trace), and the
 * run's loose ends (lines whose artifact is missing, files no line binds,
 * lines the reader flags). It reports facts only: a difference between the
 * expected and the observed state is shown, never judged.
 */
import * as fs from 'fs';
import * as path from 'path';
import { bindingFor, type ManifestEntry } from '../manifest';
import { ARIA_ENVELOPE_FORMAT, envelopeTree, findCaptureType, sidecarLeaf, type ReportView } from '../contract/captureTypes';
import { redactSecrets } from '../common/redact';
import { probeSidecarSchema, type ProbeSidecar } from '../probe/sidecar';
import type { Box, FindingRule } from '../probe/face';
import { parseAriaYaml, type AriaLine } from '../../cdp/aria/yaml';
import { imageInfoOfFile, type ImageInfo } from './imageInfo';
import type { EvidenceFile, RunContents } from './readRun';
import { readTraceZip, type TraceSummary } from './traceSummary';

/** The view an artifact gets: its capture type's, else a plain file's (or none: no artifact). */
export type ItemKind = ReportView | 'file' | 'none';

/** A sidecar sample box placed over the screenshot, in percent of the image. */
export interface OverlayBox {
  rule: FindingRule;
  finding: number;
  /** `sample`, or the two boxes of a concentric-radius pair. */
  part: 'sample' | 'inner' | 'outer';
  selector: string;
  value: string;
  /** As in the sidecar: CSS px of the page. */
  box: Box;
  pct: { left: number; top: number; width: number; height: number };
}

export interface ScreenshotView {
  /** Relative to the report folder. */
  src: string;
  image: ImageInfo;
  sidecarLeaf: string;
  sidecar: ProbeSidecar | null;
  /** Why there is no sidecar to read ("" when there is one). */
  sidecarProblem: string;
  /** Image pixels per CSS px: the page's devicePixelRatio. */
  scale: number;
  boxes: OverlayBox[];
  /** A mismatch between the image size and the page size the sidecar records ("" when none). */
  geometryNote: string;
}

export interface A11yView {
  tree: AriaLine[];
  nodeCount: number;
  text: string;
}

export interface TraceView {
  zipPath: string;
  /** The shell command that opens it in Playwright's trace viewer. */
  command: string;
  summary: Omit<TraceSummary, 'frameBytes'>;
  /** Report-relative src of a frame, by ZIP entry. */
  frameSrc: Record<string, string>;
}

export interface TextView {
  text: string;
  truncated: boolean;
}

export interface ReportItem {
  /** Anchor id in the page. */
  id: string;
  criterion: string;
  artifact: string;
  line: number;
  ts: string;
  /** Earlier lines for the same criterion and artifact that this one supersedes. */
  superseded: number[];
  /** capture.type as written ("" when absent). */
  type: string;
  kind: ItemKind;
  provider: string;
  url: string;
  expected: string;
  observed: string;
  result: string;
  error: string;
  request: Record<string, any> | null;
  requestSource: string;
  actions: unknown[];
  note: string;
  file: EvidenceFile | null;
  /** The line says captured (or anything but failed) and evidence/<artifact> is not there. */
  missing: boolean;
  /** Why the artifact could not be shown as its type ("" when it could). */
  problem: string;
  screenshot?: ScreenshotView;
  a11y?: A11yView;
  trace?: TraceView;
  text?: TextView;
  findingCount: number;
  differs: boolean;
}

export interface CriterionGroup {
  id: string;
  anchor: string;
  items: ReportItem[];
}

export interface UnboundFile {
  file: EvidenceFile;
  /** Copied image (report-relative), for a thumbnail. */
  src: string;
  image: ImageInfo | null;
  /** Its probe sidecar, listed with it rather than as a file of its own. */
  sidecar: string;
  /** Flagged manifest lines that name this artifact (they bind nothing). */
  namedByFlaggedLines: number[];
}

export interface FlaggedLine {
  line: number;
  text: string;
  truncated: boolean;
  facts: { code: string; field: string; detail: string }[];
}

export interface ReportModel {
  runRoot: string;
  evidenceDir: string;
  manifestPath: string;
  manifestPresent: boolean;
  criteria: CriterionGroup[];
  items: ReportItem[];
  missing: ReportItem[];
  unbound: UnboundFile[];
  flagged: FlaggedLine[];
  /** Files to copy into the report folder: from (absolute) → to (report-relative). */
  copies: { from: string; to: string }[];
  /** Bytes to write into the report folder (trace frames). */
  blobs: { to: string; bytes: Buffer }[];
  /** The run is a `stories --run`: its manifest lines name stories, and `stories/index.html` groups them by component. */
  stories: boolean;
}

const IMAGE_EXTENSIONS = ['.png', '.jpg', '.jpeg'];
const TEXT_EXTENSIONS = ['.txt', '.md', '.json', '.jsonl', '.html', '.csv', '.log', '.yaml', '.yml'];
const TEXT_LIMIT = 20_000;
const FLAGGED_TEXT_LIMIT = 2_000;

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** L6.2 before L6.10: compares digit runs as numbers. */
export function naturalCompare(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true, sensitivity: 'variant' }) || (a < b ? -1 : a > b ? 1 : 0);
}

function anchorFor(prefix: string, text: string, used: Set<string>): string {
  const base = `${prefix}-${text.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '') || 'x'}`;
  let id = base;
  for (let n = 2; used.has(id); n++) id = `${base}-${n}`;
  used.add(id);
  return id;
}

/** A report-relative href for a path under the report folder: each segment URL-encoded. */
export function hrefOf(rel: string): string {
  return rel.split('/').map(encodeURIComponent).join('/');
}

/** POSIX shell quoting, so the printed command runs as shown. */
export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

function readSidecar(file: string): { sidecar: ProbeSidecar | null; problem: string } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return { sidecar: null, problem: `no probe sidecar ${path.basename(file)} beside the image` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { sidecar: null, problem: `the probe sidecar is not valid JSON: ${(err as Error).message}` };
  }
  const parsed = probeSidecarSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { sidecar: null, problem: `the probe sidecar does not read as one (${issue?.path.join('.') || 'sidecar'}: ${issue?.message ?? 'invalid'})` };
  }
  return { sidecar: json as ProbeSidecar, problem: '' };
}

function overlayBoxes(sidecar: ProbeSidecar, image: ImageInfo, scale: number): OverlayBox[] {
  const boxes: OverlayBox[] = [];
  const place = (box: Box) => ({
    left: ((box.x * scale) / image.width) * 100,
    top: ((box.y * scale) / image.height) * 100,
    width: ((box.width * scale) / image.width) * 100,
    height: ((box.height * scale) / image.height) * 100,
  });
  sidecar.renderTokens.findings.forEach((finding, index) => {
    const base = { rule: finding.rule, finding: index, value: finding.value };
    if (finding.rule === 'concentric-radius') {
      const inner = finding.inner ?? finding.samples[0];
      const outer = finding.outer ?? finding.samples[1];
      if (outer) boxes.push({ ...base, part: 'outer', selector: outer.selector, box: outer.box, pct: place(outer.box) });
      if (inner) boxes.push({ ...base, part: 'inner', selector: inner.selector, box: inner.box, pct: place(inner.box) });
      return;
    }
    for (const sample of finding.samples) boxes.push({ ...base, part: 'sample', selector: sample.selector, box: sample.box, pct: place(sample.box) });
  });
  return boxes;
}

function screenshotView(file: EvidenceFile, image: ImageInfo, request: Record<string, any> | null): ScreenshotView {
  const leaf = sidecarLeaf(path.basename(file.abs));
  const { sidecar, problem } = readSidecar(path.join(path.dirname(file.abs), leaf));
  const requestedRatio = request?.viewport?.devicePixelRatio;
  const scale =
    sidecar?.page?.devicePixelRatio ??
    (typeof requestedRatio === 'number' && requestedRatio > 0 ? requestedRatio : undefined) ??
    (sidecar?.page?.documentSize.width ? image.width / sidecar.page.documentSize.width : 1);
  let geometryNote = '';
  const page = sidecar?.page;
  if (page && Math.abs(page.documentSize.width * scale - image.width) > Math.max(2, scale + 1)) {
    geometryNote =
      `the image is ${image.width} px wide, the page ${page.documentSize.width} CSS px × devicePixelRatio ${scale} = ` +
      `${Math.round(page.documentSize.width * scale)} px: boxes are placed at devicePixelRatio ${scale} and may be off`;
  }
  return {
    src: hrefOf(`files/${file.rel}`),
    image,
    sidecarLeaf: leaf,
    sidecar,
    sidecarProblem: problem,
    scale,
    boxes: sidecar ? overlayBoxes(sidecar, image, scale) : [],
    geometryNote,
  };
}

function a11yView(file: EvidenceFile): { view?: A11yView; problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file.abs, 'utf8'));
  } catch (err) {
    return { problem: `not a readable aria snapshot envelope: ${(err as Error).message}` };
  }
  const text = envelopeTree(json);
  if (text === null) return { problem: `not an aria snapshot envelope ({"format": "${ARIA_ENVELOPE_FORMAT}", "tree": "..."})` };
  const tree = parseAriaYaml(text);
  let nodeCount = 0;
  const count = (lines: AriaLine[]) => lines.forEach((l) => (nodeCount++, count(l.children)));
  count(tree);
  return { view: { tree, nodeCount, text }, problem: '' };
}

function textView(file: EvidenceFile): TextView | undefined {
  if (!TEXT_EXTENSIONS.includes(path.extname(file.rel).toLowerCase())) return undefined;
  try {
    const bytes = fs.readFileSync(file.abs);
    return { text: bytes.subarray(0, TEXT_LIMIT).toString('utf8'), truncated: bytes.length > TEXT_LIMIT };
  } catch {
    return undefined;
  }
}

/** What kind of view an artifact gets: the line's capture.type first, else the file's name. */
function kindFor(type: string, file: EvidenceFile): ItemKind {
  const spec = findCaptureType(type);
  if (spec) return spec.reportView;
  const lower = file.rel.toLowerCase();
  if (IMAGE_EXTENSIONS.includes(path.extname(lower))) return 'image';
  if (lower.endsWith('.zip')) return 'trace';
  if (lower.endsWith('.json')) {
    try {
      const json = JSON.parse(fs.readFileSync(file.abs, 'utf8'));
      if (json?.format === ARIA_ENVELOPE_FORMAT) return 'a11y';
    } catch {
      // Not an envelope: shown as a file.
    }
  }
  return 'file';
}

class ModelBuilder {
  readonly copies = new Map<string, string>();
  readonly blobs = new Map<string, Buffer>();

  copyImage(file: EvidenceFile): string {
    const to = `files/${file.rel}`;
    this.copies.set(to, file.abs);
    return hrefOf(to);
  }

  async item(entry: ManifestEntry, superseded: number[], file: EvidenceFile | null, anchor: string): Promise<ReportItem> {
    const capture: Record<string, any> = entry.capture && typeof entry.capture === 'object' ? entry.capture : {};
    const request = (entry.request as Record<string, any> | undefined) ?? null;
    const type = str(capture.type);
    const expected = str(capture.state);
    const observed = str(entry.observed_state);
    const result = str(entry.result);
    const item: ReportItem = {
      id: anchor,
      criterion: entry.criterion,
      artifact: entry.artifact,
      line: entry.line,
      ts: entry.ts,
      superseded,
      type,
      kind: 'none',
      provider: str(capture.provider),
      url: redactSecrets(str(capture.url)),
      expected,
      observed,
      result,
      // A manifest copies what the tool said; an address's credentials stay out of a report that may be shared.
      error: redactSecrets(str(entry.raw?.error) || str(capture.error)),
      request,
      requestSource: str(entry.requestSource),
      actions: Array.isArray(capture.actions) ? capture.actions : capture.actions !== undefined ? [capture.actions] : [],
      note: redactSecrets(str(capture.note)),
      file,
      missing: false,
      problem: '',
      findingCount: 0,
      differs: expected !== '' && observed !== expected,
    };
    if (!file) {
      item.missing = result !== 'failed';
      return item;
    }
    if (file.kind !== 'file') {
      item.kind = 'file';
      item.problem = file.kind === 'link' ? 'the artifact is a symbolic link; the report does not follow it' : 'the artifact is not a regular file';
      return item;
    }
    item.kind = kindFor(type, file);
    if (item.kind === 'image') {
      const image = imageInfoOfFile(file.abs);
      if (!image) {
        item.kind = 'file';
        item.problem = 'the artifact is not a PNG or JPEG image';
      } else {
        item.screenshot = screenshotView(file, image, request);
        this.copyImage(file);
        item.findingCount = item.screenshot.sidecar?.renderTokens.findings.length ?? 0;
      }
    } else if (item.kind === 'a11y') {
      const { view, problem } = a11yView(file);
      if (view) item.a11y = view;
      else {
        item.kind = 'file';
        item.problem = problem;
      }
    } else if (item.kind === 'trace') {
      try {
        const summary = await readTraceZip(file.abs);
        const frameSrc: Record<string, string> = {};
        for (const [entryName, bytes] of summary.frameBytes) {
          const to = `frames/${path.posix.basename(entryName)}`;
          this.blobs.set(to, bytes);
          frameSrc[entryName] = hrefOf(to);
        }
        const { frameBytes: _bytes, ...rest } = summary;
        item.trace = { zipPath: file.abs, command: `npx playwright show-trace ${shellQuote(file.abs)}`, summary: rest, frameSrc };
      } catch (err) {
        item.kind = 'file';
        item.problem = `the trace ZIP could not be read: ${(err as Error).message}`;
      }
    }
    if (item.kind === 'file') item.text = textView(file);
    return item;
  }
}

export async function buildReportModel(run: RunContents): Promise<ReportModel> {
  const builder = new ModelBuilder();
  const byRel = new Map(run.files.map((f) => [f.rel, f]));
  const entries = run.manifest.entries;

  // One binding per criterion + artifact; the lines it supersedes are kept as facts.
  const pairs = new Map<string, ManifestEntry[]>();
  for (const entry of entries) {
    const key = JSON.stringify([entry.criterion, entry.artifact]);
    const list = pairs.get(key) ?? [];
    list.push(entry);
    pairs.set(key, list);
  }
  const anchors = new Set<string>();
  const groups = new Map<string, CriterionGroup>();
  const items: ReportItem[] = [];
  const bound = new Set<string>();
  const pairList = [...pairs.values()].sort((a, b) => naturalCompare(a[0].criterion, b[0].criterion) || naturalCompare(a[0].artifact, b[0].artifact));
  for (const lines of pairList) {
    const binding = bindingFor(lines, lines[0].criterion, lines[0].artifact)!;
    const superseded = lines.filter((l) => l !== binding).map((l) => l.line);
    const file = byRel.get(binding.artifact) ?? null;
    if (file) bound.add(file.rel);
    let group = groups.get(binding.criterion);
    if (!group) {
      group = { id: binding.criterion, anchor: anchorFor('criterion', binding.criterion, anchors), items: [] };
      groups.set(binding.criterion, group);
    }
    const item = await builder.item(binding, superseded, file, anchorFor('artifact', `${binding.criterion}-${binding.artifact}`, anchors));
    group.items.push(item);
    items.push(item);
    if (item.screenshot) bound.add(path.posix.join(path.posix.dirname(file!.rel), item.screenshot.sidecarLeaf).replace(/^\.\//, ''));
  }

  // Flagged lines, with the artifact each names (such a line binds nothing).
  const flaggedByLine = new Map<number, FlaggedLine>();
  const namedByFlagged = new Map<string, number[]>();
  for (const fact of run.manifest.facts) {
    let flagged = flaggedByLine.get(fact.line);
    if (!flagged) {
      const text = redactSecrets(fact.line > 0 ? (run.manifestLines[fact.line - 1] ?? '') : '');
      flagged = { line: fact.line, text: text.slice(0, FLAGGED_TEXT_LIMIT), truncated: text.length > FLAGGED_TEXT_LIMIT, facts: [] };
      flaggedByLine.set(fact.line, flagged);
      try {
        const artifact = JSON.parse(text)?.artifact;
        if (typeof artifact === 'string') namedByFlagged.set(artifact, [...(namedByFlagged.get(artifact) ?? []), fact.line]);
      } catch {
        // The line is not JSON; it names nothing.
      }
    }
    flagged.facts.push({ code: fact.code, field: str((fact as { field?: unknown }).field), detail: fact.detail });
  }

  // Files no binding line names; a probe sidecar travels with its image.
  const sidecarOwners = new Map<string, string>();
  const sidecarOf = new Map<string, string>();
  for (const file of run.files) {
    if (!IMAGE_EXTENSIONS.includes(path.extname(file.rel).toLowerCase())) continue;
    const leaf = sidecarLeaf(path.posix.basename(file.rel));
    const dir = path.posix.dirname(file.rel);
    const sidecar = dir === '.' ? leaf : `${dir}/${leaf}`;
    sidecarOwners.set(sidecar, file.rel);
    sidecarOf.set(file.rel, sidecar);
  }
  const unbound: UnboundFile[] = [];
  for (const file of run.files) {
    if (bound.has(file.rel)) continue;
    const owner = sidecarOwners.get(file.rel);
    if (owner && byRel.has(owner)) continue;
    const isImage = file.kind === 'file' && IMAGE_EXTENSIONS.includes(path.extname(file.rel).toLowerCase());
    const image = isImage ? imageInfoOfFile(file.abs) : null;
    const sidecarRel = sidecarOf.get(file.rel) ?? '';
    unbound.push({
      file,
      src: image ? builder.copyImage(file) : '',
      image,
      sidecar: sidecarRel && byRel.has(sidecarRel) ? sidecarRel : '',
      namedByFlaggedLines: namedByFlagged.get(file.rel) ?? [],
    });
  }

  const criteria = [...groups.values()];
  return {
    runRoot: run.runRoot,
    evidenceDir: run.evidenceDir,
    manifestPath: run.manifestPath,
    manifestPresent: run.manifestPresent,
    criteria,
    items,
    missing: items.filter((i) => i.missing),
    unbound,
    flagged: [...flaggedByLine.values()].sort((a, b) => a.line - b.line),
    copies: [...builder.copies.entries()].map(([to, from]) => ({ from, to })),
    blobs: [...builder.blobs.entries()].map(([to, bytes]) => ({ to, bytes })),
    // A stories run's lines carry a `story` field (id, title, name, variant).
    stories: entries.some((entry) => typeof entry.raw.story === 'object' && entry.raw.story !== null),
  };
}
