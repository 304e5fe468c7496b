/**
 * The paths core loads on demand (write path, resize, groups and consolidated
 * metadata, codecs behind import()) under concurrency, cancellation and
 * failing loaders: cases found by an outside attack on the reshaped core.
 */
import {
  AbortError,
  CodecError,
  consolidate,
  createArray,
  createGroup,
  type Group,
  MemoryStore,
  open,
  openArray,
  registerCodec,
  slice,
  ValueError,
  ZarrError,
} from "@zarr/core";
import { codecRegistry } from "@zarr/core/codec";
import { afterEach, describe, expect, it } from "vitest";

const decoder = new TextDecoder();
const storedJson = async (store: MemoryStore, key: string) =>
  JSON.parse(decoder.decode((await store.get(key))!));

describe("metadata changes of one array never interleave", () => {
  it("a resize and an attribute change at once both land", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, "a", { shape: [4], dataType: "int8", chunkShape: [2] });
    await Promise.all([a.resize([9]), a.setAttributes({ k: 1 })]);
    const reopened = await openArray(store, "a");
    expect(reopened.shape).toEqual([9]);
    expect(reopened.attrs).toEqual({ k: 1 });
    expect(a.shape).toEqual([9]);
  });

  it("concurrent updateAttributes calls merge", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, "a", { shape: [4], dataType: "int8", chunkShape: [2] });
    await Promise.all([a.updateAttributes({ x: 1 }), a.updateAttributes({ y: 2 })]);
    expect((await openArray(store, "a")).attrs).toEqual({ x: 1, y: 2 });
  });

  it("a resize that grows honours an aborted signal and changes nothing", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, "a", { shape: [10], dataType: "int32", chunkShape: [5] });
    await expect(a.resize([30], { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(
      AbortError,
    );
    expect((await openArray(store, "a")).shape).toEqual([10]);
  });
});

describe("writes through consolidated metadata", () => {
  it("keep the root group's attributes as another handle last wrote them", async () => {
    const store = new MemoryStore();
    await createGroup(store, "", { attributes: { v: 0 } });
    await createArray(store, "a", { shape: [4], dataType: "int8", chunkShape: [2] });
    await consolidate(store, "");
    const viaConsolidated = (await open(store, "")) as Group;
    const plain = (await open(store, "", { consolidated: false })) as Group;
    await plain.setAttributes({ v: 1, important: "keep me" });
    const a = await viaConsolidated.get("a");
    if (a.kind !== "array") throw new Error("expected an array");
    await a.resize([8]);
    const root = await storedJson(store, "zarr.json");
    expect(root.attributes).toEqual({ v: 1, important: "keep me" });
    expect(root.consolidated_metadata.metadata.a.shape).toEqual([8]);
  });

  it("record nodes created through two handles", async () => {
    const store = new MemoryStore();
    await createGroup(store, "");
    await consolidate(store, "");
    const h1 = (await open(store, "")) as Group;
    const h2 = (await open(store, "")) as Group;
    await h1.createArray("x", { shape: [2], dataType: "int8" });
    await h2.createArray("y", { shape: [2], dataType: "int8" });
    const root = await storedJson(store, "zarr.json");
    expect(Object.keys(root.consolidated_metadata.metadata).sort()).toEqual(["x", "y"]);
    await expect(((await open(store, "")) as Group).childNames()).resolves.toEqual(["x", "y"]);
  });
});

describe("readers sharing one shard index read", () => {
  it("one reader's abort does not fail the others", async () => {
    class SlowStore extends MemoryStore {
      override async get(...args: Parameters<MemoryStore["get"]>): ReturnType<MemoryStore["get"]> {
        await new Promise((r) => setTimeout(r, 50));
        return super.get(...args);
      }
    }
    const store = new SlowStore();
    const a = await createArray(store, "x", {
      shape: [16],
      dataType: "int32",
      chunkShape: [16],
      codecs: [
        {
          name: "sharding_indexed",
          configuration: {
            chunk_shape: [4],
            codecs: [{ name: "bytes", configuration: { endian: "little" } }],
            index_codecs: [{ name: "bytes", configuration: { endian: "little" } }],
          },
        },
      ],
    });
    await a.set(null, 1);
    const controller = new AbortController();
    const aborted = a.get([slice(0, 4)], { signal: controller.signal });
    const other = a.get([slice(4, 8)]);
    setTimeout(() => controller.abort(), 10);
    await expect(aborted).rejects.toBeInstanceOf(AbortError);
    expect([...(await other).data]).toEqual([1, 1, 1, 1]);
  });
});

