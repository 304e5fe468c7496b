// Fuzzing of the sharding_indexed codec (../shared/notes/v3-extensions.md,
// "sharding_indexed": index of (offset, nbytes) uint64 pairs, 2^64-1 pairs for
// missing inner chunks, index at the start or end). Full and partial decodes of
// mutated valid shards and of shards with random indexes must return exactly
// what an independent reference decoder says, or fail with a CodecError; an
// index that claims more bytes than exist fails before anything is allocated.
// FUZZ_RUNS raises the number of cases (`pnpm fuzz`).
import { CodecError, type JsonValue } from "@zarr/core";
import { type ByteGetter, type ChunkRegion, CodecPipeline } from "@zarr/core/codec";
import { uint16 } from "@zarr/core/internal";
import { type ByteRange, rangeBounds } from "@zarr/core/store";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

const RUNS = Number(process.env.FUZZ_RUNS) || 10_000;
const CASE_MS = 2_000;
const MISSING = 0xffff_ffff_ffff_ffffn;
const BYTES_LE = { name: "bytes", configuration: { endian: "little" } };

interface Layout {
  inner: number[];
  perShard: number[];
  location: "start" | "end";
}

const layout: fc.Arbitrary<Layout> = fc.integer({ min: 1, max: 3 }).chain((ndim) =>
  fc.record({
    inner: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: ndim, maxLength: ndim }),
    perShard: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: ndim, maxLength: ndim }),
    location: fc.constantFrom<"start" | "end">("start", "end"),
  }),
);

const prod = (xs: readonly number[]) => xs.reduce((a, b) => a * b, 1);
const shardShape = (l: Layout) => l.inner.map((c, i) => c * l.perShard[i]);
const cStrides = (shape: readonly number[]) => shape.map((_, i) => prod(shape.slice(i + 1)));

async function shardPipeline(l: Layout, checksums: boolean) {
  const codec: JsonValue = {
    name: "sharding_indexed",
    configuration: {
      chunk_shape: l.inner,
      codecs: checksums ? [BYTES_LE, { name: "crc32c" }] : [BYTES_LE],
      index_codecs: checksums ? [BYTES_LE, { name: "crc32c" }] : [BYTES_LE],
      index_location: l.location,
    },
  };
  return CodecPipeline.create(
    [codec],
    { shape: shardShape(l), dataType: uint16, fillValue: uint16.fromScalar(7, "fuzz") },
    "fuzz/zarr.json",
  );
}

/** A store-like reader over `bytes`: ranges are clipped to the value, as every store does. */
function getter(bytes: Uint8Array, log: ByteRange[] = []): ByteGetter {
  return {
    async get(range?: ByteRange) {
      if (range) log.push(range);
      const [start, end] = rangeBounds(range, bytes.length);
      return bytes.subarray(start, end);
    },
  };
}

/** The elements of `region` of a C-order array of `shape`, flat. */
function extract(data: Uint16Array, shape: number[], region: ChunkRegion): number[] {
  const out: number[] = [];
  const strides = cStrides(shape);
  const walk = (d: number, base: number) => {
    if (d === shape.length) {
      out.push(data[base]);
      return;
    }
    for (let i = region[d][0]; i < region[d][1]; i++) walk(d + 1, base + i * strides[d]);
  };
  walk(0, 0);
  return out;
}

const regionOf = (l: Layout) =>
  fc.tuple(
    ...shardShape(l).map((s) =>
      fc
        .tuple(fc.integer({ min: 0, max: s - 1 }), fc.integer({ min: 1, max: s }))
        .map(([a, len]) => [a, Math.min(s, a + len)] as const),
    ),
  );

let slowest = 0;
/** How often each outcome occurred, to check that the generators reach both. */
const seen = { ok: 0, codecError: 0 };
/** Runs `fn` within the time bound; returns its result, or the CodecError it threw. */
async function outcome<T>(fn: () => Promise<T>): Promise<T | CodecError> {
  const t0 = performance.now();
  try {
    const result = await fn();
    seen.ok++;
    return result;
  } catch (e) {
    if (e instanceof CodecError) {
      seen.codecError++;
      return e;
    }
    throw e;
  } finally {
    const ms = performance.now() - t0;
    slowest = Math.max(slowest, ms);
    expect(ms).toBeLessThan(CASE_MS);
  }
}

