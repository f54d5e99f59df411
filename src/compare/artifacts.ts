/**
 * One pair of artifacts of one kind, compared by the module that owns the
 * kind: pixels with the screenshot's probe sidecars (regions named by the
 * elements under them, the style changes that explain them, the probe's
 * findings), the aria snapshot's structure, the trace's actions. Images are
 * handed back as bytes; writing them is the caller's (./run.ts), so a
 * comparison that fails half way leaves nothing behind.
 */
import * as fs from 'fs';
import { comparePngFiles, type PixelRect } from './pixels';
import { diffAriaSnapshots, describeAriaEntry, readAriaSnapshotFile } from './ariaDiff';
import { diffProbeSidecars, readProbeSidecarFile, type ProbeDiff } from './probeDiff';
import { attributeRegions, resolveIgnoreSelectors } from './attribution';
import { readTraceArchive } from './traceArchive';
import { diffTraces } from './traceDiff';
import { CompareInputError } from './pairing';
import type { ProbeSidecar } from '../probe/sidecar';
import type { ComparedKind, CompareItem } from './schema';
import { CAPTURE_TYPES } from '../contract/captureTypes';
import { isFile } from '../common/files';

export interface CompareOptions {
  /** pixelmatch's colour threshold (0..1); default 0: captures are exact, so any colour step counts. */
  threshold?: number;
  /** Count anti-aliased pixels as changes (default false: they are counted apart). */
  includeAA?: boolean;
  /** Rectangles to leave out of the pixel comparison, device px. */
  ignoreRects?: PixelRect[];
  /** Selectors whose recorded element boxes (the probe sidecar's elements face) are left out. */
  ignoreSelectors?: string[];
}

/** Bytes of the images an item shows, named by the caller. */
export interface ItemImages {
  diff: Buffer | null;
  tiles: Array<{ region: number; before: Buffer; after: Buffer }>;
}

export interface ComparedPair {
  item: Omit<CompareItem, 'criterion' | 'before' | 'after' | 'images'>;
  images: ItemImages | null;
}

/** The kind of an artifact named directly, from its file name (the names the tool gives them). */
export function kindOfFile(file: string): ComparedKind {
  const name = file.toLowerCase();
  if (name.endsWith('.png')) return 'screenshot';
  if (name.endsWith('.probe.json')) return 'probe sidecar';
  if (name.endsWith('.trace.zip')) return 'interaction trace';
  if (name.endsWith('.json')) return 'a11y tree';
  throw new CompareInputError(
    `${file}: cannot tell what evidence this is from its name; compare a screenshot (.png), a probe sidecar (.probe.json), an a11y tree (.json) or an interaction trace (.trace.zip)`,
  );
}

/** `x.png` → `x.probe.json`, the sidecar the tool writes beside a screenshot. */
export function sidecarOf(png: string): string {
  return png.replace(/\.png$/i, '.probe.json');
}

function readSidecarIfThere(png: string): ProbeSidecar | null {
  const file = sidecarOf(png);
  return isFile(file) ? readProbeSidecarFile(file) : null;
}

function probeSummary(diff: ProbeDiff): string[] {
  const out: string[] = [];
  if (diff.binding.differs) out.push(`probe: ${diff.binding.note}`);
  if (diff.measurement.changed) out.push(`probe: measurement ${diff.measurement.before} → ${diff.measurement.after}`);
  for (const f of diff.findings.gained) out.push(`probe: finding gained: ${describeFinding(f)}`);
  for (const f of diff.findings.lost) out.push(`probe: finding lost: ${describeFinding(f)}`);
  if (diff.distinctFontSizes.added.length) out.push(`probe: font sizes added ${diff.distinctFontSizes.added.join(', ')} px`);
  if (diff.distinctFontSizes.removed.length) out.push(`probe: font sizes removed ${diff.distinctFontSizes.removed.join(', ')} px`);
  return out;
}

function describeFinding(finding: unknown): string {
  const f = finding as { rule?: string; value?: unknown; elements?: unknown[] };
  const where = Array.isArray(f.elements) && f.elements.length ? ` (${f.elements.slice(0, 3).join(', ')}${f.elements.length > 3 ? ', …' : ''})` : '';
  return `${f.rule ?? 'rule'} ${JSON.stringify(f.value ?? '')}${where}`;
}

