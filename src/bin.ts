#!/usr/bin/env node
/**
 * The package's bin. With no subcommand it serves MCP on stdio; subcommands
 * are the CLI (see src/cli/commands.ts). The program is put together in
 * src/app/main.ts; a built checkout runs it from dist/'s one-file bundle and its
 * code cache when they belong to this build (src/app/bundledProgram.ts).
 */
import * as path from 'path';
import { loadBundledProgram, type BundledProgram } from './app/bundledProgram';
import { log } from './common/log';

/** Defined in a bundle (scripts/bundle.js): plugin/server.cjs is its own program. */
declare const BUNDLED_PACKAGE_VERSION: string | undefined;

async function program(): Promise<Pick<BundledProgram, 'runMain'>> {
  if (typeof BUNDLED_PACKAGE_VERSION === 'string') return import('./app/main');
  try {
    const bundled = loadBundledProgram(path.join(__dirname, '..'));
    if (bundled.program) return bundled.program;
  } catch (err) {
    log(`dist/server.cjs did not load (${err instanceof Error ? err.message : String(err)}); running the compiled modules`);
  }
  return import('./app/main');
}

program()
  .then((main) => main.runMain(process.argv.slice(2)))
  .then(
    (code) => {
      if (code !== undefined) process.exitCode = code;
    },
    (err) => {
      log(err instanceof Error ? err.message : String(err));
      process.exitCode = 2;
    },
  );
