/**
 * The package's version: what `initialize` reports as the server's version
 * and what `--version` prints. From the built package it is read from
 * package.json (dist/src/common/version.js -> ../../../package.json); the plugin bundle
 * (scripts/bundle.js) defines BUNDLED_PACKAGE_VERSION at build time instead,
 * because no package.json sits at a fixed place beside plugin/server.cjs.
 */
import * as fs from 'fs';
import * as path from 'path';

declare const BUNDLED_PACKAGE_VERSION: string | undefined;

/** The version in package.json (or the bundle's); '0.0.0' only if neither can be read. */
export function packageVersion(): string {
  if (typeof BUNDLED_PACKAGE_VERSION === 'string') return BUNDLED_PACKAGE_VERSION;
  try {
    return JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}
