import { numcodecsZstdCodec, ZstdCodec, zstdCodec } from "@zarr/codec-zstd";
import { CodecError, type JsonObject } from "@zarr/core";
import {
  type BytesToBytesCodec,
  type ChunkSpec,
  type CodecContext,
  codecRegistry,
} from "@zarr/core/codec";
import "@zarr/codec-zstd/register";
import { randomBytes, sameBytes, sampleInputs } from "@zarr/test-utils";
import { describe, expect, it } from "vitest";
import { scanFrames } from "../src/frame.js";
import { xxh64 } from "../src/xxh64.js";
import { cat, rawFrame, rleFrame, skippableFrame, stripContentSize } from "./helpers.js";

const spec = { shape: [10], dataType: {}, fillValue: 0 } as unknown as ChunkSpec;
function ctx(format: 2 | 3, path = "arr/zarr.json"): CodecContext {
  return {
    spec,
    path,
    format,
    pipeline: () => Promise.reject(new Error("no nested pipelines here")),
  };
}
const hex = (h: [number, number]) => h.map((x) => x.toString(16).padStart(8, "0")).join("");

describe("XXH64 (the zstd content checksum hash)", () => {
  it("matches the reference vectors", () => {
    const enc = new TextEncoder();
    expect(hex(xxh64(new Uint8Array(0)))).toBe("ef46db3751d8e999");
    expect(hex(xxh64(enc.encode("a")))).toBe("d24ec4f1a98c6e5b");
    expect(hex(xxh64(enc.encode("abc")))).toBe("44bc2cf5ad770999");
    expect(hex(xxh64(enc.encode("Nobody inspects the spammish repetition")))).toBe(
      "fbcea83c8a378bf1",
    );
  });
});

describe("zstd codec", () => {
  it("round-trips at negative, default and high levels, with and without checksum", async () => {
    for (const { name, data } of sampleInputs()) {
      for (const level of [-131072, -5, 0, 1, 3, 9, 19, 22]) {
        for (const checksum of [false, true]) {
          const codec = new ZstdCodec({ level, checksum });
          const enc = await codec.encode(data);
          const frames = scanFrames(enc);
          expect(frames.length).toBe(1);
          expect(frames[0]!.contentSize).toBe(data.length);
          expect(frames[0]!.hasChecksum).toBe(checksum);
          const out = await codec.decode(enc, data.length);
          expect(sameBytes(out, data), `${name} level ${level}`).toBe(true);
          expect(sameBytes(await codec.decode(enc), data)).toBe(true);
        }
      }
    }
  });

  it("verifies the content checksum (RFC 8878 3.1.1: low 32 bits of XXH64)", async () => {
    const data = randomBytes(5000, 9);
    const enc = await new ZstdCodec({ checksum: true }).encode(data);
    const bad = enc.slice();
    bad[bad.length - 1]! ^= 0x10;
    await expect(new ZstdCodec().decode(bad)).rejects.toThrow(/checksum mismatch/);
    // A checksummed frame without content size, as numcodecs < 0.13 with checksum wrote.
    const noSize = stripContentSize(enc);
    expect(scanFrames(noSize)[0]!.contentSize).toBeUndefined();
    expect(sameBytes(await new ZstdCodec().decode(noSize, data.length), data)).toBe(true);
    const badNoSize = stripContentSize(bad);
    await expect(new ZstdCodec().decode(badNoSize, data.length)).rejects.toThrow(CodecError);
  });

  it("decodes frames without Frame_Content_Size, with and without decodedSize", async () => {
    const codec = new ZstdCodec({ level: 3 });
    for (const { data } of sampleInputs()) {
      const noSize = stripContentSize(await codec.encode(data));
      expect(scanFrames(noSize)[0]!.contentSize).toBeUndefined();
      expect(sameBytes(await codec.decode(noSize, data.length), data)).toBe(true);
      expect(sameBytes(await codec.decode(noSize), data)).toBe(true);
    }
    const big = randomBytes(300_000, 5);
    expect(sameBytes(await codec.decode(rawFrame(big)), big)).toBe(true);
  });

  it("decodes several concatenated frames and skips skippable frames (RFC 8878 3.1)", async () => {
    const codec = new ZstdCodec({ level: 1 });
    const a = randomBytes(1000, 1);
    const b = new Uint8Array(5000).fill(7);
    const stream = cat(
      skippableFrame(new Uint8Array([1, 2, 3]), 0),
      await codec.encode(a),
      skippableFrame(new Uint8Array(0), 15),
      stripContentSize(await new ZstdCodec({ checksum: true }).encode(b)),
      rawFrame(a, 300),
      await codec.encode(new Uint8Array(0)),
    );
    const out = await codec.decode(stream, 7000);
    expect(sameBytes(out, cat(a, b, a))).toBe(true);
    await expect(codec.decode(stream, 6999)).rejects.toThrow(/exceeds the expected 6999/);
  });

  it("bounds the output by decodedSize, never allocating what a header claims", async () => {
    const codec = new ZstdCodec();
    const bomb = await codec.encode(new Uint8Array(8 << 20));
    await expect(codec.decode(bomb, 1 << 20)).rejects.toThrow(/declare 8388608 bytes, more than/);
    // Without content size: the buffer comes from decodedSize, libzstd stops at its end.
    await expect(codec.decode(stripContentSize(bomb), 1 << 20)).rejects.toThrow(
      /exceeds the expected 1048576/,
    );
    await expect(codec.decode(rleFrame(1, 100_000), 99_999)).rejects.toThrow(CodecError);
    expect((await codec.decode(rleFrame(1, 100_000), 100_000)).length).toBe(100_000);
    expect((await codec.decode(rleFrame(1, 100_000))).every((x) => x === 1)).toBe(true);
  });

  it("rejects malformed streams with a CodecError naming the codec and path", async () => {
    const codec = (await zstdCodec.fromConfig({}, ctx(3, "x/zarr.json"))) as ZstdCodec;
    const enc = await codec.encode(randomBytes(2000, 2));
    const cases: [Uint8Array, RegExp][] = [
      [new Uint8Array(0), /empty input/],
      [new Uint8Array([1, 2, 3, 4, 5]), /bad magic/],
      [enc.subarray(0, enc.length - 1), /truncated/],
      [enc.subarray(0, 6), /truncated/],
      [cat(enc, new Uint8Array([0])), /truncated|bad magic/],
      [cat(enc, new Uint8Array([9, 9, 9, 9])), /bad magic/],
      [skippableFrame(new Uint8Array(4)), /only skippable/],
      [new Uint8Array([0x28, 0xb5, 0x2f, 0xfd, 0x08, 0, 1, 0, 0]), /reserved bit/],
      [new Uint8Array([0x28, 0xb5, 0x2f, 0xfd, 0x01, 0, 7, 1, 0, 0]), /dictionar/],
      [new Uint8Array([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0, 7, 0, 0]), /reserved block type/],
    ];
    for (const [input, message] of cases) {
      const error = await codec.decode(input).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(CodecError);
      expect((error as CodecError).message).toMatch(message);
      expect((error as CodecError).message).toMatch(/^zstd codec at "x\/zarr.json"/);
      expect((error as CodecError).path).toBe("x/zarr.json");
    }
    // Compressible data, so the frame holds a compressed block (random data is stored raw).
    const text = new TextEncoder().encode("zarr chunk ".repeat(200));
    const packed = await new ZstdCodec({ checksum: true }).encode(text);
    for (const at of [12, 20, packed.length - 8]) {
      const corrupt = packed.slice();
      corrupt[at]! ^= 0x5a;
      await expect(codec.decode(corrupt, text.length)).rejects.toThrow(CodecError);
    }
  });

  it("honours an aborted signal", async () => {
    const signal = AbortSignal.abort();
    await expect(new ZstdCodec().encode(new Uint8Array(1), { signal })).rejects.toThrow(/aborted/);
  });
});

