#!/usr/bin/env node
/**
 * The package's bin. With no subcommand it serves MCP on stdio; subcommands
 * are the CLI (see src/cli/main.ts).
 */
import { runCli } from './cli/main';

runCli(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`[design-playbook-evidence] ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 2;
  },
);
