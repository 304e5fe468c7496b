/**
 * Delta decoding (format spec, "Delta Encodings") over a whole page. The
 * page's latents of one variable arrive as `body` (the tANS-coded values, at
 * the front of an array of `n`), plus `state` (the page's stored delta
 * state). Each decoder turns that into the `n` pre-mode latents.
 *
 * Working on the whole page instead of Pco's batches gives the same result:
 * the consecutive decoder's output `i` depends only on deltas before `i - order`,
 * and the lookback and Conv1 decoders' outputs are the state followed by the
 * decoded body.
 *
 * @module
 */
import { corrupt } from "./errors.js";
import { type Latents, maskOf, midOf } from "./latents.js";
import type { VarDelta } from "./metadata.js";

/** Delta-decodes `a` (length n: the body then junk) in place, given the page's `state`. */
export function decodeDelta(
  delta: VarDelta,
  a: Latents,
  state: Latents,
  lookbacks: Uint32Array | undefined,
): void {
  if (delta.kind === "none") return;
  const n = a.lo.length;
  const s = state.lo.length;
  toggleCenter(a, Math.max(0, n - (delta.kind === "consecutive" ? 0 : s)));
  switch (delta.kind) {
    case "consecutive":
      if (a.bits === 64) consecutive64(a, state);
      else consecutive(a, state);
      return;
    case "lookback":
      shiftInState(a, state);
      lookback(a, s, 2 ** delta.windowNLog, lookbacks!);
      return;
    case "conv1":
      shiftInState(a, state);
      conv1(a, s, delta.quantization, delta.bias, delta.weights);
      return;
  }
}

/** Adds `MID` (toggles the top bit): deltas are stored centered. */
function toggleCenter(a: Latents, count: number): void {
  if (a.bits === 64) {
    const hi = a.hi;
    for (let i = 0; i < count; i++) hi[i] ^= 0x80000000;
  } else {
    const lo = a.lo;
    const mid = midOf(a.bits);
    for (let i = 0; i < count; i++) lo[i] ^= mid;
  }
}

/** Moves the body right by the state's length and puts the state in front. */
function shiftInState(a: Latents, state: Latents): void {
  const n = a.lo.length;
  const s = Math.min(state.lo.length, n);
  a.lo.copyWithin(s, 0, n - s);
  a.lo.set(state.lo.subarray(0, s));
  if (a.bits === 64) {
    a.hi.copyWithin(s, 0, n - s);
    a.hi.set(state.hi.subarray(0, s));
  }
}

/** Repeated cumulative sums seeded by the delta moments, innermost (last) moment first. */
function consecutive(a: Latents, state: Latents): void {
  const lo = a.lo;
  const n = lo.length;
  const mask = maskOf(a.bits);
  for (let m = state.lo.length - 1; m >= 0; m--) {
    let run = state.lo[m];
    for (let i = 0; i < n; i++) {
      const d = lo[i];
      lo[i] = run;
      run = (run + d) & mask;
    }
  }
}

function consecutive64(a: Latents, state: Latents): void {
  const { lo, hi } = a;
  const n = lo.length;
  for (let m = state.lo.length - 1; m >= 0; m--) {
    let runLo = state.lo[m];
    let runHi = state.hi[m];
    for (let i = 0; i < n; i++) {
      const dLo = lo[i];
      const dHi = hi[i];
      lo[i] = runLo;
      hi[i] = runHi;
      const sum = runLo + dLo;
      runLo = sum >>> 0;
      runHi = (runHi + dHi + (sum > 0xffffffff ? 1 : 0)) >>> 0;
    }
  }
}

/** `l[i] += l[i - lookback[i]]`, latents before the page's state being 0. */
function lookback(a: Latents, s: number, window: number, lookbacks: Uint32Array): void {
  const { lo, hi } = a;
  const n = lo.length;
  const wide = a.bits === 64;
  const mask = maskOf(a.bits);
  for (let i = s; i < n; i++) {
    const lb = lookbacks[i - s];
    if (lb === 0 || lb > window)
      corrupt(`a lookback of ${lb} is outside the window [1, ${window}]`);
    const j = i - lb;
    if (j < 0) continue; // adds 0
    if (wide) {
      const sum = lo[i] + lo[j];
      lo[i] = sum;
      hi[i] = hi[i] + hi[j] + (sum > 0xffffffff ? 1 : 0);
    } else {
      lo[i] = (lo[i] + lo[j]) & mask;
    }
  }
}

/**
 * `l[i] += ((bias + sum(weight[j] * l[i - order + j])) max 0) >> quantization`,
 * truncated to the latent width. The chunk metadata check bounds the sum below
 * `2^(2 * bits - 1)`; sums that may pass 2^53 are computed with BigInt.
 */
function conv1(
  a: Latents,
  order: number,
  quantization: number,
  bias: bigint,
  weights: readonly number[],
): void {
  const lo = a.lo;
  const n = lo.length;
  const mask = maskOf(a.bits);
  let sumAbs = 0;
  for (const w of weights) sumAbs += Math.abs(w);
  const bound = Math.abs(Number(bias)) + 2 ** a.bits * sumAbs;
  if (bound < 2 ** 53) {
    const b = Number(bias);
    const scale = 2 ** quantization;
    const modulus = 2 ** a.bits;
    for (let i = order; i < n; i++) {
      let sum = b;
      for (let j = 0; j < order; j++) sum += weights[j] * lo[i - order + j];
      const pred = sum > 0 ? Math.floor(sum / scale) % modulus : 0;
      lo[i] = (lo[i] + pred) & mask;
    }
    return;
  }
  const w = weights.map(BigInt);
  const q = BigInt(quantization);
  const bits = BigInt(a.bits);
  for (let i = order; i < n; i++) {
    let sum = bias;
    for (let j = 0; j < order; j++) sum += w[j] * BigInt(lo[i - order + j]);
    const pred = sum > 0n ? Number(BigInt.asUintN(Number(bits), sum >> q)) : 0;
    lo[i] = (lo[i] + pred) & mask;
  }
}
