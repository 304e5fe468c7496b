/**
 * Memory reuse between the array and its store must never show in the data:
 * with a store that declares `copiesOnSet` (chunk buffers are reused for the
 * next chunks of a `set`) and implements `release` (chunk bytes are handed
 * back after decoding), every stored byte and every read equals what a plain
 * store gives: edge chunks keep the fill value in their padding, partial
 * selections, index arrays with repeats, scalars, non-zero fill values.
 */
import {
  createArray,
  type JsonObject,
  MemoryStore,
  type Selection,
  type StoreOptions,
  slice,
} from "@zarr/core";
import type { ByteRange } from "@zarr/core/store";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

/**
 * A store that copies what it is given and hands out memory it recycles on
 * `release`, scribbling over released values so that any use after release shows.
 */
class RecyclingStore {
  readonly inner = new MemoryStore();
  readonly copiesOnSet = true;
  readonly #free: Uint8Array[] = [];
  released = 0;

  async get(key: string, range?: ByteRange, options?: StoreOptions) {
    const v = await this.inner.get(key, range, options);
    if (v === undefined) return undefined;
    const i = this.#free.findIndex((b) => b.length === v.length);
    const out = i >= 0 ? this.#free.splice(i, 1)[0] : new Uint8Array(v.length);
    out.set(v);
    return out;
  }
  release(value: Uint8Array) {
    this.released++;
    value.fill(0xa5);
    this.#free.push(value);
  }
  async set(key: string, value: Uint8Array, options?: StoreOptions) {
    await this.inner.set(key, value.slice(), options);
  }
  erase(key: string, options?: StoreOptions) {
    return this.inner.erase(key, options);
  }
  list(options?: StoreOptions) {
    return this.inner.list(options);
  }
}

const writeArb = fc.record({
  shape: fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 3 }),
  seed: fc.integer({ min: 0, max: 1 << 20 }),
  fill: fc.constantFrom(0, 7),
  compress: fc.boolean(),
  writes: fc.array(
    fc.record({
      a: fc.integer({ min: -10, max: 10 }),
      b: fc.integer({ min: -10, max: 10 }),
      step: fc.constantFrom(1, 1, 2, -1),
      kind: fc.constantFrom("slice", "all", "points", "scalar"),
    }),
    { minLength: 1, maxLength: 4 },
  ),
});

describe("array ↔ store memory reuse (copiesOnSet, release)", () => {
  it("stores the same bytes and reads the same values as a plain store", async () => {
    await fc.assert(
      fc.asyncProperty(writeArb, async ({ shape, seed, fill, compress, writes }) => {
        const chunkShape = shape.map((s, d) => 1 + ((seed >> (2 * d)) % Math.max(1, s)));
        const codecs: JsonObject[] = [{ name: "bytes", configuration: { endian: "little" } }];
        if (compress) codecs.push({ name: "crc32c" });
        const recycling = new RecyclingStore();
        const plain = new MemoryStore();
        const make = (store: object) =>
          createArray(store as MemoryStore, "a", {
            shape,
            dataType: "int32",
            chunkShape,
            fillValue: fill,
            codecs,
          });
        const r = await make(recycling);
        const p = await make(plain);
        let k = seed;
        for (const w of writes) {
          const sel: Selection =
            w.kind === "all"
              ? null
              : shape.map((s) =>
                  w.kind === "points"
                    ? [Math.abs(w.a) % s, Math.abs(w.a) % s, Math.abs(w.b) % s]
                    : slice(w.a, w.b, w.step),
                );
          const n = (await p.get(sel)).data.length;
          const value =
            w.kind === "scalar" ? k : Int32Array.from({ length: n }, (_, i) => k + i * 3);
          k += 1000;
          await r.set(sel, value);
          await p.set(sel, value);
        }
        for await (const key of plain.list()) {
          expect(await recycling.inner.get(key), key).toEqual(await plain.get(key));
        }
        for await (const key of recycling.inner.list()) {
          expect(await plain.get(key), key).toBeDefined();
        }
        for (const q of [null, shape.map(() => slice(null, null, -2))] as Selection[]) {
          const got = await r.get(q);
          const want = await p.get(q);
          expect(Array.from(got.data as Int32Array)).toEqual(Array.from(want.data as Int32Array));
        }
      }),
      { seed: 7, numRuns: 200 },
    );
  });

  it("a read hands each stored chunk's bytes back exactly once", async () => {
    const store = new RecyclingStore();
    const a = await createArray(store as unknown as MemoryStore, "b", {
      shape: [10, 10],
      dataType: "uint8",
      chunkShape: [4, 4],
    });
    await a.set(slice(0, 6), 3); // chunks of rows 0-7: 2 × 3 = 6 stored
    store.released = 0;
    const { data } = await a.get(null);
    expect(store.released).toBe(6);
    expect(Array.from(data as Uint8Array).filter((x) => x === 3).length).toBe(60);
  });
});
