// Fuzzing of core's byte-level decoders: vlen-utf8 / vlen-bytes
// (../shared/notes/v3-extensions.md), crc32c and bytes (v3 core: "Codecs").
// Every input either decodes to the right value or fails with a CodecError;
// nothing else is thrown, nothing allocates beyond the chunk shape, and no case
// takes long. FUZZ_RUNS raises the number of cases (`pnpm fuzz`).
import { CodecError, type DataArray, type JsonValue, ZarrError } from "@zarr/core";
import { crc32c } from "@zarr/core/builtin-codecs";
import { type ChunkSpec, CodecPipeline } from "@zarr/core/codec";
import { resolveDataType } from "@zarr/core/internal";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

const RUNS = Number(process.env.FUZZ_RUNS) || 10_000;
/** No single case may take longer than this (a hang or a quadratic path). */
const CASE_MS = 2_000;

let slowest = 0;
async function timed<T>(fn: () => Promise<T> | T): Promise<T> {
  const t0 = performance.now();
  try {
    return await fn();
  } finally {
    const ms = performance.now() - t0;
    if (ms > slowest) slowest = ms;
    expect(ms).toBeLessThan(CASE_MS);
  }
}

/** Runs `fn`; a CodecError is an acceptable outcome and yields `undefined`. */
async function decodeOrCodecError<T>(fn: () => Promise<T> | T): Promise<T | undefined> {
  try {
    return await timed(fn);
  } catch (e) {
    if (e instanceof CodecError) {
      expect(e.message.length).toBeGreaterThan(0);
      return undefined;
    }
    throw e;
  }
}

async function pipeline(codecs: JsonValue[], dataType: string, shape: number[]) {
  const dt = resolveDataType(dataType, "fuzz");
  const spec: ChunkSpec = { shape, dataType: dt, fillValue: dt.defaultFillValue() };
  return CodecPipeline.create(codecs, spec, "fuzz/zarr.json");
}

function encodeNd(p: CodecPipeline, data: DataArray, shape: number[]) {
  const stride = shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
  return p.encode({ data, shape, stride, dataType: p.spec.dataType });
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

interface Mutation {
  flips: [number, number][];
  cut: number | undefined;
  extra: Uint8Array;
}

/** Byte mutations: XOR at positions, truncation, or extension. */
const mutation: fc.Arbitrary<Mutation> = fc.record({
  flips: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { maxLength: 3 }),
  cut: fc.option(fc.nat(), { nil: undefined }),
  extra: fc.uint8Array({ maxLength: 4 }),
});

function mutate(bytes: Uint8Array, m: Mutation): Uint8Array {
  let out = bytes.slice();
  for (const [pos, xor] of m.flips) if (out.length > 0) out[pos % out.length] ^= xor;
  if (m.cut !== undefined) out = out.subarray(0, m.cut % (out.length + 1));
  if (m.extra.length > 0) {
    const grown = new Uint8Array(out.length + m.extra.length);
    grown.set(out);
    grown.set(m.extra, out.length);
    out = grown;
  }
  return out;
}
const smallShape = fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 3 });

