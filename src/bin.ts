#!/usr/bin/env node
/**
 * The package's bin. With no subcommand it serves MCP on stdio; subcommands
 * are the CLI (see src/cli/commands.ts). The program is put together in
 * src/main.ts.
 */
import { runMain } from './main';
import { log } from './log';

runMain(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (err) => {
    log(err instanceof Error ? err.message : String(err));
    process.exitCode = 2;
  },
);
