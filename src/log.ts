/** Logs go to stderr: stdout carries only protocol (MCP) or the CLI's JSON. */
export function log(message: string): void {
  process.stderr.write(`[design-playbook-evidence] ${message}\n`);
}
