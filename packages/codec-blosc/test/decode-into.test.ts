/**
 * `BloscCodec.decodeInto` (core's optional bytes -> bytes `decodeInto`) must
 * write exactly what `decode` returns, into dirty reused memory, for every
 * compressor, shuffle, typesize and the memcpyed/empty forms; a chunk of
 * another size is a CodecError. Also the decoders' long-match copy.
 */
import "@zarr/codec-blosc/register";
import "@zarr/codec-gzip/register";
import "@zarr/codec-zstd/register";
import { shuffle, unshuffle } from "@zarr/codec-blosc";
import { CodecError } from "@zarr/core";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
// Internal helper without a public entry point, tested directly.
import { copyMatch, viewOf } from "../src/bytes.js";
import { kernelChunkCounts, loadBlockKernels } from "../src/kernels.js";
import { makeCodec, structured } from "./helpers.js";

describe("decodeInto equals decode (Blosc 1 format)", () => {
  it("every cname × shuffle × typesize, into a dirty reused buffer", async () => {
    const sizes = [0, 100, 4096, 70_001];
    for (const cname of ["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"]) {
      for (const shuffle of ["noshuffle", "shuffle", "bitshuffle"]) {
        for (const typesize of [1, 2, 4, 8]) {
          const codec = makeCodec({ cname, clevel: 5, shuffle, typesize }, typesize);
          const scratch = new Uint8Array(70_001).fill(0xee);
          for (const size of sizes) {
            const data = structured(size, typesize + size);
            const enc = await codec.encode(data);
            const expected = await codec.decode(enc, size);
            const out = scratch.subarray(0, size);
            await codec.decodeInto(enc, out);
            expect(Buffer.compare(out, expected)).toBe(0);
            expect(Buffer.compare(out, data)).toBe(0);
          }
        }
      }
    }
  });

  it("clevel 0 (memcpyed) chunks", async () => {
    const codec = makeCodec({ cname: "lz4", clevel: 0, shuffle: "shuffle" }, 4);
    const data = structured(5000, 9);
    const out = new Uint8Array(5000).fill(1);
    await codec.decodeInto(await codec.encode(data), out);
    expect(Buffer.compare(out, data)).toBe(0);
  });

  it("a chunk larger or smaller than the target is a CodecError (nothing written past it)", async () => {
    const codec = makeCodec({ cname: "lz4", clevel: 5, shuffle: "shuffle" }, 4);
    const enc = await codec.encode(structured(4096));
    const big = new Uint8Array(8192);
    const small = big.subarray(0, 4092);
    expect(() => codec.decodeInto(enc, small)).toThrow(CodecError);
    expect(() => codec.decodeInto(enc, small)).toThrow(/exceeds the expected decoded size 4092/);
    expect(big.every((b) => b === 0)).toBe(true);
    expect(() => codec.decodeInto(enc, big)).toThrow(/differs from the expected decoded size 8192/);
  });
});

