// ZstdCodec.decodeInto (core's BytesToBytesCodec.decodeInto contract): the
// bytes `decode(bytes, out.length)` returns, written into `out`, and a
// CodecError exactly when `decode` with that size fails; on both engines
// (RFC 8878: frames with and without Frame_Content_Size, skippable frames,
// several frames in a row).
import { ZstdCodec } from "@zarr/codec-zstd";
import { CodecError } from "@zarr/core";
import { randomBytes, smoothField } from "@zarr/test-utils";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { loadZstd, useNativeZstd, zstdEngine } from "../src/engine.js";
import { cat, rawFrame, skippableFrame, stripContentSize } from "./helpers.js";

useNativeZstd(true);
const engines = zstdEngine() === "native" ? (["native", "wasm"] as const) : (["wasm"] as const);
afterEach(() => useNativeZstd(true));

async function use(engine: "native" | "wasm"): Promise<void> {
  useNativeZstd(engine === "native");
  await loadZstd();
}

/** decodeInto a buffer of `size` filled with 0xa5: the bytes, or the error. */
async function into(codec: ZstdCodec, bytes: Uint8Array, size: number) {
  const out = new Uint8Array(size).fill(0xa5);
  try {
    await codec.decodeInto(bytes, out);
    return { out: Buffer.from(out).toString("base64") };
  } catch (e) {
    expect(e).toBeInstanceOf(CodecError);
    return { error: true };
  }
}

/** decode with the exact size: the bytes, or that it failed. */
async function exact(codec: ZstdCodec, bytes: Uint8Array, size: number) {
  try {
    return { out: Buffer.from(await codec.decode(bytes, size)).toString("base64") };
  } catch (e) {
    expect(e).toBeInstanceOf(CodecError);
    return { error: true };
  }
}

describe.each(engines)("ZstdCodec.decodeInto (%s engine)", (engine) => {
  const codec = new ZstdCodec({ level: 3, path: "a/c/0" });

  it("writes what decode returns, for every kind of frame sequence", async () => {
    await use(engine);
    const data = smoothField(300_000);
    const frame = await codec.encode(data);
    const noSize = stripContentSize(frame);
    const cases: [string, Uint8Array, Uint8Array][] = [
      ["one frame", frame, data],
      ["no content size", noSize, data],
      ["raw blocks, no content size", rawFrame(data), data],
      [
        "skippable frames around",
        cat(skippableFrame(new Uint8Array(7)), frame, skippableFrame(new Uint8Array(0), 3)),
        data,
      ],
      ["two frames", cat(frame, noSize), cat(data, data)],
      ["empty", await codec.encode(new Uint8Array(0)), new Uint8Array(0)],
      ["random bytes", await codec.encode(randomBytes(70_000, 5)), randomBytes(70_000, 5)],
    ];
    for (const [label, bytes, expected] of cases) {
      const out = new Uint8Array(expected.length).fill(0xa5);
      await codec.decodeInto(bytes, out);
      expect(Buffer.from(out).equals(Buffer.from(expected)), label).toBe(true);
      expect(await into(codec, bytes, expected.length), label).toEqual(
        await exact(codec, bytes, expected.length),
      );
    }
  });

  it("a wrong size is a CodecError, as decode with that size", async () => {
    await use(engine);
    const data = smoothField(100_000);
    const frame = await codec.encode(data);
    for (const bytes of [frame, stripContentSize(frame), rawFrame(data, 30_000)]) {
      for (const size of [0, 1, data.length - 1, data.length + 1, 2 * data.length]) {
        const r = await into(codec, bytes, size);
        expect(r, `size ${size}`).toEqual({ error: true });
        expect(await exact(codec, bytes, size), `size ${size}`).toEqual(r);
      }
    }
    await expect(codec.decodeInto(frame, new Uint8Array(data.length - 1))).rejects.toThrow(
      /exceeds|expected/,
    );
  });

  it("mutated frames: the same bytes as decode, or a CodecError when decode fails (fast-check)", async () => {
    await use(engine);
    const data = smoothField(20_000);
    const frames = [await codec.encode(data), stripContentSize(await codec.encode(data))];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...frames),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.constantFrom(data.length, data.length - 3, data.length + 8),
        async (frame, edits, size) => {
          const bytes = frame.slice();
          for (const [at, value] of edits) bytes[at % bytes.length] = value;
          expect(await into(codec, bytes, size)).toEqual(await exact(codec, bytes, size));
        },
      ),
      { numRuns: 150, seed: 18 },
    );
  });

  it("an aborted signal rejects before anything is written", async () => {
    await use(engine);
    const frame = await codec.encode(smoothField(1000));
    const out = new Uint8Array(4000).fill(7);
    await expect(codec.decodeInto(frame, out, { signal: AbortSignal.abort() })).rejects.toThrow();
    expect(out.every((b) => b === 7)).toBe(true);
  });
});

describe("ZstdCodec.decodeInto memory", () => {
  it.skipIf(zstdEngine() !== "native")(
    "native decodes into caller memory leave no dead outputs behind (array buffers stay flat)",
    async () => {
      await use("native");
      const codec = new ZstdCodec({ level: 1 });
      const data = smoothField(1 << 20);
      const frame = await codec.encode(data);
      const out = new Uint8Array(data.length);
      const before = process.memoryUsage().arrayBuffers;
      let peak = 0;
      for (let i = 0; i < 150; i++) {
        await codec.decodeInto(frame, out);
        peak = Math.max(peak, process.memoryUsage().arrayBuffers - before);
      }
      // 150 MiB of outputs went through; without the release they pile up to
      // V8's external allowance (64 MiB) between collections.
      expect(peak).toBeLessThan(4 * 2 ** 20); // less than one output
    },
  );
});
