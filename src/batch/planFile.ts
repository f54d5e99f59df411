/**
 * A plan file: JSON lines, each one capture plan — one tool call's
 * arguments, exactly as an agent would send them to execute_capture_plan.
 * Reading only splits and parses; what a line may hold is the boundary's to
 * decide (src/boundary/plan.ts), so a plan line and a tool call are judged
 * by the same rules.
 */
import * as fs from 'fs';
import { parseJsonText } from '../common/pythonJson';
import { EvidenceError } from '../common/errors';

export type PlanLine =
  /** A line that parsed as JSON: the tool arguments, still unchecked. */
  | { line: number; args: unknown }
  /** A line that is not JSON at all: reported with its number, the rest still run. */
  | { line: number; unreadable: string };

/** The plan file itself could not be read (exit status 2). */
export class PlanUnreadable extends EvidenceError<'plan-unreadable'> {
  constructor(message: string) {
    super('plan-unreadable', message);
    this.name = 'PlanUnreadable';
  }
}

/** Splits plan text into numbered lines; blank lines are skipped but keep their numbers. */
export function parsePlan(text: string): PlanLine[] {
  const lines: PlanLine[] = [];
  // A byte order mark (editors on Windows write one) is not part of the first line's JSON.
  const rows = text.replace(/^\uFEFF/, '').split('\n');
  rows.forEach((row, index) => {
    const source = row.trim();
    if (!source) return;
    const line = index + 1;
    try {
      lines.push({ line, args: parseJsonText(source) }); // keeps `1.0` apart from `1`, as on the wire
    } catch (err) {
      lines.push({
        line,
        unreadable: `line ${line} is not a JSON value (${(err as Error).message}); each plan line is one execute_capture_plan argument object`,
      });
    }
  });
  return lines;
}

/** Reads a plan file (`-` is standard input). */
export function readPlan(file: string): PlanLine[] {
  let text: string;
  try {
    text = fs.readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : (err as Error).message;
    throw new PlanUnreadable(`cannot read the plan ${file === '-' ? '(standard input)' : file}: ${why}`);
  }
  const lines = parsePlan(text);
  if (!lines.length)
    throw new PlanUnreadable(`the plan ${file === '-' ? '(standard input)' : file} holds no lines: write one execute_capture_plan argument object per line`);
  return lines;
}