describe("vlen-utf8 / vlen-bytes decoders (zarr-extensions vlen-utf8, vlen-bytes)", () => {
  const strings = (n: number) =>
    fc.array(fc.oneof(fc.string({ unit: "binary", maxLength: 12 }), fc.constant("")), {
      minLength: n,
      maxLength: n,
    });
  const blobs = (n: number) =>
    fc.array(fc.uint8Array({ maxLength: 12 }), { minLength: n, maxLength: n });
  const count = (shape: number[]) => shape.reduce((a, b) => a * b, 1);

  it("vlen-utf8: valid chunks round-trip; mutated ones decode canonically or throw CodecError", async () => {
    await fc.assert(
      fc.asyncProperty(
        smallShape.chain((shape) => fc.tuple(fc.constant(shape), strings(count(shape)))),
        mutation,
        async ([shape, values], m) => {
          const p = await pipeline([{ name: "vlen-utf8" }], "string", shape);
          const enc = await encodeNd(p, values, shape);
          expect((await timed(() => p.decode(enc))).data).toEqual(values);
          const bad = mutate(enc, m);
          const out = await decodeOrCodecError(() => p.decode(bad));
          // The format is canonical: a successful decode re-encodes to the same bytes.
          if (out) expect(sameBytes(await encodeNd(p, out.data, shape), bad)).toBe(true);
        },
      ),
      { seed: 42, numRuns: RUNS / 2 },
    );
  });

  it("vlen-bytes: valid chunks round-trip; mutated ones decode canonically or throw CodecError", async () => {
    await fc.assert(
      fc.asyncProperty(
        smallShape.chain((shape) => fc.tuple(fc.constant(shape), blobs(count(shape)))),
        mutation,
        async ([shape, values], m) => {
          const p = await pipeline([{ name: "vlen-bytes" }], "bytes", shape);
          const enc = await encodeNd(p, values, shape);
          expect((await timed(() => p.decode(enc))).data).toEqual(values);
          const bad = mutate(enc, m);
          const out = await decodeOrCodecError(() => p.decode(bad));
          if (out) expect(sameBytes(await encodeNd(p, out.data, shape), bad)).toBe(true);
        },
      ),
      { seed: 43, numRuns: RUNS / 2 },
    );
  });

  it("random bytes and hostile headers fail with CodecError before allocating", async () => {
    // Headers built from counts and lengths near the u32 limits as well as random bytes.
    const u32 = fc.oneof(
      fc.integer({ min: 0, max: 8 }),
      fc.constantFrom(0xffff_ffff, 0x8000_0000, 0x7fff_ffff, 0x1000_0000),
      fc.nat(),
    );
    const hostile = fc
      .tuple(u32, fc.array(u32, { maxLength: 4 }), fc.uint8Array({ maxLength: 16 }))
      .map(([n, lens, tail]) => {
        const out = new Uint8Array(4 + 4 * lens.length + tail.length);
        const view = new DataView(out.buffer);
        view.setUint32(0, n, true);
        for (const [i, l] of lens.entries()) view.setUint32(4 + 4 * i, l, true);
        out.set(tail, 4 + 4 * lens.length);
        return out;
      });
    await fc.assert(
      fc.asyncProperty(
        smallShape,
        fc.constantFrom("string", "bytes"),
        fc.oneof(hostile, fc.uint8Array({ maxLength: 64 })),
        async (shape, kind, bytes) => {
          const p = await pipeline(
            [{ name: kind === "string" ? "vlen-utf8" : "vlen-bytes" }],
            kind,
            shape,
          );
          const out = await decodeOrCodecError(() => p.decode(bytes));
          if (out) {
            expect(out.shape).toEqual(shape);
            expect((out.data as unknown[]).length).toBe(count(shape));
            expect(sameBytes(await encodeNd(p, out.data, shape), bytes)).toBe(true);
          }
        },
      ),
      { seed: 44, numRuns: RUNS / 4 },
    );
  });

  it("a count of 2^32-1 elements or an element length of 2^32-1 is a CodecError", async () => {
    const p = await pipeline([{ name: "vlen-bytes" }], "bytes", [2]);
    const header = (n: number, len: number) => {
      const b = new Uint8Array(8);
      new DataView(b.buffer).setUint32(0, n, true);
      new DataView(b.buffer).setUint32(4, len, true);
      return b;
    };
    await expect(p.decode(header(0xffff_ffff, 0))).rejects.toThrow(/4294967295 elements/);
    await expect(p.decode(header(2, 0xffff_ffff))).rejects.toThrow(/claims 4294967295 bytes/);
  });

  it("strings starting with U+FEFF (a byte order mark) survive a round trip", async () => {
    // UTF-8 decoding must not strip a leading BOM from an element: it is data.
    const p = await pipeline([{ name: "vlen-utf8" }], "string", [3]);
    const values = ["\uFEFF", "\uFEFFabc", "x\uFEFF"];
    const enc = await encodeNd(p, values, [3]);
    expect((await p.decode(enc)).data).toEqual(values);
  });
});

