/**
 * Strided copies between flat C-order buffers: the inner loop of every read
 * (chunk -> output) and write (output -> chunk).
 *
 * Positions are in elements; an element occupies `width` consecutive slots
 * (2 for complex, N/8 for r<N>, else 1). Contiguous innermost runs are copied in
 * bulk (`TypedArray.prototype.set`/`copyWithin`/`fill`), and adjacent
 * dimensions that are contiguous on both sides are merged into one run first.
 *
 * @module
 */
import type { DataArray } from "../dtypes/types.js";
import { IndexError } from "../errors.js";
import { type Axis, axisCount } from "./types.js";

/**
 * `data` as slots that copy bit for bit: a `Float32Array` as a `Uint32Array`
 * over the same memory, since reading a float32 element widens it to a
 * float64 number, which quiets a signaling NaN (x86: `0x7f800001` becomes
 * `0x7fc00001`). Other arrays are returned as they are (float64 elements are
 * not converted, and the rest are integers or JavaScript values).
 */
export function bitExact<T extends DataArray>(data: T): T {
  return (
    data instanceof Float32Array ? new Uint32Array(data.buffer, data.byteOffset, data.length) : data
  ) as T;
}

/** Below this many slots, an element loop beats a `subarray` + `set` call. */
const BULK_MIN_SLOTS = 16;

/** C-order strides (in elements) of a shape. */
export function cStrides(shape: readonly number[]): number[] {
  const strides = new Array<number>(shape.length);
  let s = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    strides[d] = s;
    s *= shape[d];
  }
  return strides;
}

/**
 * Resolves a chunk selection against the chunk's strides: integer entries fold
 * into a base offset; the axes are returned paired with their strides.
 */
export function resolveAxes(
  sel: readonly (number | Axis)[],
  strides: readonly number[],
): { offset: number; axes: Axis[]; strides: number[] } {
  if (sel.length !== strides.length) {
    throw new IndexError(
      `selection of ${sel.length} dimensions does not match ${strides.length} strides`,
    );
  }
  let offset = 0;
  const axes: Axis[] = [];
  const out: number[] = [];
  for (let d = 0; d < sel.length; d++) {
    const s = sel[d];
    if (typeof s === "number") offset += s * strides[d];
    else {
      axes.push(s);
      out.push(strides[d]);
    }
  }
  return { offset, axes, strides: out };
}

/**
 * One side of a copy after planning: base offset and, per dimension, either an
 * element step (`idx[d] === null`) or explicit positions times a stride.
 */
interface Side {
  base: number;
  step: number[];
  idx: (Int32Array | null)[];
  stride: number[];
}

interface Plan {
  counts: number[];
  sides: Side[];
}

/**
 * Builds the loop plan: folds progression starts and single-position axes into
 * the base offsets, drops them, and merges neighbouring dimensions that are
 * progressions with compatible steps on every side. Returns `null` when there
 * is nothing to copy.
 */
