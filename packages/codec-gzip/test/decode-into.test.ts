// DeflateCodec.decodeInto (core's BytesToBytesCodec.decodeInto contract): the
// bytes decode(bytes, out.length) returns, written into `out`; a CodecError,
// with `out` untouched, exactly when decode with that size fails (RFC 1952
// gzip members, several of them, zero padding; RFC 1950 zlib streams), on
// every engine.

import { gzipSync } from "node:zlib";
import { DeflateCodec } from "@zarr/codec-gzip";
import { CodecError } from "@zarr/core";
import { randomBytes, smoothField } from "@zarr/test-utils";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { engine as browserEngine } from "../src/engine/browser.js";
import { engine as nodeEngine } from "../src/engine/node.js";
import { engine as pakoEngine } from "../src/engine/pako.js";

/** decodeInto a buffer of `size` filled with 0xa5: the bytes, or that it failed (then untouched). */
async function into(codec: DeflateCodec, bytes: Uint8Array, size: number) {
  const out = new Uint8Array(size).fill(0xa5);
  try {
    await codec.decodeInto!(bytes, out);
    return { out: Buffer.from(out).toString("base64") };
  } catch (e) {
    expect(e).toBeInstanceOf(CodecError);
    expect(out.every((b) => b === 0xa5)).toBe(true);
    return { error: true };
  }
}

async function exact(codec: DeflateCodec, bytes: Uint8Array, size: number) {
  try {
    return { out: Buffer.from(await codec.decode(bytes, size)).toString("base64") };
  } catch (e) {
    expect(e).toBeInstanceOf(CodecError);
    return { error: true };
  }
}

const hasTransfer =
  typeof (ArrayBuffer.prototype as { transfer?: unknown }).transfer === "function";

it.skipIf(hasTransfer)(
  "without ArrayBuffer.prototype.transfer there is no decodeInto (it would only add a copy)",
  () => {
    expect(new DeflateCodec("gzip", { level: 1 }).decodeInto).toBeUndefined();
  },
);

describe.skipIf(!hasTransfer).each([nodeEngine, browserEngine, pakoEngine])(
  "DeflateCodec.decodeInto, engine $name",
  (engine) => {
    it("writes what decode returns; a wrong size fails as decode does", async () => {
      const data = smoothField(300_000);
      for (const format of ["gzip", "zlib"] as const) {
        const codec = new DeflateCodec(format, { level: 1, engine });
        const packed = await codec.encode(data);
        const inputs: [Uint8Array, number][] = [[packed, data.length]];
        if (format === "gzip") {
          const two = Buffer.concat([
            gzipSync(data),
            gzipSync(data.subarray(0, 1000)),
            Buffer.alloc(9),
          ]);
          inputs.push([two, data.length + 1000]);
        }
        for (const [bytes, size] of inputs) {
          for (const n of [size, 0, size - 1, size + 1]) {
            expect(await into(codec, bytes, n), `${format} size ${n}`).toEqual(
              await exact(codec, bytes, n),
            );
          }
        }
        const empty = await codec.encode(new Uint8Array(0));
        expect(await into(codec, empty, 0)).toEqual({ out: "" });
      }
    });

    it("mutated streams: the same bytes as decode, or a CodecError when decode fails (fast-check)", async () => {
      const data = randomBytes(5000, 3).map((b) => b & 7);
      const codec = new DeflateCodec("gzip", { level: 6, engine });
      const packed = await codec.encode(data);
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), {
            minLength: 1,
            maxLength: 3,
          }),
          async (edits) => {
            const bytes = packed.slice();
            for (const [at, value] of edits) bytes[at % bytes.length] = value;
            expect(await into(codec, bytes, data.length)).toEqual(
              await exact(codec, bytes, data.length),
            );
          },
        ),
        { numRuns: 100, seed: 5 },
      );
    });
  },
);

it.skipIf(!hasTransfer)(
  "node:zlib decodes into caller memory leave no dead outputs behind (array buffers stay flat)",
  async () => {
    const codec = new DeflateCodec("zlib", { level: 1, engine: nodeEngine });
    const data = smoothField(1 << 20); // 4 MiB
    const packed = await codec.encode(data);
    const out = new Uint8Array(data.length);
    const before = process.memoryUsage().arrayBuffers;
    let peak = 0;
    for (let i = 0; i < 100; i++) {
      await codec.decodeInto!(packed, out);
      peak = Math.max(peak, process.memoryUsage().arrayBuffers - before);
    }
    // 400 MiB of outputs went through; without the release they pile up to
    // V8's external allowance (64 MiB) between collections.
    expect(peak).toBeLessThan(4 * 2 ** 20); // less than one output
  },
);
