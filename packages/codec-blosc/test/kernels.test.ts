// The WebAssembly block kernels (wasm/kernels.c) against the TypeScript
// decoders: the same bytes for every valid block or chunk, the same
// CodecError message for every malformed one (LZ4 block format: lz4_Block_format.md, "Block
// format": token, literal length runs of 255, 2-byte little-endian offset,
// match length + 4, last sequence literals only).
import "@zarr/codec-gzip/register";
import "@zarr/codec-zstd/register";
import { randomBytes, smoothField } from "@zarr/test-utils";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { bloscCompressSync, bloscDecompressInto, bloscDecompressSync } from "../src/api.js";
import { blockKernels, loadBlockKernels, useBlockKernels } from "../src/kernels.js";
import { lz4Compress, lz4DecompressInto } from "../src/lz4.js";
import { bitshuffle, bitunshuffle, shuffle, unshuffle } from "../src/shuffle.js";
import { makeCodec } from "./helpers.js";

let loaded = false;
beforeAll(async () => {
  loaded = await loadBlockKernels();
});
afterAll(() => useBlockKernels(true));

/** Decodes with the kernel (`wasm`) or TypeScript: bytes written and output, or the error message. */
function decode(engine: "wasm" | "ts", block: Uint8Array, capacity: number) {
  useBlockKernels(engine === "wasm");
  try {
    const out = new Uint8Array(capacity);
    const n = lz4DecompressInto(block, out, "p");
    return { n, out: Array.from(out.subarray(0, n)) };
  } catch (e) {
    return { error: `${(e as Error).name}: ${(e as Error).message}` };
  } finally {
    useBlockKernels(true);
  }
}

function same(block: Uint8Array, capacity: number): void {
  expect(decode("wasm", block, capacity)).toEqual(decode("ts", block, capacity));
}

describe("LZ4 block kernel (WebAssembly)", () => {
  it("loads in Node", () => {
    expect(loaded).toBe(true);
  });

  it("decodes what lz4Compress writes, identically, for every kind of data", () => {
    const shuffled = new Uint8Array(1 << 20);
    const field = smoothField(1 << 18);
    shuffle(4, field, 0, shuffled, 0, field.length);
    const inputs = [
      new Uint8Array(0),
      new Uint8Array(1).fill(7),
      new Uint8Array(100_000), // offset-1 matches
      Uint8Array.from({ length: 70_000 }, (_, i) => i % 3), // offsets 3
      Uint8Array.from({ length: 70_000 }, (_, i) => (i * i) >> 9), // mixed
      randomBytes(50_000, 1), // literals only
      field,
      shuffled,
    ];
    for (const data of inputs) {
      const block = lz4Compress(data);
      same(block, data.length);
      const w = decode("wasm", block, data.length);
      expect(w.n).toBe(data.length);
      // A capacity larger than needed (the kernel's wide copies stay inside).
      same(block, data.length + 33);
      // One byte short: both fail alike.
      if (data.length > 0) same(block, data.length - 1);
    }
  });

  it("hand-made blocks: every error code, overlapping matches of every small offset", () => {
    const blocks: number[][] = [
      [], // missing token
      [0xf0], // truncated literal length
      [0xf0, 0xff], // truncated literal length after a 255
      [0x30, 1, 2], // literals past the input
      [0x10, 9, 0x00], // literal then truncated offset
      [0x10, 9, 0x00, 0x00], // zero offset
      [0x10, 9, 0x05, 0x00], // offset before the start
      [0x1f, 9, 0x01, 0x00], // truncated match length
      [0x1f, 9, 0x01, 0x00, 0xff], // truncated match length after a 255
      [0x10, 9, 0x01, 0x00], // block ends with a match
      [0x10, 9, 0x01, 0x00, 0x00], // valid: literal 9, 4 more 9s, empty last literals
    ];
    for (let offset = 1; offset <= 20; offset++) {
      const lits = Array.from({ length: offset }, (_, i) => i + 1);
      // `offset` literals, a match of 15 + 4 + 40 at that offset, one final literal.
      blocks.push([(Math.min(offset, 15) << 4) | 15]);
      const b = blocks[blocks.length - 1]!;
      if (offset >= 15) b.push(offset - 15);
      b.push(...lits, offset, 0, 40, 0x10, 99);
    }
    for (const b of blocks) {
      for (const capacity of [0, 8, 64, 200]) same(Uint8Array.from(b), capacity);
    }
  });

  it("length runs that would overflow 32 bits fail like the TypeScript decoder", () => {
    // 15 + 255 * n: a 17 MB run of 255s claims more than 2^32 literals.
    const run = new Uint8Array(17 * 2 ** 20).fill(255);
    const block = new Uint8Array(run.length + 2);
    block[0] = 0xf0;
    block.set(run, 1);
    same(block, 1024);
  });

  it("random and mutated blocks: the same output or the same error (fast-check)", () => {
    const valid = lz4Compress(Uint8Array.from({ length: 5000 }, (_, i) => (i * 31) % 7));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }),
          fc.tuple(fc.nat(valid.length - 1), fc.integer({ min: 0, max: 255 })).map(([at, v]) => {
            const m = valid.slice();
            m[at] = v;
            return m;
          }),
        ),
        fc.integer({ min: 0, max: 6000 }),
        (block, capacity) => {
          same(block, capacity);
        },
      ),
      { seed: 11, numRuns: 3000 },
    );
  });
});

