/**
 * tANS tables (format spec, "Chunk Metadata": "4-way interleaved tANS
 * decoders should be initialized using the simple `spread_state_tokens`
 * algorithm"). The spread, the decoder's state transitions and the encoder
 * are written from the spec's definitions: a table of `2^sizeLog` states in
 * which symbol `s` occupies `weight[s]` states; decoding state `x` (an index
 * in `[0, 2^sizeLog)`) yields its symbol and reads `bitsToRead` bits `b`, the
 * next state being `nextBase + b`.
 *
 * @module
 */
import { corrupt } from "./errors.js";

/** The largest tANS table size log the format allows. */
export const MAX_ANS_BITS = 14;

/**
 * Spreads symbols over the table: the `step`-th placed symbol goes to state
 * `(stride * step) mod size`, with `stride` the odd number nearest above
 * `3/5` of the size. Throws when the weights do not sum to `2^sizeLog`.
 */
export function spreadStateSymbols(sizeLog: number, weights: ArrayLike<number>): Uint16Array {
  const size = 2 ** sizeLog;
  let total = 0;
  for (let i = 0; i < weights.length; i++) total += weights[i];
  if (total !== size) {
    corrupt(`tANS table size log ${sizeLog} does not agree with the total bin weight ${total}`);
  }
  const out = new Uint16Array(size);
  let stride = Math.floor((3 * size) / 5);
  if (stride % 2 === 0) stride += 1;
  const mask = size - 1;
  let step = 0;
  for (let symbol = 0; symbol < weights.length; symbol++) {
    for (let k = 0; k < weights[symbol]; k++) {
      out[(stride * step) & mask] = symbol;
      step++;
    }
  }
  return out;
}

/** Per-state decoding table. */
export interface AnsDecoder {
  readonly symbols: Uint16Array;
  readonly bitsToRead: Uint8Array;
  readonly nextBase: Uint16Array;
}

/** Builds the decoder's state transitions (Duda's `x_s` counters). */
export function buildAnsDecoder(sizeLog: number, weights: ArrayLike<number>): AnsDecoder {
  const symbols = spreadStateSymbols(sizeLog, weights);
  const size = symbols.length;
  const xs = Float64Array.from(weights as ArrayLike<number>);
  const bitsToRead = new Uint8Array(size);
  const nextBase = new Uint16Array(size);
  const sizeClz = Math.clz32(size);
  for (let state = 0; state < size; state++) {
    const s = symbols[state];
    const x = xs[s];
    const bits = Math.clz32(x) - sizeClz;
    bitsToRead[state] = bits;
    nextBase[state] = x * 2 ** bits - size;
    xs[s] = x + 1;
  }
  return { symbols, bitsToRead, nextBase };
}

/**
 * The encoder matching {@link buildAnsDecoder}: states live in
 * `[size, 2 * size)`. Encoding `symbol` from state `x` emits the low
 * `renormBits` bits of `x` and moves to the state whose decoding reads them back.
 */
export class AnsEncoder {
  readonly size: number;
  readonly #weights: ArrayLike<number>;
  /** For each symbol, its states (as `size + index`) in increasing order, concatenated. */
  readonly #nextStates: Uint32Array;
  readonly #start: Uint32Array;
  readonly #minRenorm: Uint8Array;
  readonly #cutoff: Float64Array;

  constructor(
    readonly sizeLog: number,
    weights: ArrayLike<number>,
  ) {
    const symbols = spreadStateSymbols(sizeLog, weights);
    this.size = symbols.length;
    this.#weights = weights;
    const n = weights.length;
    this.#start = new Uint32Array(n + 1);
    for (let s = 0; s < n; s++) this.#start[s + 1] = this.#start[s] + weights[s];
    const fill = this.#start.slice(0, n);
    this.#nextStates = new Uint32Array(this.size);
    for (let i = 0; i < this.size; i++) this.#nextStates[fill[symbols[i]]++] = this.size + i;
    this.#minRenorm = new Uint8Array(n);
    this.#cutoff = new Float64Array(n);
    for (let s = 0; s < n; s++) {
      const w = weights[s];
      const minRenorm = sizeLog - (31 - Math.clz32(2 * w - 1));
      this.#minRenorm[s] = minRenorm;
      this.#cutoff[s] = 2 * w * 2 ** minRenorm;
    }
  }

  /** The number of bits {@link encode} emits for `symbol` from `state`. */
  renormBits(state: number, symbol: number): number {
    return state >= this.#cutoff[symbol] ? this.#minRenorm[symbol] + 1 : this.#minRenorm[symbol];
  }

  /** The state after encoding `symbol` from `state`, having emitted `bits` low bits. */
  next(state: number, symbol: number, bits: number): number {
    const xs = state >>> bits;
    return this.#nextStates[this.#start[symbol] + xs - this.#weights[symbol]];
  }
}
