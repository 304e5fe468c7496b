/**
 * Uncompressed chunks read straight into an array's output (`getInto`, one
 * `preadv` per chunk): the values equal a read of the same array from memory,
 * for every data type and layout; the path is taken only where the stored
 * bytes are the output's memory (core spec, "bytes" codec: little-endian
 * elements in C order); wrong-sized chunk files are errors naming the chunk.
 */

import { truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  CodecError,
  type CreateArrayOptions,
  createArray,
  MemoryStore,
  openArray,
  type Slice,
  slice,
} from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "./helpers.js";

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ root, cleanup } = await tempDir());
});
afterEach(() => cleanup());

/** A file store whose `getInto` calls are counted. */
function countedStore(): { store: FileSystemStore; calls: () => number } {
  const store = new FileSystemStore(root);
  let calls = 0;
  const getInto = store.getInto.bind(store);
  store.getInto = (...args) => {
    calls++;
    return getInto(...args);
  };
  return { store, calls: () => calls };
}

/** Deterministic values filling `data` (exact in every type used here, float16 included). */
function fillValues(data: ArrayLike<unknown> & { [i: number]: unknown }): void {
  for (let i = 0; i < data.length; i++) {
    if (data instanceof BigInt64Array) data[i] = BigInt(i) * -7_000_000_001n;
    else if (data instanceof Uint8Array) data[i] = (i * 31) % 2;
    else data[i] = (i % 2000) * 0.5 - 300;
  }
}

/** The first index where two arrays differ (-1 when equal; a diff of huge arrays is too slow to print). */
function firstDifference(a: ArrayLike<unknown>, b: ArrayLike<unknown>): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return i;
  return -1;
}

/**
 * Writes the same values to the file store and, as the reference, to memory
 * with a crc32c codec after `bytes` (so the reference never takes the
 * straight-into-the-output path under test); returns both, opened.
 */
async function twin(options: CreateArrayOptions) {
  const memory = new MemoryStore();
  const { store, calls } = countedStore();
  const bytes = options.codecs ?? [{ name: "bytes", configuration: { endian: "little" } }];
  for (const [s, codecs] of [
    [store, options.codecs],
    [memory, [...bytes, { name: "crc32c" }]],
  ] as const) {
    const a = await createArray(s, "a", { ...options, codecs: codecs as never });
    const data = a.dataType.allocate(a.size) as ArrayLike<unknown> & { [i: number]: unknown };
    fillValues(data);
    await a.set(null, data as never);
  }
  return {
    file: await openArray(store, "a"),
    memory: await openArray(memory, "a"),
    calls,
  };
}

const cases: { name: string; options: CreateArrayOptions; scatters: boolean }[] = [
  {
    name: "float64 2-d, rows of whole chunks inside a wider output",
    options: { shape: [300, 520], chunkShape: [128, 128], dataType: "float64" },
    scatters: true,
  },
  {
    name: "int64 3-d",
    options: { shape: [6, 40, 70], chunkShape: [3, 20, 64], dataType: "int64" },
    scatters: true,
  },
  {
    name: "complex64 1-d",
    options: { shape: [10_000], chunkShape: [1000], dataType: "complex64" },
    scatters: true,
  },
  {
    name: "uint8 with chunks spanning whole rows (one run each)",
    options: { shape: [64, 100], chunkShape: [16, 100], dataType: "uint8" },
    scatters: true,
  },
  {
    name: "big-endian float64 (bytes must be swapped)",
    options: {
      shape: [200, 200],
      chunkShape: [100, 100],
      dataType: "float64",
      codecs: [{ name: "bytes", configuration: { endian: "big" } }],
    },
    scatters: false,
  },
  {
    name: "bool (stored bytes are normalized)",
    options: { shape: [1024, 1024], chunkShape: [512, 512], dataType: "bool" },
    scatters: false,
  },
  {
    name: "float16 (widened in memory)",
    options: { shape: [1024, 1024], chunkShape: [512, 512], dataType: "float16" },
    scatters: false,
  },
  {
    name: "uint8 with rows too short to pay",
    options: { shape: [256, 256], chunkShape: [64, 64], dataType: "uint8" },
    scatters: false,
  },
];

const selections: [string, Slice[] | null][] = [
  ["everything", null],
  ["an offset box", [slice(37, 290), slice(5, null)]],
];

