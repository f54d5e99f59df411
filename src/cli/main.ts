/**
 * CLI dispatch. No subcommand: serve MCP on stdio (returns undefined and the
 * process lives until input ends). Subcommands print JSON or text and return
 * an exit code.
 */
import { serveStdio } from '../server';

export const USAGE = `design-playbook-evidence — evidence capture MCP server

Usage:
  design-playbook-evidence                 serve MCP (execute_capture_plan) on stdio
  design-playbook-evidence --help          this help
`;

export async function runCli(argv: string[]): Promise<number | undefined> {
  const [command] = argv;
  if (command === undefined) {
    await serveStdio();
    return undefined;
  }
  if (command === 'manifest') return (await import('./manifest')).runManifestCli(argv.slice(1));
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  process.stderr.write(`unknown command: ${command}\n\n${USAGE}`);
  return 2;
}
