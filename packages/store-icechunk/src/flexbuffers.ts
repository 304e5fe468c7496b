/**
 * A small, bounds-checked FlexBuffers reader (https://flatbuffers.dev/flexbuffers/),
 * enough for the repository configuration that Icechunk 2 serializes with
 * serde into the repo info file: maps, vectors (typed or not), strings, keys,
 * integers, floats, booleans and null, decoded to plain JSON-like values.
 * Depth and element counts are bounded; any malformed offset is an error.
 *
 * @module
 */

/** A decoded FlexBuffers value. */
export type FlexValue =
  | null
  | boolean
  | number
  | string
  | Uint8Array
  | FlexValue[]
  | { [key: string]: FlexValue };

const MAX_DEPTH = 64;
const decoder = new TextDecoder("utf-8", { fatal: true });

/** Decodes a FlexBuffers buffer; throws an `Error` naming what is malformed. */
export function readFlexBuffer(bytes: Uint8Array): FlexValue {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = bytes.length;
  const fail = (what: string): never => {
    throw new Error(`malformed FlexBuffer: ${what}`);
  };
  const check = (pos: number, size: number): void => {
    if (!(pos >= 0 && size >= 0 && pos + size <= n))
      fail(`read of ${size} bytes at ${pos} is outside ${n} bytes`);
  };
  const uint = (pos: number, width: number): number => {
    check(pos, width);
    switch (width) {
      case 1:
        return view.getUint8(pos);
      case 2:
        return view.getUint16(pos, true);
      case 4:
        return view.getUint32(pos, true);
      default: {
        const v = view.getBigUint64(pos, true);
        return v > BigInt(Number.MAX_SAFE_INTEGER)
          ? fail("an offset or size above 2^53")
          : Number(v);
      }
    }
  };
  const int = (pos: number, width: number): number => {
    check(pos, width);
    switch (width) {
      case 1:
        return view.getInt8(pos);
      case 2:
        return view.getInt16(pos, true);
      case 4:
        return view.getInt32(pos, true);
      default:
        return Number(view.getBigInt64(pos, true));
    }
  };
  const float = (pos: number, width: number): number => {
    check(pos, width);
    return width === 4
      ? view.getFloat32(pos, true)
      : width === 8
        ? view.getFloat64(pos, true)
        : fail(`a ${width}-byte float`);
  };
  const indirect = (pos: number, width: number): number => {
    const target = pos - uint(pos, width);
    check(target, 0);
    return target;
  };
  const text = (b: Uint8Array): string => {
    try {
      return decoder.decode(b);
    } catch {
      return fail("a string that is not valid UTF-8");
    }
  };
  const cstring = (pos: number): string => {
    let end = pos;
    while (end < n && bytes[end] !== 0) end++;
    if (end >= n) fail("a key without its terminating NUL");
    return text(bytes.subarray(pos, end));
  };

  // `pos` holds a value of `width` bytes whose packed type is `type` (type << 2 | log2 bit width).
  const value = (pos: number, parentWidth: number, packed: number, depth: number): FlexValue => {
    if (depth > MAX_DEPTH) fail(`nesting deeper than ${MAX_DEPTH}`);
    const type = packed >> 2;
    const width = 1 << (packed & 3);
    switch (type) {
      case 0:
        return null;
      case 1:
        return int(pos, parentWidth);
      case 2:
        return uint(pos, parentWidth);
      case 3:
        return float(pos, parentWidth);
      case 26:
        return uint(pos, parentWidth) !== 0;
      case 6:
        return int(indirect(pos, parentWidth), width);
      case 7:
        return uint(indirect(pos, parentWidth), width);
      case 8:
        return float(indirect(pos, parentWidth), width);
      case 4:
        return cstring(indirect(pos, parentWidth));
      case 5:
      case 25: {
        const start = indirect(pos, parentWidth);
        const size = uint(start - width, width);
        check(start, size);
        const b = bytes.subarray(start, start + size);
        return type === 25 ? b : text(b);
      }
      case 9:
        return map(indirect(pos, parentWidth), width, depth);
      case 10:
        return untypedVector(indirect(pos, parentWidth), width, depth);
      default: {
        const typed = typedVectorElement(type);
        if (typed === undefined) return fail(`unknown value type ${type}`);
        const start = indirect(pos, parentWidth);
        const size = typed.count ?? uint(start - width, width);
        check(start, size * width);
        const out: FlexValue[] = [];
        for (let i = 0; i < size; i++)
          out.push(value(start + i * width, width, (typed.element << 2) | (packed & 3), depth + 1));
        return out;
      }
    }
  };
  const untypedVector = (start: number, width: number, depth: number): FlexValue[] => {
    const size = uint(start - width, width);
    check(start, size * width + size);
    const out: FlexValue[] = [];
    for (let i = 0; i < size; i++)
      out.push(value(start + i * width, width, bytes[start + size * width + i], depth + 1));
    return out;
  };
  const map = (start: number, width: number, depth: number): { [key: string]: FlexValue } => {
    const size = uint(start - width, width);
    const keysWidth = uint(start - 2 * width, width);
    const keys = indirect(start - 3 * width, width);
    if (![1, 2, 4, 8].includes(keysWidth)) fail(`map keys of width ${keysWidth}`);
    check(keys, size * keysWidth);
    check(start, size * width + size);
    const out: { [key: string]: FlexValue } = {};
    for (let i = 0; i < size; i++) {
      const key = cstring(indirect(keys + i * keysWidth, keysWidth));
      out[key] = value(start + i * width, width, bytes[start + size * width + i], depth + 1);
    }
    return out;
  };

  if (n < 3) fail(`${n} bytes, too few for a root`);
  const rootWidth = bytes[n - 1];
  if (![1, 2, 4, 8].includes(rootWidth)) fail(`root width ${rootWidth}`);
  return value(n - 2 - rootWidth, rootWidth, bytes[n - 2], 0);
}

/** Typed vectors: 11-15 (sized, of int/uint/float/key/string), 16-24 (2, 3 or 4 elements), 36 (bool). */
function typedVectorElement(type: number): { element: number; count?: number } | undefined {
  if (type >= 11 && type <= 15) return { element: type - 10 };
  if (type >= 16 && type <= 24)
    return { element: ((type - 16) % 3) + 1, count: Math.floor((type - 16) / 3) + 2 };
  if (type === 36) return { element: 26 };
  return undefined;
}
