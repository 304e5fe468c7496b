import {
  CodecError,
  createArray,
  MemoryStore,
  NotRegisteredError,
  openArray,
  slice,
} from "@zarr/core";
import type { CodecContext } from "@zarr/core/codec";
import { describe, expect, it } from "vitest";
import {
  adler32Codec,
  Checksum32Codec,
  crc32Codec,
  numcodecsAdler32Codec,
  numcodecsCrc32Codec,
} from "zarr-codec-checksum32";
import "zarr-codec-checksum32/register";

// Only fields a factory of this package reads; the rest of the context is unused.
const context = (format: 2 | 3 = 3) => ({ path: "arr", format }) as unknown as CodecContext;

const payload = Uint8Array.from({ length: 1000 }, (_, i) => (i * 31) & 0xff);

describe("Checksum32Codec", () => {
  for (const algorithm of ["crc32", "adler32"] as const) {
    for (const location of ["start", "end"] as const) {
      it(`${algorithm} at the ${location}: round trip, layout and encodedSize`, () => {
        const codec = new Checksum32Codec(algorithm, { location });
        const encoded = codec.encode(payload);
        expect(encoded.length).toBe(codec.encodedSize(payload.length));
        const at = location === "start" ? 0 : payload.length;
        const stored = new DataView(encoded.buffer).getUint32(at, true);
        const other = new Checksum32Codec(algorithm === "crc32" ? "adler32" : "crc32");
        expect(stored).not.toBe(0);
        expect(other.encode(payload)).not.toEqual(encoded);
        expect(codec.decode(encoded, payload.length)).toEqual(payload);
        expect(codec.decode(codec.encode(new Uint8Array(0)))).toEqual(new Uint8Array(0));
      });
    }
  }

  it("a flipped bit anywhere is a CodecError naming the path and both checksums", () => {
    const codec = new Checksum32Codec("adler32", { path: "group/temps" });
    const encoded = codec.encode(payload);
    for (const position of [0, 3, 4, 500, encoded.length - 1]) {
      const bad = encoded.slice();
      bad[position] ^= 0x10;
      expect(() => codec.decode(bad)).toThrowError(CodecError);
      expect(() => codec.decode(bad)).toThrowError(
        /adler32 codec at "group\/temps": checksum mismatch: stored 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8} over 1000 bytes/,
      );
    }
  });

  it("rejects input shorter than the checksum and payloads of the wrong size", () => {
    const codec = new Checksum32Codec("crc32", { path: "p" });
    expect(() => codec.decode(new Uint8Array(3))).toThrowError(
      /3 bytes is shorter than the 4-byte/,
    );
    const encoded = codec.encode(payload);
    expect(() => codec.decode(encoded, 999)).toThrowError(/payload is 1000 bytes, expected 999/);
  });
});

describe("factories (configuration parsing)", () => {
  it("default to location start; v3 names spell it out, v2 ids omit the default", async () => {
    const v2 = await adler32Codec.fromConfig({ id: "adler32" }, context(2));
    expect(v2.toJSON()).toEqual({ name: "adler32" });
    const v2end = await crc32Codec.fromConfig({ location: "end" }, context(2));
    expect(v2end.toJSON()).toEqual({ name: "crc32", configuration: { location: "end" } });
    const v3 = await numcodecsCrc32Codec.fromConfig(undefined, context());
    expect(v3.toJSON()).toEqual({ name: "numcodecs.crc32", configuration: { location: "start" } });
  });

  it("reject unknown fields and bad locations with a CodecError naming the field", () => {
    expect(() => numcodecsAdler32Codec.fromConfig({ level: 1 }, context())).toThrowError(
      /numcodecs.adler32 codec at "arr": unknown configuration field "level"/,
    );
    expect(() => crc32Codec.fromConfig({ location: "middle" }, context())).toThrowError(
      /crc32 codec at "arr": configuration.location must be "start" or "end", got "middle"/,
    );
  });
});

describe("through @zarr/core arrays (v3: codecs, bytes -> bytes)", () => {
  it("writes, reads, and reports a corrupted chunk by key", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, "checked", {
      shape: [20, 20],
      dataType: "int32",
      chunkShape: [10, 10],
      fillValue: 0,
      codecs: [
        { name: "bytes", configuration: { endian: "little" } },
        { name: "numcodecs.crc32", configuration: { location: "end" } },
        { name: "numcodecs.adler32" },
      ],
    });
    const values = Int32Array.from({ length: 400 }, (_, i) => i - 200);
    await a.set(null, values);

    const b = await openArray(store, "checked");
    expect(b.codecs.toJSON()).toEqual([
      { name: "bytes", configuration: { endian: "little" } },
      { name: "numcodecs.crc32", configuration: { location: "end" } },
      { name: "numcodecs.adler32", configuration: { location: "start" } },
    ]);
    expect((await b.get(null)).data).toEqual(values);
    const chunk = await store.get("checked/c/1/0");
    expect(chunk?.length).toBe(10 * 10 * 4 + 8);

    chunk![100] ^= 1;
    await store.set("checked/c/1/0", chunk!);
    await expect(b.get([slice(10, 20), 0])).rejects.toThrowError(CodecError);
    await expect(b.get([slice(10, 20), 0])).rejects.toThrowError(/checked.*checksum mismatch/);
    // Chunks that were not touched still read.
    expect((await b.get([slice(0, 10), slice(10, 20)])).shape).toEqual([10, 10]);
  });

  it("an unknown name still fails with NotRegisteredError after registering ours", async () => {
    const store = new MemoryStore();
    await expect(
      createArray(store, "x", {
        shape: [4],
        dataType: "uint8",
        chunkShape: [4],
        codecs: [{ name: "bytes" }, { name: "numcodecs.fletcher32" }],
      }),
    ).rejects.toThrowError(NotRegisteredError);
  });
});
