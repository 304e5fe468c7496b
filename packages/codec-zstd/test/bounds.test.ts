// Decoded-size bounds (`options.maxDecodedSize`, an exact `decodedSize`, the
// internal cap) and the worst-case encoded size (`maxEncodedSize`). Bombs in
// a child process under the watchdog: tools/attacks/test/codec-bombs.test.ts.
import { DEFAULT_MAX_DECODED_SIZE, ZstdCodec } from "@zarr/codec-zstd";
import { CodecError } from "@zarr/core";
import { randomBytes, sameBytes, smoothField } from "@zarr/test-utils";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { scanFrames, withoutContentSize } from "../src/frame.js";
import { cat, rawFrame, rleBlocksFrame, stripContentSize } from "./helpers.js";

const MiB = 1 << 20;
const codec = new ZstdCodec();

/** Structured data: a smooth field, then random bytes, then zeros. */
function mixed(n: number): Uint8Array {
  const out = new Uint8Array(n);
  const third = Math.floor(n / 3);
  out.set(smoothField(Math.ceil(third / 4)).subarray(0, third));
  out.set(randomBytes(third, n), third);
  return out;
}

describe("zstd decode with maxDecodedSize", () => {
  it("a frame without content size holding 64 MiB fails with a CodecError at a 1 MiB bound", async () => {
    const bomb = rleBlocksFrame(0, 64 * MiB);
    await expect(codec.decode(bomb, undefined, { maxDecodedSize: MiB })).rejects.toThrow(
      /exceeds the expected 1048576 bytes/,
    );
  });

  it("frames declaring more than the bound in all fail before decoding", async () => {
    const frame = rleBlocksFrame(0, 512 * 1024, 512 * 1024);
    await expect(
      codec.decode(cat(frame, frame, frame), undefined, { maxDecodedSize: MiB }),
    ).rejects.toThrow(/frames declare 1572864 bytes, more than the expected 1048576/);
  });

  it("several frames without content size stop at the bound; within it they decode", async () => {
    const frame = rleBlocksFrame(7, 400 * 1024);
    const stream = cat(frame, frame, frame);
    await expect(codec.decode(stream, undefined, { maxDecodedSize: MiB })).rejects.toThrow(
      CodecError,
    );
    const out = await codec.decode(stream, undefined, { maxDecodedSize: 1200 * 1024 });
    expect(out.length).toBe(1200 * 1024);
    expect(out.every((b) => b === 7)).toBe(true);
  });

  it("data of exactly the bound decodes (content size or not, single segment or not, checksum or not); a byte less of bound fails", async () => {
    for (const n of [0, 1, 1000, 200_000, 3 * MiB + 7]) {
      const data = mixed(n);
      for (const checksum of [false, true]) {
        const frame = await new ZstdCodec({ level: 1, checksum }).encode(data);
        const variants = [frame, stripContentSize(frame), rawFrame(data)];
        for (const [v, bytes] of variants.entries()) {
          const out = await codec.decode(bytes, undefined, { maxDecodedSize: n });
          expect(sameBytes(out, data), `${n} ${checksum} variant ${v}`).toBe(true);
          if (n > 0) {
            await expect(
              codec.decode(bytes, undefined, { maxDecodedSize: n - 1 }),
              `${n} ${checksum} variant ${v}`,
            ).rejects.toThrow(CodecError);
          }
        }
      }
    }
  });

  it("a declared content size is checked after decoding when the frame is decoded into a growing buffer", async () => {
    const data = mixed(3 * MiB);
    const frame = await new ZstdCodec({ level: 1 }).encode(data);
    const info = scanFrames(frame)[0]!;
    expect(info.contentSize).toBe(data.length);
    // Patch the 4-byte Frame_Content_Size (after magic, descriptor, window) to lie.
    const fcsAt = info.descriptorOffset + 2;
    for (const claim of [data.length - 1, data.length + 1]) {
      const lying = frame.slice();
      new DataView(lying.buffer).setUint32(fcsAt, claim, true);
      await expect(codec.decode(lying, undefined, { maxDecodedSize: 4 * MiB })).rejects.toThrow(
        CodecError,
      );
    }
  });

  it("an exact decodedSize the frames do not match is a CodecError", async () => {
    const data = randomBytes(1000, 3);
    for (const bytes of [await codec.encode(data), rawFrame(data)]) {
      await expect(codec.decode(bytes, 1001)).rejects.toThrow(CodecError);
      await expect(codec.decode(bytes, 999)).rejects.toThrow(CodecError);
      expect(sameBytes(await codec.decode(bytes, 1000), data)).toBe(true);
    }
    await expect(codec.decode(rawFrame(data), 1001)).rejects.toThrow(
      /decoded 1000 bytes, expected 1001/,
    );
  });

  it("without decodedSize or maxDecodedSize, 1 GiB is the bound", async () => {
    expect(DEFAULT_MAX_DECODED_SIZE).toBe(2 ** 30);
    const claims2GiB = rleBlocksFrame(0, 2 ** 31, 2 ** 31);
    expect(claims2GiB.length).toBeLessThan(70_000);
    await expect(codec.decode(claims2GiB)).rejects.toThrow(
      /frames declare 2147483648 bytes, more than the expected 1073741824/,
    );
  });
});

