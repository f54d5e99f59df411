/**
 * Logs go to stderr: stdout carries only protocol (MCP) or the CLI's JSON.
 * Every line has its credentials hidden (redact.ts): a farm's address, with
 * its token, may be part of any message.
 */
import { redactSecrets } from './redact';

/** What every line this process logs begins with: the server's name. */
export const LOG_PREFIX = '[design-playbook-evidence]';

export function log(message: string): void {
  process.stderr.write(`${LOG_PREFIX} ${redactSecrets(message)}\n`);
}