describe("sharding_indexed: mutated valid shards (checksummed index and inner chunks)", () => {
  const testCase = layout.chain((l) =>
    fc.record({
      l: fc.constant(l),
      // Mostly the fill value (7), so that some inner chunks are missing from the shard.
      values: fc.array(fc.oneof(fc.constant(7), fc.nat({ max: 0xffff })), {
        minLength: prod(shardShape(l)),
        maxLength: prod(shardShape(l)),
      }),
      region: regionOf(l),
      flips: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { maxLength: 2 }),
      cut: fc.option(fc.nat(), { nil: undefined, freq: 3 }),
      extra: fc.oneof(fc.constant(new Uint8Array(0)), fc.uint8Array({ maxLength: 8 })),
    }),
  );

  it("decode and decodePartial return the original values or throw CodecError", async () => {
    await fc.assert(
      fc.asyncProperty(testCase, async ({ l, values, region, flips, cut, extra }) => {
        const p = await shardPipeline(l, true);
        const shape = shardShape(l);
        const data = Uint16Array.from(values);
        const enc = await p.encode({ data, shape, stride: cStrides(shape), dataType: uint16 });
        let bad = enc.slice();
        for (const [pos, xor] of flips) bad[pos % bad.length] ^= xor;
        if (cut !== undefined) bad = bad.subarray(0, cut % (bad.length + 1));
        bad = Uint8Array.from([...bad, ...extra]);

        const full = await outcome(() => p.decode(bad));
        if (!(full instanceof CodecError)) expect([...(full.data as Uint16Array)]).toEqual(values);
        const part = await outcome(() => p.decodePartial(getter(bad), region));
        if (!(part instanceof CodecError)) {
          expect(part).toBeDefined();
          expect(part!.shape).toEqual(region.map(([a, b]) => b - a));
          expect([...(part!.data as Uint16Array)]).toEqual(extract(data, shape, region));
        }
        // Unchanged shards always decode.
        if (flips.length === 0 && cut === undefined && extra.length === 0) {
          expect(full).not.toBeInstanceOf(CodecError);
          expect(part).not.toBeInstanceOf(CodecError);
        }
      }),
      { seed: 42, numRuns: RUNS / 2 },
    );
  });
});

/** What one index entry means, per the spec, for a shard of `length` bytes. */
type Entry = { kind: "missing" } | { kind: "invalid" } | { kind: "chunk"; offset: number };

function classify(o: bigint, n: bigint, length: number, innerBytes: number): Entry {
  if (o === MISSING && n === MISSING) return { kind: "missing" };
  if (o === MISSING || n === MISSING) return { kind: "invalid" };
  if (o + n > BigInt(length) || n !== BigInt(innerBytes)) return { kind: "invalid" };
  return { kind: "chunk", offset: Number(o) };
}

describe("sharding_indexed: random indexes (no checksums) against a reference decoder", () => {
  const u64 = fc.oneof(
    { weight: 4, arbitrary: fc.bigInt({ min: 0n, max: 64n }) },
    { weight: 2, arbitrary: fc.constant(MISSING) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        2n ** 60n,
        2n ** 53n - 1n,
        2n ** 53n,
        2n ** 63n,
        MISSING - 1n,
        2n ** 32n,
      ),
    },
    { weight: 1, arbitrary: fc.bigInt({ min: 0n, max: MISSING }) },
  );
  const pair = fc.oneof(
    { weight: 2, arbitrary: fc.constant<[bigint, bigint]>([MISSING, MISSING]) },
    { weight: 8, arbitrary: fc.tuple(fc.bigInt({ min: 0n, max: 64n }), fc.constant(-1n)) },
    { weight: 1, arbitrary: fc.tuple(u64, u64) },
  );
  const testCase = layout.chain((l) => {
    const n = prod(l.perShard);
    return fc.record({
      l: fc.constant(l),
      // nbytes -1 stands for "the right size for an inner chunk".
      pairs: fc.array(pair, { minLength: n, maxLength: n }),
      payload: fc.uint8Array({ minLength: 16, maxLength: 112 }),
      region: regionOf(l),
    });
  });

  it("decode and decodePartial agree with the reference or throw CodecError when it says invalid", async () => {
    await fc.assert(
      fc.asyncProperty(testCase, async ({ l, pairs, payload, region }) => {
        const p = await shardPipeline(l, false);
        const shape = shardShape(l);
        const innerBytes = prod(l.inner) * 2;
        const indexBytes = prod(l.perShard) * 16;
        const index = new Uint8Array(indexBytes);
        const view = new DataView(index.buffer);
        pairs.forEach(([o, n], i) => {
          view.setBigUint64(16 * i, o, true);
          view.setBigUint64(16 * i + 8, n === -1n ? BigInt(innerBytes) : n, true);
        });
        const shard =
          l.location === "end"
            ? Uint8Array.from([...payload, ...index])
            : Uint8Array.from([...index, ...payload]);
        const entries = pairs.map(([o, n]) =>
          classify(o, n === -1n ? BigInt(innerBytes) : n, shard.length, innerBytes),
        );

        // The reference: inner chunk c holds the little-endian uint16s at its offset.
        const perStrides = cStrides(l.perShard);
        const strides = cStrides(shape);
        const expected = new Uint16Array(prod(shape)).fill(7);
        const sv = new DataView(shard.buffer);
        const innerStrides = cStrides(l.inner);
        entries.forEach((e, c) => {
          if (e.kind !== "chunk") return;
          const origin = l.perShard.map((_, d) => Math.floor(c / perStrides[d]) % l.perShard[d]);
          for (let k = 0; k < prod(l.inner); k++) {
            let flat = 0;
            for (let d = 0; d < shape.length; d++) {
              const within = Math.floor(k / innerStrides[d]) % l.inner[d];
              flat += (origin[d] * l.inner[d] + within) * strides[d];
            }
            expected[flat] = sv.getUint16(e.offset + 2 * k, true);
          }
        });

        const full = await outcome(() => p.decode(shard));
        if (entries.some((e) => e.kind === "invalid")) expect(full).toBeInstanceOf(CodecError);
        else expect([...(full as { data: Uint16Array }).data]).toEqual([...expected]);

        const log: ByteRange[] = [];
        const part = await outcome(() => p.decodePartial(getter(shard, log), region));
        const wanted = entries.filter((_, c) =>
          l.perShard.every((_, d) => {
            const at = (Math.floor(c / perStrides[d]) % l.perShard[d]) * l.inner[d];
            return at < region[d][1] && at + l.inner[d] > region[d][0];
          }),
        );
        if (wanted.some((e) => e.kind === "invalid")) {
          expect(part).toBeInstanceOf(CodecError);
        } else if (part instanceof CodecError) {
          // Allowed only because some other entry of the index is malformed.
          expect(entries.some((e) => e.kind === "invalid")).toBe(true);
        } else {
          expect([...(part!.data as Uint16Array)]).toEqual(extract(expected, shape, region));
        }
        // The first read is the index alone, at the configured end.
        expect(log[0]).toEqual(
          l.location === "end" ? { suffix: indexBytes } : { offset: 0, length: indexBytes },
        );
      }),
      { seed: 43, numRuns: RUNS / 2 },
    );
  });
});

