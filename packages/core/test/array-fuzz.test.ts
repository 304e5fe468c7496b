// Fuzzing of the whole read path: arrays whose chunks (or shards) carry a
// crc32c checksum are written, one stored chunk or shard is then corrupted
// (bytes flipped, truncated, extended, or the object deleted), and random
// selections are read. A read returns exactly the expected values (a deleted
// chunk reads as the fill value, v3 core: "chunks that are not stored") or fails
// with a CodecError; a read that does not touch the damaged object always
// succeeds. Also: chunk shapes larger than the engine can allocate fail with a
// ValueError, not a RangeError. FUZZ_RUNS raises the number of cases.
import {
  CodecError,
  createArray,
  type JsonValue,
  MemoryStore,
  Slice,
  slice,
  ValueError,
} from "@zarr/core";
import { resolveStore } from "@zarr/core/store";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

const RUNS = Number(process.env.FUZZ_RUNS) || 10_000;
const BYTES = { name: "bytes", configuration: { endian: "little" } };

interface Case {
  shape: number[];
  chunk: number[];
  inner: number[] | undefined;
  transpose: boolean;
}

const layout: fc.Arbitrary<Case> = fc.integer({ min: 1, max: 2 }).chain((ndim) =>
  fc
    .record({
      inner: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: ndim, maxLength: ndim }),
      per: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: ndim, maxLength: ndim }),
      extra: fc.array(fc.integer({ min: 0, max: 7 }), { minLength: ndim, maxLength: ndim }),
      sharded: fc.boolean(),
      transpose: fc.boolean(),
    })
    .map(({ inner, per, extra, sharded, transpose }) => {
      const chunk = inner.map((c, i) => c * per[i]);
      return {
        shape: chunk.map((c, i) => c + extra[i]),
        chunk,
        inner: sharded ? inner : undefined,
        transpose: transpose && !sharded,
      };
    }),
);

function codecs(c: Case): JsonValue[] {
  if (c.inner) {
    return [
      {
        name: "sharding_indexed",
        configuration: { chunk_shape: c.inner, codecs: [BYTES, { name: "crc32c" }] },
      },
    ];
  }
  const order = c.shape.map((_, i) => c.shape.length - 1 - i);
  return [
    ...(c.transpose ? [{ name: "transpose", configuration: { order } }] : []),
    BYTES,
    { name: "crc32c" },
  ];
}

const prod = (xs: readonly number[]) => xs.reduce((a, b) => a * b, 1);

/** Elements of `region` ([start, stop) per dimension) of a C-order array, flat. */
function extract(data: Int16Array, shape: number[], region: [number, number][]): number[] {
  const out: number[] = [];
  const walk = (d: number, base: number) => {
    if (d === shape.length) {
      out.push(data[base]);
      return;
    }
    const stride = prod(shape.slice(d + 1));
    for (let i = region[d][0]; i < region[d][1]; i++) walk(d + 1, base + i * stride);
  };
  walk(0, 0);
  return out;
}

type Damage =
  | { kind: "flip"; at: number; xor: number }
  | { kind: "cut"; at: number }
  | { kind: "append"; bytes: Uint8Array }
  | { kind: "delete" };

const damage: fc.Arbitrary<Damage> = fc.oneof(
  fc.record({
    kind: fc.constant("flip" as const),
    at: fc.nat(),
    xor: fc.integer({ min: 1, max: 255 }),
  }),
  fc.record({ kind: fc.constant("cut" as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant("append" as const),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 6 }),
  }),
  fc.constant<Damage>({ kind: "delete" }),
);

