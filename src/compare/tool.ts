/**
 * The opt-in MCP tool `compare_evidence` (off unless the compareTool setting
 * turns it on, so `tools/list` stays the original's single tool for its
 * callers): the same comparison as `design-playbook-evidence compare`, with
 * the run roots held to the rules captures follow (src/boundary/runRoot.ts:
 * an absolute folder with a run marker; the argument, else
 * DESIGN_PLAYBOOK_RUN_ROOT, else the working directory) and artifacts read
 * through containment's read side. Its answer carries the result as
 * structured content, links to the diff images, and small before/after tiles
 * of the first changed regions, so an agent sees the change without loading
 * two full pages.
 */
import * as fs from 'fs';
import * as path from 'path';
import { pathToFileURL } from 'url';
import { z } from 'zod';
import { readArtifact, CONTAINMENT_MESSAGES, EVIDENCE_DIR } from '../boundary/containment';
import { resolveRunRoot } from '../boundary/runRoot';
import { compareEvidence, CompareInputError, type CompareInput } from './run';
import { EvidenceError } from '../common/errors';
import { COMPARE_TOOL_NAME } from '../contract/toolDeclaration';
import { compareResultSchema, type CompareResult } from './schema';

export { COMPARE_TOOL_NAME };
/** Tiles shown as images in one answer (each a before and an after): enough to see, small enough for a context window. */
export const TILES_IN_ANSWER = 4;

const rect = z.object({ x: z.number().int().min(0), y: z.number().int().min(0), width: z.number().int().min(1), height: z.number().int().min(1) }).strict();

export const compareToolInputSchema = z
  .object({
    run_root: z
      .string()
      .optional()
      .describe('The run folder (absolute, holding plan.md or point-back.md); else DESIGN_PLAYBOOK_RUN_ROOT, else the working directory.'),
    rounds: z.boolean().optional().describe("Compare the run's successive captures of each criterion and type (-r1 against -r2)."),
    runs: z
      .array(z.string())
      .length(2)
      .optional()
      .describe('Two run folders (absolute, each with a run marker): paired by criterion and type through their manifests.'),
    artifacts: z
      .array(z.string())
      .length(2)
      .optional()
      .describe('Two artifacts of one kind under the run root, as artifact_path is written: ["evidence/L6.1-empty-r1.png", "evidence/L6.1-empty-r2.png"].'),
    threshold: z.number().min(0).max(1).optional().describe("pixelmatch's colour threshold; default 0 (captures are exact)."),
    include_aa: z.boolean().optional().describe('Count anti-aliased pixels as changes (default false: counted apart).'),
    ignore: z.array(rect).optional().describe('Screenshot rectangles (device pixels) to leave out.'),
    ignore_selectors: z.array(z.string()).optional().describe("Elements to leave out, through the probe sidecar's recorded element boxes."),
  })
  .strict();

export interface ToolDeclarationLike {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: Record<string, unknown>;
}

const jsonSchemaOf = (schema: z.ZodType) => {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
  return rest;
};

export function compareToolDeclaration(): ToolDeclarationLike {
  return {
    name: COMPARE_TOOL_NAME,
    title: 'Compare evidence across rounds and runs',
    description:
      'Compares evidence this server captured: one run in rounds (rounds: true), two runs (runs), or two artifacts of one kind (artifacts). ' +
      'Says what changed, where and in which element (screenshots: regions named by the elements under them and the style changes that explain them; ' +
      'a11y trees: nodes added, removed, changed and moved; traces: actions). Writes compare.json, images and index.html under <run root>/compare/.',
    inputSchema: jsonSchemaOf(compareToolInputSchema),
    outputSchema: jsonSchemaOf(compareResultSchema),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  };
}

/** A refusal of the arguments: answered as a tool error, as the capture tool's are. */
export class CompareToolInputError extends EvidenceError<'compare-arguments'> {
  constructor(message: string) {
    super('compare-arguments', message);
  }
}

function runRootOf(argument: unknown, env: NodeJS.ProcessEnv): string {
  const resolved = resolveRunRoot(argument, env);
  if (!resolved.ok) throw new CompareToolInputError(resolved.error);
  return resolved.root;
}

