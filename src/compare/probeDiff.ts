/**
 * Compares two screenshot probe sidecars (`<stem>.probe.json`,
 * src/probe/sidecar.ts): the binding on each side (a bound and an unbound
 * sidecar are named as such and never compared as equal; a different
 * declaration is reported, axis by axis), the measurement status, findings
 * gained, lost and kept (by rule, value and element), distinct font sizes
 * added and removed, undecidable entries gained and lost, and page facts.
 *
 * A finding's identity: its rule and value for the value rules (one finding
 * per distinct off-scale value), and its rule with the inner and outer
 * element for concentric-radius (one finding per pair of boxes). A kept
 * finding reports a count or sample change.
 */
import * as fs from 'fs';
import { probeSidecarSchema, type ProbeSidecar } from '../probe/sidecar';
import type { Finding, Undecidable } from '../probe/face';

export type Binding = 'bound' | 'unbound';

export interface FindingSummary {
  rule: Finding['rule'];
  axis: Finding['axis'];
  value: string;
  count: number;
  /** Sample selectors (for concentric-radius: [inner, outer]). */
  elements: string[];
}

export interface KeptFinding {
  before: FindingSummary;
  after: FindingSummary;
  /** The number of elements carrying it changed. */
  countChanged: boolean;
  /** Sample elements only one side names. */
  elementsGained: string[];
  elementsLost: string[];
}

export interface ProbeDiff {
  /** Anything below differs (bindings that differ count, whatever the findings). */
  changed: boolean;
  binding: {
    before: Binding;
    after: Binding;
    /** The two were measured against different declarations (or one against none). */
    differs: boolean;
    /** Per declared axis, literals only one side declares (compared as written, JSON). */
    axes: { axis: string; added: unknown[]; removed: unknown[]; declared: { before: boolean; after: boolean } }[];
    /** For people: `bound → unbound: findings are not comparable as a check against the same declaration`. */
    note: string;
  };
  measurement: {
    before: ProbeSidecar['renderTokens']['measurement_status'];
    after: ProbeSidecar['renderTokens']['measurement_status'];
    changed: boolean;
    errors: { before: string; after: string };
  };
  findings: { gained: FindingSummary[]; lost: FindingSummary[]; kept: KeptFinding[] };
  distinctFontSizes: { added: number[]; removed: number[] };
  undecidable: { gained: Undecidable[]; lost: Undecidable[] };
  page: { field: 'finalUrl' | 'documentSize' | 'viewport' | 'devicePixelRatio'; before: unknown; after: unknown }[];
  /** Element boxes recorded on each side (null: the sidecar has no elements face). */
  elements: { before: number | null; after: number | null };
}

function summaryOf(finding: Finding): FindingSummary {
  return { rule: finding.rule, axis: finding.axis, value: finding.value, count: finding.count, elements: finding.samples.map((s) => s.selector) };
}

/** Which finding on the other side is the same finding. */
function findingKey(finding: Finding): string {
  if (finding.rule === 'concentric-radius') {
    const inner = finding.inner?.selector ?? finding.samples[0]?.selector ?? '';
    const outer = finding.outer?.selector ?? finding.samples[1]?.selector ?? '';
    return `${finding.rule}\u0000${inner}\u0000${outer}`;
  }
  return `${finding.rule}\u0000${finding.value}`;
}

function undecidableKey(entry: Undecidable): string {
  return JSON.stringify([entry.axis, entry.kind, entry.literal, entry.index ?? null, entry.value ?? null, entry.reason]);
}

/** Items of `a` not in `b`, by key, counting repeats. */
function minus<T>(a: readonly T[], b: readonly T[], key: (x: T) => string): T[] {
  const left = new Map<string, number>();
  for (const x of b) left.set(key(x), (left.get(key(x)) ?? 0) + 1);
  return a.filter((x) => {
    const n = left.get(key(x)) ?? 0;
    if (n > 0) {
      left.set(key(x), n - 1);
      return false;
    }
    return true;
  });
}

function compareDesigns(before: ProbeSidecar['design'], after: ProbeSidecar['design']): ProbeDiff['binding']['axes'] {
  const axes = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  const out: ProbeDiff['binding']['axes'] = [];
  for (const axis of axes) {
    const a = before?.[axis];
    const b = after?.[axis];
    const added = minus(b ?? [], a ?? [], (x) => JSON.stringify(x));
    const removed = minus(a ?? [], b ?? [], (x) => JSON.stringify(x));
    if (added.length || removed.length || !a !== !b) out.push({ axis, added, removed, declared: { before: !!a, after: !!b } });
  }
  return out;
}