describe("factories and registration", () => {
  it("registers zstd and numcodecs.zstd; {level} is enough (as c-blosc uses it)", async () => {
    for (const name of ["zstd", "numcodecs.zstd"]) {
      const codec = (await (
        await codecRegistry.get(name)
      ).fromConfig({ level: 5 }, ctx(3))) as BytesToBytesCodec;
      expect(codec.toJSON()).toEqual({ name, configuration: { level: 5, checksum: false } });
    }
    const v2 = (await zstdCodec.fromConfig({ id: "zstd", level: 5 }, ctx(2))) as ZstdCodec;
    expect(v2.toJSON()).toEqual({ name: "zstd", configuration: { level: 5 } });
    const v2c = (await zstdCodec.fromConfig({ level: 5, checksum: true }, ctx(2))) as ZstdCodec;
    expect(v2c.toJSON()).toEqual({ name: "zstd", configuration: { level: 5, checksum: true } });
  });

  it("fills defaults: v3 level 0 (zarr-python), numcodecs level 1, checksum false", async () => {
    expect(((await zstdCodec.fromConfig(undefined, ctx(3))) as ZstdCodec).level).toBe(0);
    expect(((await zstdCodec.fromConfig({}, ctx(2))) as ZstdCodec).level).toBe(1);
    expect(((await numcodecsZstdCodec.fromConfig({}, ctx(3))) as ZstdCodec).level).toBe(1);
  });

  it("rejects bad configurations naming the field (v3 zstd: integer level, boolean checksum)", () => {
    const bad = [
      { level: 23 },
      { level: -131073 },
      { level: 1.5 },
      { level: "3" },
      { checksum: 1 },
      { level: 3, extra: 1 },
    ] as JsonObject[];
    for (const config of bad) {
      expect(() => zstdCodec.fromConfig(config, ctx(3, "a/zarr.json"))).toThrow(CodecError);
    }
    expect(() => zstdCodec.fromConfig({ checksum: "yes" }, ctx(3, "a/zarr.json"))).toThrow(
      /zstd codec at "a\/zarr.json": configuration.checksum must be a boolean/,
    );
  });
});

describe("zstd decode options", () => {
  it("a decodedSize or maxDecodedSize that is not a non-negative integer is a CodecError (NaN once looped forever)", async () => {
    const frame = await new ZstdCodec().encode(new Uint8Array(5));
    for (const bad of [Number.NaN, -1, 1.5, Number.POSITIVE_INFINITY]) {
      await expect(new ZstdCodec().decode(frame, bad)).rejects.toThrow(
        /decodedSize must be a non-negative integer/,
      );
      await expect(
        new ZstdCodec().decode(frame, undefined, { maxDecodedSize: bad }),
      ).rejects.toThrow(/maxDecodedSize must be a non-negative integer/);
    }
  });
});
