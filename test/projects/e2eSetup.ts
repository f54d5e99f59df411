/** Global setup of the e2e project: dist/ and the in-page bundles are current. */
import { checkBuilt } from './staleBuild';

export default function e2eSetup(): void {
  checkBuilt(['bundles', 'dist'], 'e2e');
}
