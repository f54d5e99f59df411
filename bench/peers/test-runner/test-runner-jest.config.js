import { getJestConfig } from '@storybook/test-runner';

// The default Jest configuration comes from @storybook/test-runner (ejected with `test-storybook --eject`)
const testRunnerConfig = getJestConfig();

/**
 * @type {import('@jest/types').Config.InitialOptions}
 */
export default {
  ...testRunnerConfig,
  // Default reporter plus one that writes per-story results to $TR_RESULTS (read by run.sh).
  reporters: [...testRunnerConfig.reporters, '<rootDir>/results-reporter.cjs'],
  // Offline: the system Chromium, no Playwright-downloaded browser.
  testEnvironmentOptions: {
    'jest-playwright': {
      ...testRunnerConfig.testEnvironmentOptions['jest-playwright'],
      browsers: ['chromium'],
      launchOptions: {
        executablePath: '/usr/bin/chromium',
        args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
      },
    },
  },
};