describe("decodeRangeInto: the blocks holding a byte range, nothing else", () => {
  it("every cname × shuffle, random ranges of multi-block chunks, equal decode's bytes there", async () => {
    const size = 1_000_003;
    for (const cname of ["blosclz", "lz4", "snappy", "zlib", "zstd"]) {
      for (const shuffle of ["noshuffle", "shuffle", "bitshuffle"]) {
        // Small blocks: many per chunk, the last one short.
        const codec = makeCodec({ cname, clevel: 5, shuffle, typesize: 4, blocksize: 16384 }, 4);
        const data = structured(size, 17);
        const enc = await codec.encode(data);
        const blocksize = new DataView(enc.buffer, enc.byteOffset).getUint32(8, true);
        expect(blocksize).toBeLessThan(size / 4);
        const rng = fc.sample(fc.tuple(fc.nat(size), fc.nat(size)), { seed: 5, numRuns: 12 });
        for (const [a, b] of [[0, size], [size - 1, size], [blocksize, blocksize + 1], ...rng]) {
          const [start, end] = a <= b ? [a, b] : [b, a];
          const out = new Uint8Array(size).fill(0xee);
          await codec.decodeRangeInto(enc, out, start, end);
          expect(Buffer.compare(out.subarray(start, end), data.subarray(start, end))).toBe(0);
          // Blocks wholly outside the range are not decoded.
          const firstBlock = Math.floor(start / blocksize) * blocksize;
          if (firstBlock > 0) expect(out[firstBlock - 1]).toBe(0xee);
          const endBlock = Math.max(Math.ceil(end / blocksize), 1) * blocksize;
          if (endBlock < size) expect(out[endBlock]).toBe(0xee);
        }
      }
    }
  });

  it("in the kernels, a range copies in only its blocks' bytes: never another chunk's left in the module, blocks in any order", async () => {
    expect(await loadBlockKernels()).toBe(true);
    const size = 200_000;
    for (const cname of ["lz4", "blosclz"]) {
      for (const shuffle of ["noshuffle", "shuffle", "bitshuffle"]) {
        const codec = makeCodec({ cname, clevel: 5, shuffle, typesize: 4, blocksize: 16384 }, 4);
        // Runs of equal bytes: every mode compresses them (no memcpyed chunk).
        const runs = (seed: number) =>
          Uint8Array.from({ length: size }, (_, i) => ((i >> 6) * 7 + seed) & 255);
        const before = await codec.encode(runs(1));
        const data = runs(2);
        const inOrder = await codec.encode(data);
        for (const enc of [inOrder, reverseBlocks(inOrder)]) {
          const rng = fc.sample(fc.tuple(fc.nat(size), fc.nat(size)), { seed: 9, numRuns: 16 });
          for (const [a, b] of [[0, 1], [size - 1, size], [20_000, 40_000], ...rng]) {
            const [start, end] = a <= b ? [a, b] : [b, a];
            // The module's memory holds another chunk's bytes where these lie.
            await codec.decode(before, size);
            const decoded = kernelChunkCounts().decoded;
            const out = new Uint8Array(size);
            await codec.decodeRangeInto(enc, out, start, end);
            expect(kernelChunkCounts().decoded).toBe(decoded + 1);
            expect(Buffer.compare(out.subarray(start, end), data.subarray(start, end))).toBe(0);
          }
        }
      }
    }
  });

  it("memcpyed chunks copy only the range; a range outside the chunk is a CodecError", async () => {
    const codec = makeCodec({ cname: "lz4", clevel: 0, shuffle: "shuffle" }, 4);
    const data = structured(5000, 3);
    const enc = await codec.encode(data);
    const out = new Uint8Array(5000).fill(1);
    await codec.decodeRangeInto(enc, out, 100, 200);
    expect(Buffer.compare(out.subarray(100, 200), data.subarray(100, 200))).toBe(0);
    expect(out[99]).toBe(1);
    expect(out[200]).toBe(1);
    expect(() => codec.decodeRangeInto(enc, out, 10, 5001)).toThrow(CodecError);
    expect(() => codec.decodeRangeInto(enc, out, 20, 10)).toThrow(CodecError);
  });

  it("arrays read small regions of blosc chunks through it, with the same values", async () => {
    const { createArray, MemoryStore, slice } = await import("@zarr/core");
    const a = await createArray(new MemoryStore(), "r", {
      shape: [300, 200],
      dataType: "float32",
      chunkShape: [100, 200],
      codecs: [
        { name: "bytes", configuration: { endian: "little" } },
        {
          name: "blosc",
          configuration: {
            cname: "lz4",
            clevel: 5,
            shuffle: "shuffle",
            typesize: 4,
            blocksize: 8192,
          },
        },
      ],
    });
    const value = new Float32Array(300 * 200).map((_, i) => Math.sin(i / 50) * 100);
    await a.set(null, value);
    const ranged = vi.spyOn(a.codecs.bytesToBytes[0], "decodeRangeInto");
    for (const [r0, r1, c0, c1] of [
      [5, 9, 10, 20],
      [95, 105, 0, 200],
      [250, 251, 199, 200],
    ]) {
      const got = await a.get([slice(r0, r1), slice(c0, c1)], { workers: false });
      const want: number[] = [];
      for (let r = r0; r < r1; r++) for (let c = c0; c < c1; c++) want.push(value[r * 200 + c]);
      expect(Array.from(got.data as Float32Array)).toEqual(want);
    }
    expect(ranged).toHaveBeenCalled();
  });
});

