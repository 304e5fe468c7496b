import { DeflateCodec, gzipCodec, numcodecsZlibCodec, zlibCodec } from "@zarr/codec-gzip";
import { CodecError, type JsonObject } from "@zarr/core";
import {
  type BytesToBytesCodec,
  type ChunkSpec,
  type CodecContext,
  codecRegistry,
} from "@zarr/core/codec";
import "@zarr/codec-gzip/register";
import { deflateSync, gunzipSync, gzipSync } from "node:zlib";
import { randomBytes, sameBytes, sampleInputs, smoothField } from "@zarr/test-utils";
import { describe, expect, it } from "vitest";
import { engine as browserEngine } from "../src/engine/browser.js";
import { engine as nodeEngine } from "../src/engine/node.js";

const spec = { shape: [10], dataType: {}, fillValue: 0 } as unknown as ChunkSpec;
function ctx(format: 2 | 3, path = "arr/zarr.json"): CodecContext {
  return {
    spec,
    path,
    format,
    pipeline: () => Promise.reject(new Error("no nested pipelines here")),
  };
}

const engines = [nodeEngine, browserEngine];

describe.each(engines)("engine $name", (engine) => {
  const gz = new DeflateCodec("gzip", { level: 5, engine });
  const zl = new DeflateCodec("zlib", { level: 1, engine });

  it("round-trips gzip and zlib at every level", async () => {
    for (const { data } of sampleInputs()) {
      for (const level of [0, 1, 5, 9]) {
        for (const format of ["gzip", "zlib"] as const) {
          const codec = new DeflateCodec(format, { level, engine });
          const enc = await codec.encode(data);
          expect(sameBytes(await codec.decode(enc, data.length), data)).toBe(true);
          expect(sameBytes(await codec.decode(enc), data)).toBe(true);
        }
      }
    }
  });

  it("takes the async path for large chunks (> 64 KiB)", async () => {
    const data = smoothField(100_000);
    expect(sameBytes(await gz.decode(await gz.encode(data), data.length), data)).toBe(true);
  });

  it("writes a gzip member (RFC 1952 magic 1f 8b, CM 8) and a zlib stream (RFC 1950 CMF 0x78)", async () => {
    const g = await gz.encode(new Uint8Array(10));
    expect([g[0], g[1], g[2]]).toEqual([0x1f, 0x8b, 8]);
    expect(gunzipSync(g)).toEqual(Buffer.alloc(10));
    const z = await zl.encode(new Uint8Array(10));
    expect(z[0]).toBe(0x78);
    expect(((z[0]! << 8) | z[1]!) % 31).toBe(0);
  });

  it("decodes concatenated gzip members (RFC 1952 section 2.2)", async () => {
    const a = gzipSync(Buffer.from("hello ")),
      b = gzipSync(Buffer.from("world"));
    const out = await gz.decode(new Uint8Array(Buffer.concat([a, b, gzipSync(Buffer.alloc(0))])));
    expect(new TextDecoder().decode(out)).toBe("hello world");
  });

  it("accepts zero padding after the last gzip member, as gzip(1) does", async () => {
    const a = gzipSync(Buffer.from("abc"));
    const out = await gz.decode(new Uint8Array(Buffer.concat([a, Buffer.alloc(5)])));
    expect(new TextDecoder().decode(out)).toBe("abc");
  });

  it("rejects trailing garbage after gzip and zlib streams", async () => {
    const a = gzipSync(Buffer.from("abc"));
    for (const tail of [[1], [0, 7], [0x1f], [0x1f, 0x8b, 8]]) {
      await expect(
        gz.decode(new Uint8Array(Buffer.concat([a, Buffer.from(tail)]))),
      ).rejects.toThrow(CodecError);
    }
    const z = deflateSync(Buffer.from("abc"));
    for (const tail of [[0], [1, 2]]) {
      await expect(
        zl.decode(new Uint8Array(Buffer.concat([z, Buffer.from(tail)]))),
      ).rejects.toThrow(/trailing/);
    }
  });

  it("rejects a zlib stream given to gzip and vice versa", async () => {
    const data = new Uint8Array(100);
    await expect(gz.decode(await zl.encode(data))).rejects.toThrow(CodecError);
    await expect(zl.decode(await gz.encode(data))).rejects.toThrow(CodecError);
  });

  it("rejects truncated, empty and corrupted input with a CodecError naming the codec", async () => {
    const data = randomBytes(5000, 3);
    const enc = await gz.encode(data);
    await expect(gz.decode(enc.subarray(0, enc.length - 1))).rejects.toThrow(CodecError);
    await expect(gz.decode(enc.subarray(0, 5))).rejects.toThrow(CodecError);
    await expect(gz.decode(new Uint8Array(0))).rejects.toThrow(CodecError);
    const bad = enc.slice();
    bad[bad.length - 6]! ^= 1; // CRC32 field
    await expect(gz.decode(bad)).rejects.toThrow(/gzip codec/);
    const zbad = (await zl.encode(data)).slice();
    zbad[zbad.length - 1]! ^= 1; // Adler-32 field
    await expect(zl.decode(zbad)).rejects.toThrow(CodecError);
  });

  it("bounds the output by decodedSize: a zip bomb fails without allocating its output", async () => {
    const bomb = new Uint8Array(gzipSync(Buffer.alloc(64 << 20), { level: 9 }));
    expect(bomb.length).toBeLessThan(100_000);
    const before = process.memoryUsage().arrayBuffers;
    await expect(gz.decode(bomb, 1 << 20)).rejects.toThrow(/exceeds the expected 1048576 bytes/);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(32 << 20);
    const data = new Uint8Array(1000);
    await expect(gz.decode(await gz.encode(data), 999)).rejects.toThrow(CodecError);
    await expect(gz.decode(await gz.encode(data), 0)).rejects.toThrow(CodecError);
    expect(await gz.decode(await gz.encode(new Uint8Array(0)), 0)).toEqual(new Uint8Array(0));
    await expect(zl.decode(await zl.encode(data), 10)).rejects.toThrow(CodecError);
  });
});

