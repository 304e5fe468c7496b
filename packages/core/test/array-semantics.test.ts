// Array behaviour beyond round trips: partial writes, fill-value chunks,
// resize, attributes, direct chunk access, cancellation and errors.
import {
  AbortError,
  CodecError,
  ContainsNodeError,
  createArray,
  createGroup,
  IndexError,
  MemoryStore,
  NodeNotFoundError,
  NotRegisteredError,
  openArray,
  slice,
  ValueError,
} from "@zarr/core";
import { describe, expect, it } from "vitest";

function chunkKeys(store: MemoryStore, prefix: string): string[] {
  return [...store.map.keys()].filter((k) => k.startsWith(`${prefix}/c`)).sort();
}

describe("writes", () => {
  it("partial-chunk writes read, modify and write back", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, "a", {
      shape: [6, 6],
      dataType: "int32",
      chunkShape: [4, 4],
    });
    await a.set(
      null,
      Int32Array.from({ length: 36 }, (_, i) => i),
    );
    await a.set([slice(1, 3), slice(2, 5)], 100);
    const got = await a.get();
    const expected = Int32Array.from({ length: 36 }, (_, i) => {
      const r = Math.floor(i / 6);
      const c = i % 6;
      return r >= 1 && r < 3 && c >= 2 && c < 5 ? 100 : i;
    });
    expect(got.data).toEqual(expected);
  });

  it("chunks equal to the fill value are not stored, and existing ones are erased", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, "a", {
      shape: [8],
      dataType: "float32",
      chunkShape: [4],
      fillValue: "NaN",
    });
    await a.set(null, Number.NaN);
    expect(chunkKeys(store, "a")).toEqual([]);
    await a.set(slice(0, 2), 1);
    expect(chunkKeys(store, "a")).toEqual(["a/c/0"]);
    await a.set(slice(0, 2), Number.NaN);
    expect(chunkKeys(store, "a")).toEqual([]);
    const got = await a.get();
    expect(Array.from(got.data as Float32Array).every(Number.isNaN)).toBe(true);
  });

  it("writeEmptyChunks stores fill-value chunks when asked", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, "a", { shape: [8], dataType: "uint8", chunkShape: [4] });
    await a.set(null, 0, { writeEmptyChunks: true });
    expect(chunkKeys(store, "a")).toEqual(["a/c/0", "a/c/1"]);
  });

  it("-0.0 is not the fill value 0.0 (bitwise comparison)", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, "a", { shape: [2], dataType: "float64", chunkShape: [2] });
    await a.set(null, -0);
    expect(chunkKeys(store, "a")).toEqual(["a/c/0"]);
    expect(Object.is((await a.get()).data[0], -0)).toBe(true);
  });

  it("broadcasts scalars and writes negative-step and orthogonal selections", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, "a", {
      shape: [5, 4],
      dataType: "int16",
      chunkShape: [2, 3],
    });
    await a.set([slice(null, null, -2), [0, 3]], new Int16Array([1, 2, 3, 4, 5, 6]));
    const got = await a.get();
    const grid = Array.from({ length: 5 }, (_, r) =>
      Array.from(got.data as Int16Array).slice(r * 4, r * 4 + 4),
    );
    expect(grid).toEqual([
      [5, 0, 0, 6],
      [0, 0, 0, 0],
      [3, 0, 0, 4],
      [0, 0, 0, 0],
      [1, 0, 0, 2],
    ]);
  });

  it("concurrent sets into different parts of one chunk lose nothing", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, "a", { shape: [64], dataType: "uint8", chunkShape: [64] });
    await Promise.all(Array.from({ length: 64 }, (_, i) => a.set(i, i + 1)));
    expect(Array.from((await a.get()).data as Uint8Array)).toEqual(
      Array.from({ length: 64 }, (_, i) => i + 1),
    );
  });

  it("rejects values of the wrong shape, type or range", async () => {
    const a = await createArray(new MemoryStore(), "a", { shape: [4], dataType: "uint8" });
    await expect(a.set(null, new Uint8Array(3))).rejects.toBeInstanceOf(ValueError);
    // @ts-expect-error a Float32Array into a uint8 array: a type error, and a ValueError at run time
    await expect(a.set(null, new Float32Array(4))).rejects.toBeInstanceOf(ValueError);
    await expect(a.set(null, 300)).rejects.toBeInstanceOf(ValueError);
    await expect(a.set(null, { data: new Uint8Array(4), shape: [2, 2] })).rejects.toBeInstanceOf(
      ValueError,
    );
  });

  it("rejects selections out of bounds", async () => {
    const a = await createArray(new MemoryStore(), "a", { shape: [4, 4], dataType: "uint8" });
    await expect(a.get([4, 0])).rejects.toBeInstanceOf(IndexError);
    await expect(a.get([0, 0, 0])).rejects.toBeInstanceOf(IndexError);
  });
});

