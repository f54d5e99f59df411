/** setupFilesAfterEnv of the browser project: a real browser, but not the built server. */
import { guardSpawns } from './spawnGuard';

guardSpawns(['built'], 'browser');
