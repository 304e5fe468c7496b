// Write-then-read round trips through the whole array path (selection ->
// chunk projection -> codec pipeline -> store) for every core data type, both
// byte orders, transpose orders, ragged edge chunks, 0-d and zero-length
// arrays and both chunk key encodings (v3 core: "Chunk key encoding").
import {
  createArray,
  type DataArrayOf,
  type DataTypeName,
  type JsonValue,
  MemoryStore,
  openArray,
} from "@zarr/core";
import { resolveDataType } from "@zarr/core/internal";
import { describe, expect, it } from "vitest";

const CORE_TYPES = [
  "bool",
  "int8",
  "int16",
  "int32",
  "int64",
  "uint8",
  "uint16",
  "uint32",
  "uint64",
  "float16",
  "float32",
  "float64",
  "complex64",
  "complex128",
  "r8",
  "r24",
  "r64",
] as const;

/** Deterministic element values of each type, as slots of its in-memory array. */
function sample<D extends DataTypeName>(dataTypeName: D, n: number): DataArrayOf<D> {
  const dt = resolveDataType(dataTypeName, "test");
  const data = dt.allocate(n);
  const slots = n * dt.width;
  for (let i = 0; i < slots; i++) {
    const v = (i * 7919 + 13) % 251;
    if (data instanceof BigInt64Array) data[i] = BigInt(v - 125) * 73_786_976_294_838_206n;
    else if (data instanceof BigUint64Array) data[i] = BigInt(v) * 73_786_976_294_838_206n;
    else if (dt.kind === "bool") (data as Uint8Array)[i] = v & 1;
    else if (dt.kind === "float" || dt.kind === "complex")
      (data as Float64Array)[i] = (v - 125) / 4;
    else if (dt.kind === "int") (data as Int32Array)[i] = v - 125;
    else (data as Uint8Array)[i] = v;
  }
  return data as DataArrayOf<D>;
}

const SHAPES: { shape: number[]; chunks: number[] }[] = [
  { shape: [10], chunks: [3] },
  { shape: [7, 5], chunks: [3, 2] },
  { shape: [4, 3, 5], chunks: [2, 3, 2] },
];

function permutations(n: number): number[][] {
  if (n <= 1) return [[...Array(n).keys()]];
  const out: number[][] = [];
  for (const p of permutations(n - 1)) {
    for (let i = 0; i <= p.length; i++) out.push([...p.slice(0, i), n - 1, ...p.slice(i)]);
  }
  return out;
}

describe("round trips: data type × endian × shape", () => {
  for (const dtype of CORE_TYPES) {
    for (const endian of ["little", "big"] as const) {
      it(`${dtype} ${endian}`, async () => {
        for (const { shape, chunks } of SHAPES) {
          const store = new MemoryStore();
          const n = shape.reduce((a, b) => a * b, 1);
          const a = await createArray(store, "a", {
            shape,
            dataType: dtype,
            chunkShape: chunks,
            codecs: [{ name: "bytes", configuration: { endian } }],
          });
          const data = sample(dtype, n);
          await a.set(null, data);
          const b = await openArray(store, "a");
          const got = await b.get();
          expect(got.shape).toEqual(shape);
          expect(got.data).toEqual(data);
        }
      });
    }
  }
});

describe("round trips: transpose orders (v3 core: transpose codec)", () => {
  for (const { shape, chunks } of SHAPES) {
    for (const order of permutations(shape.length)) {
      it(`shape ${shape} order ${order}`, async () => {
        const store = new MemoryStore();
        const n = shape.reduce((a, b) => a * b, 1);
        const a = await createArray(store, "t", {
          shape,
          dataType: "complex64",
          chunkShape: chunks,
          codecs: [
            { name: "transpose", configuration: { order } },
            { name: "bytes", configuration: { endian: "big" } },
            { name: "crc32c" },
          ],
        });
        const data = sample("complex64", n);
        await a.set(undefined, data);
        expect((await (await openArray(store, "t")).get()).data).toEqual(data);
      });
    }
  }
});

describe("shapes at the edges", () => {
  it("0-d arrays store one chunk under key c", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, "s", { shape: [], dataType: "float64", fillValue: 1.5 });
    expect((await a.get()).data).toEqual(new Float64Array([1.5]));
    await a.set(null, 42);
    expect([...store.map.keys()].sort()).toEqual(["s/c", "s/zarr.json", "zarr.json"]);
    const got = await (await openArray(store, "s")).get();
    expect(got.shape).toEqual([]);
    expect(got.data).toEqual(new Float64Array([42]));
  });

  it("0-d arrays with the v2 key encoding use key 0", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, "", {
      shape: [],
      dataType: "int32",
      chunkKeyEncoding: { name: "v2" },
    });
    await a.set(undefined, 7);
    expect(store.map.has("0")).toBe(true);
  });

  it("zero-length dimensions read and write nothing", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, "z", {
      shape: [0, 5],
      dataType: "uint16",
      chunkShape: [0, 2],
    });
    const got = await a.get();
    expect(got.shape).toEqual([0, 5]);
    expect(got.data.length).toBe(0);
    await a.set(null, new Uint16Array(0));
    expect([...store.map.keys()].filter((k) => k.startsWith("z/c"))).toEqual([]);
  });

  it("ragged edge chunks are full-size chunks padded with the fill value", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, "r", {
      shape: [5],
      dataType: "int16",
      chunkShape: [4],
      fillValue: -1,
    });
    await a.set(null, new Int16Array([1, 2, 3, 4, 5]));
    const edge = store.map.get("r/c/1")!;
    // v3 core: border chunks always have the full chunk size.
    expect(Array.from(new Int16Array(edge.slice().buffer))).toEqual([5, -1, -1, -1]);
  });
});

describe("chunk key encodings", () => {
  const cases: [JsonValue, string[]][] = [
    [{ name: "default" }, ["c/0/0", "c/0/1", "c/1/0", "c/1/1"]],
    [{ name: "default", configuration: { separator: "." } }, ["c.0.0", "c.0.1", "c.1.0", "c.1.1"]],
    [{ name: "v2" }, ["0.0", "0.1", "1.0", "1.1"]],
    [{ name: "v2", configuration: { separator: "/" } }, ["0/0", "0/1", "1/0", "1/1"]],
  ];
  for (const [encoding, keys] of cases) {
    it(JSON.stringify(encoding), async () => {
      const store = new MemoryStore();
      const a = await createArray(store, "k", {
        shape: [4, 4],
        dataType: "uint8",
        chunkShape: [2, 2],
        chunkKeyEncoding: encoding as { name: string },
      });
      const data = sample("uint8", 16);
      await a.set(null, data);
      const stored = [...store.map.keys()].filter((k) => k !== "k/zarr.json" && k !== "zarr.json");
      expect(stored.map((k) => k.slice(2)).sort()).toEqual(keys);
      expect((await (await openArray(store, "k")).get()).data).toEqual(data);
    });
  }
});
