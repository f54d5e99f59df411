/**
 * Reads a caller-written `evidence/manifest.jsonl`: every line is checked
 * against the v1 rules (./validate.ts) and reported as line-numbered facts;
 * lines that pass become entries. `bindingFor` resolves which entry binds a
 * criterion + artifact: the latest `ts` wins.
 *
 * Blank (whitespace-only) lines are skipped without a fact — JSON Lines
 * writers commonly leave a trailing newline or a spacer — but they still count
 * in the physical line numbers the facts report.
 */
import * as fs from 'fs';
import { parseJsonText } from '../common/pythonJson';
import type { CaptureRequestSnapshot } from '../contract/captureContract';
import { checkManifestLine, lineRequest, tsInstant, type ManifestFact } from './validate';
import type { ManifestResult } from './schema';

/**
 * How the capture was made. Only provider, type and state are always there:
 * a Playwright script or a person (`manual`) records no url or artifact_path,
 * and a person's actions are free-text steps.
 */
export interface ManifestCapture {
  provider: string;
  type: string;
  state: string;
  url?: string;
  artifact_path?: string;
  actions?: (Record<string, unknown> | string)[];
  note?: string;
  [key: string]: unknown;
}

export interface ManifestEntry {
  /** 1-based physical line number in the file. */
  line: number;
  criterion: string;
  /** Relative to evidence/. */
  artifact: string;
  observed_state: string;
  result: ManifestResult;
  ts: string;
  /** `ts` as epoch milliseconds, for ordering. */
  tsMs: number;
  capture: ManifestCapture;
  /** The bound request snapshot: the top-level one when present, else the one inside capture. */
  request: CaptureRequestSnapshot;
  requestSource: 'request' | 'capture.request';
  /** The whole parsed line, extra keys included. */
  raw: Record<string, unknown>;
}

export interface ManifestReport {
  entries: ManifestEntry[];
  facts: ManifestFact[];
}

/** Checks manifest text (already read). Exposed for callers that hold the bytes. */
export function parseManifest(text: string): ManifestReport {
  const entries: ManifestEntry[] = [];
  const facts: ManifestFact[] = [];
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  lines.forEach((rawLine, index) => {
    const line = index + 1;
    const source = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    if (source.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = parseJsonText(source); // keeps `1.0` apart from `1`: the snapshot check refuses a float schemaVersion or width
    } catch (err) {
      facts.push({
        line,
        code: 'malformed_json',
        detail: `not valid JSON: ${(err as Error).message}`,
        repair: 'rewrite the line as one complete JSON object on a single line (a line break inside a value splits it into broken lines)',
      });
      return;
    }
    const lineFacts = checkManifestLine(parsed);
    if (lineFacts.length) {
      for (const fact of lineFacts) facts.push({ line, ...fact });
      return;
    }
    const record = parsed as Record<string, unknown>;
    const { request, source: requestSource } = lineRequest(record);
    entries.push({
      line,
      criterion: record.criterion as string,
      artifact: record.artifact as string,
      observed_state: record.observed_state as string,
      result: record.result as ManifestResult,
      ts: record.ts as string,
      tsMs: tsInstant(record.ts as string),
      capture: record.capture as ManifestCapture,
      request,
      requestSource,
      raw: record,
    });
  });
  return { entries, facts };
}

/**
 * Reads and checks a manifest file. A file that cannot be read yields one
 * `unreadable` fact at line 0 and no entries; it never throws.
 */
export function readManifest(filePath: string): ManifestReport {
  let text: string;
  try {
    const st = fs.statSync(filePath);
    if (!st.isFile()) {
      return {
        entries: [],
        facts: [
          {
            line: 0,
            code: 'unreadable',
            detail: `${filePath} is not a regular file`,
            repair: 'name the manifest file itself, e.g. <run root>/evidence/manifest.jsonl',
          },
        ],
      };
    }
    text = fs.readFileSync(filePath, 'utf8');
  } catch (err) {
    return {
      entries: [],
      facts: [
        {
          line: 0,
          code: 'unreadable',
          detail: `cannot read ${filePath}: ${(err as Error).message}`,
          repair: 'check the path and its permissions; the manifest is <run root>/evidence/manifest.jsonl',
        },
      ],
    };
  }
  return parseManifest(text);
}

/**
 * The entry that binds `criterion` + `artifact` (relative to evidence/, as
 * written in the line): the latest `ts` as an instant (offsets honoured);
 * on equal instants the later line wins, as the manifest is append-only.
 */
export function bindingFor(entries: readonly ManifestEntry[], criterion: string, artifact: string): ManifestEntry | undefined {
  let best: ManifestEntry | undefined;
  for (const entry of entries) {
    if (entry.criterion !== criterion || entry.artifact !== artifact) continue;
    if (!best || entry.tsMs > best.tsMs || (entry.tsMs === best.tsMs && entry.line > best.line)) best = entry;
  }
  return best;
}
