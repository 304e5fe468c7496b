/**
 * The encoder: standalone streams of Classic, FloatQuant, IntMult or
 * FloatMult chunks (see `mode-choice.ts`), each with no delta encoding or
 * consecutive delta encoding of order 1..7 on the primary latents, bins
 * chosen by {@link chooseBins} and 4-way interleaved tANS, following the
 * format spec ("Standalone Format", "Chunk Metadata", "Page").
 *
 * It writes the oldest format versions that hold what it writes, so every
 * pco release that knows the number type reads the result: standalone
 * version 2, wrapped format 1 for 32- and 64-bit types, 2 for 16-bit types
 * and FloatQuant (added in format 2) and 4.1 for 8-bit types.
 *
 * @module
 */
import { AnsEncoder } from "./ans.js";
import { chooseBins, type EncoderBins } from "./bins.js";
import { BitWriter } from "./bit-writer.js";
import { allocLatents, type Latents, maskOf, midOf } from "./latents.js";
import { type FormatVersion, offsetBitsBits } from "./metadata.js";
import {
  classicSplit,
  floatMultSplits,
  floatQuantSplit,
  intMultSplit,
  type ModeSplit,
} from "./mode-choice.js";
import type { PcoNumberType } from "./number-types.js";
import { FULL_BATCH_N } from "./page.js";
import { MAGIC, MAX_CHUNK_N } from "./standalone.js";

/** Encoder settings (numcodecs' `level`, `delta_spec`/`delta_encoding_order`, `equal_pages_up_to`). */
export interface EncodeOptions {
  /** 0..12: more histogram bins (finer binning) at higher levels. */
  readonly level: number;
  /** `"auto"` (try orders 0..7 on a sample, keep the smallest) or a fixed consecutive order 0..7. */
  readonly deltaOrder: "auto" | number;
  /** `"auto"` (default): also try FloatQuant, IntMult and FloatMult; `"classic"`: Classic only. */
  readonly modes?: "auto" | "classic";
  /** Chunks hold at most this many numbers, split into near-equal chunks (pco's `EqualPagesUpTo`). */
  readonly maxChunkN: number;
}

/** The wrapped format version the encoder writes for `type`. */
export function formatFor(type: PcoNumberType): FormatVersion {
  if (type.bits === 8) return { major: 4, minor: 1 };
  return type.bits === 16 ? { major: 2, minor: 0 } : { major: 1, minor: 0 };
}

/** Chunk sizes of pco's `PagingSpec::EqualPagesUpTo`. */
export function chunkSizes(n: number, maxChunkN: number): number[] {
  if (n === 0) return [];
  const count = Math.ceil(n / maxChunkN);
  const low = Math.floor(n / count);
  const extra = n % count;
  return Array.from({ length: count }, (_, i) => (i < extra ? low + 1 : low));
}

/**
 * Encodes the little-endian numbers in `bytes` as a standalone Pco stream.
 *
 * @example
 * ```ts
 * import { encodeStandalone, numberTypeNamed } from "@zarr/codec-pcodec";
 * const values = Int32Array.from({ length: 1000 }, (_, i) => i * i);
 * const stream = encodeStandalone(new Uint8Array(values.buffer), numberTypeNamed("i32"), {
 *   level: 8,
 *   deltaOrder: "auto",
 *   maxChunkN: 262144,
 * });
 * ```
 */
export function encodeStandalone(
  bytes: Uint8Array,
  type: PcoNumberType,
  options: EncodeOptions,
): Uint8Array {
  const width = type.bits / 8;
  if (bytes.length % width !== 0) {
    throw new RangeError(`${bytes.length} bytes are not a whole number of ${type.name} values`);
  }
  const n = bytes.length / width;
  const latents = toLatents(bytes, type, n);
  // Chunks first: the header names the newest format version they use.
  const body = new BitWriter(Math.max(64, bytes.length / 2));
  let format = formatFor(type);
  let start = 0;
  for (const size of chunkSizes(n, Math.min(options.maxChunkN, MAX_CHUNK_N))) {
    const chunk = slice(latents, start, start + size);
    const [split, order] = chooseSplit(chunk, type, options);
    if (split.minFormat > format.major) format = { major: split.minFormat, minor: 0 };
    writeChunk(body, split, type, order, options.level);
    start += size;
  }
  const w = new BitWriter(64);
  w.writeBytes(MAGIC);
  w.write(2, 8); // standalone version
  const power = n === 0 ? 1 : 32 - Math.clz32(n);
  w.write(power - 1, 6);
  w.write(n, power);
  w.finishByte();
  w.writeBytes(format.major >= 4 ? [format.major, format.minor] : [format.major]);
  const head = w.bytes();
  const chunks = body.bytes();
  const out = new Uint8Array(head.length + chunks.length + 1);
  out.set(head);
  out.set(chunks, head.length);
  return out; // ends with the termination byte 0
}

