import { execFileSync } from "node:child_process";
import { mkdir, readFile, readlink, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { StoreError } from "@zarr/core";
import { resolveStore } from "@zarr/core/store";
import { FileSystemStore } from "@zarr/store-fs";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
// Internal switch (not part of the package's API): the portable checks used where
// /proc/self/fd does not exist, exercised here on Linux too.
import { setDescriptorPaths } from "../src/tree.js";
import { tempDir, tree } from "./helpers.js";

// The rule: inside the root, the store never follows a symbolic link and reads
// only regular files (the attack suite, tools/attacks/test/fs.test.ts, adds
// links swapped in during writes, FIFOs, devices and the CLI).

const utf8 = (s: string) => new TextEncoder().encode(s);
const collect = async (it: AsyncIterable<string>) => {
  const out: string[] = [];
  for await (const x of it) out.push(x);
  return out.sort();
};
const linux = process.platform === "linux";

let dir: string;
let root: string;
let outside: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, root, cleanup } = await tempDir());
  outside = join(dir, "outside");
  await mkdir(join(outside, "sub"), { recursive: true });
  await writeFile(join(outside, "secret"), "secret");
  await writeFile(join(outside, "sub", "x"), "x");
  await mkdir(root, { recursive: true });
});
afterEach(() => cleanup());

describe.each([
  ["descriptor paths (Linux)", true],
  ["portable checks", false],
])("FileSystemStore never follows links inside its root: %s", (_, descriptors) => {
  let previous: boolean;
  beforeAll(() => {
    previous = setDescriptorPaths(descriptors);
  });
  afterAll(() => {
    setDescriptorPaths(previous);
  });

  it.skipIf(descriptors && !linux)(
    "a linked directory: reads, writes and erases under it are StoreErrors naming the key; listings skip it",
    async () => {
      await symlink(outside, join(root, "linked"));
      await mkdir(join(root, "real"));
      await symlink("../../outside", join(root, "real", "deep"));
      const store = resolveStore(new FileSystemStore(root));
      const before = await tree(outside);
      for (const key of ["linked/secret", "linked/sub/x", "real/deep/secret"]) {
        for (const op of [
          () => store.get(key),
          () => store.get(key, { suffix: 3 }),
          () => store.getSize(key),
          () => store.has(key),
          () => store.set(key, utf8("evil")),
          () => store.erase(key),
        ]) {
          const error = await op().then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(error, key).toBeInstanceOf(StoreError);
          expect((error as StoreError).path).toBe(key);
          expect((error as Error).message).toMatch(/symbolic link/);
        }
      }
      // A key under a link whose target has nothing there: missing with descriptor
      // paths (the open found nothing, so nothing was read), refused by the portable checks.
      if (descriptors) expect(await store.get("linked/nothing")).toBeUndefined();
      else await expect(store.get("linked/nothing")).rejects.toThrow(StoreError);
      await expect(store.set("linked/new", utf8("evil"))).rejects.toThrow(/symbolic link/);
      await expect(store.set("real/deep/sub/new", utf8("evil"))).rejects.toThrow(StoreError);
      await expect(store.erasePrefix("linked/sub/")).rejects.toThrow(StoreError);
      expect(await collect(store.list())).toEqual([]);
      expect(await collect(store.listPrefix("linked/"))).toEqual([]);
      expect(await store.listDir("")).toEqual({ keys: [], prefixes: ["real"] });
      expect(await store.listDir("linked/")).toEqual({ keys: [], prefixes: [] });
      // erasePrefix of the link itself removes the link.
      await store.erasePrefix("linked/");
      await store.erasePrefix("real/deep/");
      expect(await tree(root)).toEqual([]); // "real" was left empty: removed like after erase
      expect(await tree(outside)).toEqual(before);
      expect(await readFile(join(outside, "secret"), "utf8")).toBe("secret");
    },
  );

  it.skipIf(descriptors && !linux)(
    "a link at a key (even to a file inside the root) is refused on read, replaced by set, removed by erase",
    async () => {
      await writeFile(join(root, "real"), "real");
      await symlink("real", join(root, "inside"));
      await symlink(join(outside, "secret"), join(root, "out"));
      const store = resolveStore(new FileSystemStore(root));
      for (const key of ["inside", "out"]) {
        await expect(store.get(key)).rejects.toThrow(StoreError);
        await expect(store.getSize(key)).rejects.toThrow(StoreError);
        await expect(store.getPartialValues([{ key }])).rejects.toThrow(StoreError);
      }
      expect(await collect(store.list())).toEqual(["real"]);
      await store.set("out", utf8("mine"));
      expect(await store.get("out")).toEqual(utf8("mine"));
      await store.erase("inside");
      expect(await tree(root)).toEqual(["out", "real"]);
      expect(await readFile(join(outside, "secret"), "utf8")).toBe("secret");
    },
  );

  it.skipIf(!linux)("a FIFO or a link to /dev/zero at a key is a StoreError, at once", async () => {
    execFileSync("mkfifo", [join(root, "fifo")]);
    await symlink("/dev/zero", join(root, "zero"));
    const store = new FileSystemStore(root);
    await expect(store.get("fifo")).rejects.toThrow(/FIFO/);
    await expect(store.getSize("fifo")).rejects.toThrow(StoreError);
    await expect(store.get("zero", { offset: 0, length: 10 })).rejects.toThrow(StoreError);
    expect(await collect(store.list())).toEqual([]);
    // Writes replace them; erase removes them.
    await store.set("fifo", utf8("now a file"));
    expect(await store.get("fifo")).toEqual(utf8("now a file"));
    await store.erase("zero");
    expect(await tree(root)).toEqual(["fifo"]);
  });

  it("a root that is itself a link is resolved once, at construction", async () => {
    await symlink(root, join(dir, "root-link"));
    const store = new FileSystemStore(join(dir, "root-link"));
    await store.set("a/b", utf8("ok"));
    expect(await store.get("a/b")).toEqual(utf8("ok"));
    expect(await readFile(join(root, "a", "b"), "utf8")).toBe("ok");
    expect(await readlink(join(dir, "root-link"))).toBe(root);
  });
});