/** The comparison the arguments ask for, its run roots and artifacts checked as captures' are. */
export function planComparison(raw: unknown, env: NodeJS.ProcessEnv = process.env): { input: CompareInput; out: string } {
  const parsed = compareToolInputSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.length ? issue.path.join('.') : 'arguments';
    throw new CompareToolInputError(`${field}: ${issue.message}`);
  }
  const args = parsed.data;
  const modes = [args.rounds ? 'rounds' : null, args.runs ? 'runs' : null, args.artifacts ? 'artifacts' : null].filter(Boolean);
  if (modes.length !== 1) {
    throw new CompareToolInputError(`give exactly one of rounds: true, runs: [A, B] or artifacts: [a, b] (got ${modes.length ? modes.join(' and ') : 'none'})`);
  }
  if (args.runs) {
    if (args.run_root !== undefined) throw new CompareToolInputError('runs names both run folders: leave run_root out');
    const roots = args.runs.map((root, i) => {
      try {
        return runRootOf(root, env);
      } catch (err) {
        throw new CompareToolInputError(`runs[${i}]: ${(err as Error).message.replace(/^run_root /, '')}`);
      }
    });
    return { input: { runs: [roots[0], roots[1]] }, out: path.join(roots[1], 'compare') };
  }
  const root = runRootOf(args.run_root, env);
  if (args.rounds) return { input: { rounds: root }, out: path.join(root, 'compare') };
  const files = args.artifacts!.map((artifact, i) => {
    const read = readArtifact(root, artifact);
    if (read.ok) return read.path;
    const why =
      read.code === 'not_regular_file' ? `no such file under ${path.join(root, EVIDENCE_DIR)}` : CONTAINMENT_MESSAGES[read.code].replace(/^artifact_path /, '');
    throw new CompareToolInputError(`artifacts[${i}] '${artifact}': ${why}`);
  });
  return { input: { artifacts: [files[0], files[1]] }, out: path.join(root, 'compare') };
}

type Content =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'resource_link'; uri: string; name: string; mimeType: string; description?: string };

export interface CompareToolAnswer {
  content: Content[];
  structuredContent?: Record<string, unknown>;
  isError: boolean;
}

/** One tools/call of compare_evidence. */
export async function callCompareTool(raw: unknown, env: NodeJS.ProcessEnv = process.env): Promise<CompareToolAnswer> {
  let result: CompareResult;
  try {
    const { input, out } = planComparison(raw, env);
    const args = raw as {
      threshold?: number;
      include_aa?: boolean;
      ignore?: Array<{ x: number; y: number; width: number; height: number }>;
      ignore_selectors?: string[];
    };
    result = await compareEvidence(input, {
      out,
      threshold: args.threshold,
      includeAA: args.include_aa,
      ignoreRects: args.ignore,
      ignoreSelectors: args.ignore_selectors,
    });
  } catch (err) {
    if (err instanceof CompareToolInputError || err instanceof CompareInputError) {
      return { isError: true, content: [{ type: 'text', text: err.message }] };
    }
    throw err;
  }
  const content: Content[] = [{ type: 'text', text: summaryText(result) }];
  const out = result.out!;
  let tiles = 0;
  for (const item of result.items) {
    if (!item.images) continue;
    if (item.images.diff) {
      content.push({
        type: 'resource_link',
        uri: pathToFileURL(path.join(out, item.images.diff)).href,
        name: path.basename(item.images.diff),
        mimeType: 'image/png',
        description: `${item.criterion ?? item.kind}: changes over the dimmed before image`,
      });
    }
    for (const tile of item.images.tiles) {
      if (tiles >= TILES_IN_ANSWER) break;
      tiles++;
      content.push({ type: 'text', text: `${item.criterion ?? item.kind}, region ${tile.region + 1}: before, then after` });
      for (const file of [tile.before, tile.after])
        content.push({ type: 'image', mimeType: 'image/png', data: fs.readFileSync(path.join(out, file)).toString('base64') });
    }
  }
  content.push({
    type: 'resource_link',
    uri: pathToFileURL(path.join(out, 'index.html')).href,
    name: 'index.html',
    mimeType: 'text/html',
    description: 'the comparison page',
  });
  return { content, structuredContent: result as unknown as Record<string, unknown>, isError: false };
}

/** The answer's first text: the counts, then each changed pair's lines. */
export function summaryText(result: CompareResult): string {
  const s = result.summary;
  const lines = [
    `${result.status}: ${s.compared} compared, ${s.changed} changed, ${s.unchanged} unchanged, ${s.new} new, ${s.gone} gone, ${s.notComparable} not comparable`,
  ];
  for (const item of result.items) {
    if (item.status !== 'changed') continue;
    lines.push(`${item.criterion ?? item.kind} (${item.kind}):`);
    for (const line of item.summary.slice(0, 12)) lines.push(`  ${line}`);
    if (item.summary.length > 12) lines.push(`  … and ${item.summary.length - 12} more (compare.json)`);
  }
  for (const n of result.new) lines.push(`new: ${n.criterion} ${n.type}`);
  for (const g of result.gone) lines.push(`gone: ${g.criterion} ${g.type}`);
  for (const u of result.notComparable) lines.push(`not comparable: ${u.criterion} ${u.type}: ${u.reason}`);
  if (result.out) lines.push(`written: ${result.out}`);
  return lines.join('\n');
}
