/**
 * pako (a port of zlib to JavaScript): the portable engine's encoder and its
 * decoder of last resort. pako streams its output in chunks, which lets the
 * decoder stop as soon as the output passes the expected size.
 *
 * @module
 */
import { deflate, gzip, Inflate, type ZStream } from "pako";
import { type DeflateEngine, EngineError, isZeroPadding } from "./types.js";

/** Output chunk size when the decoded size is unknown. */
const DEFAULT_CHUNK = 64 * 1024;

type Level = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | -1;

class TooLarge extends Error {}

/** pako-backed engine (loaded on demand by the portable engine). */
export const engine: DeflateEngine = {
  name: "pako",

  async compress(data, format, level) {
    const options = { level: level as Level };
    return format === "gzip" ? gzip(data, options) : deflate(data, options);
  },

  async decompress(data, format, maxSize, exact) {
    // Exact size: one output chunk one byte larger than expected; reaching that
    // extra byte proves the stream is too large, with at most maxSize + 1
    // bytes allocated. A mere bound is never allocated up front: chunks of
    // 64 KiB, counted as they come.
    const chunkSize =
      maxSize === undefined
        ? DEFAULT_CHUNK
        : exact
          ? maxSize + 1
          : Math.min(maxSize + 1, DEFAULT_CHUNK);
    const inflater = new Inflate({ chunkSize, windowBits: format === "gzip" ? 16 + 15 : 15 });
    const chunks: Uint8Array[] = [];
    let total = 0;
    inflater.onData = (chunk) => {
      total += chunk.length;
      if (maxSize !== undefined && total > maxSize) throw new TooLarge();
      chunks.push(chunk);
    };
    inflater.onEnd = () => {};
    let stream: ZStream | undefined;
    inflater.onStart = (strm) => {
      stream = strm;
    };
    try {
      inflater.push(data, true);
    } catch (e) {
      if (e instanceof TooLarge) {
        throw new EngineError(`decoded data exceeds the expected ${maxSize} bytes`, "too-large");
      }
      throw new EngineError(`pako: ${(e as Error).message}`, "corrupt");
    }
    if (inflater.err !== 0) {
      throw new EngineError(inflater.msg || `pako error ${inflater.err}`, "corrupt");
    }
    const left = stream?.avail_in ?? 0;
    if (left > 0 && !(format === "gzip" && isZeroPadding(data, data.length - left))) {
      throw new EngineError(`${left} trailing bytes after the ${format} stream`, "trailing");
    }
    return concat(chunks, total);
  },
};

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.length;
  }
  return out;
}
