// The WebAssembly encoder reuses one compression context for every frame
// (ZSTD_compress_usingDict on a kept ZSTD_CCtx instead of ZSTD_compress, which
// sets up a context per call). Frames must be byte for byte those of a fresh
// context, whatever came before: levels up and down, sizes large and small,
// compressible and random data.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeBase64, gunzip, instantiateZstd, type ZstdWasm } from "../src/wasm.js";
import { ZSTD_WASM_GZIP_BASE64 } from "../src/zstd-wasm.generated.js";

async function instance(reuseContext: boolean): Promise<ZstdWasm> {
  return instantiateZstd(await gunzip(decodeBase64(ZSTD_WASM_GZIP_BASE64)), { reuseContext });
}

function compress(z: ZstdWasm, data: Uint8Array, level: number): Uint8Array {
  const bound = z.compressBound(data.length);
  const src = z.malloc(Math.max(1, data.length));
  const dst = z.malloc(bound);
  try {
    new Uint8Array(z.memory.buffer).set(data, src);
    const n = z.compress(dst, bound, src, data.length, level);
    expect(z.isError(n)).toBe(0);
    return new Uint8Array(z.memory.buffer, dst, n).slice();
  } finally {
    z.free(src);
    z.free(dst);
  }
}

const frameArb = fc.record({
  level: fc.integer({ min: -5, max: 19 }),
  size: fc.integer({ min: 0, max: 100_000 }),
  kind: fc.constantFrom("smooth", "random", "zeros"),
  seed: fc.integer({ min: 1, max: 1 << 30 }),
});

function data({ size, kind, seed }: { size: number; kind: string; seed: number }): Uint8Array {
  const out = new Uint8Array(size);
  let s = seed;
  for (let i = 0; i < size; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out[i] = kind === "zeros" ? 0 : kind === "random" ? s >>> 24 : (i >> 6) ^ (i % 13);
  }
  return out;
}

describe("the encoder's reused compression context", () => {
  it("gives, frame after frame, the bytes a fresh context gives", async () => {
    const kept = await instance(true);
    const fresh = await instance(false); // ZSTD_compress: a new context per frame
    const frames = fc.sample(frameArb, { seed: 11, numRuns: 40 });
    for (const frame of frames) {
      const input = data(frame);
      const expected = compress(fresh, input, frame.level);
      expect(compress(kept, input, frame.level), JSON.stringify(frame)).toEqual(expected);
    }
  });
});
