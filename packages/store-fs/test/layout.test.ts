import { mkdir, open, readdir, readFile, stat, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { InvalidKeyError, StoreError } from "@zarr/core";
import { resolveStore } from "@zarr/core/store";
import { FileSystemStore } from "@zarr/store-fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir, tree } from "./helpers.js";

const utf8 = (s: string) => new TextEncoder().encode(s);
const collect = async (it: AsyncIterable<string>) => {
  const out: string[] = [];
  for await (const x of it) out.push(x);
  return out;
};

let dir: string;
let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, root, cleanup } = await tempDir());
});
afterEach(() => cleanup());

describe("FileSystemStore layout", () => {
  it("maps keys to files under the root, creating parent directories", async () => {
    const store = new FileSystemStore(root);
    await store.set("a/b/zarr.json", utf8("{}"));
    await store.set("grp with spaces/数据/c/0", utf8("x"));
    expect(await readFile(join(root, "a", "b", "zarr.json"), "utf8")).toBe("{}");
    expect(await readFile(join(root, "grp with spaces", "数据", "c", "0"), "utf8")).toBe("x");
    expect(await tree(root)).toEqual([
      "a/",
      "a/b/",
      "a/b/zarr.json",
      "grp with spaces/",
      "grp with spaces/数据/",
      "grp with spaces/数据/c/",
      "grp with spaces/数据/c/0",
    ]);
  });

  it("accepts a file: URL object as root", async () => {
    const store = new FileSystemStore(pathToFileURL(root));
    expect(store.root).toBe(root);
  });

  it("a missing root is an empty store: reads don't create it, the first write does", async () => {
    const store = resolveStore(new FileSystemStore(join(root, "deeper", "still")));
    expect(await store.get("zarr.json")).toBeUndefined();
    expect(await store.get("zarr.json", { suffix: 4 })).toBeUndefined();
    expect(await store.getSize("zarr.json")).toBeUndefined();
    expect(await store.getPartialValues([{ key: "a" }, { key: "b/c" }])).toEqual([
      undefined,
      undefined,
    ]);
    expect(await collect(store.list())).toEqual([]);
    expect(await collect(store.listPrefix("a/"))).toEqual([]);
    expect(await store.listDir("")).toEqual({ keys: [], prefixes: [] });
    await store.erase("zarr.json");
    await store.erasePrefix("a/");
    await store.erasePrefix("");
    await expect(stat(root)).rejects.toMatchObject({ code: "ENOENT" });
    await store.set("zarr.json", utf8("{}"));
    expect(await readdir(join(root, "deeper", "still"))).toEqual(["zarr.json"]);
  });

  it("erase removes parent directories left empty, up to but not including the root", async () => {
    const store = new FileSystemStore(root);
    await store.set("a/b/c/d", utf8("1"));
    await store.set("a/x", utf8("2"));
    await store.erase("a/b/c/d");
    expect(await tree(root)).toEqual(["a/", "a/x"]);
    await store.erase("a/x");
    expect(await tree(root)).toEqual([]);
    expect((await stat(root)).isDirectory()).toBe(true);
    await store.set("p/q/r", utf8("3"));
    await store.erasePrefix("p/q/");
    expect(await tree(root)).toEqual([]);
  });

  it("set survives a concurrent erase pruning the directory it writes into", async () => {
    const store = new FileSystemStore(root);
    await store.set("d/k0", utf8("0"));
    for (let i = 1; i <= 200; i++) {
      // erase empties d/ and removes it while set is creating d/ and its temp file.
      await Promise.all([store.set(`d/k${i}`, utf8(String(i))), store.erase(`d/k${i - 1}`)]);
    }
    expect(await tree(root)).toEqual(["d/", "d/k200"]);
  });

  it("set survives concurrent erases pruning several levels of the directories it creates", async () => {
    const store = new FileSystemStore(root);
    await store.set("d/e/f/k0", utf8("0"));
    for (let i = 1; i <= 200; i++) {
      await Promise.all([
        store.set(`d/e/f/k${i}`, utf8(String(i))),
        store.erase(`d/e/f/k${i - 1}`),
        store.set(`d/e/g${i % 2}`, utf8("x")),
        store.erase(`d/e/g${(i + 1) % 2}`),
      ]);
    }
    expect(await tree(root)).toEqual(["d/", "d/e/", "d/e/f/", "d/e/f/k200", "d/e/g0"]);
  });

  it("erasePrefix('') empties the root but keeps it", async () => {
    const store = new FileSystemStore(root);
    await store.set("a/b", utf8("1"));
    await store.set("zarr.json", utf8("2"));
    await store.erasePrefix("");
    expect(await readdir(root)).toEqual([]);
  });

  it("reads files written by other tools; listing skips temp files and invalid names", async () => {
    await mkdir(join(root, "a"), { recursive: true });
    await writeFile(join(root, "a", "zarr.json"), "{}");
    await writeFile(join(root, "a", ".zarr-tmp.0123456789abcdef"), "half-written");
    await writeFile(join(root, "a", "back\\slash"), "unreachable by a valid key");
    await writeFile(join(root, "a", "ctl\u0001"), "unreachable by a valid key");
    const store = resolveStore(new FileSystemStore(root));
    expect(await collect(store.list())).toEqual(["a/zarr.json"]);
    expect(await store.listDir("a/")).toEqual({ keys: ["zarr.json"], prefixes: [] });
    await expect(store.get("a/.zarr-tmp.0123456789abcdef")).rejects.toThrow(InvalidKeyError);
    await expect(store.set("a/.zarr-tmp.x", utf8("x"))).rejects.toThrow(/reserved/);
  });

  it("leaves no temporary files behind", async () => {
    const store = new FileSystemStore(root);
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.set(`k/${i % 5}`, new Uint8Array(1000 + i))),
    );
    const names = (await tree(root)).filter((p) => p.includes(".zarr-tmp."));
    expect(names).toEqual([]);
  });

  it("a directory is a prefix, not a key; a key path under a file is missing", async () => {
    const store = resolveStore(new FileSystemStore(root));
    await store.set("a/b", utf8("1"));
    expect(await store.get("a")).toBeUndefined();
    expect(await store.get("a", { offset: 0, length: 1 })).toBeUndefined();
    expect(await store.getSize("a")).toBeUndefined();
    expect(await store.has("a")).toBe(false);
    expect(await store.get("a/b/c")).toBeUndefined();
    await store.erase("a"); // a directory: nothing to do
    expect(await store.get("a/b")).toEqual(utf8("1"));
    expect(await collect(store.listPrefix("a/b/"))).toEqual([]);
    expect(await store.listDir("a/b/")).toEqual({ keys: [], prefixes: [] });
    await store.erasePrefix("a/b/"); // a file: not a prefix
    expect(await store.get("a/b")).toEqual(utf8("1"));
  });

  it("write conflicts with the directory layout are StoreErrors naming the key", async () => {
    const store = new FileSystemStore(root);
    await store.set("a/b", utf8("1"));
    const underFile = store.set("a/b/c", utf8("2"));
    await expect(underFile).rejects.toThrow(StoreError);
    await expect(store.set("a/b/c", utf8("2"))).rejects.toThrow(/set of key "a\/b\/c" failed/);
    await expect(store.set("a", utf8("3"))).rejects.toThrow(/set of key "a" failed/);
    const error = await store.set("a", utf8("3")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).path).toBe("a");
    expect((error as StoreError).cause).toMatchObject({ code: expect.any(String) });
    expect(await tree(root)).toEqual(["a/", "a/b"]); // no temp file left
  });

  it("ranged reads only read the range (a 4 GiB sparse file)", async () => {
    await mkdir(root, { recursive: true });
    const path = join(root, "sparse");
    await writeFile(path, "");
    await truncate(path, 4 * 2 ** 30);
    const store = new FileSystemStore(root);
    const before = process.memoryUsage().arrayBuffers;
    expect(await store.get("sparse", { offset: 3 * 2 ** 30, length: 16 })).toEqual(
      new Uint8Array(16),
    );
    expect(await store.get("sparse", { suffix: 8 })).toEqual(new Uint8Array(8));
    expect(await store.getSize("sparse")).toBe(4 * 2 ** 30);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(2 ** 20);
  });

  it("getPartialValues opens each file once and serves all of its ranges", async () => {
    const store = new FileSystemStore(root);
    const value = Uint8Array.from({ length: 256 }, (_, i) => i);
    await store.set("v", value);
    const values = await store.getPartialValues([
      { key: "v", range: { offset: 10, length: 2 } },
      { key: "missing" },
      { key: "v", range: { suffix: 3 } },
      { key: "v" },
    ]);
    expect(values).toEqual([value.subarray(10, 12), undefined, value.subarray(253), value]);
    for (const v of values) if (v) expect(v.constructor).toBe(Uint8Array);
  });

  it("durable writes round trip", async () => {
    const store = new FileSystemStore(root, { durable: true });
    await store.set("d/x", utf8("durable"));
    expect(await store.get("d/x")).toEqual(utf8("durable"));
    expect(dir).toBeTruthy();
  });

  it("a durable write fsyncs the file, its directory and the parent of every directory it creates", async () => {
    // fsync itself cannot be observed; its calls can. Every sync goes through a FileHandle.
    const probe = await open(dir, "r");
    const proto = Object.getPrototypeOf(probe) as { sync: () => Promise<void> };
    await probe.close();
    const original = proto.sync;
    let syncs = 0;
    proto.sync = function (this: unknown) {
      syncs++;
      return original.call(this);
    };
    try {
      const store = new FileSystemStore(join(root, "new-root"), { durable: true });
      await store.set("a/b/c/0", utf8("x")); // creates new-root, a, b and c
      // the file, c (holding it), and the parents of new-root, a, b and c
      expect(syncs).toBe(6);
      syncs = 0;
      await store.set("a/b/c/1", utf8("y")); // creates nothing
      expect(syncs).toBe(2);
      syncs = 0;
      await new FileSystemStore(join(root, "plain")).set("a/b/0", utf8("z"));
      expect(syncs).toBe(0);
    } finally {
      proto.sync = original;
    }
  });
});
