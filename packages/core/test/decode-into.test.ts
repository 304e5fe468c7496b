/**
 * Decoding into caller memory (`BytesToBytesCodec.decodeInto`, used by
 * `ZarrArray.get` for reused scratch buffers and for chunks that map onto one
 * contiguous run of the output) must give exactly what the generic
 * `decode` path gives: random shapes and selections, ragged edge chunks,
 * transposes, big-endian chunks, missing chunks, every element width; and
 * reads into a caller's `out` array.
 */
import {
  CodecError,
  createArray,
  type DataArrayOf,
  type JsonObject,
  MemoryStore,
  registerCodec,
  type Selection,
  slice,
  ValueError,
} from "@zarr/core";
import type { BytesToBytesCodec, CodecFactory } from "@zarr/core/codec";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";

/** What the test codecs saw: decodeInto targets, to tell in-place decodes from scratch ones. */
const seen = { into: 0, targets: new Set<ArrayBufferLike>() };

/** A reversible byte transform (XOR 0x5a, then reversed), with or without `decodeInto`. */
function xorCodec(name: string, withInto: boolean): CodecFactory {
  const transform = (src: Uint8Array, dst: Uint8Array) => {
    const n = src.length;
    for (let i = 0; i < n; i++) dst[n - 1 - i] = src[i] ^ 0x5a;
  };
  return {
    kind: "bytes_to_bytes",
    fromConfig(): BytesToBytesCodec {
      const codec: BytesToBytesCodec = {
        kind: "bytes_to_bytes",
        name,
        toJSON: () => ({ name }),
        encode(bytes) {
          const out = new Uint8Array(bytes.length);
          transform(bytes, out);
          return out;
        },
        decode(bytes) {
          const out = new Uint8Array(bytes.length);
          transform(bytes, out);
          return out;
        },
      };
      if (!withInto) return codec;
      return {
        ...codec,
        decodeInto(bytes, out) {
          if (bytes.length !== out.length) {
            throw new CodecError(`${name}: ${bytes.length} bytes, expected ${out.length}`);
          }
          seen.into++;
          seen.targets.add(out.buffer);
          transform(bytes, out);
        },
      };
    },
  };
}

/**
 * XOR 0x5a byte by byte, with `decodeRangeInto` that decodes only [start, end)
 * and scribbles over every other byte of `out`, so that reading anything
 * outside the range shows.
 */
const ranged = { calls: 0 };
function xorRangeCodec(name: string): CodecFactory {
  const xor = (src: Uint8Array, dst: Uint8Array, from: number, to: number) => {
    for (let i = from; i < to; i++) dst[i] = src[i] ^ 0x5a;
  };
  return {
    kind: "bytes_to_bytes",
    fromConfig(): BytesToBytesCodec {
      return {
        kind: "bytes_to_bytes",
        name,
        toJSON: () => ({ name }),
        encode(bytes) {
          const out = new Uint8Array(bytes.length);
          xor(bytes, out, 0, bytes.length);
          return out;
        },
        decode(bytes) {
          const out = new Uint8Array(bytes.length);
          xor(bytes, out, 0, bytes.length);
          return out;
        },
        decodeInto(bytes, out) {
          xor(bytes, out, 0, out.length);
        },
        decodeRangeInto(bytes, out, start, end) {
          ranged.calls++;
          out.fill(0x99);
          xor(bytes, out, start, end);
        },
      };
    },
  };
}

beforeAll(() => {
  registerCodec("test.xor-into", xorCodec("test.xor-into", true));
  registerCodec("test.xor-plain", xorCodec("test.xor-plain", false));
  registerCodec("test.xor-range", xorRangeCodec("test.xor-range"));
});

const DTYPES = [
  { name: "float32", width: 1, make: (k: number) => k * 0.5 - 3 },
  { name: "int16", width: 1, make: (k: number) => (k % 200) - 100 },
  { name: "uint8", width: 1, make: (k: number) => k % 251 },
  { name: "float64", width: 1, make: (k: number) => k / 7 },
  { name: "complex64", width: 2, make: (k: number) => k - 1.5 },
] as const;

