import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { StoreError } from "@zarr/core";
import { resolveStore, storeRegistry } from "@zarr/core/store";
import { FileSystemStore } from "@zarr/store-fs";
import "@zarr/store-fs/register";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "./helpers.js";

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ root, cleanup } = await tempDir());
});
afterEach(() => cleanup());

describe("@zarr/store-fs/register", () => {
  it("opens file: URLs as FileSystemStores", async () => {
    const opener = await storeRegistry.get("file");
    const url = pathToFileURL(join(root, "with space")).href;
    const store = await opener.open(url, { durable: true });
    expect(store).toBeInstanceOf(FileSystemStore);
    expect((store as FileSystemStore).root).toBe(join(root, "with space"));
    const s = resolveStore(store);
    await s.set("zarr.json", new Uint8Array([123, 125]));
    expect(await s.get("zarr.json")).toEqual(new Uint8Array([123, 125]));
  });

  it("rejects malformed URLs and options with a StoreError", async () => {
    const opener = await storeRegistry.get("file");
    await expect(opener.open("file://remote-host/x")).rejects.toThrow(StoreError);
    await expect(opener.open(pathToFileURL(root).href, { durable: "yes" })).rejects.toThrow(
      /option "durable" must be a boolean/,
    );
  });
});