function bindingNote(before: Binding, after: Binding, differs: boolean): string {
  if (before !== after) {
    return `${before} \u2192 ${after}: one capture was checked against a design declaration and the other was not, so their findings do not answer the same question`;
  }
  if (before === 'unbound') return 'both unbound: only declaration-free facts (concentric radii, distinct font sizes) are compared';
  return differs
    ? 'both bound, to different declarations: a finding gained or lost may come from the declaration, not the page'
    : 'both bound to the same declaration';
}

/** Compares two parsed probe sidecars. */
export function diffProbeSidecars(before: ProbeSidecar, after: ProbeSidecar): ProbeDiff {
  const bindingBefore: Binding = before.design !== undefined ? 'bound' : 'unbound';
  const bindingAfter: Binding = after.design !== undefined ? 'bound' : 'unbound';
  const axes = compareDesigns(before.design, after.design);
  const differs = bindingBefore !== bindingAfter || axes.length > 0 || JSON.stringify(before.design ?? null) !== JSON.stringify(after.design ?? null);

  const a = before.renderTokens;
  const b = after.renderTokens;
  const byKey = new Map(b.findings.map((f) => [findingKey(f), f]));
  const beforeKeys = new Set(a.findings.map(findingKey));
  const kept: KeptFinding[] = [];
  const lost: FindingSummary[] = [];
  for (const finding of a.findings) {
    const other = byKey.get(findingKey(finding));
    if (!other) {
      lost.push(summaryOf(finding));
      continue;
    }
    const s = summaryOf(finding);
    const t = summaryOf(other);
    kept.push({
      before: s,
      after: t,
      countChanged: s.count !== t.count,
      elementsGained: t.elements.filter((e) => !s.elements.includes(e)),
      elementsLost: s.elements.filter((e) => !t.elements.includes(e)),
    });
  }
  const gained = b.findings.filter((f) => !beforeKeys.has(findingKey(f))).map(summaryOf);

  const page: ProbeDiff['page'] = [];
  for (const field of ['finalUrl', 'documentSize', 'viewport', 'devicePixelRatio'] as const) {
    const x = before.page?.[field] ?? null;
    const y = after.page?.[field] ?? null;
    if (JSON.stringify(x) !== JSON.stringify(y)) page.push({ field, before: x, after: y });
  }

  const result: ProbeDiff = {
    changed: false,
    binding: { before: bindingBefore, after: bindingAfter, differs, axes, note: bindingNote(bindingBefore, bindingAfter, differs) },
    measurement: {
      before: a.measurement_status,
      after: b.measurement_status,
      changed: a.measurement_status !== b.measurement_status || a.measurement_error !== b.measurement_error,
      errors: { before: a.measurement_error, after: b.measurement_error },
    },
    findings: { gained, lost, kept },
    distinctFontSizes: {
      added: b.distinctFontSizes.filter((s) => !a.distinctFontSizes.includes(s)),
      removed: a.distinctFontSizes.filter((s) => !b.distinctFontSizes.includes(s)),
    },
    undecidable: { gained: minus(b.undecidable, a.undecidable, undecidableKey), lost: minus(a.undecidable, b.undecidable, undecidableKey) },
    page,
    elements: { before: before.elements?.items.length ?? null, after: after.elements?.items.length ?? null },
  };
  result.changed =
    differs ||
    result.measurement.changed ||
    gained.length > 0 ||
    lost.length > 0 ||
    kept.some((k) => k.countChanged || k.elementsGained.length || k.elementsLost.length) ||
    result.distinctFontSizes.added.length > 0 ||
    result.distinctFontSizes.removed.length > 0 ||
    result.undecidable.gained.length > 0 ||
    result.undecidable.lost.length > 0 ||
    // Where the page was loaded from is context (a query string that injects the change), not what it rendered.
    page.some((p) => p.field !== 'finalUrl');
  return result;
}

/** A probe sidecar file read and checked against its schema, or a clear error naming the file and the rule. */
export function readProbeSidecarFile(file: string): ProbeSidecar {
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: not a readable probe sidecar: ${(err as Error).message}`);
  }
  const parsed = probeSidecarSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'the top level';
    throw new Error(`${file}: not a probe sidecar: ${where}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}
