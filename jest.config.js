/** Tests are TypeScript run by ts-jest; end-to-end tests spawn the built bin (dist/). */
module.exports = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { isolatedModules: true, tsconfig: 'tsconfig.test.json' }] },
  testTimeout: 60000,
  maxWorkers: 2,
};
