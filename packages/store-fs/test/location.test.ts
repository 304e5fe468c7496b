import { mkdir, realpath, symlink } from "node:fs/promises";
import { join } from "node:path";
import { createArray, openArray } from "@zarr/core";
import { resolveStore } from "@zarr/core/store";
import { FileSystemStore } from "@zarr/store-fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterEach(() => cleanup());

describe("FileSystemStore.location", () => {
  it("is a file:// URL of the real path, without a trailing slash, through links and before the root exists", async () => {
    const real = await realpath(dir);
    await mkdir(join(dir, "data"));
    await symlink(join(dir, "data"), join(dir, "link"));
    expect(new FileSystemStore(join(dir, "data")).location).toBe(`file://${real}/data`);
    expect(new FileSystemStore(`${join(dir, "data")}/`).location).toBe(`file://${real}/data`);
    expect(new FileSystemStore(join(dir, "link")).location).toBe(`file://${real}/data`);
    // Not there yet: the nearest existing ancestor is resolved, the rest appended.
    expect(new FileSystemStore(join(dir, "link", "new", "x.zarr")).location).toBe(
      `file://${real}/data/new/x.zarr`,
    );
    // Names are not percent-encoded: keys are appended to the location as they are.
    expect(new FileSystemStore(join(dir, "a b%20c")).location).toBe(`file://${real}/a b%20c`);
    expect(resolveStore(new FileSystemStore(join(dir, "data"))).location).toBe(
      `file://${real}/data`,
    );
  });

  it("a store on dir and one on dir/sub name the same value the same way", () => {
    const outer = new FileSystemStore(dir);
    const inner = new FileSystemStore(join(dir, "sub dir"));
    const key = "c/0 1";
    expect(`${outer.location}/sub dir/${key}`).toBe(`${inner.location}/${key}`);
  });

  it.each([2, 20, 200])(
    "200 concurrent single-element writes to ONE chunk through arrays on %i different store objects lose nothing",
    async (stores) => {
      const root = join(dir, "store");
      await createArray(new FileSystemStore(root), "a", {
        shape: [200],
        chunkShape: [200],
        dataType: "int32",
        fillValue: 0,
      });
      const arrays = await Promise.all(
        Array.from({ length: stores }, () => openArray(new FileSystemStore(root), "a")),
      );
      await Promise.all(Array.from({ length: 200 }, (_, i) => arrays[i % stores].set([i], i + 1)));
      const got = await openArray(new FileSystemStore(root), "a").then((a) => a.get());
      expect(Array.from(got.data as Int32Array)).toEqual(
        Array.from({ length: 200 }, (_, i) => i + 1),
      );
    },
  );

  it("writers on dir and on dir/sub (through a link) share the chunk lock", async () => {
    const root = join(dir, "store");
    await createArray(new FileSystemStore(root), "sub/a", {
      shape: [100],
      chunkShape: [100],
      dataType: "uint8",
      fillValue: 0,
    });
    await symlink(join(root, "sub"), join(dir, "sub-link"));
    const fromOuter = await openArray(new FileSystemStore(root), "sub/a");
    const fromInner = await openArray(new FileSystemStore(join(dir, "sub-link")), "a");
    await Promise.all(
      Array.from({ length: 100 }, (_, i) => (i % 2 ? fromOuter : fromInner).set([i], i + 1)),
    );
    const got = await fromOuter.get();
    expect(Array.from(got.data as Uint8Array)).toEqual(
      Array.from({ length: 100 }, (_, i) => i + 1),
    );
  });
});
