/**
 * The Node engine: native zlib from `node:zlib`. Inputs above
 * {@link ASYNC_THRESHOLD} use the asynchronous API, which runs in the libuv
 * thread pool so that several chunks decode in parallel; small ones use the
 * synchronous API, whose per-call cost is lower.
 *
 * @module
 */
import * as buffer from "node:buffer";
import * as zlib from "node:zlib";
import { type DeflateEngine, type DeflateFormat, EngineError, isZeroPadding } from "./types.js";

/** Byte size from which the thread-pool (async) API is used; measured in bench/codecs/gzip-zstd.mjs. */
export const ASYNC_THRESHOLD = 64 * 1024;

type Result = { buffer: Buffer; engine: { bytesWritten: number } };

function run(
  data: Uint8Array,
  options: zlib.ZlibOptions & { info: true },
  sync: (buf: Uint8Array, o: zlib.ZlibOptions) => Result,
  async: (buf: Uint8Array, o: zlib.ZlibOptions, cb: (e: Error | null, r: Result) => void) => void,
): Promise<Result> {
  if (data.length < ASYNC_THRESHOLD) {
    try {
      return Promise.resolve(sync(data, options));
    } catch (e) {
      return Promise.reject(e);
    }
  }
  return new Promise((resolve, reject) => {
    async(data, options, (e, r) => (e ? reject(e) : resolve(r)));
  });
}

const inflaters = {
  gzip: [zlib.gunzipSync, zlib.gunzip],
  zlib: [zlib.inflateSync, zlib.inflate],
} as unknown as Record<DeflateFormat, [Parameters<typeof run>[2], Parameters<typeof run>[3]]>;

const deflaters = {
  gzip: [zlib.gzipSync, zlib.gzip],
  zlib: [zlib.deflateSync, zlib.deflate],
} as unknown as Record<DeflateFormat, [Parameters<typeof run>[2], Parameters<typeof run>[3]]>;

/**
 * zlib's output chunk size (`chunkSize`, default 16 KiB). Node collects the
 * output in chunks of this size and concatenates them at the end, so one
 * chunk as large as the expected output saves the copies: inflating the
 * benchmark's 64 zlib-1 chunks of 1 MiB (16 in flight) took 135 ms instead of
 * 195 ms; deflating with chunks of a quarter of the input, 1.1× faster. 64
 * bytes of slack keep zlib from asking for a second chunk when the output
 * exactly fills the first.
 */
function outputChunkSize(expected: number): number {
  return Math.min(Math.max(expected + 64, MIN_CHUNK), MAX_CHUNK);
}
const MIN_CHUNK = 16 * 1024;
const MAX_CHUNK = 64 * 1024 * 1024;

/**
 * The output chunk size when `limit` is only a bound (hostile data may claim
 * it all): about four times the input, at most 1 MiB, so that the output
 * grows with what the stream really holds and never starts at the bound.
 */
function boundedChunkSize(inputLength: number, limit: number): number {
  return Math.min(Math.max(4 * inputLength, MIN_CHUNK), MAX_BOUNDED_CHUNK, limit + 64);
}
const MAX_BOUNDED_CHUNK = 1024 * 1024;

function toBytes(buf: Buffer): Uint8Array {
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

/** `node:zlib`-backed engine. */
export const engine: DeflateEngine = {
  name: "node:zlib",
  offThread: true,

  async compress(data, format, level) {
    const [sync, async] = deflaters[format];
    const chunkSize = outputChunkSize(data.length >>> 2);
    const r = await run(data, { level, info: true, chunkSize }, sync, async);
    return toBytes(r.buffer);
  },

  async decompress(data, format, maxSize, exact = false) {
    const [sync, async] = inflaters[format];
    // maxOutputLength must be >= 1; an output of 1 byte for maxSize 0 is rejected below.
    // node:zlib checks it after each output chunk, sync and async alike.
    // A bound past the largest Buffer cannot be reached anyway (zlib rejects it as an option).
    const limit =
      maxSize === undefined
        ? undefined
        : Math.min(Math.max(1, maxSize), buffer.constants.MAX_LENGTH);
    let r: Result;
    try {
      r = await run(
        data,
        limit === undefined
          ? { info: true }
          : {
              info: true,
              maxOutputLength: limit,
              chunkSize: exact ? outputChunkSize(limit) : boundedChunkSize(data.length, limit),
            },
        sync,
        async,
      );
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === "ERR_BUFFER_TOO_LARGE") {
        throw new EngineError(`decoded data exceeds the expected ${maxSize} bytes`, "too-large");
      }
      throw new EngineError((e as Error).message, "corrupt");
    }
    if (maxSize !== undefined && r.buffer.byteLength > maxSize) {
      throw new EngineError(`decoded data exceeds the expected ${maxSize} bytes`, "too-large");
    }
    // Node stops silently at the end of a zlib stream, and at the end of the
    // last gzip member when a zero byte follows: reject any other tail.
    const used = r.engine.bytesWritten;
    if (used < data.length && !(format === "gzip" && isZeroPadding(data, used))) {
      throw new EngineError(
        `${data.length - used} trailing bytes after the ${format} stream`,
        "trailing",
      );
    }
    return toBytes(r.buffer);
  },
};