describe("sharding_indexed: resource limits", () => {
  const l: Layout = { inner: [4], perShard: [2], location: "end" };

  /** A shard whose index entry 0 is (offset, nbytes) and entry 1 is missing. */
  function hostile(offset: bigint, nbytes: bigint): Uint8Array {
    const shard = new Uint8Array(8 + 32);
    const view = new DataView(shard.buffer);
    view.setBigUint64(8, offset, true);
    view.setBigUint64(16, nbytes, true);
    view.setBigUint64(24, MISSING, true);
    view.setBigUint64(32, MISSING, true);
    return shard;
  }

  it.each([
    ["2^60 bytes", 0n, 2n ** 60n],
    ["an offset of 2^63", 2n ** 63n, 8n],
    ["offset + nbytes overflowing 2^64", MISSING - 1n, 2n],
    ["offset missing but nbytes set", MISSING, 8n],
  ])("an index entry claiming %s fails with CodecError before any chunk read", async (_, o, n) => {
    const p = await shardPipeline(l, false);
    const shard = hostile(o, n);
    await expect(p.decode(shard)).rejects.toThrow(/index entry 0 .* is invalid/);
    const log: ByteRange[] = [];
    await expect(p.decodePartial(getter(shard, log), [[0, 8]])).rejects.toThrow(CodecError);
    expect(log).toEqual([{ suffix: 32 }]); // only the index was read
  });

  it("an entry pointing past the end of the shard fails with CodecError (full and partial)", async () => {
    const p = await shardPipeline(l, false);
    const shard = hostile(2n ** 53n - 10n, 8n);
    await expect(p.decode(shard)).rejects.toThrow(/points past the shard's 40 bytes/);
    await expect(p.decodePartial(getter(shard), [[0, 4]])).rejects.toThrow(/past the end/);
  });

  it("a shard shorter than its index fails with CodecError", async () => {
    const p = await shardPipeline(l, true);
    await expect(p.decode(new Uint8Array(10))).rejects.toThrow(/shorter than its 36-byte index/);
    await expect(p.decodePartial(getter(new Uint8Array(10)), [[0, 4]])).rejects.toThrow(
      /shorter than its 36-byte index/,
    );
  });

  it("the generators reached both outcomes often, and no case came close to the time bound", () => {
    const total = seen.ok + seen.codecError;
    expect(seen.ok / total).toBeGreaterThan(0.2);
    expect(seen.codecError / total).toBeGreaterThan(0.2);
    console.info(`${RUNS} cases; slowest case ${slowest.toFixed(1)} ms`);
    expect(slowest).toBeLessThan(CASE_MS);
  });
});
