// Uncompressed chunks of the wrong size: a small selection (read as a byte
// range of the chunk) and a whole-chunk read must agree, and both refuse a
// chunk whose stored size is not the chunk's shape times its item size
// (v3 core, "bytes" codec: the encoded representation is exactly the elements).
import { constants as bufferConstants } from "node:buffer";
import { mkdtemp, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CodecError, createArray, openArray, slice } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attack, describeRun } from "../src/index.js";

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "zarr-attack-sizes-"));
});
afterAll(() => rm(root, { recursive: true, force: true }));

const SELECTIONS = [
  ["one element", [3, 5]],
  ["a small box", [slice(1, 3), slice(2, 6)]],
  ["the last element", [-1, -1]],
  ["a whole row", [0, null]],
  ["the whole chunk", [slice(0, 8), slice(0, 8)]],
] as const;

/** An 8x8 float64 array of one chunk, stored, then damaged by `damage(file)`. */
async function damaged(name: string, damage: (file: string) => Promise<void>) {
  const store = new FileSystemStore(root);
  const a = await createArray(store, name, {
    shape: [8, 8],
    dataType: "float64",
    chunkShape: [8, 8],
  });
  await a.set(
    null,
    Float64Array.from({ length: 64 }, (_, i) => i + 1),
  );
  await damage(join(root, name, "c", "0", "0"));
  return openArray(new FileSystemStore(root), name);
}

describe("uncompressed chunks of the wrong size fail every selection alike", () => {
  const cases: [string, (file: string) => Promise<void>][] = [
    ["extended by one byte", async (f) => writeFile(f, new Uint8Array([0]), { flag: "a" })],
    ["truncated by one byte", async (f) => truncate(f, 511)],
    ["truncated to half", async (f) => truncate(f, 256)],
    ["empty", async (f) => truncate(f, 0)],
    ["a sparse 8 GiB file", async (f) => truncate(f, 8 * 2 ** 30)],
    [
      "a stale chunk of another shape (4x8)",
      async (f) => writeFile(f, new Uint8Array(new Float64Array(32).fill(7).buffer)),
    ],
  ];
  it.each(cases)("%s", async (name, damage) => {
    const a = await damaged(name.replace(/\W+/g, "-"), damage);
    for (const [what, sel] of SELECTIONS) {
      await expect(a.get([...sel]), what).rejects.toThrow(CodecError);
      await expect(a.get([...sel]), what).rejects.toThrow(/bytes, expected 512|512/);
    }
  });

  it("a chunk of the right size reads the same through every selection", async () => {
    const a = await damaged("intact", async () => {});
    expect(Array.from((await a.get([3, 5])).data as Float64Array)).toEqual([30]);
    expect(Array.from((await a.get([slice(1, 3), 2])).data as Float64Array)).toEqual([11, 19]);
  });

  it("a sparse 8 GiB chunk is refused within bounded memory (in a child, under the watchdog)", async () => {
    await damaged("sparse-child", (f) => truncate(f, 8 * 2 ** 30));
    for (const sel of ["[3, 5]", "undefined"]) {
      const r = await attack(
        `const { openArray } = await import("@zarr/core");
         const { FileSystemStore } = await import("@zarr/store-fs");
         const a = await openArray(new FileSystemStore(${JSON.stringify(root)}), "sparse-child");
         return (await a.get(${sel})).data.length;`,
        { maxRssMiB: 300, timeoutMs: 30_000 },
      );
      expect(r.error?.name, describeRun(r)).toBe("CodecError");
      expect(r.killed, describeRun(r)).toBeUndefined();
    }
  });
});

describe("chunks of JavaScript values larger than one array can hold", () => {
  // V8 aborts the whole process (no catchable error) for some of these lengths.
  it.each([
    ["string", 1e9, `createArray(s, "a", { shape: [N], dataType: "string", chunkShape: [N] })`],
    ["string", 5e8, `createArray(s, "a", { shape: [N], dataType: "string", chunkShape: [N] })`],
    ["bytes", 3e8, `createArray(s, "a", { shape: [N], dataType: "bytes", chunkShape: [N] })`],
    [
      "v2 |O vlen-utf8",
      5e8,
      `createArrayV2(s, "a", { shape: [N], chunks: [N], dtype: "|O", fillValue: null, compressor: null, filters: [{ id: "vlen-utf8" }] })`,
    ],
    [
      "v2 <U4",
      2e9,
      `createArrayV2(s, "a", { shape: [N], chunks: [N], dtype: "<U4", compressor: null })`,
    ],
  ])(
    "%s chunk of %d elements: set, setCoordinates and get are ValueErrors",
    async (_name, n, create) => {
      const r = await attack(
        `await import("@zarr/v2-compat/register");
       const { MemoryStore, createArray } = await import("@zarr/core");
       const { createArrayV2 } = await import("@zarr/v2-compat");
       const s = new MemoryStore();
       const N = ${n};
       const a = await ${create};
       const value = a.dataType.kind === "bytes" ? new Uint8Array([1]) : "x";
       const errors = [];
       for (const op of [() => a.set([0], value), () => a.setCoordinates([[N - 1]], [value]), () => a.get([0])]) {
         try { await op(); errors.push("done"); } catch (e) { errors.push(e.name); }
       }
       return errors;`,
        { maxRssMiB: 600, timeoutMs: 45_000 },
      );
      expect(r.killed, describeRun(r)).toBeUndefined();
      // A read of a missing chunk needs no chunk array: the fill value fills the output.
      expect(r.value, describeRun(r)).toEqual(["ValueError", "ValueError", "done"]);
    },
  );
});

describe("writes of chunks larger than the engine can allocate", () => {
  // Node 20 allocates at most 4 GiB in one piece; Node 22+ allocates up to 2^53
  // bytes (lazily paged), so there an 8 GiB chunk is allocatable and its write
  // takes the memory the metadata asks for (RELIABILITY.md: not guarded).
  const largest = bufferConstants.MAX_LENGTH;
  it.each([
    ["float64", 1e9, 8e9],
    ["int32", 2 ** 31, 2 ** 33],
    ["uint8", 2 ** 40, 2 ** 40],
  ])("%s chunk of %d elements: set and setChunk are ValueErrors", async (dataType, n, bytes) => {
    if (bytes <= largest) {
      console.info(`skipped: ${bytes} bytes are allocatable here (MAX_LENGTH ${largest})`);
      return;
    }
    const r = await attack(
      `const { MemoryStore, createArray } = await import("@zarr/core");
       const a = await createArray(new MemoryStore(), "a", { shape: [${n}], dataType: "${dataType}", chunkShape: [${n}] });
       const errors = [];
       for (const op of [() => a.set([0], 1), () => a.set([${n} - 1], 2)]) {
         try { await op(); errors.push("stored"); } catch (e) { errors.push(e.name); }
       }
       return errors;`,
      { maxRssMiB: 600, timeoutMs: 45_000 },
    );
    expect(r.killed, describeRun(r)).toBeUndefined();
    expect(r.value).toEqual(["ValueError", "ValueError"]);
  });
});
