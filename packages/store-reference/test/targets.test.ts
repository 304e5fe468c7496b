// Target resolution (createTargetResolver): whole-file and ranged reads through
// the store registry, ranges of one file in one turn merged, short data and
// missing targets rejected with a StoreError naming the target.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StoreError } from "@zarr/core";
import { MemoryStore, registerStore } from "@zarr/core/store";
import "@zarr/store-fs/register";
import { openArray } from "@zarr/core";
import {
  createTargetResolver,
  mergeRanges,
  ReferenceStore,
  splitTargetUrl,
} from "@zarr/store-reference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let dir: string;
const file = Uint8Array.from({ length: 100_000 }, (_, i) => (i * 7) & 0xff);

// A "mem://" scheme whose stores count their getPartialValues calls.
const memory = new MemoryStore();
const calls: { key: string; range: unknown }[][] = [];
registerStore("mem-count", {
  async open() {
    return {
      get: (key: string, range?: { offset: number; length?: number }) => memory.get(key, range),
      async getPartialValues(
        requests: readonly { key: string; range?: { offset: number; length?: number } }[],
      ) {
        calls.push(requests.map((r) => ({ key: r.key, range: r.range })));
        return Promise.all(requests.map((r) => memory.get(r.key, r.range)));
      },
    };
  },
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "zarr-ref-targets-"));
  await writeFile(join(dir, "data.bin"), file);
  await memory.set("data.bin", file); // every mem-count: URL opens this one store
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("splitTargetUrl", () => {
  it("splits URLs and paths into parent and file name", () => {
    expect(splitTargetUrl("s3://bucket/dir/a%20b.nc")).toEqual({
      parent: "s3://bucket/dir/",
      key: "a b.nc",
    });
    expect(splitTargetUrl("https://h/x/f.nc?sig=1")).toEqual({
      parent: "https://h/x/?sig=1",
      key: "f.nc",
    });
    expect(splitTargetUrl("/data/f.nc")).toEqual({ parent: "/data/", key: "f.nc" });
    expect(splitTargetUrl("f.nc")).toEqual({ parent: "./", key: "f.nc" });
  });
  it.each(["s3://bucket/dir/", "https://h/..", "/data/..", "", "https://h/%zz"])(
    "%j is a StoreError",
    (url) => {
      expect(() => splitTargetUrl(url)).toThrow(StoreError);
    },
  );
});

describe("mergeRanges", () => {
  it("merges ranges closer than the gap, up to the request size", () => {
    const r = [
      { offset: 100, length: 10 },
      { offset: 0, length: 10 },
      { offset: 15, length: 5 },
      { offset: 5, length: 2 },
    ];
    expect(mergeRanges(r, 5, 1000)).toEqual([
      { offset: 0, length: 20, members: [1, 3, 2] },
      { offset: 100, length: 10, members: [0] },
    ]);
    expect(mergeRanges(r, 1000, 50).map((m) => m.members)).toEqual([[1, 3, 2], [0]]);
    expect(mergeRanges(r, 0, 1000).length).toBe(3);
  });
});

describe("createTargetResolver", () => {
  it("reads whole files and ranges of local files", async () => {
    const targets = createTargetResolver();
    const path = join(dir, "data.bin");
    expect(await targets.read(path, undefined)).toEqual(file);
    expect(await targets.read(path, { offset: 10, length: 20 })).toEqual(file.subarray(10, 30));
    expect(await targets.read(`file://${path}`, { offset: 99_990, length: 10 })).toEqual(
      file.subarray(99_990),
    );
    await targets.close();
  });

  it("a range past the end and a missing file are StoreErrors naming the target", async () => {
    const targets = createTargetResolver();
    const path = join(dir, "data.bin");
    const past = await targets.read(path, { offset: 99_990, length: 11 }).catch((e) => e);
    expect(past).toBeInstanceOf(StoreError);
    expect(past.message).toContain("past the end");
    expect(past.message).toContain(path);
    const missing = await targets
      .read(join(dir, "nope.bin"), { offset: 0, length: 1 })
      .catch((e) => e);
    expect(missing).toBeInstanceOf(StoreError);
    expect(missing.message).toContain("nope.bin");
    await expect(targets.read(join(dir, "nope.bin"), undefined)).rejects.toBeInstanceOf(StoreError);
    await targets.close();
  });

  it("concurrent ranges of one file are one getPartialValues call, nearby ones merged", async () => {
    calls.length = 0;
    const targets = createTargetResolver({ maxGap: 100 });
    const ranges = [
      { offset: 0, length: 10 },
      { offset: 50, length: 10 },
      { offset: 5000, length: 10 },
      { offset: 5050, length: 100 },
    ];
    const values = await Promise.all(
      ranges.map((r) => targets.read("mem-count://x/dir/data.bin", r)),
    );
    values.forEach((v, i) => {
      expect(v).toEqual(file.subarray(ranges[i].offset, ranges[i].offset + ranges[i].length));
    });
    expect(calls).toEqual([
      [
        { key: "data.bin", range: { offset: 0, length: 60 } },
        { key: "data.bin", range: { offset: 5000, length: 150 } },
      ],
    ]);
    await targets.close();
  });

  it("an aborted read rejects with the signal's reason", async () => {
    const targets = createTargetResolver();
    const controller = new AbortController();
    const read = targets.read(
      "mem-count://x/dir/data.bin",
      { offset: 0, length: 1 },
      controller.signal,
    );
    controller.abort(new Error("stop"));
    await expect(read).rejects.toThrow("stop");
    await targets.close();
  });
});

describe("coalescing through ReferenceStore", () => {
  it("one array read of 8 chunks in one file is one getPartialValues call of merged ranges", async () => {
    // Chunk i of a uint8 array [32] (chunks of 4) is bytes [i*8, i*8+4) of data.bin: 4-byte holes.
    const refs: Record<string, unknown> = {
      "a/zarr.json": JSON.stringify({
        zarr_format: 3,
        node_type: "array",
        shape: [32],
        data_type: "uint8",
        chunk_grid: { name: "regular", configuration: { chunk_shape: [4] } },
        chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
        fill_value: 0,
        codecs: [{ name: "bytes" }],
      }),
    };
    for (let i = 0; i < 8; i++) refs[`a/c/${i}`] = ["mem-count://x/data.bin", i * 8, 4];
    const store = ReferenceStore.fromJson({ version: 1, refs }, { maxGap: 4 });
    calls.length = 0;
    const { data } = await (await openArray(store, "a")).get(null);
    const expected = new Uint8Array(32);
    for (let i = 0; i < 8; i++) expected.set(file.subarray(i * 8, i * 8 + 4), i * 4);
    expect(data).toEqual(expected);
    expect(calls).toEqual([[{ key: "data.bin", range: { offset: 0, length: 60 } }]]);
    await store.close();
  });
});
