#!/usr/bin/env node
/**
 * The package's bin. With no subcommand it serves MCP on stdio; subcommands
 * are the CLI (see src/cli/commands.ts). The program is put together in
 * src/app/main.ts; a built checkout or an installed copy runs it from dist/'s
 * one-file bundle and its code cache when they belong to this build
 * (src/app/bundledProgram.ts). How it was loaded is handed to the program
 * (`doctor` reports it).
 */
import * as path from 'path';
import { bundleFiles, loadBundledProgram, type BundledProgram } from './app/bundledProgram';
import type { ProgramStart } from './cli/program';
import { log } from './common/log';

/** Defined in a bundle (scripts/bundle.js): plugin/server.cjs is its own program. */
declare const BUNDLED_PACKAGE_VERSION: string | undefined;

async function program(): Promise<{ main: Pick<BundledProgram, 'runMain'>; start: ProgramStart }> {
  if (typeof BUNDLED_PACKAGE_VERSION === 'string') return { main: await import('./app/main'), start: { from: 'one file', file: __filename } };
  const distDir = path.join(__dirname, '..');
  let why: string;
  try {
    const bundled = loadBundledProgram(distDir);
    if (bundled.program) return { main: bundled.program, start: { from: 'bundle', file: bundleFiles(distDir).bundle, cache: bundled.cache } };
    why = bundled.why;
  } catch (err) {
    why = `dist/server.cjs did not load (${err instanceof Error ? err.message : String(err)})`;
    log(`${why}; running the compiled modules`);
  }
  return { main: await import('./app/main'), start: { from: 'modules', why } };
}

program()
  .then(({ main, start }) => main.runMain(process.argv.slice(2), start))
  .then(
    (code) => {
      if (code !== undefined) process.exitCode = code;
    },
    (err) => {
      log(err instanceof Error ? err.message : String(err));
      process.exitCode = 2;
    },
  );