describe("64-bit integers", () => {
  it("uint64 beyond 2^53 round-trips exactly, including the fill value", async () => {
    const store = new MemoryStore();
    const big = 2n ** 64n - 1n;
    const a = await createArray(store, "u", { shape: [3], dataType: "uint64", fillValue: big });
    const doc = new TextDecoder().decode(store.map.get("u/zarr.json"));
    expect(doc).toContain('"fill_value": 18446744073709551615');
    await a.set(1, 2n ** 60n + 1n);
    const got = await (await openArray(store, "u")).get();
    expect(Array.from(got.data as BigUint64Array)).toEqual([big, 2n ** 60n + 1n, big]);
  });
});

describe("resize (v3 core: Resizing)", () => {
  it("shrinking erases chunks outside the new shape; growing reads fill", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, "a", {
      shape: [10],
      dataType: "int8",
      chunkShape: [3],
      fillValue: -1,
    });
    await a.set(
      null,
      Int8Array.from({ length: 10 }, (_, i) => i),
    );
    await a.resize([4]);
    expect(chunkKeys(store, "a")).toEqual(["a/c/0", "a/c/1"]);
    expect(Array.from((await a.get()).data as Int8Array)).toEqual([0, 1, 2, 3]);
    const reopened = await openArray(store, "a");
    expect(reopened.shape).toEqual([4]);
    await reopened.resize([8], {});
    // Data past the old edge inside a kept chunk is shown again (spec note), unless cleared.
    expect(Array.from((await reopened.get()).data as Int8Array)).toEqual([
      0, 1, 2, 3, 4, 5, -1, -1,
    ]);
  });

  it("clearEdges resets elements outside the new shape to the fill value", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, "a", {
      shape: [10],
      dataType: "int8",
      chunkShape: [3],
      fillValue: -1,
    });
    await a.set(
      null,
      Int8Array.from({ length: 10 }, (_, i) => i),
    );
    await a.resize([4], { clearEdges: true });
    await a.resize([8]);
    expect(Array.from((await a.get()).data as Int8Array)).toEqual([0, 1, 2, 3, -1, -1, -1, -1]);
  });
});

