/**
 * Enumerating the coordinates of a chunk grid.
 *
 * @module
 */

/** Every coordinate of a grid in C order. */
export function* gridCoords(grid: readonly number[]): Generator<number[]> {
  if (grid.some((g) => g === 0)) return;
  const idx = new Array<number>(grid.length).fill(0);
  while (true) {
    yield [...idx];
    let d = grid.length - 1;
    while (d >= 0) {
      idx[d]++;
      if (idx[d] < grid[d]) break;
      idx[d] = 0;
      d--;
    }
    if (d < 0) return;
  }
}