describe("withoutContentSize", () => {
  it("removes every Frame_Content_Size width (1, 2, 4, 8 bytes; single segment or not) and keeps the content", async () => {
    const frames: [Uint8Array, Uint8Array][] = [];
    for (const n of [0, 100, 255, 256, 1000, 65_791, 65_792, 300_000, 3 * MiB]) {
      const data = mixed(n);
      frames.push([await new ZstdCodec({ level: 3, checksum: true }).encode(data), data]);
    }
    frames.push([rleBlocksFrame(9, 300_000, 300_000), new Uint8Array(300_000).fill(9)]);
    const widths = new Set<string>();
    for (const [frame, data] of frames) {
      const info = scanFrames(frame)[0]!;
      const fhd = frame[info.descriptorOffset]!;
      widths.add(`${fhd >>> 6}:${(fhd >>> 5) & 1}`);
      const stripped = withoutContentSize(frame, info);
      const after = scanFrames(stripped)[0]!;
      expect(after.contentSize).toBeUndefined();
      expect(after.hasChecksum).toBe(info.hasChecksum);
      expect(sameBytes(await codec.decode(stripped, data.length), data)).toBe(true);
    }
    // FCS_flag:Single_Segment_flag combinations covered.
    expect([...widths].sort()).toEqual(["0:1", "1:1", "2:0", "2:1", "3:0"].sort());
  });
});

describe("maxEncodedSize", () => {
  const sizes = [0, 1, 2, 3, 100, 1000, 65_535, 131_071, 131_072, 131_073, 300_000];
  const kinds = {
    random: (n: number) => randomBytes(n, n + 1),
    zeros: (n: number) => new Uint8Array(n),
    mixed,
    low: (n: number) => randomBytes(n, n).map((b) => b & 3),
  };

  it("bounds every frame we write (levels -5..19, with and without checksum) for random, incompressible and compressible inputs", async () => {
    for (const level of [-5, 1, 3, 9, 19]) {
      for (const checksum of [false, true]) {
        const c = new ZstdCodec({ level, checksum });
        for (const n of sizes) {
          for (const [kind, make] of Object.entries(kinds)) {
            const enc = await c.encode(make(n));
            expect(enc.length, `${level} ${checksum} ${kind} ${n}`).toBeLessThanOrEqual(
              c.maxEncodedSize(n),
            );
            // Frames of raw blocks (the worst a careful writer does) fit too.
            if (kind === "random") {
              expect(rawFrame(make(n), 1000).length).toBeLessThanOrEqual(c.maxEncodedSize(n));
            }
          }
        }
      }
    }
  });

  it("bounds random inputs of any size (property)", async () => {
    const c = new ZstdCodec({ level: 1, checksum: true });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 5000 }),
          fc.uint8Array({ minLength: 128_000, maxLength: 140_000 }),
        ),
        async (data) => {
          expect((await c.encode(data)).length).toBeLessThanOrEqual(c.maxEncodedSize(data.length));
        },
      ),
      { seed: 42, numRuns: 200 },
    );
  });

  it("is ZSTD_COMPRESSBOUND(n) + n/8 + 64 KiB", () => {
    expect(codec.maxEncodedSize(0)).toBe(64 + 65_536);
    expect(codec.maxEncodedSize(1 << 20)).toBe((1 << 20) + 4096 + (1 << 17) + 65_536);
  });
});