async function compareScreenshots(before: string, after: string, options: CompareOptions): Promise<ComparedPair> {
  const notes: string[] = [];
  const [sidecarBefore, sidecarAfter] = [readSidecarIfThere(before), readSidecarIfThere(after)];
  if (!sidecarBefore) notes.push(`no probe sidecar beside ${before}: its regions are not named and its tokens not compared`);
  if (!sidecarAfter) notes.push(`no probe sidecar beside ${after}: its regions are not named and its tokens not compared`);
  const ignore = [...(options.ignoreRects ?? [])];
  for (const selector of options.ignoreSelectors ?? []) {
    let matched = false;
    for (const sidecar of [sidecarBefore, sidecarAfter]) {
      if (!sidecar) continue;
      for (const resolved of resolveIgnoreSelectors([selector], sidecar)) {
        if (resolved.matched) matched = true;
        ignore.push(
          ...resolved.rects.map((r) => ({
            x: Math.floor(r.x),
            y: Math.floor(r.y),
            width: Math.max(1, Math.ceil(r.width)),
            height: Math.max(1, Math.ceil(r.height)),
          })),
        );
      }
    }
    if (!matched) notes.push(`ignore selector ${selector} matched no recorded element box on either side`);
  }
  const compared = await comparePngFiles(before, after, { threshold: options.threshold, includeAA: options.includeAA, ignore, diffImage: true, tiles: true });
  const pixels = compared.result;
  const probe = sidecarBefore && sidecarAfter ? diffProbeSidecars(sidecarBefore, sidecarAfter) : null;
  const regions = pixels.regions.length ? attributeRegions(pixels.regions, sidecarBefore, sidecarAfter) : [];
  const summary: string[] = [];
  if (pixels.status === 'changed') {
    summary.push(`${pixels.changedPixels} px changed in ${pixels.regions.length} region${pixels.regions.length === 1 ? '' : 's'}`);
    if (pixels.extension) summary.push(`size ${pixels.a.width}×${pixels.a.height} → ${pixels.b.width}×${pixels.b.height}`);
    for (const region of regions) for (const change of region.changes) summary.push(change.summary);
  } else if (pixels.antiAliasedPixels) {
    summary.push(`anti-aliasing only: ${pixels.antiAliasedPixels} px, not counted as a change`);
  }
  if (probe) summary.push(...probeSummary(probe));
  const changed = pixels.status === 'changed' || !!probe?.changed;
  return {
    item: {
      kind: 'screenshot',
      status: changed ? 'changed' : 'unchanged',
      summary: [...new Set(summary)],
      pixels,
      regions: regions as unknown as Array<Record<string, unknown>>,
      probe: probe as unknown as Record<string, unknown> | null,
      notes,
    },
    images: pixels.identicalBytes
      ? null
      : { diff: compared.diffPng, tiles: compared.tiles.map((t) => ({ region: t.region, before: t.before, after: t.after })) },
  };
}

async function compareTraces(before: string, after: string): Promise<ComparedPair> {
  const trace = await diffTraces(await readTraceArchive(before), await readTraceArchive(after));
  const summary: string[] = [];
  for (const action of trace.actions) {
    if (!action.changed) continue;
    const at =
      `action ${(action.index.after ?? action.index.before ?? 0) + 1} ${action.api.after ?? action.api.before ?? ''} ${action.selector.after ?? action.selector.before ?? ''}`.trim();
    if (action.kind !== 'paired') summary.push(`${at}: ${action.kind}`);
    if (action.error.changed) summary.push(`${at}: error ${JSON.stringify(action.error.before)} → ${JSON.stringify(action.error.after)}`);
    if (action.durationMs.beyondTolerance) summary.push(`${at}: took ${action.durationMs.before} → ${action.durationMs.after} ms`);
    if (action.snapshot?.changed)
      summary.push(
        `${at}: snapshot ${[...action.snapshot.text.added.map((t) => `+"${t}"`), ...action.snapshot.text.removed.map((t) => `-"${t}"`)].slice(0, 4).join(' ') || 'structure changed'}`,
      );
    if (action.frame && action.frame.identical === false) summary.push(`${at}: its film-strip frame differs`);
  }
  for (const m of trace.messages.gained) summary.push(`console ${m.kind} gained: ${m.text}`);
  for (const m of trace.messages.lost) summary.push(`console ${m.kind} lost: ${m.text}`);
  for (const r of trace.failedRequests.gained) summary.push(`failed request gained: ${r.method} ${r.url} (${r.reason})`);
  for (const r of trace.failedRequests.lost) summary.push(`failed request lost: ${r.method} ${r.url} (${r.reason})`);
  return {
    item: {
      kind: 'interaction trace',
      status: trace.changed ? 'changed' : 'unchanged',
      summary,
      trace: trace as unknown as Record<string, unknown>,
      notes: [],
    },
    images: null,
  };
}

