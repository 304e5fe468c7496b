// Huge arrays through the library API (get, set, getCoordinates, resize,
// conversions): the cost follows what is selected, stored or changed, never
// the size of the chunk grid, and memory stays bounded even when a selection
// crosses 2^53 chunks (the work then runs until cancelled).
import { describe, expect, it } from "vitest";
import { attack, describeRun } from "../src/index.js";

const LIMITS = { maxRssMiB: 350, timeoutMs: 30_000 };
const N = 2 ** 53 - 1;

describe("huge arrays through the API", () => {
  it("small reads, point reads and writes of a 2^53-1 element array of one-element chunks are immediate", async () => {
    const r = await attack(
      `const { MemoryStore, createArray, slice } = await import("@zarr/core");
       const a = await createArray(new MemoryStore(), "a", { shape: [${N}], dataType: "uint8", chunkShape: [1], fillValue: 3 });
       await a.set([slice(${N} - 5, null)], 7);
       await a.setCoordinates([[0, ${N} - 1]], 9);
       const tail = Array.from((await a.get([slice(-6, null)])).data);
       const points = Array.from((await a.getCoordinates([[0, 1, ${N} - 1]])).data);
       return { tail, points };`,
      LIMITS,
    );
    expect(r.value, describeRun(r)).toEqual({ tail: [3, 7, 7, 7, 7, 9], points: [9, 3, 9] });
    expect(r.elapsedMs).toBeLessThan(15_000);
  });

  it.each([
    ["set(null, fill value)", "a.set(null, 0, { signal })"],
    ["set of a negative-step slice", "a.set([slice(null, null, -1)], 0, { signal })"],
    ["set of a 2-d selection", "b.set(null, 0, { signal })"],
  ])(
    "%s over 2^53 chunks (each erased, nothing kept) runs in bounded memory until cancelled",
    async (_name, op) => {
      const r = await attack(
        `const { MemoryStore, createArray, slice } = await import("@zarr/core");
       const store = new MemoryStore();
       const a = await createArray(store, "a", { shape: [${N}], dataType: "uint8", chunkShape: [1] });
       const b = await createArray(store, "b", { shape: [2 ** 26, 2 ** 26], dataType: "uint8", chunkShape: [1, 1] });
       const signal = AbortSignal.timeout(2000);
       try { await ${op}; return "finished"; } catch (e) { return e.name; }`,
        LIMITS,
      );
      expect(r.killed, describeRun(r)).toBeUndefined();
      expect(r.value, describeRun(r)).toBe("AbortError");
      expect(r.peakRssMiB, describeRun(r)).toBeLessThan(LIMITS.maxRssMiB);
    },
  );

  it("resize of a 10^15-chunk grid with a few stored chunks, by one element and to a tenth, is immediate", async () => {
    const r = await attack(
      `const { MemoryStore, createArray, openArray } = await import("@zarr/core");
       const store = new MemoryStore();
       const a = await createArray(store, "a", { shape: [1e15], dataType: "uint8", chunkShape: [1] });
       for (const i of [0, 7, 1e14 - 1, 1e14, 1e15 - 1]) await a.set([i], 1);
       await a.resize([1e15 - 1]);
       await a.resize([1e14], { clearEdges: true });
       const keys = [...store.map.keys()].filter((k) => k.includes("/c/")).sort();
       return { keys, shape: (await openArray(store, "a")).shape };`,
      LIMITS,
    );
    expect(r.value, describeRun(r)).toEqual({
      keys: ["a/c/0", "a/c/7", "a/c/99999999999999"],
      shape: [1e14],
    });
    expect(r.elapsedMs).toBeLessThan(15_000);
  });

  it("converting a sparse 10^12-chunk v3 array to v2 (rewrite) copies its stored chunks only", async () => {
    const r = await attack(
      `await import("@zarr/v2-compat/register");
       const { MemoryStore, createArray, openArray } = await import("@zarr/core");
       const { convertV3ToV2 } = await import("@zarr/v2-compat");
       const src = new MemoryStore();
       const a = await createArray(src, "a", { shape: [1e12], dataType: "int16", chunkShape: [1], fillValue: -1 });
       await a.set([5], 42);
       const dst = new MemoryStore();
       await convertV3ToV2(src, "a", { target: dst });
       const b = await openArray(dst, "a");
       return { format: b.zarrFormat, value: Array.from((await b.get([5])).data), fill: Array.from((await b.get([6])).data) };`,
      LIMITS,
    );
    expect(r.value, describeRun(r)).toEqual({ format: 2, value: [42], fill: [-1] });
    expect(r.elapsedMs).toBeLessThan(15_000);
  });
});
