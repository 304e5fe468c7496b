/**
 * The portable engine, for browsers and any runtime without `node:zlib`.
 *
 * Decoding uses the platform's `DecompressionStream` where it exists: native
 * code, faster than pako at every chunk size measured, and nothing to bundle.
 * pako (a port of zlib to JavaScript) is loaded on demand only for what the
 * native stream cannot do: encoding at a chosen level, and the streams it
 * rejects (several gzip members, zero padding, corrupt data — pako then gives
 * the exact verdict). A viewer that only reads therefore never downloads pako.
 *
 * @module
 */
import { type DeflateEngine, type DeflateFormat, EngineError } from "./types.js";

/** pako, in a separate chunk that bundlers load only when it is needed. */
async function pako(): Promise<DeflateEngine> {
  return (await import("./pako.js")).engine;
}

type NativeDecompressor = new (
  format: "gzip" | "deflate",
) => TransformStream<Uint8Array, Uint8Array>;

const Native = (globalThis as { DecompressionStream?: NativeDecompressor }).DecompressionStream;

/** The most output one byte of deflate data can stand for (RFC 1951: a 258-byte match in 2 bits). */
const MAX_RATIO = 1032;
/** The smallest piece of input written to a native stream at a time. */
const MIN_PIECE = 16 * 1024;

/**
 * The result of a native attempt: the bytes, or `undefined` to let pako
 * decide. With a mere bound (not `exact`), the input is written in pieces,
 * each only once the output so far has been read: a native stream that
 * inflated a whole write at once, ignoring backpressure, could otherwise
 * produce a bomb's output before the first read; pieces of
 * `max(16 KiB, maxSize / 1032)` bytes keep what it can produce past the bound
 * to `max(maxSize, 16 MiB)`. (Node's stream honours backpressure within a
 * write; an exact-size decode keeps its single write.)
 */
async function nativeDecompress(
  data: Uint8Array,
  format: DeflateFormat,
  maxSize: number | undefined,
  exact: boolean,
): Promise<Uint8Array | undefined> {
  if (!Native) return undefined;
  let stream: TransformStream<Uint8Array, Uint8Array>;
  try {
    stream = new Native(format === "gzip" ? "gzip" : "deflate");
  } catch {
    return undefined;
  }
  const writer = stream.writable.getWriter();
  const reader = stream.readable.getReader();
  const piece =
    maxSize === undefined || exact
      ? Math.max(1, data.length)
      : Math.max(MIN_PIECE, Math.ceil(maxSize / MAX_RATIO));
  let stopped = false;
  // Errors surface on the reader; the writer's own promises are only observed.
  (async () => {
    for (let at = 0; at < data.length && !stopped; at += piece) {
      await writer.write(data.subarray(at, at + piece));
    }
    if (!stopped) await writer.close();
  })().catch(() => {});
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (maxSize !== undefined && total > maxSize) {
        stopped = true;
        reader.cancel().catch(() => {});
        throw new EngineError(`decoded data exceeds the expected ${maxSize} bytes`, "too-large");
      }
      chunks.push(value);
    }
  } catch (e) {
    stopped = true;
    if (e instanceof EngineError) throw e;
    return undefined;
  }
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.length;
  }
  return out;
}

/** Adler-32 (RFC 1950), the zlib stream's trailer. */
function adler32(data: Uint8Array): number {
  let a = 1;
  let b = 0;
  const n = data.length;
  for (let i = 0; i < n; ) {
    // 5552 bytes keep the sums below 2^32 before the modulo (RFC 1950 sample code).
    const end = Math.min(i + 5552, n);
    for (; i < end; i++) {
      a += data[i]!;
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/**
 * Whether the input ends exactly where the native stream's output says it
 * should: some runtimes' DecompressionStream (Node's) ignore bytes after the
 * stream, which this codec must reject. gzip: the last member's ISIZE is the
 * output length (a single member); zlib: the Adler-32 trailer matches. Anything
 * else (several members, padding, garbage) goes to pako for the exact verdict.
 */
function endsAtTrailer(data: Uint8Array, format: DeflateFormat, out: Uint8Array): boolean {
  const n = data.length;
  if (n < 8) return false;
  const view = new DataView(data.buffer, data.byteOffset, n);
  if (format === "gzip") return view.getUint32(n - 4, true) === out.length % 2 ** 32;
  return view.getUint32(n - 4, false) === adler32(out);
}

/** Native decoding where possible, pako otherwise. */
export const engine: DeflateEngine = {
  name: Native ? "DecompressionStream+pako" : "pako",

  async compress(data, format, level) {
    return (await pako()).compress(data, format, level);
  },

  async decompress(data, format, maxSize, exact) {
    const native = await nativeDecompress(data, format, maxSize, exact === true);
    if (native && endsAtTrailer(data, format, native)) return native;
    return (await pako()).decompress(data, format, maxSize, exact);
  },
};