function plan(
  arrays: readonly DataArray[],
  offsets: readonly number[],
  axesList: readonly (readonly Axis[])[],
  stridesList: readonly (readonly number[])[],
  width: number,
): Plan | null {
  if (!Number.isSafeInteger(width) || width < 1) {
    throw new IndexError(`strided copy: element width ${width} must be a positive integer`);
  }
  const nd = axesList[0].length;
  for (let s = 0; s < axesList.length; s++) {
    if (axesList[s].length !== nd || stridesList[s].length !== nd) {
      throw new IndexError(
        `strided copy: ${axesList[s].length} axes / ${stridesList[s].length} strides, expected ${nd}`,
      );
    }
  }
  let empty = false;
  for (let d = 0; d < nd; d++) {
    const n = axisCount(axesList[0][d]);
    for (let s = 1; s < axesList.length; s++) {
      const m = axisCount(axesList[s][d]);
      if (m !== n) {
        throw new IndexError(
          `strided copy: axis ${d} selects ${n} positions on one side, ${m} on the other`,
        );
      }
    }
    if (n === 0) empty = true;
  }
  if (empty) return null;
  for (let s = 0; s < axesList.length; s++) {
    checkBounds(arrays[s], offsets[s], axesList[s], stridesList[s], width, s);
  }
  const counts: number[] = [];
  const sides: Side[] = axesList.map((_, s) => ({
    base: offsets[s],
    step: [],
    idx: [],
    stride: [],
  }));
  for (let d = 0; d < nd; d++) {
    const n = axisCount(axesList[0][d]);
    if (n === 1) {
      for (let s = 0; s < sides.length; s++) {
        const a = axesList[s][d];
        sides[s].base += ("indices" in a ? a.indices[0] : a.start) * stridesList[s][d];
      }
      continue;
    }
    // Merge into the previous kept dimension when every side is a progression
    // whose outer step equals the inner step times the inner count.
    const last = counts.length - 1;
    let merge = last >= 0;
    for (let s = 0; s < sides.length && merge; s++) {
      const a = axesList[s][d];
      const side = sides[s];
      merge =
        !("indices" in a) &&
        side.idx[last] === null &&
        side.step[last] === a.step * stridesList[s][d] * n;
    }
    for (let s = 0; s < sides.length; s++) {
      const a = axesList[s][d];
      const side = sides[s];
      const stride = stridesList[s][d];
      if ("indices" in a) {
        side.step.push(0);
        side.idx.push(a.indices);
        side.stride.push(stride);
      } else {
        side.base += a.start * stride;
        if (merge) {
          side.step[last] = a.step * stride;
        } else {
          side.step.push(a.step * stride);
          side.idx.push(null);
          side.stride.push(stride);
        }
      }
    }
    if (merge) counts[last] *= n;
    else counts.push(n);
  }
  return { counts, sides };
}

/** Offset of the first position of the explicit-position dimensions before `inner`. */
function outerStart(side: Side, inner: number): number {
  let o = 0;
  for (let d = 0; d < inner; d++) {
    const idx = side.idx[d];
    if (idx !== null) o += idx[0] * side.stride[d];
  }
  return o;
}

/**
 * Throws unless every selected element lies inside `array`: a wrong offset must
 * fail loudly, not write past a typed array's end (silently dropped) or grow a
 * JS array.
 */
function checkBounds(
  array: DataArray,
  offset: number,
  axes: readonly Axis[],
  strides: readonly number[],
  width: number,
  side: number,
): void {
  let lo = offset;
  let hi = offset;
  for (let d = 0; d < axes.length; d++) {
    const a = axes[d];
    const st = strides[d];
    let first: number;
    let last: number;
    if ("indices" in a) {
      first = Number.POSITIVE_INFINITY;
      last = Number.NEGATIVE_INFINITY;
      const idx = a.indices;
      for (let k = 0; k < idx.length; k++) {
        const v = idx[k];
        if (v < first) first = v;
        if (v > last) last = v;
      }
    } else {
      first = a.start;
      last = a.start + (a.count - 1) * a.step;
    }
    lo += Math.min(first * st, last * st);
    hi += Math.max(first * st, last * st);
  }
  if (!(lo >= 0 && (hi + 1) * width <= array.length) || !Number.isSafeInteger(hi)) {
    throw new IndexError(
      `strided copy: ${side === 0 ? "first" : "second"} array positions [${lo}, ${hi}] (width ${width}) fall outside its ${array.length} slots`,
    );
  }
}

/** Offset change along dimension `d` from position `k - 1` to `k`. */
function delta(side: Side, d: number, k: number): number {
  const idx = side.idx[d];
  return idx === null ? side.step[d] : (idx[k] - idx[k - 1]) * side.stride[d];
}

/** Offset of position `k` relative to position 0 along dimension `d`. */
function span(side: Side, d: number, k: number): number {
  const idx = side.idx[d];
  return idx === null ? side.step[d] * k : (idx[k] - idx[0]) * side.stride[d];
}

type Slots = { [i: number]: unknown; length: number };