/** `to_latent_ordered` of every number. */
function toLatents(bytes: Uint8Array, type: PcoNumberType, n: number): Latents {
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  const out = allocLatents(type.bits, n);
  const mid = midOf(type.bits);
  const mask = maskOf(type.bits);
  const kind = type.kind;
  if (type.bits === 64) {
    const words = new Uint32Array(aligned.buffer, aligned.byteOffset, 2 * n);
    for (let i = 0; i < n; i++) {
      const lo = words[2 * i];
      const hi = words[2 * i + 1];
      if (kind === "uint") {
        out.lo[i] = lo;
        out.hi[i] = hi;
      } else if (kind === "int" || !(hi & 0x80000000)) {
        out.lo[i] = lo;
        out.hi[i] = hi ^ 0x80000000;
      } else {
        out.lo[i] = ~lo;
        out.hi[i] = ~hi;
      }
    }
    return out;
  }
  const words =
    type.bits === 8
      ? aligned
      : type.bits === 16
        ? new Uint16Array(aligned.buffer, aligned.byteOffset, n)
        : new Uint32Array(aligned.buffer, aligned.byteOffset, n);
  for (let i = 0; i < n; i++) {
    const x = words[i];
    out.lo[i] = kind === "uint" ? x : kind === "int" || !(x & mid) ? x ^ mid : ~x & mask;
  }
  return out;
}

function slice(l: Latents, start: number, end: number): Latents {
  return {
    bits: l.bits,
    lo: l.lo.subarray(start, end),
    hi: l.bits === 64 ? l.hi.subarray(start, end) : l.hi,
  };
}

/** Consecutive delta encoding: the `order` moments and the centered deltas. */
function deltaEncode(x: Latents, order: number): { moments: Latents; body: Latents } {
  const n = x.lo.length;
  const moments = allocLatents(x.bits, order);
  const cur = allocLatents(x.bits, n);
  cur.lo.set(x.lo);
  if (x.bits === 64) cur.hi.set(x.hi);
  let len = n;
  const mask = maskOf(x.bits);
  for (let k = 0; k < order; k++) {
    if (len > 0) {
      moments.lo[k] = cur.lo[0];
      if (x.bits === 64) moments.hi[k] = cur.hi[0];
    }
    for (let i = 0; i < len - 1; i++) {
      if (x.bits === 64) {
        const d = cur.lo[i + 1] - cur.lo[i];
        cur.lo[i] = d;
        cur.hi[i] = cur.hi[i + 1] - cur.hi[i] - (d < 0 ? 1 : 0);
      } else {
        cur.lo[i] = (cur.lo[i + 1] - cur.lo[i]) & mask;
      }
    }
    len = Math.max(0, len - 1);
  }
  const body = slice(cur, 0, len);
  if (order > 0) {
    const mid = midOf(x.bits);
    if (x.bits === 64) for (let i = 0; i < len; i++) body.hi[i] ^= 0x80000000;
    else for (let i = 0; i < len; i++) body.lo[i] ^= mid;
  }
  return { moments, body };
}

const AUTO_SAMPLE = 4096;
const ORDERS = [0, 1, 2, 3, 4, 5, 6, 7];

/**
 * The mode split and consecutive order to encode a chunk with: unless
 * `modes` is `"classic"`, every {@link ModeSplit} candidate (Classic,
 * FloatQuant, IntMult, FloatMult) is tried on a prefix sample with each
 * order (or the configured one), and the smallest kept.
 */
