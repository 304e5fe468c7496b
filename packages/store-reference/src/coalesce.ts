/**
 * Merging byte ranges of one file into fewer, larger reads.
 *
 * @module
 */

/** A byte range with a known length. */
export interface ExactRange {
  offset: number;
  length: number;
}

/** One read covering several requested ranges (their indices into the request list). */
export interface MergedRead extends ExactRange {
  members: number[];
}

/**
 * Groups `ranges` into reads: sorted by offset, a range joins the current read
 * when the hole before it is at most `maxGap` bytes and the read stays within
 * `maxRequestSize` bytes (a single range larger than that is read alone, never
 * split). Overlapping and duplicate ranges share a read.
 *
 * @example
 * ```ts
 * mergeRanges([{ offset: 0, length: 10 }, { offset: 12, length: 4 }], 8, 1 << 20);
 * // [{ offset: 0, length: 16, members: [0, 1] }]
 * ```
 */
export function mergeRanges(
  ranges: readonly ExactRange[],
  maxGap: number,
  maxRequestSize: number,
): MergedRead[] {
  const order = ranges.map((_, i) => i).sort((a, b) => ranges[a].offset - ranges[b].offset);
  const reads: MergedRead[] = [];
  let current: MergedRead | undefined;
  for (const i of order) {
    const { offset, length } = ranges[i];
    const end = offset + length;
    if (current !== undefined) {
      const currentEnd = current.offset + current.length;
      const newEnd = Math.max(currentEnd, end);
      if (offset - currentEnd <= maxGap && newEnd - current.offset <= maxRequestSize) {
        current.length = newEnd - current.offset;
        current.members.push(i);
        continue;
      }
    }
    current = { offset, length, members: [i] };
    reads.push(current);
  }
  return reads;
}