describe("reads of uncompressed chunks straight into the output", () => {
  for (const { name, options, scatters } of cases) {
    it(`${name}: same values as from memory; read into the output: ${scatters}`, async () => {
      const { file, memory, calls } = await twin(options);
      for (const [what, sel] of selections) {
        const s = sel === null ? null : sel.slice(0, options.shape.length);
        const want = await memory.get(s);
        const got = await file.get(s);
        expect(got.shape, what).toEqual(want.shape);
        expect(firstDifference(got.data, want.data), what).toBe(-1);
        // Into a caller's array full of junk: every element is overwritten.
        const out = got.data.slice() as typeof got.data;
        (out as { fill(v: unknown): void }).fill(out instanceof BigInt64Array ? 9n : 9);
        const into = await file.get(s, { out });
        expect(firstDifference(into.data, want.data), `${what}, into out`).toBe(-1);
      }
      if (scatters) expect(calls()).toBeGreaterThan(0);
      else expect(calls()).toBe(0);
    });
  }

  it("a chunk of more rows than one preadv takes (1,024) reads whole", async () => {
    const options: CreateArrayOptions = {
      shape: [3000, 256],
      chunkShape: [3000, 128],
      dataType: "float32",
    };
    const { file, memory, calls } = await twin(options);
    const want = await memory.get(null);
    const got = await file.get(null);
    expect(firstDifference(got.data, want.data)).toBe(-1);
    expect(calls()).toBe(2);
  });

  it("missing chunks read as the fill value, also into a caller's array", async () => {
    const { store } = countedStore();
    const a = await createArray(store, "a", {
      shape: [256, 256],
      chunkShape: [128, 128],
      dataType: "float32",
      fillValue: 7,
    });
    await a.set([slice(0, 128), slice(0, 128)], new Float32Array(128 * 128).fill(1));
    const out = new Float32Array(256 * 256).fill(-5);
    const { data } = await a.get(null, { out });
    expect(data[0]).toBe(1);
    expect(data[255]).toBe(7);
    expect(data[256 * 255]).toBe(7);
    expect((data as Float32Array).every((x) => x === 1 || x === 7)).toBe(true);
  });

  for (const [what, damage] of [
    ["truncated", (path: string) => truncate(path, 1000)],
    ["extended", async (path: string) => writeFile(path, new Uint8Array(10), { flag: "a" })],
  ] as const) {
    it(`a ${what} chunk file is a CodecError naming the chunk`, async () => {
      const { file, calls } = await twin({
        shape: [256, 512],
        chunkShape: [128, 128],
        dataType: "float64",
      });
      await damage(join(root, "a", "c", "1", "2"));
      const error = await file.get(null).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CodecError);
      expect((error as Error).message).toContain('"a/c/1/2"');
      expect(calls()).toBeGreaterThan(0);
    });
  }
});

describe("reads straight into the output while a writer replaces chunks", () => {
  it("every chunk read is one whole generation, never a mix or garbage", async () => {
    const store = new FileSystemStore(root);
    const shape = [256, 1024];
    const chunk = [128, 128];
    const a = await createArray(store, "g", { shape, chunkShape: chunk, dataType: "float64" });
    const generation = (g: number) => new Float64Array(shape[0] * shape[1]).fill(g);
    await a.set(null, generation(1));
    const { store: counted, calls } = countedStore();
    const reader = await openArray(counted, "g");
    let stop = false;
    let written = 1;
    const writer = (async () => {
      while (!stop) await a.set(null, generation(++written));
    })();
    let reads = 0;
    const deadline = Date.now() + 1500;
    try {
      while (Date.now() < deadline || reads < 5) {
        const { data } = await reader.get(null);
        reads++;
        for (let r0 = 0; r0 < shape[0]; r0 += chunk[0]) {
          for (let c0 = 0; c0 < shape[1]; c0 += chunk[1]) {
            const g = data[r0 * shape[1] + c0] as number;
            expect(g >= 1 && g <= written && Number.isInteger(g)).toBe(true);
            for (let r = r0; r < r0 + chunk[0]; r++) {
              const row = (data as Float64Array).subarray(
                r * shape[1] + c0,
                r * shape[1] + c0 + chunk[1],
              );
              if (!row.every((x) => x === g))
                throw new Error(`chunk at ${r0},${c0} mixes generations`);
            }
          }
        }
      }
    } finally {
      stop = true;
      await writer;
    }
    expect(written).toBeGreaterThan(2);
    expect(calls()).toBeGreaterThanOrEqual(reads * 16);
  });
});
