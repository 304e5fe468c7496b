// sharding_indexed (../shared/notes/v3-extensions.md "sharding_indexed"):
// round trips, missing inner chunks, partial reads with a request budget,
// concurrent writers of one shard, and an independent NumPy reader.
import { mkdtempSync, rmSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import {
  CodecError,
  CountingStore,
  createArray,
  type JsonValue,
  MemoryStore,
  MetadataError,
  openArray,
  registerCodec,
  slice,
} from "@zarr/core";
import { resolveDataType } from "@zarr/core/internal";
import { findPython, pythonSkipReason, runPython } from "@zarr/test-utils";
import { afterAll, describe, expect, it } from "vitest";

function sharding(
  chunkShape: number[],
  codecs: JsonValue[] = [{ name: "bytes", configuration: { endian: "little" } }],
  indexLocation: "start" | "end" = "end",
): JsonValue {
  return {
    name: "sharding_indexed",
    configuration: {
      chunk_shape: chunkShape,
      codecs,
      index_codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }],
      index_location: indexLocation,
    },
  };
}

function ramp(dtype: string, n: number) {
  const dt = resolveDataType(dtype, "test");
  const data = dt.allocate(n);
  for (let i = 0; i < n * dt.width; i++) {
    if (data instanceof BigInt64Array || data instanceof BigUint64Array) data[i] = BigInt(i + 1);
    else if (Array.isArray(data)) data[i] = `s${i}`;
    else (data as Uint8Array)[i] = dt.kind === "bool" ? (i % 3) & 1 : (i % 120) + 1;
  }
  return data;
}

describe("round trips", () => {
  for (const dtype of [
    "bool",
    "uint8",
    "int16",
    "float32",
    "float64",
    "uint64",
    "complex64",
    "r24",
  ]) {
    for (const location of ["start", "end"] as const) {
      it(`${dtype}, index at ${location}, ragged array edges`, async () => {
        const store = new MemoryStore();
        const a = await createArray(store, "a", {
          shape: [9, 7],
          dataType: dtype,
          chunkShape: [4, 4],
          codecs: [sharding([2, 2], undefined, location)],
        });
        const data = ramp(dtype, 63);
        await a.set(null, data);
        const back = await openArray(store, "a");
        expect((await back.get()).data).toEqual(data);
        // Partial reads of every small window agree with the full read.
        const part = await back.get([slice(3, 8), slice(1, 6, 2)]);
        const full = await back.get();
        const w = resolveDataType(dtype, "t").width;
        for (let r = 0; r < 5; r++) {
          for (let c = 0; c < 3; c++) {
            for (let k = 0; k < w; k++) {
              expect(part.data[(r * 3 + c) * w + k]).toEqual(
                full.data[((3 + r) * 7 + 1 + 2 * c) * w + k],
              );
            }
          }
        }
      });
    }
  }

  it("nested sharding with a transpose inside", async () => {
    const store = new MemoryStore();
    const inner = sharding(
      [2, 2],
      [
        { name: "transpose", configuration: { order: [1, 0] } },
        { name: "bytes", configuration: { endian: "big" } },
      ],
    );
    const a = await createArray(store, "n", {
      shape: [8, 8],
      dataType: "int32",
      chunkShape: [8, 8],
      codecs: [sharding([4, 4], [inner])],
    });
    const data = Int32Array.from({ length: 64 }, (_, i) => i * 3 - 50);
    await a.set(null, data);
    const back = await openArray(store, "n");
    expect((await back.get()).data).toEqual(data);
    expect(Array.from((await back.get([5, slice(2, 7)])).data as Int32Array)).toEqual(
      Array.from(data.slice(42, 47)),
    );
  });

  it("strings in shards: empty values and multi-byte UTF-8", async () => {
    const store = new MemoryStore();
    const values = ["", "ascii", "", "世界", "🚀🎉", "Ñoño", "", "z"];
    const a = await createArray(store, "s", {
      shape: [8],
      dataType: "string",
      chunkShape: [8],
      fillValue: "",
      codecs: [sharding([2], [{ name: "vlen-utf8" }])],
    });
    await a.set(null, values);
    expect((await (await openArray(store, "s")).get()).data).toEqual(values);
    expect((await a.get(slice(3, 5))).data).toEqual(["世界", "🚀🎉"]);
  });
});

