/** The codec inside core's v3 array pipeline (README example). */
import "@zarr/codec-blosc/register";
import { createArray, MemoryStore, openArray } from "@zarr/core";
import { describe, expect, it } from "vitest";

describe("blosc in a v3 array", () => {
  it("records the filled-in typesize and round-trips data", async () => {
    const store = new MemoryStore();
    const arr = await createArray(store, "t", {
      shape: [64, 64],
      dataType: "float32",
      chunkShape: [32, 32],
      codecs: [
        { name: "bytes", configuration: { endian: "little" } },
        {
          name: "blosc",
          configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", blocksize: 0 },
        },
      ],
    });
    const meta = JSON.parse(new TextDecoder().decode(await store.get("t/zarr.json")));
    // v3 blosc codec: typesize is recorded when filled in from the data type.
    expect(meta.codecs[1]).toEqual({
      name: "blosc",
      configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 4, blocksize: 0 },
    });
    const data = new Float32Array(64 * 64).map((_, i) => Math.sin(i / 50));
    await arr.set(null, { data, shape: [64, 64] });
    const back = await (await openArray(store, "t")).get(null);
    expect(Array.from(back.data as Float32Array)).toEqual(Array.from(data));
  });

  it("a damaged chunk's CodecError names the chunk, the metadata document and the codec", async () => {
    const store = new MemoryStore();
    const arr = await createArray(store, "t", {
      shape: [1024],
      dataType: "int32",
      chunkShape: [512],
      codecs: [
        { name: "bytes", configuration: { endian: "little" } },
        { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle" } },
      ],
    });
    await arr.set(
      null,
      Int32Array.from({ length: 1024 }, (_, i) => i * 7),
    );
    const bytes = (await store.get("t/c/1"))!.slice();
    bytes.fill(0xff, 16, 32); // block offsets and the first stream header
    await store.set("t/c/1", bytes);
    for (const read of [() => arr.get(null), () => arr.getChunk([1])]) {
      await expect(read()).rejects.toThrow(
        /^chunk "t\/c\/1": blosc codec at "t\/zarr\.json: codecs\[1\] \(blosc\)": /,
      );
    }
  });
});
