/**
 * In-page entry: the part of the runtime (runtime.ts) an a11y capture calls,
 * the aria walk alone. A world that only takes the aria snapshot compiles
 * this (about 18 KB) instead of the whole runtime (about 58 KB): some 5 ms
 * less of the page's main thread per capture. cdp/utilityWorld.ts picks the
 * part by the method called.
 */
export { ariaWalk } from './runtime';
