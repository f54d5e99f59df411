/**
 * Per-pass memo tables for the in-page aria and selector code. Computed
 * styles, hidden-ness, roles and names are read many times during one pass
 * (a snapshot walk, one selector query) and the DOM does not change during
 * it, so every module memoizes in a table registered here; the outermost
 * `withCaches` clears them all when the pass ends, so nothing stale outlives
 * it. Outside a pass the tables are not written (the DOM may change between
 * calls).
 */
const tables: Array<Map<unknown, unknown>> = [];
let depth = 0;

/** A memo table owned by the calling module, emptied at the end of every pass. */
export function memoTable<K, V>(): Map<K, V> {
  const table = new Map<K, V>();
  tables.push(table as Map<unknown, unknown>);
  return table;
}

/** Runs one pass: memo tables are live inside it and cleared when the outermost pass ends. */
export function withCaches<T>(pass: () => T): T {
  depth++;
  try {
    return pass();
  } finally {
    if (--depth === 0) for (const table of tables) table.clear();
  }
}

/** table[key], computed once per pass. */
export function memo<K, V>(table: Map<K, V>, key: K, compute: (key: K) => V): V {
  if (depth === 0) return compute(key);
  const known = table.get(key);
  if (known !== undefined || table.has(key)) return known as V;
  const value = compute(key);
  table.set(key, value);
  return value;
}
