/**
 * Choosing bins for the encoder (this implementation's own method): equal
 * count histogram bins over the sorted latents, merged by dynamic programming
 * to minimize an estimate of the coded size (per number: tANS bits
 * `log2(total / count)` plus offset bits; per bin: its metadata), then
 * weights quantized to a tANS table of `2^ansSizeLog` states.
 *
 * @module
 */
import type { LatentBits } from "./metadata.js";
import { offsetBitsBits } from "./metadata.js";

/** Bins chosen for encoding, sorted by lower bound. */
export interface EncoderBins {
  readonly count: number;
  readonly ansSizeLog: number;
  readonly weights: Uint32Array;
  readonly lowerLo: Uint32Array;
  readonly lowerHi: Uint32Array;
  readonly offsetBits: Uint8Array;
}

/** Bit length of the unsigned 64-bit `hi:lo` (0 for 0). */
export function bitLength64(lo: number, hi: number): number {
  return hi !== 0 ? 64 - Math.clz32(hi) : 32 - Math.clz32(lo);
}

/** `(aHi:aLo) - (bHi:bLo)` as [lo, hi], for a >= b. */
function sub64(aLo: number, aHi: number, bLo: number, bHi: number): [number, number] {
  const d = aLo - bLo;
  return [d >>> 0, (aHi - bHi - (d < 0 ? 1 : 0)) >>> 0];
}

/**
 * The unoptimized bin count log for a compression level (0..12) and `n`
 * latents: the level, halved past `log2(n) - 4` so small chunks do not get
 * more bins than they can pay for.
 */
export function histogramBinsLog(level: number, n: number): number {
  const logN = n <= 1 ? 0 : 31 - Math.clz32(n);
  const fast = Math.max(0, logN - 4);
  return level <= fast ? level : fast + Math.floor((level - fast) / 2);
}

/**
 * Bins for `sorted` latents (`lo` and, for 64-bit latents, `hi` words, sorted
 * ascending as unsigned values).
 */
export function chooseBins(
  sortedLo: Uint32Array,
  sortedHi: Uint32Array,
  bits: LatentBits,
  level: number,
): EncoderBins {
  const m = sortedLo.length;
  const wide = bits === 64;
  if (m === 0) {
    return {
      count: 0,
      ansSizeLog: 0,
      weights: new Uint32Array(0),
      lowerLo: new Uint32Array(0),
      lowerHi: new Uint32Array(0),
      offsetBits: new Uint8Array(0),
    };
  }
  const binsLog = histogramBinsLog(level, m);
  const target = 2 ** binsLog;
  // Equal-count histogram bins; equal values never straddle two bins.
  const hStart: number[] = [];
  const hEnd: number[] = [];
  let start = 0;
  for (let b = 1; b <= target && start < m; b++) {
    let end = Math.max(start + 1, Math.floor((m * b) / target));
    while (
      end < m &&
      sortedLo[end] === sortedLo[end - 1] &&
      (!wide || sortedHi[end] === sortedHi[end - 1])
    ) {
      end++;
    }
    if (b === target) end = m;
    hStart.push(start);
    hEnd.push(end);
    start = end;
  }
  const h = hStart.length;
  // Dynamic programming over merges of consecutive histogram bins.
  const ansSizeLogEstimate = Math.min(binsLog + 2, 12, m <= 1 ? 0 : 32 - Math.clz32(m - 1));
  const metaBits = ansSizeLogEstimate + bits + offsetBitsBits(bits);
  const totalLog2 = Math.log2(m);
  const best = new Float64Array(h + 1);
  const from = new Int32Array(h);
  for (let i = 0; i < h; i++) {
    const upper = hEnd[i] - 1;
    let bestCost = Number.POSITIVE_INFINITY;
    let bestJ = i;
    for (let j = i; j >= 0; j--) {
      const lowerIdx = hStart[j];
      const count = hEnd[i] - hStart[j];
      const range = wide
        ? bitLength64(
            ...sub64(sortedLo[upper], sortedHi[upper], sortedLo[lowerIdx], sortedHi[lowerIdx]),
          )
        : 32 - Math.clz32((sortedLo[upper] - sortedLo[lowerIdx]) >>> 0);
      const cost = best[j] + metaBits + count * (totalLog2 - Math.log2(count) + range);
      if (cost < bestCost) {
        bestCost = cost;
        bestJ = j;
      }
    }
    best[i + 1] = bestCost;
    from[i] = bestJ;
  }
  const groups: [number, number][] = [];
  for (let i = h - 1; i >= 0; i = from[i] - 1) groups.push([from[i], i]);
  groups.reverse();
  const count = groups.length;
  const lowerLo = new Uint32Array(count);
  const lowerHi = new Uint32Array(wide ? count : 0);
  const offsetBits = new Uint8Array(count);
  const counts = new Float64Array(count);
  groups.forEach(([j, i], g) => {
    const lo = hStart[j];
    const up = hEnd[i] - 1;
    lowerLo[g] = sortedLo[lo];
    if (wide) {
      lowerHi[g] = sortedHi[lo];
      offsetBits[g] = bitLength64(...sub64(sortedLo[up], sortedHi[up], sortedLo[lo], sortedHi[lo]));
    } else {
      offsetBits[g] = 32 - Math.clz32((sortedLo[up] - sortedLo[lo]) >>> 0);
    }
    counts[g] = hEnd[i] - hStart[j];
  });
  const ansSizeLog = count === 1 ? 0 : Math.max(ansSizeLogEstimate, 32 - Math.clz32(count - 1));
  return {
    count,
    ansSizeLog,
    weights: quantizeWeights(counts, m, ansSizeLog),
    lowerLo,
    lowerHi,
    offsetBits,
  };
}

/** Weights >= 1 proportional to `counts`, summing to exactly `2^sizeLog`. */
export function quantizeWeights(counts: Float64Array, total: number, sizeLog: number): Uint32Array {
  const size = 2 ** sizeLog;
  const n = counts.length;
  const weights = new Uint32Array(n);
  if (n === 1) {
    weights[0] = size;
    return weights;
  }
  let sum = 0;
  for (let i = 0; i < n; i++) {
    weights[i] = Math.max(1, Math.round((counts[i] * size) / total));
    sum += weights[i];
  }
  // Give or take one unit at a time from the bins whose weight is furthest
  // from proportional, largest first.
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => counts[b] - counts[a]);
  while (sum !== size) {
    let changed = false;
    for (const i of order) {
      if (sum === size) break;
      if (sum > size && weights[i] > 1) {
        weights[i]--;
        sum--;
        changed = true;
      } else if (sum < size) {
        weights[i]++;
        sum++;
        changed = true;
      }
    }
    if (!changed) throw new Error("cannot quantize bin weights");
  }
  return weights;
}
