/**
 * Global setup of the browser and e2e projects: stop before any test runs
 * when what they load was built from other sources than the ones checked
 * out (scripts/build-stamp.js compares content hashes recorded by the
 * build). The browser tests load the generated in-page bundles; the e2e
 * tests spawn dist/ as well.
 */
import * as path from 'path';

type Group = 'bundles' | 'dist';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the build's own CommonJS helper, shared with scripts/
const { staleness } = require(path.join(__dirname, '..', '..', 'scripts', 'build-stamp.js')) as { staleness(group: Group): string | null };

export function checkBuilt(groups: Group[], project: string): void {
  for (const group of groups) {
    const why = staleness(group);
    if (why) throw new Error(`the ${project} tests did not run: ${why}`);
  }
}