function chooseSplit(
  chunk: Latents,
  type: PcoNumberType,
  options: EncodeOptions,
): [ModeSplit, number] {
  const n = chunk.lo.length;
  const candidates: ModeSplit[] = [classicSplit(chunk)];
  const sampleN = Math.min(n, AUTO_SAMPLE);
  if (options.modes !== "classic") {
    const sample = slice(chunk, 0, sampleN);
    const quant = floatQuantSplit(sample, type);
    const mult = intMultSplit(sample, type);
    if (quant) candidates.push(quant);
    if (mult) candidates.push(mult);
    candidates.push(...floatMultSplits(sample, type));
  }
  const orders = options.deltaOrder === "auto" ? ORDERS : [options.deltaOrder];
  if (candidates.length === 1 && orders.length === 1) return [candidates[0], orders[0]];
  let best: [number, number, number] = [Number.POSITIVE_INFINITY, 0, orders[0]];
  candidates.forEach((candidate, c) => {
    const sample = c === 0 ? sliceSplit(candidate, 0, sampleN) : candidate;
    for (const order of orders) {
      const w = new BitWriter(4096);
      writeChunk(w, sample, type, order, options.level);
      if (w.pos < best[0]) best = [w.pos, c, order];
    }
  });
  const chosen = candidates[best[1]];
  if (best[1] === 0 || n === sampleN) return [best[1] === 0 ? candidates[0] : chosen, best[2]];
  // Found on the sample: split the whole chunk the same way if the mode holds there.
  return [resplit(chosen, chunk, type) ?? classicSplit(chunk), best[2]];
}

function sliceSplit(s: ModeSplit, start: number, end: number): ModeSplit {
  return {
    ...s,
    primary: slice(s.primary, start, end),
    secondary: s.secondary && slice(s.secondary, start, end),
  };
}

/** The sample's mode applied to the whole chunk, or undefined when it does not hold there. */
function resplit(chosen: ModeSplit, chunk: Latents, type: PcoNumberType): ModeSplit | undefined {
  const mode = chosen.mode;
  if (mode.kind === "float_quant") return floatQuantSplit(chunk, type);
  if (mode.kind === "int_mult") return intMultSplit(chunk, type);
  if (mode.kind === "float_mult") {
    return floatMultSplits(chunk, type, [mode.baseLo, mode.baseHi])[0];
  }
  return undefined;
}

function sortedCopy(body: Latents): { lo: Uint32Array; hi: Uint32Array } {
  if (body.bits !== 64) return { lo: Uint32Array.from(body.lo).sort(), hi: body.hi };
  const n = body.lo.length;
  const packed = new BigUint64Array(n);
  const words = new Uint32Array(packed.buffer);
  for (let i = 0; i < n; i++) {
    words[2 * i] = body.lo[i];
    words[2 * i + 1] = body.hi[i];
  }
  packed.sort();
  const lo = new Uint32Array(n);
  const hi = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    lo[i] = words[2 * i];
    hi[i] = words[2 * i + 1];
  }
  return { lo, hi };
}

/** The index of the last bin whose lower bound is <= the latent. */
function findBin(bins: EncoderBins, lo: number, hi: number, wide: boolean): number {
  let a = 0;
  let b = bins.count - 1;
  while (a < b) {
    const mid = (a + b + 1) >>> 1;
    const mHi = wide ? bins.lowerHi[mid] : 0;
    const le = mHi < hi || (mHi === hi && bins.lowerLo[mid] <= lo);
    if (le) a = mid;
    else b = mid - 1;
  }
  return a;
}

/** A latent variable prepared for writing: bins, bin indices, offsets and tANS output. */
interface PreparedVar {
  readonly bins: EncoderBins;
  readonly m: number;
  readonly symbols: Uint16Array;
  readonly offLo: Uint32Array;
  readonly offHi: Uint32Array;
  readonly ansBits: Uint8Array;
  readonly ansVals: Uint16Array;
  readonly states: Uint32Array;
}