describe("codecs registered lazily", () => {
  const arrayDoc = (codec: string) =>
    new TextEncoder().encode(
      JSON.stringify({
        zarr_format: 3,
        node_type: "array",
        shape: [4],
        data_type: "uint8",
        chunk_grid: { name: "regular", configuration: { chunk_shape: [2] } },
        chunk_key_encoding: { name: "default" },
        fill_value: 0,
        codecs: [{ name: "bytes" }, { name: codec }],
      }),
    );
  afterEach(() => {
    for (const name of ["test.failing", "test.throwing", "test.endless", "test.malformed"]) {
      codecRegistry.unregister(name);
    }
  });

  it("a loader that fails is a CodecError naming the codec, with the cause", async () => {
    const store = new MemoryStore();
    await store.set("zarr.json", arrayDoc("test.failing"));
    const cause = new Error("chunk not found");
    registerCodec("test.failing", { load: () => Promise.reject(cause) });
    const error = await openArray(store, "").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CodecError);
    expect(error).toBeInstanceOf(ZarrError);
    expect((error as Error).message).toContain('"test.failing"');
    expect((error as Error).cause).toBe(cause);
  });

  it("a loader that throws instead of rejecting is the same CodecError, and is retried", async () => {
    const store = new MemoryStore();
    await store.set("zarr.json", arrayDoc("test.throwing"));
    const cause = new Error("no such module");
    let calls = 0;
    registerCodec("test.throwing", {
      load: () => {
        calls++;
        throw cause;
      },
    });
    for (let attempt = 1; attempt <= 2; attempt++) {
      const error = await openArray(store, "").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CodecError);
      expect((error as Error).message).toContain('"test.throwing" could not be loaded');
      expect((error as Error).cause).toBe(cause);
      expect(calls).toBe(attempt);
    }
  });

  it("a loader that never settles ends with the signal", async () => {
    const store = new MemoryStore();
    await store.set("zarr.json", arrayDoc("test.endless"));
    registerCodec("test.endless", { load: () => new Promise(() => {}) });
    await expect(openArray(store, "", { signal: AbortSignal.timeout(100) })).rejects.toBeInstanceOf(
      AbortError,
    );
  });

  it("a loader that returns something else than a codec factory is a CodecError", async () => {
    const store = new MemoryStore();
    await store.set("zarr.json", arrayDoc("test.malformed"));
    registerCodec("test.malformed", {
      load: async () => ({ kind: "bytes_to_bytes" }) as never,
    });
    await expect(openArray(store, "")).rejects.toBeInstanceOf(CodecError);
  });
});

describe("coordinate selection", () => {
  it("setCoordinates refuses more values than points", async () => {
    const a = await createArray(new MemoryStore(), "a", {
      shape: [10],
      dataType: "int32",
      chunkShape: [5],
    });
    await expect(a.setCoordinates([[1, 2]], new Int32Array([7, 8, 9]))).rejects.toBeInstanceOf(
      ValueError,
    );
    expect([...(await a.get([slice(0, 4)])).data]).toEqual([0, 0, 0, 0]);
  });
});

describe("float fill values read by the exact JSON parser", () => {
  const doc = (fill: string) =>
    new TextEncoder().encode(
      `{"zarr_format":3,"node_type":"array","shape":[4],"data_type":"float64",` +
        `"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[2]}},` +
        `"chunk_key_encoding":{"name":"default"},"fill_value":${fill},"codecs":[{"name":"bytes","configuration":{"endian":"little"}}]}`,
    );

  it("an integer literal past binary64 is refused like 1e400 (never read as Infinity)", async () => {
    for (const fill of ["1e400", "1".padEnd(310, "0")]) {
      const store = new MemoryStore();
      await store.set("zarr.json", doc(fill));
      await expect(openArray(store, "")).rejects.toThrow(/overflows binary64/);
    }
  });

  it("a bare NaN token is refused with a message that says how to write it", async () => {
    const store = new MemoryStore();
    await store.set("zarr.json", doc("NaN"));
    await expect(openArray(store, "")).rejects.toThrow(/write the string "NaN"/);
  });

  it("an exact integer literal that fits binary64 reads as that number", async () => {
    const store = new MemoryStore();
    await store.set("zarr.json", doc("12345678901234567890"));
    const a = await openArray(store, "", { dtype: "float64" });
    expect([...(await a.get([0])).data]).toEqual([Number(12345678901234567890n)]);
  });
});