describe("missing inner chunks and empty shards", () => {
  it("inner chunks equal to the fill value are not written; a fill-only shard is not stored", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, "a", {
      shape: [8],
      dataType: "int16",
      chunkShape: [4],
      fillValue: 7,
      codecs: [sharding([2])],
    });
    await a.set(slice(0, 2), new Int16Array([1, 2]));
    const shard = store.map.get("a/c/0")!;
    // One 2-element inner chunk (4 bytes) + index of 2 pairs (32 bytes) + crc32c (4 bytes).
    expect(shard.length).toBe(4 + 32 + 4);
    const index = new BigUint64Array(shard.slice(4, 36).buffer);
    expect(index[2]).toBe(2n ** 64n - 1n);
    expect(index[3]).toBe(2n ** 64n - 1n);
    expect(Array.from((await a.get()).data as Int16Array)).toEqual([1, 2, 7, 7, 7, 7, 7, 7]);
    await a.set(slice(0, 2), 7);
    expect(store.map.has("a/c/0")).toBe(false);
  });

  it("a corrupted index is a CodecError, never wrong data", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, "a", {
      shape: [4],
      dataType: "uint8",
      chunkShape: [4],
      codecs: [sharding([2])],
    });
    await a.set(null, new Uint8Array([1, 2, 3, 4]));
    const shard = store.map.get("a/c/0")!.slice();
    shard[shard.length - 10] ^= 0xff;
    await store.set("a/c/0", shard);
    await expect(a.get()).rejects.toBeInstanceOf(CodecError);
    await expect(a.get(0)).rejects.toBeInstanceOf(CodecError);
  });

  it("rejects an inner chunk shape that does not divide the shard", async () => {
    await expect(
      createArray(new MemoryStore(), "a", {
        shape: [9],
        dataType: "uint8",
        chunkShape: [9],
        codecs: [sharding([2])],
      }),
    ).rejects.toBeInstanceOf(MetadataError);
  });
});

describe("partial reads cost (counting store)", () => {
  it("one 64×64 inner chunk of a 4096×4096 uint16 array in 1024×1024 shards: ≤ 2 reads, ≤ index + chunk bytes", async () => {
    const memory = new MemoryStore();
    const a = await createArray(memory, "big", {
      shape: [4096, 4096],
      dataType: "uint16",
      chunkShape: [1024, 1024],
      codecs: [sharding([64, 64])],
    });
    // Fill one shard fully and a corner of another.
    const shard = Uint16Array.from({ length: 1024 * 1024 }, (_, i) => (i * 31) & 0xffff);
    await a.set([slice(1024, 2048), slice(0, 1024)], shard);
    const counting = new CountingStore(memory);
    const b = await openArray(counting, "big");
    counting.reset();
    const got = await b.get([slice(1024 + 128, 1024 + 192), slice(64, 128)]);
    const c = counting.reset();
    expect(c.reads).toBeLessThanOrEqual(2);
    const indexBytes = 16 * 16 * 16 + 4;
    expect(c.readBytes).toBeLessThanOrEqual(indexBytes + 64 * 64 * 2);
    expect((got.data as Uint16Array)[0]).toBe(shard[128 * 1024 + 64]);
    expect((got.data as Uint16Array)[64 * 64 - 1]).toBe(shard[191 * 1024 + 127]);

    // A region aligned to one shard: one read of the whole shard.
    const whole = await b.get([slice(1024, 2048), slice(0, 1024)]);
    expect(counting.reset().reads).toBeLessThanOrEqual(2);
    expect(whole.data).toEqual(shard);
  });

  it("nearby inner chunks are read in one coalesced request", async () => {
    const memory = new MemoryStore();
    const a = await createArray(memory, "a", {
      shape: [64],
      dataType: "uint8",
      chunkShape: [64],
      codecs: [sharding([4])],
    });
    await a.set(
      null,
      Uint8Array.from({ length: 64 }, (_, i) => i + 1),
    );
    const counting = new CountingStore(memory, { log: true });
    const b = await openArray(counting, "a");
    counting.reset();
    await b.get(slice(2, 30));
    expect(counting.counts.reads).toBe(2);
    counting.reset();
    await b.get(slice(2, 30), { coalesce: { gap: 0, maxSize: 4 } });
    expect(counting.counts.reads).toBe(1 + 8);
  });
});

