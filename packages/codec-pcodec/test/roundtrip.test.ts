import { describe, expect, it } from "vitest";
import { type EncodeOptions, encodeStandalone } from "../src/encoder.js";
import { NUMBER_TYPES, type PcoNumberType } from "../src/number-types.js";
import { decodeStandalone, readStandaloneHeader } from "../src/standalone.js";
import { firstDifference } from "./helpers.js";

/** Deterministic pseudo-random 32-bit words (xorshift). */
function words(n: number, seed: number): Uint32Array {
  let x = seed | 1;
  return Uint32Array.from({ length: n }, () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  });
}

/** Test data of a type: smooth, noisy, random bits, constant, special values. */
function samples(type: PcoNumberType, n: number, seed: number): Record<string, Uint8Array> {
  const bytes = type.bits / 8;
  const random = new Uint8Array(words(Math.ceil((n * bytes) / 4), seed).buffer).slice(0, n * bytes);
  const out: Record<string, Uint8Array> = { random, constant: new Uint8Array(n * bytes).fill(7) };
  const smooth = new Uint8Array(n * bytes);
  const dv = new DataView(smooth.buffer);
  const noise = words(n, seed + 1);
  for (let i = 0; i < n; i++) {
    const v = Math.round(1000 * Math.sin(i / 50)) + (noise[i] % 5);
    if (type.kind === "float") {
      if (type.bits === 64) dv.setFloat64(8 * i, 1000 + v / 7, true);
      else if (type.bits === 32) dv.setFloat32(4 * i, 1000 + v / 7, true);
      else dv.setUint16(2 * i, 0x3c00 + (v & 0x3ff), true);
    } else if (type.bits === 64)
      dv.setBigUint64(8 * i, BigInt.asUintN(64, BigInt(v) * 123456789n), true);
    else if (type.bits === 32) dv.setUint32(4 * i, (v * 1000) >>> 0, true);
    else if (type.bits === 16) dv.setUint16(2 * i, v & 0xffff, true);
    else dv.setUint8(i, v & 0xff);
  }
  out.smooth = smooth;
  return out;
}

const OPTIONS: EncodeOptions[] = [
  { level: 8, deltaOrder: "auto", maxChunkN: 262144 },
  { level: 0, deltaOrder: 0, maxChunkN: 262144 },
  { level: 12, deltaOrder: 1, maxChunkN: 300 },
  { level: 4, deltaOrder: 7, maxChunkN: 1000 },
  { level: 8, deltaOrder: 3, maxChunkN: 257 },
];

describe("encode -> decode round trips (spec: Standalone Format, Chunk Metadata, Page)", () => {
  for (const type of NUMBER_TYPES) {
    for (const [i, options] of OPTIONS.entries()) {
      it(`${type.name}, options ${i}: every sample and length comes back bit for bit`, () => {
        for (const n of [0, 1, 2, 3, 4, 5, 7, 255, 256, 257, 1000, 3001]) {
          for (const [name, data] of Object.entries(samples(type, n, n + i))) {
            const enc = encodeStandalone(data, type, options);
            const dec = decodeStandalone(enc, type, n);
            expect(firstDifference(dec, data), `${name} n=${n}`).toBe(-1);
          }
        }
      });
    }
  }

  it("writes the oldest format that holds it: standalone 2, format 1 (32/64-bit), 2 (16-bit), 4.1 (8-bit)", () => {
    const opts = OPTIONS[0];
    const header = (name: string) =>
      readStandaloneHeader(
        encodeStandalone(new Uint8Array(8), NUMBER_TYPES.find((t) => t.name === name)!, opts),
      );
    expect(header("f64")).toMatchObject({
      standaloneVersion: 2,
      format: { major: 1, minor: 0 },
      nHint: 1,
    });
    expect(header("f32").format.major).toBe(1);
    expect(header("u16").format.major).toBe(2);
    expect(header("u8").format).toEqual({ major: 4, minor: 1 });
  });

  it("compresses smooth data well (f64 sine: < 25% of raw)", () => {
    const type = NUMBER_TYPES.find((t) => t.name === "f64")!;
    const values = Float64Array.from(
      { length: 100000 },
      (_, i) => Math.round(Math.sin(i / 1000) * 1e4) / 100,
    );
    const raw = new Uint8Array(values.buffer);
    const enc = encodeStandalone(raw, type, OPTIONS[0]);
    expect(enc.length).toBeLessThan(raw.length / 4);
    expect(firstDifference(decodeStandalone(enc, type, values.length), raw)).toBe(-1);
  });
});
