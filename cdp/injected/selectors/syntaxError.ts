/**
 * The one error a bad selector raises. Its message names the position in the
 * selector as the caller wrote it (0-based), so a caller can point at the
 * offending character: "selector syntax error at position 7: …".
 */
export class SelectorSyntaxError extends Error {
  readonly position: number;
  constructor(position: number, detail: string) {
    super(`selector syntax error at position ${position}: ${detail}`);
    this.name = 'SelectorSyntaxError';
    this.position = position;
  }
}