describe("factories and registration", () => {
  it("registers gzip, zlib, numcodecs.gzip and numcodecs.zlib", async () => {
    for (const name of ["gzip", "zlib", "numcodecs.gzip", "numcodecs.zlib"]) {
      const factory = await codecRegistry.get(name);
      const codec = (await factory.fromConfig({ level: 3 }, ctx(3))) as BytesToBytesCodec;
      expect(codec.kind).toBe("bytes_to_bytes");
      expect(codec.toJSON()).toEqual({ name, configuration: { level: 3 } });
    }
  });

  it("accepts {level} for zlib as c-blosc uses it, and ignores a v2 `id`", async () => {
    const codec = (await zlibCodec.fromConfig({ level: 9 }, ctx(2))) as DeflateCodec;
    expect(codec.format).toBe("zlib");
    const v2 = (await gzipCodec.fromConfig({ id: "gzip", level: 2 }, ctx(2))) as DeflateCodec;
    expect(v2.level).toBe(2);
  });

  it("fills defaults: numcodecs level 1, v3 gzip level 5 (zarr-python)", async () => {
    expect(((await gzipCodec.fromConfig(undefined, ctx(2))) as DeflateCodec).level).toBe(1);
    expect(((await zlibCodec.fromConfig({}, ctx(2))) as DeflateCodec).level).toBe(1);
    expect(((await gzipCodec.fromConfig(undefined, ctx(3))) as DeflateCodec).level).toBe(5);
    expect(((await numcodecsZlibCodec.fromConfig({}, ctx(3))) as DeflateCodec).level).toBe(1);
  });

  it("rejects bad configurations with a CodecError naming the field and path (v3: gzip level 0..9)", async () => {
    for (const bad of [
      { level: 10 },
      { level: -1 },
      { level: 1.5 },
      { level: "1" },
      { lvl: 1 },
    ] as JsonObject[]) {
      expect(() => gzipCodec.fromConfig(bad, ctx(3, "a/b/zarr.json"))).toThrow(CodecError);
    }
    expect(() => gzipCodec.fromConfig({ level: 10 }, ctx(3, "a/b/zarr.json"))).toThrow(
      /gzip codec at "a\/b\/zarr.json": configuration.level must be an integer 0..9, got 10/,
    );
    expect(() => gzipCodec.fromConfig({ level: 1, extra: true }, ctx(3))).toThrow(/"extra"/);
    // v2 (numcodecs) configurations are read leniently: newer numcodecs versions add keys.
    expect(zlibCodec.fromConfig({ level: 1, extra: true }, ctx(2))).toMatchObject({ name: "zlib" });
  });

  it("honours an aborted signal", async () => {
    const codec = new DeflateCodec("gzip", { level: 1 });
    const signal = AbortSignal.abort();
    await expect(codec.encode(new Uint8Array(1), { signal })).rejects.toThrow(/aborted/);
    await expect(codec.decode(new Uint8Array(1), undefined, { signal })).rejects.toThrow(/aborted/);
  });
});
