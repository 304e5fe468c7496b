// resize (v3 core: "Resizing") against a model, through both of its ways of
// finding the chunks to touch: enumerating the changed region (few chunks, or
// a store that cannot list) and listing the stored chunks (many). The cost
// follows what changes: a huge grid shrunk by one element touches one chunk.
import { type AnyStore, createArray, MemoryStore, openArray } from "@zarr/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

/** The same store without list operations (so resize must enumerate). */
function unlistable(store: MemoryStore): AnyStore {
  return {
    get: (k, r, o) => store.get(k, r, o),
    getSize: (k, o) => store.getSize(k, o),
    set: (k, v, o) => store.set(k, v, o),
    erase: (k, o) => store.erase(k, o),
  };
}

/** Counts store operations by name. */
function counting(store: MemoryStore): { store: AnyStore; ops: Map<string, number> } {
  const ops = new Map<string, number>();
  const proxy = new Proxy(store, {
    get(target, prop) {
      const v = Reflect.get(target, prop);
      if (typeof v !== "function") return v;
      return (...args: unknown[]) => {
        ops.set(String(prop), (ops.get(String(prop)) ?? 0) + 1);
        return v.apply(target, args);
      };
    },
  });
  return { store: proxy, ops };
}

describe("resize against a model", () => {
  it("values, stored chunks and clearEdges agree with the model, listable or not", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 2 }).chain((ndim) =>
          fc.record({
            shape: fc.array(fc.integer({ min: 0, max: 9 }), { minLength: ndim, maxLength: ndim }),
            chunk: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: ndim, maxLength: ndim }),
            next: fc.array(fc.integer({ min: 0, max: 9 }), { minLength: ndim, maxLength: ndim }),
            clearEdges: fc.boolean(),
            listable: fc.boolean(),
            seed: fc.integer(),
          }),
        ),
        async ({ shape, chunk, next, clearEdges, listable, seed }) => {
          const memory = new MemoryStore();
          const store = listable ? memory : unlistable(memory);
          const a = await createArray(store, "a", {
            shape,
            dataType: "int16",
            chunkShape: chunk,
            fillValue: -1,
          });
          const n = shape.reduce((x, y) => x * y, 1);
          const values = Int16Array.from({ length: n }, (_, i) => ((i * 7919 + seed) % 1000) + 1);
          if (n > 0) await a.set(null, values);
          await a.resize(next, { clearEdges });
          // Model: elements inside both shapes keep their values; growing back to the
          // old shape shows stale elements only in kept chunks and only without clearEdges.
          const b = await openArray(store, "a");
          expect(b.shape).toEqual(next);
          const grid = next.map((s, d) => Math.ceil(s / chunk[d]));
          for (const key of memory.map.keys()) {
            if (!key.startsWith("a/c/")) continue;
            const coords = key.slice(4).split("/").map(Number);
            expect(
              coords.every((c, d) => c < grid[d]),
              key,
            ).toBe(true);
          }
          await b.resize(shape);
          const back = n > 0 ? ((await b.get()).data as Int16Array) : new Int16Array(0);
          const strides = shape.map((_, d) => shape.slice(d + 1).reduce((x, y) => x * y, 1));
          for (let i = 0; i < n; i++) {
            const idx = shape.map((s, d) => Math.floor(i / strides[d]) % s);
            const inside = idx.every((x, d) => x < next[d]);
            const inKeptChunk = idx.every((x, d) => Math.floor(x / chunk[d]) < grid[d]);
            const expected = inside || (inKeptChunk && !clearEdges) ? values[i] : -1;
            expect(back[i], `element ${idx} of ${shape} -> ${next}`).toBe(expected);
          }
        },
      ),
      { numRuns: 300, seed: 7 },
    );
  });

  it("a grid of 10^15 chunks shrunk by one element touches one chunk", async () => {
    const { store, ops } = counting(new MemoryStore());
    const a = await createArray(store, "a", { shape: [1e15], dataType: "uint8", chunkShape: [1] });
    await a.set([1e15 - 1], 5);
    await a.set([3], 7);
    await a.resize([1e15 - 1], { clearEdges: true });
    expect(await store.get("a/c/999999999999999")).toBeUndefined();
    expect(await store.get("a/c/3")).toBeDefined();
    expect(ops.get("list") ?? 0).toBe(0);
    expect(ops.get("erase") ?? 0).toBeLessThanOrEqual(1);
  });

  it("a huge shrink lists the stored chunks instead of walking the removed region", async () => {
    const { store, ops } = counting(new MemoryStore());
    const a = await createArray(store, "a", {
      shape: [1e12, 4],
      dataType: "uint8",
      chunkShape: [1, 3],
      fillValue: 9,
    });
    for (const i of [0, 5, 1e9, 1e12 - 1]) await a.set([i, null], Uint8Array.of(1, 2, 3, 4));
    await a.resize([6, 2], { clearEdges: true });
    const keys = [...(store as unknown as MemoryStore).map.keys()].filter((k) => k.includes("/c/"));
    expect(keys.sort()).toEqual(["a/c/0/0", "a/c/5/0"]);
    expect((ops.get("listPrefix") ?? 0) + (ops.get("list") ?? 0)).toBeGreaterThan(0);
    await a.resize([6, 4]);
    expect(Array.from((await a.get([0, null])).data as Uint8Array)).toEqual([1, 2, 9, 9]);
  });
});
