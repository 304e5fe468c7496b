/**
 * A data page (format spec, "Page"): per latent variable the delta state and
 * the four interleaved tANS states, then batches of up to 256 numbers, each
 * holding per latent variable the tANS-coded bin indices and then the bins'
 * offsets.
 *
 * @module
 */
import { type AnsDecoder, buildAnsDecoder } from "./ans.js";
import { type BitReader, readBitsAt } from "./bit-reader.js";
import { decodeDelta } from "./delta.js";
import { corrupt } from "./errors.js";
import { allocLatents, type Latents, maskOf } from "./latents.js";
import {
  type ChunkMeta,
  deltaForVar,
  type LatentVarKey,
  type LatentVarMeta,
  stateN,
  type VarDelta,
} from "./metadata.js";

/** Numbers per batch, the spec's `FULL_BATCH_N`. */
export const FULL_BATCH_N = 256;

/** The decoded latents of a page, before the mode joins them into numbers. */
export interface PageLatents {
  readonly primary: Latents;
  readonly secondary?: Latents;
}

interface VarState {
  readonly key: LatentVarKey;
  readonly meta: LatentVarMeta;
  readonly delta: VarDelta;
  readonly state: Latents;
  readonly ansStates: Uint32Array;
  /** Latents coded in the page's batches. */
  readonly bodyN: number;
  readonly out: Latents;
  readonly decoder?: AnsDecoder;
  /** Per tANS state: the bin's lower bound (low and high words) and offset bits. */
  readonly stateLo: Uint32Array;
  readonly stateHi: Uint32Array;
  readonly stateOffsetBits: Uint8Array;
}

function varState(
  r: BitReader,
  key: LatentVarKey,
  meta: LatentVarMeta,
  delta: VarDelta,
  n: number,
  bodyN: number,
): VarState {
  const s = stateN(delta);
  const state = allocLatents(meta.bits, s);
  for (let i = 0; i < s; i++) {
    state.lo[i] = r.read64(meta.bits);
    if (meta.bits === 64) state.hi[i] = r.hi;
  }
  const ansStates = new Uint32Array(4);
  for (let i = 0; i < 4; i++) ansStates[i] = r.read(meta.ansSizeLog);
  const bins = meta.bins;
  if (bins.count === 0 && bodyN > 0) {
    corrupt(`the ${key} latents have no bins but ${bodyN} latents to decode`);
  }
  const weights = bins.count === 0 ? Uint32Array.of(1) : bins.weights;
  const decoder = buildAnsDecoder(meta.ansSizeLog, weights);
  const size = decoder.symbols.length;
  const stateLo = new Uint32Array(size);
  const stateHi = new Uint32Array(meta.bits === 64 ? size : 0);
  const stateOffsetBits = new Uint8Array(size);
  if (bins.count > 0) {
    for (let st = 0; st < size; st++) {
      const b = decoder.symbols[st];
      stateLo[st] = bins.lowerLo[b];
      if (meta.bits === 64) stateHi[st] = bins.lowerHi[b];
      stateOffsetBits[st] = bins.offsetBits[b];
    }
  }
  return {
    key,
    meta,
    delta,
    state,
    ansStates,
    bodyN,
    out: allocLatents(meta.bits, key === "delta" ? bodyN : n),
    decoder: bins.count > 1 ? decoder : undefined,
    stateLo,
    stateHi,
    stateOffsetBits,
  };
}

/**
 * The tANS table entries a stream may make the decoder build, over all its
 * chunks. Tables are up to 2^14 states but can be described in a few bytes,
 * so without a bound a stream of many tiny chunks could cost far more work
 * than its size: `max(2^20, 64 * numbers)` entries (Pco's encoder uses fewer
 * than 2 per number and latent variable).
 */
