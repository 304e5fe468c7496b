// Float elements keep their exact bits through every copy of a read or a
// write (v3 core: the data type's binary representation is what is stored).
// Reading a float32 element widens it to a float64 number, which quiets a
// signaling NaN on x86 (0x7f800001 -> 0x7fc00001): copies must not go
// through numbers.
import { describe, expect, it } from "vitest";
import { createArray, MemoryStore, slice } from "../src/index.js";

const bits = (a: Float32Array) => [...new Uint32Array(a.buffer, a.byteOffset, a.length)];
const floats = (...u: number[]) => new Float32Array(new Uint32Array(u).buffer);
/** Signaling NaNs (quiet bit clear) with payloads, both signs, and two ordinary values. */
const SNANS = [0x7f800001, 0x7fa00000, 0xff800003, 0x7fbfffff];

describe("float32 signaling NaNs keep their bits", () => {
  it("through fill reads, whole-chunk, partial, strided and coordinate writes and reads", async () => {
    const a = await createArray(new MemoryStore(), "a", {
      shape: [12],
      dataType: "float32",
      chunkShape: [4],
      fillValue: "0x7f800005",
    });
    expect(bits((await a.get()).data as Float32Array)).toEqual(new Array(12).fill(0x7f800005));

    await a.set([slice(0, 4)], floats(...SNANS)); // a whole chunk
    await a.set([slice(5, 7)], floats(0x7f800011, 1)); // part of a chunk
    await a.set([slice(8, 12, 2)], floats(0xff800021, 0x7f800022)); // strided
    await a.setCoordinates([[11, 9]], floats(0x7f800031, 0xff800032));
    const expected = [
      ...SNANS,
      0x7f800005,
      0x7f800011,
      1,
      0x7f800005,
      0xff800021,
      0xff800032,
      0x7f800022,
      0x7f800031,
    ];
    expect(bits((await a.get()).data as Float32Array)).toEqual(expected);
    expect(bits((await a.get([slice(null, null, -3)])).data as Float32Array)).toEqual(
      [11, 8, 5, 2].map((i) => expected[i]),
    );
    expect(bits((await a.getCoordinates([[4, 0, 9]])).data as Float32Array)).toEqual([
      0x7f800005,
      SNANS[0],
      0xff800032,
    ]);
    const chunk = await a.getChunk([0]);
    expect(bits(chunk!.data as Float32Array)).toEqual(SNANS);
  });

  it("complex64 parts too", async () => {
    const a = await createArray(new MemoryStore(), "c", {
      shape: [3],
      dataType: "complex64",
      chunkShape: [2],
    });
    await a.set([slice(1, 3)], floats(0x7f800001, 0xff800002, 0x3f800000, 0x7fa00000));
    expect(bits((await a.get()).data as Float32Array)).toEqual([
      0, 0, 0x7f800001, 0xff800002, 0x3f800000, 0x7fa00000,
    ]);
  });

  it("a [re, im] pair is one complex value, broadcast over the selection", async () => {
    const a = await createArray(new MemoryStore(), "p", {
      shape: [3],
      dataType: "complex128",
      chunkShape: [2],
    });
    await a.set(null, [1.5, -2]);
    await a.set([slice(2, 3)], [Number.NaN, Number.POSITIVE_INFINITY]);
    expect(Array.from((await a.get()).data as Float64Array)).toEqual([
      1.5,
      -2,
      1.5,
      -2,
      Number.NaN,
      Number.POSITIVE_INFINITY,
    ]);
  });
});