describe("attributes, chunks and nodes", () => {
  it("updates attributes in the metadata document", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, "a", {
      shape: [1],
      dataType: "bool",
      attributes: { units: "K" },
    });
    await a.updateAttributes({ scale: 2 });
    expect((await openArray(store, "a")).attrs).toEqual({ units: "K", scale: 2 });
  });

  it("reads and writes single chunks", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, "a", {
      shape: [4, 4],
      dataType: "uint16",
      chunkShape: [2, 2],
    });
    expect(await a.getChunk([1, 1])).toBeUndefined();
    await a.setChunk([1, 1], { data: new Uint16Array([1, 2, 3, 4]) });
    expect(Array.from((await a.getChunk([1, 1]))!.data as Uint16Array)).toEqual([1, 2, 3, 4]);
    expect(Array.from((await a.get([slice(2, 4), 3])).data as Uint16Array)).toEqual([2, 4]);
    await expect(a.getChunk([2, 0])).rejects.toBeInstanceOf(IndexError);
  });

  it("refuses to overwrite a node unless asked", async () => {
    const store = new MemoryStore();
    await createArray(store, "a", { shape: [1], dataType: "uint8" });
    await expect(createArray(store, "a", { shape: [1], dataType: "uint8" })).rejects.toBeInstanceOf(
      ContainsNodeError,
    );
    await createArray(store, "a", { shape: [2], dataType: "uint8", overwrite: true });
    expect((await openArray(store, "a")).shape).toEqual([2]);
  });

  it("cannot create a node below an array", async () => {
    const store = new MemoryStore();
    await createArray(store, "a", { shape: [1], dataType: "uint8" });
    await expect(createGroup(store, "a/b")).rejects.toBeInstanceOf(ContainsNodeError);
  });

  it("missing nodes and unregistered codecs are typed errors", async () => {
    const store = new MemoryStore();
    await expect(openArray(store, "nope")).rejects.toBeInstanceOf(NodeNotFoundError);
    const err = await createArray(store, "b", {
      shape: [4],
      dataType: "int16",
      codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "blosc" }],
    }).catch((e) => e);
    expect(err).toBeInstanceOf(NotRegisteredError);
    expect(String(err.message)).toContain(
      'install @zarr/codec-blosc and import "@zarr/codec-blosc/register"',
    );
    // Nothing was written for the failed create.
    expect(store.map.has("b/zarr.json")).toBe(false);
  });

  it("cancels reads with an AbortSignal", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, "a", { shape: [100], dataType: "uint8", chunkShape: [1] });
    const controller = new AbortController();
    controller.abort();
    await expect(a.get(null, { signal: controller.signal })).rejects.toBeInstanceOf(AbortError);
  });
});

describe("coordinate selection (vindex)", () => {
  it("reads and writes points in order, across chunks, with negative indices", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, "a", {
      shape: [5, 6],
      dataType: "int32",
      chunkShape: [2, 4],
      fillValue: -1,
    });
    await a.set(
      null,
      Int32Array.from({ length: 30 }, (_, i) => i),
    );
    const got = await a.getCoordinates([
      [4, 0, -1, 2],
      [5, 0, 0, -3],
    ]);
    expect(Array.from(got.data as Int32Array)).toEqual([29, 0, 24, 15]);
    await a.setCoordinates(
      [
        [0, 4],
        [1, 1],
      ],
      new Int32Array([100, 200]),
    );
    expect(Array.from((await a.get([[0, 4], 1])).data as Int32Array)).toEqual([100, 200]);
    await expect(a.getCoordinates([[5], [0]])).rejects.toBeInstanceOf(IndexError);
    await expect(a.getCoordinates([[0, 1], [0]])).rejects.toBeInstanceOf(IndexError);
  });
});

describe("errors name the chunk", () => {
  it("a corrupt chunk's CodecError names its key, on reads and on read-modify-write", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, "a", {
      shape: [8],
      dataType: "uint8",
      chunkShape: [4],
      codecs: [{ name: "bytes" }, { name: "crc32c" }],
    });
    await a.set(
      null,
      Uint8Array.from({ length: 8 }, (_, i) => i + 1),
    );
    const bad = store.map.get("a/c/1")!.slice();
    bad[0] ^= 0xff;
    await store.set("a/c/1", bad);
    for (const op of [() => a.get(), () => a.get(5), () => a.set(6, 0), () => a.getChunk([1])]) {
      const err = await op().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(CodecError);
      expect((err as CodecError).path).toBe("a/c/1");
      expect((err as Error).message).toMatch(/^chunk "a\/c\/1": .*crc32c checksum mismatch/);
    }
  });
});