const caseArb = fc
  .record({
    dims: fc.integer({ min: 1, max: 3 }),
    dtype: fc.integer({ min: 0, max: DTYPES.length - 1 }),
    zeroFill: fc.boolean(),
    transpose: fc.boolean(),
    bigEndian: fc.boolean(),
    // Chunks spanning whole trailing dimensions exercise in-place decoding.
    rowChunks: fc.boolean(),
    seed: fc.integer({ min: 0, max: 1 << 20 }),
  })
  .chain((c) =>
    fc.record({
      c: fc.constant(c),
      shape: fc.array(fc.integer({ min: 1, max: 9 }), { minLength: c.dims, maxLength: c.dims }),
      chunks: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: c.dims, maxLength: c.dims }),
      sel: fc.array(
        fc.record({
          a: fc.integer({ min: -10, max: 10 }),
          b: fc.integer({ min: -10, max: 10 }),
          step: fc.constantFrom(1, 1, 2, -1, -3),
          int: fc.boolean(),
        }),
        { minLength: c.dims, maxLength: c.dims },
      ),
    }),
  );

describe("decodeInto (v3 core: codecs, bytes -> bytes decode)", () => {
  it("get through decodeInto equals get through decode, for any selection", async () => {
    const before = { ...seen, targets: seen.targets.size };
    let inPlace = 0;
    await fc.assert(
      fc.asyncProperty(caseArb, async ({ c, shape, chunks, sel }) => {
        const dt = DTYPES[c.dtype];
        const fillNum = c.zeroFill ? 0 : 7;
        const fillValue = dt.name === "complex64" ? [fillNum, fillNum] : fillNum;
        const chunkShape = c.rowChunks ? chunks.map((k, d) => (d === 0 ? k : shape[d])) : chunks;
        const order = shape.map((_, i) => shape.length - 1 - i);
        const make = (codec: string | null) =>
          createArray(new MemoryStore(), "a", {
            shape,
            dataType: dt.name,
            chunkShape,
            fillValue: fillValue as never,
            codecs: [
              ...(c.transpose ? [{ name: "transpose", configuration: { order } }] : []),
              { name: "bytes", configuration: { endian: c.bigEndian ? "big" : "little" } },
              ...(codec === null ? [] : [{ name: codec }]),
            ] as JsonObject[],
          });
        const into = await make("test.xor-into");
        const plain = await make("test.xor-plain");
        const range = await make("test.xor-range");
        // Uncompressed: small selections read only their bytes from the store.
        const raw = await make(null);
        // Write a sub-box: some chunks stay missing, some are partial.
        const lo = shape.map((s, d) => (c.seed >> d) % s);
        const hi = shape.map((s, d) => Math.min(s, lo[d] + 1 + ((c.seed >> (d + 3)) % s)));
        const boxN = hi.reduce((n, h, d) => n * (h - lo[d]), 1);
        const value = into.dataType.allocate(boxN) as unknown as number[];
        for (let k = 0; k < boxN * dt.width; k++) value[k] = dt.make(k + c.seed);
        const box = lo.map((l, d) => slice(l, hi[d]));
        await into.set(box, value as unknown as DataArrayOf<typeof dt.name>);
        await plain.set(box, value as unknown as DataArrayOf<typeof dt.name>);
        await range.set(box, value as unknown as DataArrayOf<typeof dt.name>);
        await raw.set(box, value as unknown as DataArrayOf<typeof dt.name>);
        const selection: Selection = sel.map((s, d) =>
          s.int ? ((s.a % shape[d]) + shape[d]) % shape[d] : slice(s.a, s.b, s.step),
        );
        for (const q of [null, selection]) {
          const a = await into.get(q);
          const b = await plain.get(q);
          expect(a.shape).toEqual(b.shape);
          // Decoding only the bytes of the selected elements (small selections).
          for (const other of [range, raw]) {
            const c = await other.get(q);
            expect(Array.from(c.data as ArrayLike<number>)).toEqual(
              Array.from(b.data as ArrayLike<number>),
            );
          }
          expect(Array.from(a.data as ArrayLike<number>)).toEqual(
            Array.from(b.data as ArrayLike<number>),
          );
          if (ArrayBuffer.isView(a.data) && seen.targets.has(a.data.buffer)) inPlace++;
          // Into a caller's array full of leftovers: every element is written, fill included.
          const out = into.dataType.allocate(b.shape.reduce((n, s) => n * s, 1)) as DataArrayOf<
            typeof dt.name
          >;
          (out as unknown as { fill(v: number): void }).fill(99);
          const r = await into.get(q, { out });
          expect(r.data).toBe(out);
          expect(Array.from(out as ArrayLike<number>)).toEqual(
            Array.from(b.data as ArrayLike<number>),
          );
        }
      }),
      { seed: 42, numRuns: 150 },
    );
    expect(seen.into).toBeGreaterThan(before.into);
    expect(ranged.calls).toBeGreaterThan(0);
    // Some reads decoded straight into their output.
    expect(inPlace).toBeGreaterThan(0);
  });

  it("1-d chunks decode in place; ragged last chunk goes through scratch", async () => {
    for (const endian of ["little", "big"] as const) {
      const a = await createArray(new MemoryStore(), "v", {
        shape: [10],
        dataType: "int32",
        chunkShape: [4],
        fillValue: -1,
        codecs: [{ name: "bytes", configuration: { endian } }, { name: "test.xor-into" }],
      });
      await a.set(slice(0, 7), Int32Array.from([1, 2, 3, 4, 5, 6, 7]));
      const { data } = await a.get(null);
      expect(Array.from(data as Int32Array)).toEqual([1, 2, 3, 4, 5, 6, 7, -1, -1, -1]);
      const part = await a.get(slice(2, 10));
      expect(Array.from(part.data as Int32Array)).toEqual([3, 4, 5, 6, 7, -1, -1, -1]);
    }
  });

  it("`out` of the wrong kind or length is a ValueError and is left untouched", async () => {
    const a = await createArray(new MemoryStore(), "o", {
      shape: [6],
      dataType: "int16",
      chunkShape: [4],
      fillValue: 3,
    });
    const short = new Int16Array(5).fill(-9);
    await expect(a.get(null, { out: short })).rejects.toThrow(ValueError);
    await expect(a.get(null, { out: short })).rejects.toThrow(/Int16Array of 6 slots/);
    expect(Array.from(short)).toEqual([-9, -9, -9, -9, -9]);
    // @ts-expect-error the wrong kind of array is a type error, and a ValueError at run time
    await expect(a.get(null, { out: new Uint16Array(6) })).rejects.toThrow(ValueError);
    const r = await a.get(slice(1, 6, 2), { out: new Int16Array(3) });
    expect(Array.from(r.data as Int16Array)).toEqual([3, 3, 3]);
  });

  it("a chunk of the wrong size is a CodecError naming the codec, not wrong data", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, "e", {
      shape: [8],
      dataType: "uint8",
      chunkShape: [4],
      codecs: [{ name: "bytes" }, { name: "test.xor-into" }],
    });
    await a.set(null, Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]));
    await store.set("e/c/1", new Uint8Array(3));
    await expect(a.get(null)).rejects.toThrow(CodecError);
    await expect(a.get(null)).rejects.toThrow(/test\.xor-into: 3 bytes, expected 4/);
  });

  it("pipeline.decodeInto checks the target size and tells when it cannot decode into memory", async () => {
    const a = await createArray(new MemoryStore(), "p", {
      shape: [4],
      dataType: "uint16",
      chunkShape: [4],
      codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "test.xor-into" }],
    });
    expect(a.codecs.decodeIntoSize).toBe(8);
    const encoded = await a.codecs.encode({
      data: Uint16Array.from([1, 2, 3, 4]),
      shape: [4],
      stride: [1],
      dataType: a.dataType,
    });
    const target = new Uint8Array(8);
    const r = await a.codecs.decodeInto(encoded, target);
    expect((r.data as Uint16Array).buffer).toBe(target.buffer);
    expect(Array.from(r.data as Uint16Array)).toEqual([1, 2, 3, 4]);
    await expect(a.codecs.decodeInto(encoded, new Uint8Array(7))).rejects.toThrow(
      /cannot decode into a target of 7 bytes \(expected 8\)/,
    );
    const raw = await createArray(new MemoryStore(), "r", {
      shape: [4],
      dataType: "uint8",
      chunkShape: [4],
    });
    expect(raw.codecs.decodeIntoSize).toBeUndefined();
    await expect(raw.codecs.decodeInto(new Uint8Array(4), new Uint8Array(4))).rejects.toThrow(
      CodecError,
    );
  });
});