function prepareVar(body: Latents, level: number): PreparedVar {
  const wide = body.bits === 64;
  const sorted = sortedCopy(body);
  const bins = chooseBins(sorted.lo, sorted.hi, body.bits, level);
  const m = body.lo.length;
  const symbols = new Uint16Array(m);
  const offLo = new Uint32Array(m);
  const offHi = new Uint32Array(wide ? m : 0);
  for (let i = 0; i < m; i++) {
    const lo = body.lo[i];
    const hi = wide ? body.hi[i] : 0;
    const s = bins.count > 1 ? findBin(bins, lo, hi, wide) : 0;
    symbols[i] = s;
    const d = lo - bins.lowerLo[s];
    offLo[i] = d;
    if (wide) offHi[i] = hi - bins.lowerHi[s] - (d < 0 ? 1 : 0);
  }
  const ansBits = new Uint8Array(m);
  const ansVals = new Uint16Array(m);
  const states = new Uint32Array(4);
  if (bins.count > 1) {
    // tANS runs backwards: the decoder reads symbol i's bits where the encoder wrote them.
    const enc = new AnsEncoder(bins.ansSizeLog, bins.weights);
    states.fill(enc.size);
    for (let i = m - 1; i >= 0; i--) {
      const j = i & 3;
      const x = states[j];
      const b = enc.renormBits(x, symbols[i]);
      ansBits[i] = b;
      ansVals[i] = x & ((1 << b) - 1);
      states[j] = enc.next(x, symbols[i], b);
    }
    for (let j = 0; j < 4; j++) states[j] -= enc.size;
  }
  return { bins, m, symbols, offLo, offHi, ansBits, ansVals, states };
}

function writeVarMeta(w: BitWriter, v: PreparedVar, bits: 8 | 16 | 32 | 64): void {
  const { bins } = v;
  w.write(bins.ansSizeLog, 4);
  w.write(bins.count, 15);
  const obBits = offsetBitsBits(bits);
  for (let i = 0; i < bins.count; i++) {
    w.write(bins.weights[i] - 1, bins.ansSizeLog);
    w.write64(bins.lowerLo[i], bits === 64 ? bins.lowerHi[i] : 0, bits);
    w.write(bins.offsetBits[i], obBits);
  }
}

function writeBatch(w: BitWriter, v: PreparedVar, start: number, wide: boolean): void {
  const end = Math.min(v.m, start + FULL_BATCH_N);
  for (let i = start; i < end; i++) w.write(v.ansVals[i], v.ansBits[i]);
  for (let i = start; i < end; i++) {
    const ob = v.bins.offsetBits[v.symbols[i]];
    if (ob) w.write64(v.offLo[i], wide ? v.offHi[i] : 0, ob);
  }
}

/** Writes one chunk (preamble, chunk metadata, its one page). */
function writeChunk(
  w: BitWriter,
  split: ModeSplit,
  type: PcoNumberType,
  order: number,
  level: number,
): void {
  const n = split.primary.lo.length;
  const bits = type.bits;
  const wide = bits === 64;
  const format = Math.max(formatFor(type).major, split.minFormat);
  const { moments, body } = deltaEncode(split.primary, order);
  const primary = prepareVar(body, level);
  const secondary = split.secondary && prepareVar(split.secondary, level);

  // Chunk preamble: number type and n - 1.
  w.writeBytes([type.byte]);
  w.write(n - 1, 24);
  // Chunk metadata: the mode, the delta encoding, the latent variables.
  const mode = split.mode;
  switch (mode.kind) {
    case "classic":
      w.write(0, 4);
      break;
    case "int_mult":
    case "float_mult":
      w.write(mode.kind === "int_mult" ? 1 : 2, 4);
      w.write64(mode.baseLo, mode.baseHi, bits);
      break;
    case "float_quant":
      w.write(3, 4);
      w.write(mode.k, 8);
      break;
    default:
      throw new Error(`the encoder does not write ${mode.kind} mode`);
  }
  if (format < 3) w.write(order, 3);
  else if (order === 0) w.write(0, 4);
  else {
    w.write(1, 4);
    w.write(order, 3);
    w.write(0, 1); // the secondary latents are not delta encoded
  }
  writeVarMeta(w, primary, bits);
  if (secondary) writeVarMeta(w, secondary, bits);
  w.finishByte();

  // Page metadata: per latent variable its delta state, then the four tANS states.
  for (let k = 0; k < order; k++) w.write64(moments.lo[k], wide ? moments.hi[k] : 0, bits);
  for (let j = 0; j < 4; j++) w.write(primary.states[j], primary.bins.ansSizeLog);
  if (secondary)
    for (let j = 0; j < 4; j++) w.write(secondary.states[j], secondary.bins.ansSizeLog);
  w.finishByte();

  // Batches of 256 numbers: per latent variable, tANS bits then offsets.
  for (let start = 0; start < n; start += FULL_BATCH_N) {
    if (start < primary.m) writeBatch(w, primary, start, wide);
    if (secondary && start < secondary.m) writeBatch(w, secondary, start, wide);
  }
  w.finishByte();
}
