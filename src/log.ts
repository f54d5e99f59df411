/**
 * Logs go to stderr: stdout carries only protocol (MCP) or the CLI's JSON.
 * Every line has its credentials hidden (redact.ts): a farm's address, with
 * its token, may be part of any message.
 */
import { redactSecrets } from './redact';

export function log(message: string): void {
  process.stderr.write(`[design-playbook-evidence] ${redactSecrets(message)}\n`);
}
