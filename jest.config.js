/**
 * Tests are TypeScript run by ts-jest, in three projects picked by the file
 * name (test/projects/projects.ts):
 *   unit     *.test.ts          no browser, no build (npm run test:unit)
 *   browser  *.browser.test.ts  a real Chromium through the library; needs the in-page bundles built
 *   e2e      *.e2e.test.ts      spawns the built server (dist/) or the plugin bundle
 * The browser and e2e projects stop at once when their build is older than
 * the sources (test/projects/staleBuild.ts); a unit or browser test that
 * starts what its project does not allow fails, naming the rename
 * (test/projects/spawnGuard.ts).
 */
const shared = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: { '^.+\\.ts$': ['ts-jest', { isolatedModules: true, tsconfig: 'tsconfig.test.json' }] },
  // Generous: the machine is shared and loaded; no test asserts speed.
  testTimeout: 60000,
};

module.exports = {
  // The machine has two cores; browser tests start Chromium, which wants one of them.
  maxWorkers: 2,
  // Also here: Jest reads testTimeout from the top level, not from a project's settings.
  testTimeout: shared.testTimeout,
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['**/*.test.ts', '!**/*.browser.test.ts', '!**/*.e2e.test.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/projects/unitGuard.ts'],
    },
    {
      ...shared,
      displayName: 'browser',
      testMatch: ['**/*.browser.test.ts'],
      globalSetup: '<rootDir>/test/projects/browserSetup.ts',
      setupFilesAfterEnv: ['<rootDir>/test/projects/browserGuard.ts'],
    },
    {
      ...shared,
      displayName: 'e2e',
      testMatch: ['**/*.e2e.test.ts'],
      globalSetup: '<rootDir>/test/projects/e2eSetup.ts',
    },
  ],
};