export class TableBudget {
  #left: number;
  constructor(count: number) {
    this.#left = Math.max(2 ** 20, 64 * count);
  }
  /** Spends `entries`; throws once the stream's tables pass the bound. */
  spend(entries: number): void {
    this.#left -= entries;
    if (this.#left < 0) corrupt("the chunks' tANS tables are far larger than their numbers need");
  }
}

/** Decodes one page of `n` numbers; leaves the reader at the next byte boundary. */
export function decodePage(
  r: BitReader,
  meta: ChunkMeta,
  n: number,
  budget: TableBudget = new TableBudget(n),
): PageLatents {
  const entries: [LatentVarKey, LatentVarMeta][] = [];
  if (meta.vars.delta) entries.push(["delta", meta.vars.delta]);
  entries.push(["primary", meta.vars.primary]);
  if (meta.vars.secondary) entries.push(["secondary", meta.vars.secondary]);

  let metaBits = 0;
  for (const [key, v] of entries) {
    metaBits += stateN(deltaForVar(meta.delta, key)) * v.bits + 4 * v.ansSizeLog;
  }
  r.require(metaBits, "the page metadata");
  for (const [, v] of entries) budget.spend(2 ** v.ansSizeLog);
  const primaryStateN = stateN(deltaForVar(meta.delta, "primary"));
  const vars = entries.map(([key, v]) => {
    const delta = deltaForVar(meta.delta, key);
    // Lookbacks line up with the primary latents' body.
    const bodyN = Math.max(0, n - (key === "delta" ? primaryStateN : stateN(delta)));
    return varState(r, key, v, delta, n, bodyN);
  });
  r.drainEmptyByte("the page metadata");

  const offsetBits = new Uint8Array(FULL_BATCH_N);
  for (let start = 0; start < n; start += FULL_BATCH_N) {
    for (const v of vars) {
      const k = Math.min(FULL_BATCH_N, v.bodyN - start);
      if (k <= 0) continue;
      decodeBins(r, v, start, k, offsetBits);
      if (v.meta.bits === 64) addOffsets64(r, v.out, start, k, offsetBits);
      else addOffsets(r, v.out.lo, start, k, offsetBits, maskOf(v.meta.bits));
      r.checkInBounds("the page body");
    }
  }
  r.drainEmptyByte("the page");

  let lookbacks: Uint32Array | undefined;
  const result: { primary?: Latents; secondary?: Latents } = {};
  for (const v of vars) {
    if (v.key === "delta") {
      lookbacks = v.out.lo;
      continue;
    }
    decodeDelta(v.delta, v.out, v.state, lookbacks);
    result[v.key] = v.out;
  }
  return result as PageLatents;
}

/** Decodes `k` bin indices with the four interleaved tANS states; sets lowers and offset bits. */
function decodeBins(
  r: BitReader,
  v: VarState,
  start: number,
  k: number,
  offsetBits: Uint8Array,
): void {
  const { lo, hi } = v.out;
  const wide = v.meta.bits === 64;
  const dec = v.decoder;
  if (!dec) {
    // One bin: no tANS bits.
    lo.fill(v.stateLo[0], start, start + k);
    if (wide) hi.fill(v.stateHi[0], start, start + k);
    offsetBits.fill(v.stateOffsetBits[0], 0, k);
    return;
  }
  const { bitsToRead, nextBase } = dec;
  const { stateLo, stateHi, stateOffsetBits, ansStates } = v;
  const buf = r.buf;
  let pos = r.pos;
  for (let i = 0; i < k; i++) {
    const j = i & 3;
    const st = ansStates[j];
    lo[start + i] = stateLo[st];
    if (wide) hi[start + i] = stateHi[st];
    offsetBits[i] = stateOffsetBits[st];
    const b = bitsToRead[st];
    const byte = pos >>> 3;
    const bits =
      ((buf[byte] | (buf[byte + 1] << 8) | (buf[byte + 2] << 16)) >>> (pos & 7)) & ((1 << b) - 1);
    pos += b;
    ansStates[j] = nextBase[st] + bits;
  }
  r.pos = pos;
}

function addOffsets(
  r: BitReader,
  lo: Uint32Array,
  start: number,
  k: number,
  offsetBits: Uint8Array,
  mask: number,
): void {
  const buf = r.buf;
  let pos = r.pos;
  for (let i = 0; i < k; i++) {
    const b = offsetBits[i];
    if (b === 0) continue;
    lo[start + i] = (lo[start + i] + readBitsAt(buf, pos, b)) & mask;
    pos += b;
  }
  r.pos = pos;
}

function addOffsets64(
  r: BitReader,
  out: Latents,
  start: number,
  k: number,
  offsetBits: Uint8Array,
): void {
  const { lo, hi } = out;
  const buf = r.buf;
  let pos = r.pos;
  for (let i = 0; i < k; i++) {
    const b = offsetBits[i];
    if (b === 0) continue;
    const idx = start + i;
    let oHi = 0;
    let oLo: number;
    if (b <= 32) oLo = readBitsAt(buf, pos, b);
    else {
      oLo = readBitsAt(buf, pos, 32);
      oHi = readBitsAt(buf, pos + 32, b - 32);
    }
    pos += b;
    const sum = lo[idx] + oLo;
    lo[idx] = sum;
    hi[idx] = hi[idx] + oHi + (sum > 0xffffffff ? 1 : 0);
  }
  r.pos = pos;
}
