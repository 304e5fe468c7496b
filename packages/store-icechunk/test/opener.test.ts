// The icechunk: URL scheme (`icechunk:REPO?branch=NAME|tag=NAME|snapshot=ID`)
// through core's openStore, and listRefs.
import { fileURLToPath, pathToFileURL } from "node:url";
import "@zarr/store-fs/register";
import "@zarr/store-icechunk/register";
import "@zarr/codec-zstd/register";
import { openArray, StoreError } from "@zarr/core";
import { openStore } from "@zarr/core/store";
import { IcechunkStore, listRefs, parseIcechunkUrl } from "@zarr/store-icechunk";
import { describe, expect, it } from "vitest";
import { fixture } from "./helpers.js";

const v2 = fileURLToPath(new URL("./fixtures/test-repo-v2", import.meta.url));

describe("parseIcechunkUrl", () => {
  it.each([
    ["icechunk:/data/repo", "/data/repo", { branch: "main" }],
    ["icechunk:/data/repo?branch=dev", "/data/repo", { branch: "dev" }],
    ["icechunk:s3://bucket/repo?tag=it%20works!", "s3://bucket/repo", { tag: "it works!" }],
    [
      "icechunk:https://h/r?token=x&snapshot=1CECHNKREP0F1RSTCMT0",
      "https://h/r?token=x",
      { snapshot: "1CECHNKREP0F1RSTCMT0" },
    ],
    ["ICECHUNK:file:///r", "file:///r", { branch: "main" }],
  ])("%s", (url, repository, version) => {
    expect(parseIcechunkUrl(url)).toEqual({ repository, version });
  });

  it.each([
    ["icechunk:", /names no repository/],
    ["icechunk:?branch=main", /names no repository/],
    ["icechunk:/r?branch=a&tag=b", /one of branch, tag and snapshot, not branch and tag/],
    ["icechunk:/r?branch=a&branch=b", /branch is given more than once/],
    ["icechunk:/r?tag=", /tag is empty/],
  ])("%s is a StoreError", (url, message) => {
    expect(() => parseIcechunkUrl(url)).toThrow(StoreError);
    expect(() => parseIcechunkUrl(url)).toThrow(message);
  });
});

describe("openStore with icechunk: URLs (local paths and file: URLs)", () => {
  it("opens branch main by default and reads an array", async () => {
    const store = (await openStore(`icechunk:${v2}`)) as IcechunkStore;
    expect(store.info.message).toBe("set virtual chunk");
    const small = await openArray(store, "group1/small_chunks");
    expect(Array.from((await small.get()).data as Int8Array)).toEqual([84, 84, 84, 84, 84]);
  });

  it("tags with spaces (percent-encoded) and snapshot ids", async () => {
    const tagged = (await openStore(
      `icechunk:${pathToFileURL(v2).href}?tag=it%20works!`,
    )) as IcechunkStore;
    expect(tagged.info.message).toBe("delete a chunk");
    const bySnapshot = (await openStore(
      `icechunk:${v2}?snapshot=${tagged.info.snapshotId}`,
    )) as IcechunkStore;
    expect(bySnapshot.info.snapshotId).toBe(tagged.info.snapshotId);
  });

  it("a missing branch or a directory that is no repository is a StoreError", async () => {
    await expect(openStore(`icechunk:${v2}?branch=nope`)).rejects.toThrow(/has no branch "nope"/);
    const empty = fileURLToPath(new URL("./fixtures", import.meta.url));
    await expect(openStore(`icechunk:${empty}`)).rejects.toThrow(StoreError);
    await expect(openStore(`icechunk:${empty}`)).rejects.toThrow(/no icechunk repository here/);
  });

  it("an aborted signal rejects", async () => {
    const signal = AbortSignal.abort();
    await expect(openStore(`icechunk:${v2}`, { signal })).rejects.toThrow();
  });
});

describe("listRefs", () => {
  it.each(["test-repo-v1", "test-repo-v2"])("%s: branches and live tags", async (name) => {
    const refs = await listRefs(fixture(name));
    expect(Object.keys(refs.branches)).toEqual(["main", "my-branch"]);
    expect(Object.keys(refs.tags)).toEqual(["it also works!", "it works!"]);
    const main = await IcechunkStore.open(fixture(name));
    expect(refs.branches.main).toBe(main.info.snapshotId);
  });
});

describe("closing", () => {
  it("closes the repository's store only when asked (the icechunk: opener asks)", async () => {
    for (const closeRepository of [false, true]) {
      const inner = fixture("test-repo-v2");
      let closed = 0;
      const repo = {
        get: inner.get.bind(inner),
        close: async () => {
          closed++;
        },
      };
      const store = await IcechunkStore.open(repo, { closeRepository });
      expect(await store.getSize("group1/small_chunks/c/0")).toBeGreaterThan(0);
      await store.close();
      expect(closed).toBe(closeRepository ? 1 : 0);
    }
  });
});