describe("Blosc chunks of lz4 and blosclz streams decoded whole in the kernels", () => {
  /** bloscDecompressSync with the kernels on or off: the bytes, or the error. */
  function chunkDecode(engine: "wasm" | "ts", chunk: Uint8Array, into?: Uint8Array) {
    useBlockKernels(engine === "wasm");
    try {
      const out = into ? bloscDecompressInto(chunk, into.slice()) : bloscDecompressSync(chunk);
      return { out: Buffer.from(out.buffer, out.byteOffset, out.length).toString("base64") };
    } catch (e) {
      return { error: `${(e as Error).name}: ${(e as Error).message}` };
    } finally {
      useBlockKernels(true);
    }
  }

  it("every shuffle × typesize × size × blocksize: the same bytes as the TypeScript path (the SIMD unshuffles of 2, 4 and 8 bytes and the bit unshuffle, with their tails)", () => {
    const field = smoothField(40_000);
    for (const cname of ["lz4", "lz4hc", "blosclz"] as const) {
      for (const shuffle of [0, 1, 2] as const) {
        for (const typesize of [1, 2, 3, 4, 5, 7, 8, 12, 16]) {
          for (const size of [0, 7, 1000, 65_536 + 13, field.length]) {
            for (const blocksize of [0, 4096 + 64]) {
              const data = field.subarray(0, size);
              const chunk = bloscCompressSync(data, {
                cname,
                clevel: 5,
                shuffle,
                typesize,
                blocksize,
              });
              const label = `${cname} shuffle ${shuffle} ts ${typesize} n ${size} bs ${blocksize}`;
              const w = chunkDecode("wasm", chunk);
              expect(w, label).toEqual(chunkDecode("ts", chunk));
              expect(w.out, label).toBe(Buffer.from(data).toString("base64"));
              // Into a dirty buffer.
              const dirty = new Uint8Array(size).fill(0xa5);
              expect(chunkDecode("wasm", chunk, dirty), label).toEqual(
                chunkDecode("ts", chunk, dirty),
              );
            }
          }
        }
      }
    }
  });

  it("mutated chunks: the same bytes or the same error (fast-check)", () => {
    const data = smoothField(20_000);
    const chunks = (["lz4", "blosclz"] as const).flatMap((cname) =>
      ([0, 1, 2] as const).map((shuffle) =>
        bloscCompressSync(data, { cname, clevel: 5, shuffle, typesize: 4, blocksize: 4096 }),
      ),
    );
    fc.assert(
      fc.property(
        fc.nat(chunks.length - 1),
        fc.nat(1 << 20),
        fc.integer({ min: 0, max: 255 }),
        (which, at, value) => {
          const chunk = chunks[which]!.slice();
          // Past the 16-byte header (its fields are checked before any kernel runs).
          chunk[16 + (at % (chunk.length - 16))] = value;
          expect(chunkDecode("wasm", chunk)).toEqual(chunkDecode("ts", chunk));
        },
      ),
      { seed: 7, numRuns: 600 },
    );
  });
});

