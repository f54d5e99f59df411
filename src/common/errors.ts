/**
 * A refusal of the tool's arguments themselves (unknown fields, runtime field
 * shapes). The server turns it into an `isError: true` tool result carrying the
 * message, as the original adapter did by raising; every later failure is a
 * normal payload with `result: "failed"`.
 */
export class ToolInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolInputError';
  }
}
