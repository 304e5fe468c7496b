import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { InvalidKeyError, StoreError } from "@zarr/core";
import { resolveStore } from "@zarr/core/store";
import { FileSystemStore } from "@zarr/store-fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir, tree } from "./helpers.js";

// Keys never leave the root (validated in core and again here); symbolic links
// placed inside the root are never followed (links.test.ts), and erase/erasePrefix
// remove the links, never their targets.

const utf8 = (s: string) => new TextEncoder().encode(s);
const collect = async (it: AsyncIterable<string>) => {
  const out: string[] = [];
  for await (const x of it) out.push(x);
  return out;
};

const ESCAPES = [
  "../x",
  "../outside/secret",
  "/abs",
  "a/../../x",
  "a\\..\\..\\x",
  "a\0b",
  "a//b",
  "..",
  ".",
];

let dir: string;
let root: string;
let outside: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, root, cleanup } = await tempDir());
  outside = join(dir, "outside");
  await mkdir(outside, { recursive: true });
  await writeFile(join(outside, "secret"), "secret");
  await mkdir(root, { recursive: true });
});
afterEach(() => cleanup());

describe("FileSystemStore path escapes", () => {
  it.each([
    ["through resolveStore", (r: string) => resolveStore(new FileSystemStore(r))],
    ["used directly", (r: string) => new FileSystemStore(r)],
  ])("rejects escaping keys %s and writes nothing outside the root", async (_, make) => {
    const store = make(root);
    const before = await tree(dir);
    for (const key of ESCAPES) {
      await expect(store.get(key)).rejects.toThrow(InvalidKeyError);
      await expect(store.set(key, utf8("evil"))).rejects.toThrow(InvalidKeyError);
      await expect(store.erase(key)).rejects.toThrow(InvalidKeyError);
      await expect(store.getSize!(key)).rejects.toThrow(InvalidKeyError);
      await expect(store.eraseValues!([key])).rejects.toThrow(InvalidKeyError);
      await expect(
        store.setPartialValues!([{ key, offset: 0, value: utf8("evil") }]),
      ).rejects.toThrow(InvalidKeyError);
    }
    for (const prefix of ["../", "../outside/", "/", "a/../../"]) {
      await expect(store.erasePrefix!(prefix)).rejects.toThrow(InvalidKeyError);
      await expect(collect(store.listPrefix!(prefix))).rejects.toThrow(InvalidKeyError);
      await expect(store.listDir!(prefix)).rejects.toThrow(InvalidKeyError);
    }
    expect(await tree(dir)).toEqual(before);
    expect(await readFile(join(outside, "secret"), "utf8")).toBe("secret");
  });

  it("erasePrefix and erase remove links, never what they point to", async () => {
    await symlink(outside, join(root, "linked"), "dir");
    await symlink(join(outside, "secret"), join(root, "file-link"));
    const store = resolveStore(new FileSystemStore(root));
    await expect(store.get("file-link")).rejects.toThrow(StoreError);
    await store.erase("file-link");
    await store.erasePrefix("linked/");
    expect(await tree(root)).toEqual([]);
    expect(await readFile(join(outside, "secret"), "utf8")).toBe("secret");
  });

  it("set over a symbolic link to a file replaces the link, not the target", async () => {
    await symlink(join(outside, "secret"), join(root, "file-link"));
    const store = new FileSystemStore(root);
    await store.set("file-link", utf8("new"));
    expect(await store.get("file-link")).toEqual(utf8("new"));
    expect(await readFile(join(outside, "secret"), "utf8")).toBe("secret");
  });

  it("erasePrefix('') removes links inside the root, not their targets", async () => {
    await symlink(outside, join(root, "linked"), "dir");
    await new FileSystemStore(root).erasePrefix("");
    expect(await tree(root)).toEqual([]);
    expect(await readFile(join(outside, "secret"), "utf8")).toBe("secret");
  });

  it("listing skips links, so link cycles cannot make it loop", async () => {
    const store = resolveStore(new FileSystemStore(root));
    await store.set("a/b/zarr.json", utf8("{}"));
    await symlink(root, join(root, "a", "b", "to-root"), "dir");
    await symlink(join(root, "a"), join(root, "a", "b", "to-a"), "dir");
    await symlink(join(root, "missing"), join(root, "a", "broken"));
    expect(await collect(store.list())).toEqual(["a/b/zarr.json"]);
    expect(await store.listDir("a/b/")).toEqual({ keys: ["zarr.json"], prefixes: [] });
  });
});
