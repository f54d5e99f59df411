/**
 * Which jest project a test file belongs to, by its name: `*.e2e.test.ts`
 * spawns the built server (dist/ or the plugin bundle), `*.browser.test.ts`
 * drives a real Chromium through the library, any other `*.test.ts` is a
 * unit test (no browser, no build). jest.config.js and the test that checks
 * every file's name (test/architecture/testProjects.test.ts) read this.
 */
export const PROJECTS = ['unit', 'browser', 'e2e'] as const;
export type Project = (typeof PROJECTS)[number];

export function projectOf(file: string): Project | null {
  if (!file.endsWith('.test.ts')) return null;
  if (file.endsWith('.e2e.test.ts')) return 'e2e';
  if (file.endsWith('.browser.test.ts')) return 'browser';
  return 'unit';
}
