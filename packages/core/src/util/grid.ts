/**
 * Shapes and grids: element counts, and the coordinates of a box or grid in C
 * order (chunk grids, the inner chunks of a shard, the chunks a resize touches).
 *
 * @module
 */

/** The number of elements of `shape` (1 for a scalar's `[]`). */
export function product(shape: readonly number[]): number {
  let n = 1;
  for (const s of shape) n *= s;
  return n;
}

/** Every coordinate of the box [lo, hi) in C order (none when the box is empty). */
export function* boxCoords(lo: readonly number[], hi: readonly number[]): Generator<number[]> {
  if (lo.some((l, d) => l >= hi[d])) return;
  const idx = [...lo];
  while (true) {
    yield [...idx];
    let d = idx.length - 1;
    while (d >= 0) {
      idx[d]++;
      if (idx[d] < hi[d]) break;
      idx[d] = lo[d];
      d--;
    }
    if (d < 0) return;
  }
}

/** Every coordinate of a grid in C order. */
export function gridCoords(grid: readonly number[]): Generator<number[]> {
  return boxCoords(new Array<number>(grid.length).fill(0), grid);
}