describe("DecodeBuffers", () => {
  it("reuses given-back buffers by size and keeps at most maxFreeBytes free", async () => {
    const { DecodeBuffers } = await import("@zarr/core/codec");
    const buffers = new DecodeBuffers(3000);
    const a = buffers.take(1000);
    const b = buffers.take(1000);
    const c = buffers.take(1000);
    const d = buffers.take(1000);
    for (const x of [a, b, c, d]) buffers.give(x);
    // Three fit under the cap; the fourth was left to the garbage collector.
    const again = [buffers.take(1000), buffers.take(1000), buffers.take(1000), buffers.take(1000)];
    expect(again.slice(0, 3).every((x) => [a, b, c].includes(x))).toBe(true);
    expect([a, b, c, d].includes(again[3]!)).toBe(false);
    // Another size is another list.
    expect(buffers.take(999).length).toBe(999);
  });
});

describe("a small read's range decode and the bytes around the range", () => {
  /** XOR 0x5a; its range decode notes whether every byte outside the range was zero. */
  const probe = { zeroedAround: [] as boolean[] };
  beforeAll(() => {
    registerCodec("test.probe-range", {
      kind: "bytes_to_bytes",
      fromConfig: (): BytesToBytesCodec => ({
        kind: "bytes_to_bytes",
        name: "test.probe-range",
        toJSON: () => ({ name: "test.probe-range" }),
        encode: (bytes) => bytes.map((b) => b ^ 0x5a),
        decode: (bytes) => bytes.map((b) => b ^ 0x5a),
        decodeInto(bytes, out) {
          for (let i = 0; i < out.length; i++) out[i] = bytes[i]! ^ 0x5a;
        },
        decodeRangeInto(bytes, out, start, end) {
          probe.zeroedAround.push(out.every((b, i) => (i >= start && i < end) || b === 0));
          for (let i = start; i < end; i++) out[i] = bytes[i]! ^ 0x5a;
        },
      }),
    });
  });

  // Decodes chunk [0, 64) of 64 float32 (or bool) elements, selecting elements 10..13,
  // from a buffer handed out full of 0xee (a previous chunk's bytes).
  async function smallRead(codecs: JsonObject[], dataType: "float32" | "bool") {
    const { CodecPipeline, DecodeBuffers, decodeChunkTo } = await import("@zarr/core/codec");
    const { resolveDataType } = await import("@zarr/core/internal");
    const dt = resolveDataType(dataType, "t");
    const spec = { shape: [64], dataType: dt, fillValue: dt.defaultFillValue() };
    const pipeline = await CodecPipeline.create(codecs, spec, "t/zarr.json");
    const data = dt.allocate(64) as Float32Array | Uint8Array;
    for (let i = 0; i < 64; i++) data[i] = dataType === "bool" ? i % 2 : i * 1.5;
    const bytes = await pipeline.encode({ data, shape: [64], stride: [1], dataType: dt });
    const stale = new (class extends DecodeBuffers {
      override take(size: number) {
        return new Uint8Array(size).fill(0xee);
      }
    })();
    const out = dt.allocate(4) as Float32Array | Uint8Array;
    const before = probe.zeroedAround.length;
    await decodeChunkTo(
      pipeline,
      bytes,
      {
        out,
        chunkSel: [{ start: 10, step: 1, count: 4 }],
        outAxes: [{ start: 0, step: 1, count: 4 }],
        outStrides: [1],
      },
      stale,
    );
    expect(probe.zeroedAround.length).toBe(before + 1); // the range decode ran
    return { out: Array.from(out), zeroedAround: probe.zeroedAround.at(-1), pipeline };
  }

  it("a pipeline whose array is a view of its bytes leaves them: no fill of the rest of the chunk", async () => {
    const r = await smallRead(
      [{ name: "bytes", configuration: { endian: "little" } }, { name: "test.probe-range" }],
      "float32",
    );
    expect(r.pipeline.decodesAsMemory).toBe(true);
    expect(r.zeroedAround).toBe(false);
    expect(r.out).toEqual([15, 16.5, 18, 19.5]);
  });

  it("a byte swap or a bool check sees every byte: the rest of the chunk is zeroed first", async () => {
    const big = await smallRead(
      [{ name: "bytes", configuration: { endian: "big" } }, { name: "test.probe-range" }],
      "float32",
    );
    expect(big.pipeline.decodesAsMemory).toBe(false);
    expect(big.zeroedAround).toBe(true);
    expect(big.out).toEqual([15, 16.5, 18, 19.5]);
    const bool = await smallRead([{ name: "bytes" }, { name: "test.probe-range" }], "bool");
    expect(bool.pipeline.decodesAsMemory).toBe(false);
    expect(bool.zeroedAround).toBe(true);
    expect(bool.out).toEqual([0, 1, 0, 1]);
  });
});