/**
 * Copies `prod(counts)` elements: element `k` (a multi-index over the axes)
 * moves from `src[srcOffset + Σ pos(srcAxes[d], k_d) * srcStrides[d]]` to the
 * matching position of `dst`. Both axis lists must select the same number of
 * positions per dimension. Works for typed arrays and JS arrays; when `src`
 * and `dst` are the same array, the regions should not overlap except as
 * whole runs (which move like `copyWithin`).
 *
 * @param width - slots per element (slot index = element index * width + j).
 */
export function copyStrided(
  src: DataArray,
  srcOffset: number,
  srcAxes: readonly Axis[],
  srcStrides: readonly number[],
  dst: DataArray,
  dstOffset: number,
  dstAxes: readonly Axis[],
  dstStrides: readonly number[],
  width: number,
): void {
  const p = plan(
    [src, dst],
    [srcOffset, dstOffset],
    [srcAxes, dstAxes],
    [srcStrides, dstStrides],
    width,
  );
  if (p === null) return;
  const { counts } = p;
  const [S, D] = p.sides;
  const nd = counts.length;
  const s = bitExact(src) as unknown as Slots;
  const t = bitExact(dst) as unknown as Slots;
  const typed = ArrayBuffer.isView(src) && ArrayBuffer.isView(dst);
  const same = (src as unknown) === (dst as unknown);

  if (nd === 0) {
    copyRun(s, t, S.base * width, D.base * width, width, typed, same);
    return;
  }
  const inner = nd - 1;
  const m = counts[inner];
  const sIdx = S.idx[inner];
  const dIdx = D.idx[inner];
  const sStep = S.step[inner];
  const dStep = D.step[inner];
  const sStr = S.stride[inner];
  const dStr = D.stride[inner];
  const contiguous = sIdx === null && dIdx === null && sStep === 1 && dStep === 1;
  // Runs between typed arrays of one slot size move as bytes: one array kind
  // at every call site, whatever the data type (much faster for short runs).
  const slotBytes = typed ? (src as Uint8Array).BYTES_PER_ELEMENT : 0;
  const asBytes =
    contiguous && typed && slotBytes === (dst as Uint8Array).BYTES_PER_ELEMENT && !same;
  const sBytes = asBytes ? bytesOf(src as Uint8Array) : undefined;
  const tBytes = asBytes ? bytesOf(dst as Uint8Array) : undefined;
  const k = width * slotBytes;
  // Short runs of whole 4-byte words move as words (a call per run costs more),
  // between different memory only (a forward loop over overlapping views would
  // read what it wrote; `set` copies as if through a buffer).
  const short =
    sBytes !== undefined &&
    tBytes !== undefined &&
    sBytes.buffer !== tBytes.buffer &&
    k % 4 === 0 &&
    m * k < WORD_LOOP_MAX_BYTES;
  const sWords = short ? wordsOf(sBytes) : undefined;
  const tWords = short ? wordsOf(tBytes) : undefined;
  const ctr = new Array<number>(inner).fill(0);
  let so = S.base + outerStart(S, inner);
  let to = D.base + outerStart(D, inner);
  while (true) {
    if (sWords !== undefined && tWords !== undefined) {
      const w = k >> 2;
      copyWords(sWords, tWords, so * w, to * w, m * w);
    } else if (sBytes !== undefined && tBytes !== undefined) {
      copyBytes(sBytes, tBytes, so * k, to * k, m * k);
    } else if (contiguous) {
      copyRun(s, t, so * width, to * width, m * width, typed, same);
    } else if (width === 1) {
      for (let k = 0; k < m; k++) {
        t[to + (dIdx === null ? k * dStep : dIdx[k] * dStr)] =
          s[so + (sIdx === null ? k * sStep : sIdx[k] * sStr)];
      }
    } else {
      for (let k = 0; k < m; k++) {
        const a = (to + (dIdx === null ? k * dStep : dIdx[k] * dStr)) * width;
        const b = (so + (sIdx === null ? k * sStep : sIdx[k] * sStr)) * width;
        for (let j = 0; j < width; j++) t[a + j] = s[b + j];
      }
    }
    let d = inner - 1;
    for (; d >= 0; d--) {
      const k = ++ctr[d];
      if (k < counts[d]) {
        so += delta(S, d, k);
        to += delta(D, d, k);
        break;
      }
      ctr[d] = 0;
      so -= span(S, d, k - 1);
      to -= span(D, d, k - 1);
    }
    if (d < 0) return;
  }
}

