/**
 * `release`: values handed back are reused by later reads (no allocation per
 * chunk), and nothing else is: foreign values, second releases and small
 * values are ignored, and a read never returns memory still in use.
 */
import { join } from "node:path";
import { createArray, openArray } from "@zarr/core";
import { resolveStore } from "@zarr/core/store";
import { FileSystemStore } from "@zarr/store-fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readBuffers } from "../src/read-buffers.js";
import { tempDir } from "./helpers.js";

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ root, cleanup } = await tempDir());
});
afterEach(() => cleanup());

const filled = (n: number, v: number) => new Uint8Array(n).fill(v);

describe("FileSystemStore.release", () => {
  it("a released value's memory serves the next read of a similar size", async () => {
    const store = new FileSystemStore(root);
    await store.set("a", filled(100_000, 1));
    await store.set("b", filled(99_000, 2));
    const a = (await store.get("a"))!;
    const memory = a.buffer;
    store.release(a);
    const b = (await store.get("b"))!;
    expect(b.buffer).toBe(memory);
    expect(b.length).toBe(99_000);
    expect(b.every((x) => x === 2)).toBe(true);
    // Through core's store wrapper too (which hands out plain Uint8Arrays).
    const resolved = resolveStore(store);
    resolved.release(b);
    const again = (await resolved.get("a"))!;
    expect(again.buffer).toBe(memory);
    expect(again.every((x) => x === 1)).toBe(true);
  });

  it("memory is shared by the thread's stores: a store opened per read reuses the last one's", async () => {
    await new FileSystemStore(root).set("a", filled(200_000, 4));
    const first = new FileSystemStore(root);
    const a = (await first.get("a"))!;
    const memory = a.buffer;
    first.release(a);
    // A second store on the same files (as `openArray(new FileSystemStore(path))` per read).
    const second = new FileSystemStore(root);
    const b = (await second.get("a"))!;
    expect(b.buffer).toBe(memory);
    expect(b.every((x) => x === 4)).toBe(true);
    // Handed out once: while `b` is live, another read gets other memory.
    const c = (await first.get("a"))!;
    expect(c.buffer).not.toBe(memory);
    expect(c.every((x) => x === 4)).toBe(true);
    second.release(b);
    first.release(c);
  });

  it("a value given back twice, after its memory went to another store's read, frees nothing", async () => {
    const [a, b, c] = [1, 2, 3].map((v) => {
      const store = new FileSystemStore(join(root, String(v)));
      return { store, value: v };
    });
    for (const { store, value } of [a, b, c]) await store.set("k", filled(100_000, value));
    const v = (await a.store.get("k"))!;
    a.store.release(v);
    const w = (await b.store.get("k"))!; // v's memory, now live as w
    expect(w.buffer).toBe(v.buffer);
    a.store.release(v); // stale: must not free w's memory
    const x = (await c.store.get("k"))!;
    expect(x.buffer).not.toBe(w.buffer);
    expect(w.every((e) => e === 2)).toBe(true);
    expect(x.every((e) => e === 3)).toBe(true);
  });

  it("a view of a value, even one starting at its first byte, is not taken back", async () => {
    const a = new FileSystemStore(join(root, "a"));
    const b = new FileSystemStore(join(root, "b"));
    await a.set("k", filled(100_000, 1));
    await b.set("k", filled(100_000, 2));
    const y = (await a.get("k"))!;
    a.release(y.subarray(0, 10));
    a.release(new Uint8Array(y.buffer, 0, y.length)); // same memory, another object
    const z = (await b.get("k"))!;
    expect(z.buffer).not.toBe(y.buffer);
    expect(y.every((e) => e === 1)).toBe(true);
  });

  it("keeps at most 32 MiB for reuse, whatever the stores and values given back", async () => {
    const stores = [0, 1].map((i) => new FileSystemStore(join(root, `s${i}`)));
    for (const [i, store] of stores.entries()) await store.set("k", filled(1 << 20, i + 1));
    const values = [];
    for (let i = 0; i < 40; i++) values.push((await stores[i % 2].get("k"))!);
    for (const [i, v] of values.entries()) stores[(i + 1) % 2].release(v);
    expect(readBuffers.kept.bytes).toBeLessThanOrEqual(32 * 2 ** 20);
    expect(readBuffers.kept.bytes).toBeGreaterThan(16 * 2 ** 20); // they were kept, up to the cap
  });

  it("a value whose memory was transferred away is not kept", async () => {
    const store = new FileSystemStore(root);
    await store.set("k", filled(100_000, 5));
    const before = readBuffers.kept;
    for (let i = 0; i < 3; i++) {
      const v = (await store.get("k"))!;
      structuredClone(v.buffer, { transfer: [v.buffer as ArrayBuffer] }); // as postMessage(…, [buffer])
      expect(v.buffer.byteLength).toBe(0);
      store.release(v);
    }
    expect(readBuffers.kept).toEqual(before);
    const again = (await store.get("k"))!;
    expect(again.every((e) => e === 5)).toBe(true);
  });

  it("memory past a value's end, reachable through `.buffer`, never holds old heap bytes", async () => {
    const store = new FileSystemStore(root);
    await store.set("odd", filled(100_001, 7));
    for (let k = 0; k < 5; k++) {
      const v = (await store.get("odd"))!;
      expect(v.buffer.byteLength).toBeGreaterThan(v.length); // a size class with slack
      const beyond = new Uint8Array(v.buffer, v.byteOffset + v.length);
      expect(beyond.every((x) => x === 0 || x === 7)).toBe(true);
    }
  });

  it("ignores foreign values, second releases and small values", async () => {
    const store = new FileSystemStore(root);
    await store.set("a", filled(100_000, 1));
    await store.set("s", filled(100, 3));
    store.release(new Uint8Array(100_000)); // not the store's
    const a = (await store.get("a"))!;
    store.release(a);
    store.release(a); // twice: must not be handed out twice
    const x = (await store.get("a"))!;
    const y = (await store.get("a"))!;
    expect(x.buffer).not.toBe(y.buffer);
    const s = (await store.get("s"))!;
    store.release(s);
    expect((await store.get("s"))!.buffer).not.toBe(s.buffer);
  });

  it("arrays hand every chunk's bytes back once decoded, and read right", async () => {
    const store = new FileSystemStore(root);
    const a = await createArray(store, "t", {
      shape: [300, 300],
      dataType: "float64",
      chunkShape: [128, 128],
      fillValue: -1,
    });
    const value = new Float64Array(300 * 300).map((_, i) => i * 0.5);
    await a.set(null, value);
    await store.erase("t/c/2/2"); // one chunk missing: fill value, nothing to release
    const given: Uint8Array[] = [];
    const release = store.release.bind(store);
    store.release = (v) => {
      given.push(v);
      release(v);
    };
    const b = await openArray(store, "t");
    for (let k = 0; k < 3; k++) {
      const { data } = await b.get(null, { concurrency: 2 });
      const want = value.slice();
      for (let i = 256; i < 300; i++) want.fill(-1, i * 300 + 256, i * 300 + 300);
      expect(Array.from(data as Float64Array)).toEqual(Array.from(want));
    }
    // The four whole chunks inside the output are read straight into it
    // (getInto: no value to hand back); the four edge chunks present are read,
    // copied and handed back.
    expect(given.length).toBe(3 * 4);
  });
});

describe("FileSystemStore.release: what a reused buffer shows", () => {
  it("past a value's end, a reused buffer holds zeros, never the end of an earlier value", async () => {
    const store = new FileSystemStore(root);
    await store.set("A", filled(80_000, 0xaa));
    await store.set("B", filled(75_000, 0xbb));
    const a = (await store.get("A"))!;
    store.release(a);
    const b = (await store.get("B"))!;
    expect(b.buffer).toBe(a.buffer); // the same memory, reused
    expect(new Uint8Array(b.buffer).subarray(b.length).every((x) => x === 0)).toBe(true);
  });

  it("a view of a value handed back is ignored: the value's memory is not reused while it lives", async () => {
    const store = new FileSystemStore(root);
    await store.set("A", filled(80_000, 1));
    const a = (await store.get("A"))!;
    store.release(a.subarray(10));
    const again = (await store.get("A"))!;
    expect(again.buffer).not.toBe(a.buffer);
  });
});