describe("long overlapping match copies (native doubling) equal a byte-by-byte copy", () => {
  it("any distance and length", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 1, max: 3000 }),
        fc.integer({ min: 0, max: 50 }),
        (dist, len, extra) => {
          const start = dist + extra;
          const a = new Uint8Array(start + len + 8);
          for (let i = 0; i < start; i++) a[i] = (i * 131 + 7) & 255;
          const b = a.slice();
          expect(copyMatch(a, viewOf(a), start, dist, len)).toBe(start + len);
          for (let i = start; i < start + len; i++) b[i] = b[i - dist];
          expect(Buffer.compare(a, b)).toBe(0);
        },
      ),
      { seed: 42, numRuns: 400 },
    );
  });
});

describe("byte shuffle fast paths (typesize 2 and multiples of 4) equal the byte-by-byte layout", () => {
  it("out[j*n + i] = in[i*ts + j] at any size and alignment, and unshuffle inverts it", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(2, 3, 4, 8, 12, 16, 2, 8),
        fc.integer({ min: 0, max: 700 }),
        fc.constantFrom(0, 0, 4, 1, 3, 6),
        fc.constantFrom(0, 0, 4, 1, 3, 6),
        fc.integer({ min: 1, max: 1 << 30 }),
        (ts, size, srcOff, dstOff, seed) => {
          const src = new Uint8Array(srcOff + size);
          let x = seed;
          for (let i = 0; i < src.length; i++) {
            x = (Math.imul(x, 1103515245) + 12345) >>> 0;
            src[i] = x >>> 24;
          }
          const n = Math.floor(size / ts);
          const expected = new Uint8Array(size);
          for (let i = 0; i < n; i++) {
            for (let j = 0; j < ts; j++) expected[j * n + i] = src[srcOff + i * ts + j];
          }
          for (let k = n * ts; k < size; k++) expected[k] = src[srcOff + k];
          const dst = new Uint8Array(dstOff + size);
          shuffle(ts, src, srcOff, dst, dstOff, size);
          expect(Buffer.compare(dst.subarray(dstOff), expected)).toBe(0);
          const back = new Uint8Array(srcOff + size);
          unshuffle(ts, dst, dstOff, back, srcOff, size);
          expect(Buffer.compare(back.subarray(srcOff), src.subarray(srcOff))).toBe(0);
        },
      ),
      { seed: 42, numRuns: 1500 },
    );
  });
});

/**
 * The Blosc 1 chunk `chunk` with its blocks' bytes laid out in reverse order
 * (and the offsets table to match): as valid, as c-blosc reads any layout.
 */
function reverseBlocks(chunk: Uint8Array): Uint8Array {
  const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.length);
  const nbytes = view.getUint32(4, true);
  const blocksize = view.getUint32(8, true);
  const cbytes = view.getUint32(12, true);
  expect(chunk[2] & 0x02).toBe(0); // not memcpyed: there are blocks
  const nblocks = Math.ceil(nbytes / blocksize);
  const starts = Array.from({ length: nblocks }, (_, b) => view.getUint32(16 + 4 * b, true));
  const ends = starts.map((s, b) => (b + 1 < nblocks ? starts[b + 1] : cbytes));
  const out = new Uint8Array(cbytes);
  out.set(chunk.subarray(0, 16 + 4 * nblocks));
  const outView = new DataView(out.buffer);
  let pos = 16 + 4 * nblocks;
  for (let b = nblocks - 1; b >= 0; b--) {
    out.set(chunk.subarray(starts[b], ends[b]), pos);
    outView.setUint32(16 + 4 * b, pos, true);
    pos += ends[b] - starts[b];
  }
  expect(pos).toBe(cbytes);
  return out;
}
