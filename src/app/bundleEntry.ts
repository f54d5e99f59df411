/**
 * What dist/server.cjs (the program as one file, src/app/bundledProgram.ts)
 * exports to the bin: the program, and the warm-up the code cache is made
 * after (scripts/code-cache.js), which sets up every module a capture or a
 * CLI run loads on first use, so the cache holds their compiled code too.
 */
export { runMain } from './main';

export async function warmModules(): Promise<void> {
  await Promise.all([import('../browser/capture/puppeteerProvider'), import('../cli/capture'), import('../cli/run'), import('../cli/doctor')]);
}
