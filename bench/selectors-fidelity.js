#!/usr/bin/env node
/**
 * The selector differential (test/selectors/differential.browser.test.ts) on every
 * generated selector instead of one per form and page: the larger sample the
 * CI run stays short without. Prints agreement per form and every difference.
 *
 * Run after `npm run build`: node bench/selectors-fidelity.js
 */
const { spawnSync } = require('child_process');
const path = require('path');

const result = spawnSync('npx', ['jest', 'test/selectors/differential.browser.test.ts', '--maxWorkers=1', '--testTimeout=1800000'], {
  cwd: path.join(__dirname, '..'),
  env: { ...process.env, SELECTOR_DIFF_PER_FORM: 'all' },
  stdio: 'inherit',
});
process.exit(result.status === null ? 1 : result.status);
