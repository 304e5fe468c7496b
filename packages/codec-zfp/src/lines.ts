/**
 * Block geometry: a block of `dims` dimensions holds `4^dims` values,
 * position `x + 4y + 16z + 64w`. The decorrelating transform lifts every
 * line of four values along one axis at a time.
 *
 * @module
 */

/** `LINE_STARTS[dims][axis]`: the positions whose coordinate along `axis` is 0. */
export const LINE_STARTS: readonly (readonly Uint8Array[])[] = [0, 1, 2, 3, 4].map((dims) => {
  const perAxis: Uint8Array[] = [];
  const size = 1 << (2 * dims);
  for (let axis = 0; axis < dims; axis++) {
    const stride = 1 << (2 * axis);
    const starts: number[] = [];
    for (let p = 0; p < size; p++) if (((p / stride) & 3) === 0) starts.push(p);
    perAxis.push(Uint8Array.from(starts));
  }
  return perAxis;
});

/** 32-bit words per bit plane of a block of `dims` dimensions. */
export function planeWords(dims: number): number {
  return dims <= 2 ? 1 : dims === 3 ? 2 : 8;
}
