/** setupFilesAfterEnv of the unit project: no browser, no built server. */
import { guardSpawns } from './spawnGuard';

guardSpawns(['browser', 'built'], 'unit');
