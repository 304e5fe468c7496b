/**
 * Byte-copy helpers shared by the decoders. Unaligned 32-bit moves go through
 * `DataView`, which V8 compiles to single loads and stores (about 3x faster
 * than composing four byte loads).
 *
 * @module
 */

/** A little-endian `DataView` over exactly the bytes of `a`. */
export function viewOf(a: Uint8Array): DataView {
  return new DataView(a.buffer, a.byteOffset, a.byteLength);
}

/**
 * Copies `n` bytes from `src[ip]` to `dst[op]` (`sv`/`dv` are their views).
 * Callers have checked both ranges.
 */
export function copyBytes(
  dst: Uint8Array,
  dv: DataView,
  op: number,
  src: Uint8Array,
  sv: DataView,
  ip: number,
  n: number,
): void {
  if (n > 64) {
    dst.set(src.subarray(ip, ip + n), op);
    return;
  }
  let k = 0;
  for (; k + 4 <= n; k += 4) dv.setInt32(op + k, sv.getInt32(ip + k, true), true);
  for (; k < n; k++) dst[op + k] = src[ip + k];
}

/** Matches longer than this are copied with native `copyWithin` calls. */
const LONG_MATCH = 64;

/**
 * Copies a `len`-byte match from `dist` bytes back (overlap allowed: the copy
 * repeats the last `dist` bytes). Returns the new output position. Callers
 * have checked `dist <= op` and `op + len <= dst.length`.
 */
export function copyMatch(
  dst: Uint8Array,
  dv: DataView,
  op: number,
  dist: number,
  len: number,
): number {
  const end = op + len;
  if (len > LONG_MATCH) {
    if (dist >= len) {
      dst.copyWithin(op, op - dist, op - dist + len);
      return end;
    }
    if (dist >= 2) {
      // A long repeat of a short period: the output from `op - dist` is periodic,
      // so each native copy can take everything written so far (doubling).
      const from = op - dist;
      for (let w = 0; w < len; ) {
        const n = Math.min(w + dist, len - w);
        dst.copyWithin(op + w, from, from + n);
        w += n;
      }
      return end;
    }
  }
  if (dist >= 4) {
    // Forward 4-byte steps read only bytes already written when dist >= 4.
    let from = op - dist;
    for (; op + 4 <= end; op += 4, from += 4) dv.setInt32(op, dv.getInt32(from, true), true);
    while (op < end) dst[op++] = dst[from++];
    return end;
  }
  if (dist === 1) {
    dst.fill(dst[op - 1], op, end);
    return end;
  }
  // Period 2 or 3: write one more period byte by byte, then copy words from
  // two periods back (4 or 6 bytes), which is the same pattern.
  let from = op - dist;
  for (const e = Math.min(end, op + dist); op < e; ) dst[op++] = dst[from++];
  from = op - 2 * dist;
  for (; op + 4 <= end; op += 4, from += 4) dv.setInt32(op, dv.getInt32(from, true), true);
  while (op < end) dst[op++] = dst[from++];
  return end;
}
