/**
 * One in-page module (cdp/injected/…) built on its own with esbuild, as an
 * expression that evaluates to its exports: tests load a module into a page
 * without the rest of the entry it belongs to.
 */
import { buildSync } from 'esbuild';

export function bundleInjectedModule(file: string): string {
  const out = buildSync({
    entryPoints: [file],
    bundle: true,
    write: false,
    format: 'iife',
    globalName: 'm',
    platform: 'browser',
    target: 'chrome100',
    logLevel: 'error',
  });
  return `(() => { ${out.outputFiles[0].text}; return m; })()`;
}