describe("crc32c (v3 core: crc32c codec)", () => {
  it("check value: CRC-32C of '123456789' is 0xE3069283", () => {
    expect(crc32c(new TextEncoder().encode("123456789"))).toBe(0xe3069283);
  });

  it("round-trips and detects every mutation, truncation and extension", async () => {
    const p = await pipeline(
      [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }],
      "uint8",
      [64],
    );
    const codec = p.bytesToBytes[0];
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 256 }), mutation, async (data, m) => {
        const enc = await codec.encode(data);
        expect(enc.length).toBe(data.length + 4);
        expect(sameBytes(await timed(() => codec.decode(enc)), data)).toBe(true);
        const bad = mutate(enc, m);
        const out = await decodeOrCodecError(() => codec.decode(bad));
        if (out) {
          // Only an unchanged input (e.g. a cut at the full length) may decode.
          expect(sameBytes(bad, enc)).toBe(true);
          expect(sameBytes(out, data)).toBe(true);
        }
      }),
      { seed: 45, numRuns: RUNS / 2 },
    );
  });

  it("random bytes decode only when the stored checksum matches, and respect decodedSize", async () => {
    const p = await pipeline(
      [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }],
      "uint8",
      [8],
    );
    const codec = p.bytesToBytes[0];
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 40 }),
        fc.option(fc.nat({ max: 40 }), { nil: undefined }),
        async (bytes, size) => {
          const out = await decodeOrCodecError(() => codec.decode(bytes, size));
          if (out) {
            expect(out.length).toBe(bytes.length - 4);
            if (size !== undefined) expect(out.length).toBe(size);
            const stored = new DataView(bytes.buffer, bytes.byteOffset).getUint32(out.length, true);
            expect(crc32c(out)).toBe(stored);
          }
        },
      ),
      { seed: 46, numRuns: RUNS / 2 },
    );
    // The whole pipeline rejects a valid checksum around a payload of the wrong length.
    const short = await codec.encode(new Uint8Array(7));
    await expect(p.decode(short)).rejects.toThrow(CodecError);
  });
});

describe("bytes codec (v3 core: bytes codec)", () => {
  const FIXED = [
    "bool",
    "int8",
    "uint8",
    "int16",
    "uint16",
    "int32",
    "uint32",
    "int64",
    "uint64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "r8",
    "r24",
  ];

  it("exact-length input decodes and re-encodes bit for bit; any other length is a CodecError", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...FIXED),
        fc.constantFrom("little", "big"),
        smallShape,
        fc.integer({ min: -3, max: 3 }),
        fc.nat(),
        async (dtype, endian, shape, delta, seed) => {
          const p = await pipeline([{ name: "bytes", configuration: { endian } }], dtype, shape);
          const itemSize = p.spec.dataType.itemSize!;
          const n = shape.reduce((a, b) => a * b, 1);
          const length = Math.max(0, n * itemSize + delta);
          const bytes = new Uint8Array(length);
          for (let i = 0; i < length; i++) bytes[i] = (seed * 31 + i * 17) & 0xff;
          if (dtype === "bool") for (let i = 0; i < length; i++) bytes[i] &= 1;
          const out = await decodeOrCodecError(() => p.decode(bytes));
          if (length !== n * itemSize) {
            expect(out).toBeUndefined();
            return;
          }
          expect(out).toBeDefined();
          expect(out!.shape).toEqual(shape);
          expect(sameBytes(await p.encode(out!), bytes)).toBe(true);
        },
      ),
      { seed: 47, numRuns: RUNS },
    );
  });

  it("bool bytes other than 0 and 1 read as true, never as other values", async () => {
    const p = await pipeline([{ name: "bytes" }], "bool", [4]);
    const out = await p.decode(new Uint8Array([0, 1, 2, 255]));
    expect([...(out.data as Uint8Array)]).toEqual([0, 1, 1, 1]);
  });

  it("no case came close to the time bound", () => {
    console.info(`${RUNS} cases; slowest case ${slowest.toFixed(1)} ms`);
    expect(slowest).toBeLessThan(CASE_MS);
    expect(ZarrError).toBeDefined();
  });
});