/** The bytes of a typed array's elements. */
function bytesOf(a: Uint8Array): Uint8Array {
  return a instanceof Uint8Array && a.constructor === Uint8Array
    ? a
    : new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

/** Below this many bytes, a byte loop beats a `subarray` + `set` call. */
const BULK_MIN_BYTES = 64;

/**
 * Below this many bytes, a loop over 4-byte words beats a `subarray` + `set`
 * call (about 3× for 64-byte runs, even at 256; Node 20 and 24).
 */
const WORD_LOOP_MAX_BYTES = 256;

/** The 4-byte words of `bytes` when its offset is a multiple of 4; `undefined` otherwise. */
function wordsOf(bytes: Uint8Array): Int32Array | undefined {
  if (bytes.byteOffset % 4 !== 0) return undefined;
  return new Int32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 2);
}

/** Copies `n` words from `s[from]` to `t[to]` (different memory). */
function copyWords(s: Int32Array, t: Int32Array, from: number, to: number, n: number): void {
  for (let j = 0; j < n; j++) t[to + j] = s[from + j];
}

/** Copies `n` bytes from `s[from]` to `t[to]` (different memory). */
function copyBytes(s: Uint8Array, t: Uint8Array, from: number, to: number, n: number): void {
  if (n >= BULK_MIN_BYTES) {
    t.set(s.subarray(from, from + n), to);
    return;
  }
  for (let j = 0; j < n; j++) t[to + j] = s[from + j];
}

function copyRun(
  s: Slots,
  t: Slots,
  from: number,
  to: number,
  n: number,
  typed: boolean,
  same: boolean,
): void {
  if (typed && n >= BULK_MIN_SLOTS) {
    if (same) {
      (t as unknown as Uint8Array).copyWithin(to, from, from + n);
    } else {
      (t as unknown as Uint8Array).set((s as unknown as Uint8Array).subarray(from, from + n), to);
    }
    return;
  }
  for (let j = 0; j < n; j++) t[to + j] = s[from + j];
}

/**
 * Writes one element (`value`: `width` slots, same array kind as `dst`) into
 * every position selected by `axes` (with `strides`) from `dstOffset`.
 */
export function fillStrided(
  dst: DataArray,
  dstOffset: number,
  axes: readonly Axis[],
  strides: readonly number[],
  value: DataArray,
  width: number,
): void {
  if (value.length < width) {
    throw new IndexError(`fill value has ${value.length} slots, expected ${width}`);
  }
  const p = plan([dst], [dstOffset], [axes], [strides], width);
  if (p === null) return;
  const { counts } = p;
  const [D] = p.sides;
  const nd = counts.length;
  const t = bitExact(dst) as unknown as Slots;
  const v = bitExact(value) as unknown as Slots;
  if (nd === 0) {
    for (let j = 0; j < width; j++) t[D.base * width + j] = v[j];
    return;
  }
  const inner = nd - 1;
  const m = counts[inner];
  const dIdx = D.idx[inner];
  const dStep = D.step[inner];
  const dStr = D.stride[inner];
  const runFill = dIdx === null && dStep === 1 && width === 1;
  const v0 = v[0];
  const ctr = new Array<number>(inner).fill(0);
  let to = D.base + outerStart(D, inner);
  while (true) {
    if (runFill) {
      (t as unknown as { fill(v: unknown, a: number, b: number): void }).fill(v0, to, to + m);
    } else {
      for (let k = 0; k < m; k++) {
        const a = (to + (dIdx === null ? k * dStep : dIdx[k] * dStr)) * width;
        for (let j = 0; j < width; j++) t[a + j] = v[j];
      }
    }
    let d = inner - 1;
    for (; d >= 0; d--) {
      const k = ++ctr[d];
      if (k < counts[d]) {
        to += delta(D, d, k);
        break;
      }
      ctr[d] = 0;
      to -= span(D, d, k - 1);
    }
    if (d < 0) return;
  }
}