describe("array reads over damaged chunks and shards (crc32c everywhere)", () => {
  const testCase = layout.chain((c) =>
    fc.record({
      c: fc.constant(c),
      values: fc.array(fc.integer({ min: 1, max: 30_000 }), {
        minLength: prod(c.shape),
        maxLength: prod(c.shape),
      }),
      pick: fc.nat(),
      damage,
      region: fc.tuple(
        ...c.shape.map((s) =>
          fc
            .tuple(fc.nat({ max: s - 1 }), fc.integer({ min: 1, max: s }))
            .map(([a, n]): [number, number] => [a, Math.min(s, a + n)]),
        ),
      ),
    }),
  );

  it("reads return the expected values or throw CodecError; untouched reads always succeed", async () => {
    const counts = { ok: 0, detected: 0 };
    await fc.assert(
      fc.asyncProperty(testCase, async ({ c, values, pick, damage: d, region }) => {
        const store = new MemoryStore();
        const a = await createArray(store, "a", {
          shape: c.shape,
          dataType: "int16",
          chunkShape: c.chunk,
          codecs: codecs(c),
        });
        await a.set(null, Int16Array.from(values));
        const raw = resolveStore(store);
        const keys: string[] = [];
        for await (const k of raw.listPrefix("a/c/")) keys.push(k);
        const key = keys.sort()[pick % keys.length];
        const coords = key.slice("a/c/".length).split("/").map(Number);
        const bytes = (await raw.get(key))!;
        if (d.kind === "delete") await raw.erase(key);
        else if (d.kind === "flip") {
          const copy = bytes.slice();
          copy[d.at % copy.length] ^= d.xor;
          await raw.set(key, copy);
        } else if (d.kind === "cut") await raw.set(key, bytes.subarray(0, d.at % bytes.length));
        else await raw.set(key, Uint8Array.from([...bytes, ...d.bytes]));

        // What a correct reader returns: the original values, with a deleted chunk as the fill value (0).
        const expected = Int16Array.from(values);
        const damaged: [number, number][] = coords.map((g, i) => [
          g * c.chunk[i],
          Math.min(c.shape[i], (g + 1) * c.chunk[i]),
        ]);
        if (d.kind === "delete") {
          const strides = c.shape.map((_, i) => prod(c.shape.slice(i + 1)));
          const fill = (dim: number, base: number) => {
            if (dim === c.shape.length) expected[base] = 0;
            else {
              for (let i = damaged[dim][0]; i < damaged[dim][1]; i++) {
                fill(dim + 1, base + i * strides[dim]);
              }
            }
          };
          fill(0, 0);
        }
        const touches = region.every(([lo, hi], i) => lo < damaged[i][1] && hi > damaged[i][0]);
        const selection = region.map(([lo, hi]) => new Slice(lo, hi, 1));
        try {
          const out = await a.get(selection);
          expect([...(out.data as Int16Array)]).toEqual(extract(expected, c.shape, region));
          counts.ok++;
          // Unsharded chunks are read whole: damage to a chunk that is read is always detected.
          if (touches && d.kind !== "delete" && !c.inner)
            expect.unreachable("damage went unnoticed");
        } catch (e) {
          if (!(e instanceof CodecError)) throw e;
          expect(touches && d.kind !== "delete").toBe(true);
          counts.detected++;
        }
      }),
      { seed: 42, numRuns: RUNS / 5 },
    );
    expect(counts.ok).toBeGreaterThan(RUNS / 50);
    expect(counts.detected).toBeGreaterThan(RUNS / 50);
  });
});

describe("resource limits of arrays", () => {
  it("writing into a chunk larger than the engine can allocate is a ValueError", async () => {
    const store = new MemoryStore();
    for (const [dataType, shape] of [
      ["uint8", [2 ** 20, 2 ** 20]],
      ["float64", [2 ** 33]],
      ["string", [2 ** 33]],
    ] as const) {
      const a = await createArray(store, dataType, {
        shape: [...shape],
        dataType,
        chunkShape: [...shape],
      });
      await expect(
        a.set(
          shape.map(() => 0),
          dataType === "string" ? "x" : 1,
        ),
      ).rejects.toThrow(ValueError);
    }
  });

  it("a stored chunk of the wrong size in such an array is a CodecError, read without allocating", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, "big", {
      shape: [2 ** 20, 2 ** 20],
      dataType: "uint8",
      chunkShape: [2 ** 20, 2 ** 20],
    });
    await resolveStore(store).set("big/c/0/0", new Uint8Array(10));
    // Two corners: their bytes span the whole chunk, so it is read and checked whole.
    const corners = [slice(0, 2 ** 20, 2 ** 20 - 1), 0];
    await expect(a.get(corners)).rejects.toThrow(/chunk has 10 bytes, expected 1099511627776/);
    // A small selection reads only its bytes, and checks the stored size: a CodecError too.
    await expect(a.get([1, slice(0, 4)])).rejects.toThrow(CodecError);
    await expect(a.get([1, slice(0, 4)])).rejects.toThrow(/is 10 bytes, expected 1099511627776/);
  });
});