describe("what a failed decode leaves, on both paths", () => {
  /** Decodes `chunk` into a copy of `dirty`; returns the buffer afterwards and the error. */
  function into(engine: "wasm" | "ts", chunk: Uint8Array, dirty: Uint8Array) {
    useBlockKernels(engine === "wasm");
    const out = dirty.slice();
    try {
      bloscDecompressInto(chunk, out);
      return { out: Buffer.from(out).toString("base64") };
    } catch (e) {
      return { out: Buffer.from(out).toString("base64"), error: (e as Error).message };
    } finally {
      useBlockKernels(true);
    }
  }

  it("a corrupt last block: the same error and the same bytes in `out` (earlier blocks decoded)", () => {
    const data = smoothField(1 << 16);
    for (const cname of ["lz4", "blosclz"] as const) {
      for (const shuffle of [0, 1, 2] as const) {
        const chunk = bloscCompressSync(data, {
          cname,
          clevel: 5,
          shuffle,
          typesize: 4,
          blocksize: 16384,
        });
        const bad = chunk.slice();
        // Damage the middle of the last block's streams.
        for (let k = bad.length - 200; k < bad.length - 100; k++) bad[k] = 0xff;
        const dirty = new Uint8Array(data.length).fill(0xaa);
        const w = into("wasm", bad, dirty);
        expect(w, `${cname} shuffle ${shuffle}`).toEqual(into("ts", bad, dirty));
      }
    }
  });

  it("a loose LZ4 block that fails leaves `dst` as the TypeScript decoder does", () => {
    const data = Uint8Array.from({ length: 50_000 }, (_, i) => (i * 7) % 13);
    const block = lz4Compress(data).subarray(0, 3000); // truncated
    const results = (["wasm", "ts"] as const).map((engine) => {
      useBlockKernels(engine === "wasm");
      const dst = new Uint8Array(data.length).fill(0x55);
      try {
        lz4DecompressInto(block, dst);
        return "no error";
      } catch (e) {
        return `${(e as Error).message} ${Buffer.from(dst).toString("base64")}`;
      } finally {
        useBlockKernels(true);
      }
    });
    expect(results[0]).toBe(results[1]);
  });

  it("an output overlapping the compressed chunk is refused on both paths", () => {
    const data = smoothField(20_000);
    const chunk = bloscCompressSync(data, {
      cname: "lz4",
      clevel: 5,
      shuffle: 1,
      typesize: 4,
      blocksize: 0,
    });
    const shared = new Uint8Array(chunk.length + data.length);
    shared.set(chunk);
    const src = shared.subarray(0, chunk.length);
    for (const engine of ["wasm", "ts"] as const) {
      useBlockKernels(engine === "wasm");
      try {
        expect(() => bloscDecompressInto(src, shared.subarray(100, 100 + data.length))).toThrow(
          /output buffer overlaps the compressed chunk/,
        );
        // Right after it: fine.
        const out = bloscDecompressInto(src, shared.subarray(chunk.length));
        expect(Buffer.from(out).equals(Buffer.from(data))).toBe(true);
      } finally {
        useBlockKernels(true);
      }
    }
  });
});

describe("when the module's memory cannot grow", () => {
  it("a chunk and a loose block that need more memory decode in TypeScript, correctly", () => {
    const data = Uint8Array.from({ length: 40 * 2 ** 20 }, (_, i) => (i >> 10) & 0xff);
    const chunk = bloscCompressSync(data, {
      cname: "lz4",
      clevel: 5,
      shuffle: 1,
      typesize: 4,
      blocksize: 0,
    });
    const block = lz4Compress(data.subarray(0, 20 * 2 ** 20));
    const grow = vi.spyOn(WebAssembly.Memory.prototype, "grow").mockImplementation(() => {
      throw new RangeError("WebAssembly.Memory.grow(): Maximum memory size exceeded");
    });
    try {
      expect(Buffer.from(bloscDecompressSync(chunk)).equals(Buffer.from(data))).toBe(true);
      const out = new Uint8Array(20 * 2 ** 20);
      expect(lz4DecompressInto(block, out)).toBe(out.length);
      expect(Buffer.from(out).equals(Buffer.from(data.subarray(0, out.length)))).toBe(true);
      expect(grow).toHaveBeenCalled();
    } finally {
      grow.mockRestore();
    }
  });
});

describe("block (un)shuffles in the kernels, for streams of other engines (zstd, zlib)", () => {
  it("shuffleBlock and unshuffleBlock: the bytes of shuffle.ts for typesizes 1..17, tails and odd sizes", () => {
    const kernels = blockKernels();
    expect(kernels).toBeDefined();
    for (const mode of [1, 2] as const) {
      for (let ts = 1; ts <= 17; ts++) {
        for (const size of [0, 5, 8 * ts, 128 * ts + 3, 4096 + 8 * ts, 65_536 + 13, 131_072]) {
          const src = randomBytes(size, 7 * ts + mode);
          const label = `mode ${mode} ts ${ts} size ${size}`;
          for (const [kernel, reference] of [
            [kernels!.shuffleBlock, mode === 1 ? shuffle : bitshuffle],
            [kernels!.unshuffleBlock, mode === 1 ? unshuffle : bitunshuffle],
          ] as const) {
            const expected = new Uint8Array(size);
            reference(ts, src, 0, expected, 0, size);
            const got = new Uint8Array(size).fill(0xa5);
            expect(kernel(src, got, ts, mode), label).toBe(true);
            expect(Buffer.from(got).equals(Buffer.from(expected)), label).toBe(true);
          }
        }
      }
    }
  });

  it("blosc zstd and zlib chunks of every shuffle and typesize decode to the data (through these kernels)", async () => {
    const data = smoothField(200_000);
    for (const cname of ["zstd", "zlib"] as const) {
      for (const shuffleMode of [1, 2] as const) {
        for (const typesize of [1, 2, 4, 8, 3]) {
          const codec = makeCodec({ cname, clevel: 5, shuffle: shuffleMode, typesize }, typesize);
          const packed = await codec.encode(data);
          const label = `${cname} shuffle ${shuffleMode} ts ${typesize}`;
          useBlockKernels(false);
          const ts = await codec.decode(packed, data.length);
          useBlockKernels(true);
          const wasm = await codec.decode(packed, data.length);
          expect(Buffer.from(wasm).equals(Buffer.from(data)), label).toBe(true);
          expect(Buffer.from(ts).equals(Buffer.from(data)), label).toBe(true);
        }
      }
    }
  });
});
