/** Global setup of the browser project: the in-page bundles are current. */
import { checkBuilt } from './staleBuild';

export default function browserSetup(): void {
  checkBuilt(['bundles'], 'browser');
}