/** Whether two files hold the same bytes (sizes first). */
function sameBytes(a: string, b: string): boolean {
  const [sa, sb] = [fs.statSync(a), fs.statSync(b)];
  return sa.size === sb.size && fs.readFileSync(a).equals(fs.readFileSync(b));
}

/** Compares two files of one kind. Input it cannot read (missing, corrupt, not of the kind) throws CompareInputError naming the file and what is wrong. */
export async function compareFiles(kind: ComparedKind, before: string, after: string, options: CompareOptions = {}): Promise<ComparedPair> {
  try {
    return await compareReadable(kind, before, after, options);
  } catch (err) {
    // The readers name the file they could not read first: that is input, not a fault of the comparison.
    const named = err instanceof Error && [before, after].some((file) => err.message.startsWith(`${file}: `));
    if (named && !(err instanceof CompareInputError)) throw new CompareInputError((err as Error).message);
    throw err;
  }
}

async function compareReadable(kind: ComparedKind, before: string, after: string, options: CompareOptions): Promise<ComparedPair> {
  for (const file of [before, after]) {
    if (!isFile(file)) throw new CompareInputError(`${file}: no such file; name an artifact the capture wrote`);
  }
  return COMPARERS[kind](before, after, options);
}

async function compareAriaFiles(before: string, after: string): Promise<ComparedPair> {
  const aria = diffAriaSnapshots(readAriaSnapshotFile(before), readAriaSnapshotFile(after));
  return {
    item: {
      kind: 'a11y tree',
      status: aria.changed ? 'changed' : 'unchanged',
      summary: aria.entries.map(describeAriaEntry),
      aria: aria as unknown as Record<string, unknown>,
      notes: [],
    },
    images: null,
  };
}

async function compareSidecarFiles(before: string, after: string): Promise<ComparedPair> {
  const probe = diffProbeSidecars(readProbeSidecarFile(before), readProbeSidecarFile(after));
  return {
    item: {
      kind: 'probe sidecar',
      status: probe.changed ? 'changed' : 'unchanged',
      summary: probeSummary(probe),
      probe: probe as unknown as Record<string, unknown>,
      notes: [],
    },
    images: null,
  };
}

async function compareTraceFiles(before: string, after: string): Promise<ComparedPair> {
  // Byte-identical archives are unchanged without reading them.
  if (sameBytes(before, after)) return { item: { kind: 'interaction trace', status: 'unchanged', summary: [], notes: [] }, images: null };
  return compareTraces(before, after);
}

/** How each kind is compared: one entry per kind, which the compiler holds complete. */
const COMPARERS: Record<ComparedKind, (before: string, after: string, options: CompareOptions) => Promise<ComparedPair>> = {
  screenshot: compareScreenshots,
  'probe sidecar': compareSidecarFiles,
  'a11y tree': compareAriaFiles,
  'interaction trace': compareTraceFiles,
};

/** The manifest's capture type as a compared kind (every capture type has a comparer). */
export function kindOfType(type: string): ComparedKind | null {
  return (CAPTURE_TYPES as readonly string[]).includes(type) && Object.hasOwn(COMPARERS, type) ? (type as ComparedKind) : null;
}
