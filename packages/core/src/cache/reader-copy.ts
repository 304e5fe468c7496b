/**
 * What one reader of a cached chunk may take without copying.
 *
 * @module
 */

/**
 * `chunk` as one reader may take it: the cache's own values, except elements
 * that are mutable objects (`bytes` values, `Uint8Array`s), which each reader
 * gets copies of: readers sharing a load share one decoded chunk.
 */
export function readerCopy<T extends { data: unknown }>(chunk: T): T {
  const data = chunk.data;
  if (!Array.isArray(data) || !data.some((v) => v instanceof Uint8Array)) return chunk;
  return { ...chunk, data: data.map((v) => (v instanceof Uint8Array ? v.slice() : v)) };
}