describe("concurrent writers of one shard", () => {
  it("sets touching different inner chunks of the same shard lose nothing", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, "a", {
      shape: [32],
      dataType: "uint16",
      chunkShape: [32],
      codecs: [sharding([4])],
    });
    await Promise.all(Array.from({ length: 8 }, (_, k) => a.set(slice(k * 4, k * 4 + 4), k + 1)));
    expect(Array.from((await a.get()).data as Uint16Array)).toEqual(
      Array.from({ length: 32 }, (_, i) => Math.floor(i / 4) + 1),
    );
  });
});

const python = findPython(["numpy"]);
if (!python) console.warn(pythonSkipReason(["numpy"]));

const SHARD_READER = `
import json, os, sys, zlib, struct, itertools
import numpy as np
base = sys.stdin.read().strip()
meta = json.load(open(os.path.join(base, "zarr.json")))
shape = meta["shape"]; shard = meta["chunk_grid"]["configuration"]["chunk_shape"]
cfg = meta["codecs"][0]["configuration"]; inner = cfg["chunk_shape"]
assert cfg["index_location"] == "end"
per = [s // i for s, i in zip(shard, inner)]
n = int(np.prod(per))
out = np.full(shape, meta["fill_value"], dtype="<i4")
for sidx in itertools.product(*[range(-(-s // c)) for s, c in zip(shape, shard)]):
    p = os.path.join(base, "c", *map(str, sidx))
    if not os.path.exists(p): continue
    data = open(p, "rb").read()
    idx = data[-(16 * n + 4):]
    import crc32c
    assert struct.unpack("<I", idx[-4:])[0] == crc32c.crc32c(idx[:-4])
    pairs = np.frombuffer(idx[:-4], dtype="<u8").reshape(n, 2)
    for k, cidx in enumerate(itertools.product(*[range(q) for q in per])):
        off, nb = pairs[k]
        if off == 2**64 - 1: continue
        raw = zlib.decompress(data[off:off + nb], 31)
        chunk = np.frombuffer(raw, dtype="<i4").reshape(inner)
        origin = [s * a + c * b for s, a, c, b in zip(sidx, shard, cidx, inner)]
        sl = tuple(slice(o, min(o + b, s)) for o, b, s in zip(origin, inner, shape))
        out[sl] = chunk[tuple(slice(0, x.stop - x.start) for x in sl)]
sys.stdout.write(out.tobytes().hex())
`;

describe.skipIf(!python || !findPython(["numpy", "crc32c"]))(
  "an independent reader decodes our shards",
  () => {
    const dir = mkdtempSync(join(tmpdir(), "zarr-shard-"));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    it("NumPy + zlib + crc32c read what we wrote (gzip inner codec)", async () => {
      // A test-local gzip codec on node:zlib (core's tests cannot depend on @zarr/codec-gzip).
      registerCodec("gzip", {
        kind: "bytes_to_bytes",
        fromConfig: (cfg) => ({
          kind: "bytes_to_bytes",
          name: "gzip",
          toJSON: () => ({ name: "gzip", configuration: cfg ?? {} }),
          encode: (b: Uint8Array) =>
            new Uint8Array(gzipSync(b, { level: Number(cfg?.level ?? 5) })),
          decode: (b: Uint8Array) => new Uint8Array(gunzipSync(b)),
        }),
      });
      const store = new MemoryStore();
      const a = await createArray(store, "g", {
        shape: [10, 9],
        dataType: "int32",
        chunkShape: [8, 6],
        fillValue: -1,
        codecs: [
          sharding(
            [4, 3],
            [
              { name: "bytes", configuration: { endian: "little" } },
              { name: "gzip", configuration: { level: 5 } },
            ],
          ),
        ],
      });
      const data = Int32Array.from({ length: 90 }, (_, i) => (i % 17 === 0 ? -1 : i * 1000));
      await a.set(null, data);
      for (const [key, value] of store.map) {
        const file = join(dir, ...key.split("/"));
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, value);
      }
      const hex = runPython(
        findPython(["numpy", "crc32c"])!,
        SHARD_READER,
        Buffer.from(join(dir, "g")),
      ).toString();
      expect(hex).toBe(Buffer.from(data.buffer).toString("hex"));
    });
  },
);
