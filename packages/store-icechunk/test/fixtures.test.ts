// The icechunk project's own test repositories (test/fixtures/README.md):
// test-repo-v1 (spec 1, written by icechunk 0.1.3), test-repo-v2 and
// split-repo-v2 (spec 2, icechunk 2.0). The expected contents are those that
// icechunk-python/tests/test_can_read_old.py writes and checks.
import "@zarr/codec-zstd/register";
import { openArray, StoreError } from "@zarr/core";
import { IcechunkStore } from "@zarr/store-icechunk";
import { describe, expect, it } from "vitest";
import { collect, fixture, text } from "./helpers.js";

const nan = Number.NaN;

// test-repo-v2-migrated: test-repo-v1 migrated by icechunk 2 (a spec 2 repo info file,
// the spec 1 snapshot and manifest files kept as they were)
describe.each([
  ["test-repo-v1", 1],
  ["test-repo-v2", 2],
  ["test-repo-v2-migrated", 2],
])("%s (spec v%i)", (name, specVersion) => {
  const open = (version: Parameters<typeof IcechunkStore.open>[1]) =>
    IcechunkStore.open(fixture(name), version);

  it("resolves branches and tags to the commits the generator made", async () => {
    const main = await open({ version: { branch: "main" } });
    expect(main.info.specVersion).toBe(specVersion);
    expect(main.info.message).toBe("set virtual chunk");
    const branch = await open({ version: { branch: "my-branch" } });
    expect(branch.info.message).toBe("some more structure");
    expect((await open({ version: { tag: "it also works!" } })).info.snapshotId).toBe(
      branch.info.snapshotId,
    );
    const tag = await open({ version: { tag: "it works!" } });
    expect(tag.info.message).toBe("delete a chunk");
    const bySnapshot = await open({ version: { snapshot: tag.info.snapshotId.toLowerCase() } });
    expect(bySnapshot.info.snapshotId).toBe(tag.info.snapshotId);
    // "ref not found" in icechunk: the tag was deleted
    await expect(open({ version: { tag: "deleted" } })).rejects.toThrow(/has no tag "deleted"/);
    await expect(open({ version: { branch: "nope" } })).rejects.toThrow(StoreError);
  });

  it("serves zarr.json as stored and lists the hierarchy like icechunk's list_dir", async () => {
    const store = await open({ version: { branch: "my-branch" } });
    const group = JSON.parse(text(await store.get("group1/zarr.json")) ?? "");
    expect(group).toMatchObject({
      zarr_format: 3,
      node_type: "group",
      attributes: { this: "is a nice group", icechunk: 1, size: 42.0 },
    });
    expect(await store.listDir("")).toEqual({
      keys: ["zarr.json"],
      prefixes: ["group1", "group2"],
    });
    expect(await store.listDir("group1/")).toEqual({
      keys: ["zarr.json"],
      prefixes: ["big_chunks", "small_chunks"],
    });
    expect(await store.listDir("group2/group3/group4/group5/")).toEqual({
      keys: ["zarr.json"],
      prefixes: ["inner"],
    });
    expect(await store.listDir("group1/small_chunks/c/")).toEqual({
      keys: ["0", "1", "2", "3"],
      prefixes: [],
    });
    const keys = await collect(store.list());
    expect(keys).toContain("group2/group3/group4/group5/inner/zarr.json");
    expect(keys.filter((k) => k.startsWith("group1/small_chunks/c/"))).toHaveLength(4);
    expect(await collect(store.listPrefix("group1/big"))).toEqual([
      "group1/big_chunks/c/0/0",
      "group1/big_chunks/c/0/1",
      "group1/big_chunks/c/1/0",
      "group1/big_chunks/c/1/1",
      "group1/big_chunks/zarr.json",
    ]);
  });

  it("reads inline and native chunks through zarr (deleted chunk -> fill value)", async () => {
    const main = await open({ version: { branch: "main" } });
    const small = await openArray(main, "group1/small_chunks");
    expect(Array.from((await small.get()).data as Int8Array)).toEqual([84, 84, 84, 84, 84]);
    const branch = await open({ version: { branch: "my-branch" } });
    const deleted = await openArray(branch, "group1/small_chunks");
    expect(Array.from((await deleted.get()).data as Int8Array)).toEqual([84, 84, 84, 84, 8]);
    const big = await openArray(main, "group1/big_chunks");
    // chunk (0, 0) is virtual (s3://testbucket); the others are native chunk files
    const lower = await big.get([{ start: 5, stop: 10, step: 1 }, null] as never);
    expect(Array.from(lower.data as Float32Array)).toEqual(new Array(50).fill(42));
    const inner = await openArray(branch, "group2/group3/group4/group5/inner");
    expect(Array.from((await inner.get()).data as Float32Array)).toEqual(new Array(100).fill(nan));
  });

  it("a virtual chunk in the repository's s3://testbucket/ container needs an s3 store", async () => {
    const main = await open({ version: { branch: "main" } });
    await expect(main.get("group1/big_chunks/c/0/0")).rejects.toThrow(
      /s3:\/\/testbucket\/can_read_old\/chunk-1/,
    );
    const outside = await open({ version: { branch: "main" }, onlyTheseContainers: true });
    await expect(outside.get("group1/big_chunks/c/0/0")).rejects.toThrow(
      /lies in no virtual chunk container/,
    );
  });
});

describe("split-repo-v2: manifests split by extents (spec v2, ManifestRef.extents)", () => {
  it("reads every chunk of the split array from its manifest", async () => {
    const store = await IcechunkStore.open(fixture("split-repo-v2"));
    expect(store.info.message).toBe("write data again with more splits");
    const split = await openArray(store, "group1/split");
    expect(Array.from((await split.get()).data as Float32Array)).toEqual(new Array(100).fill(14));
    const small = await openArray(store, "group1/small_chunks");
    expect(Array.from((await small.get()).data as Int8Array)).toEqual([3, 3, 3, 3, 3]);
    const chunks = (await collect(store.listPrefix("group1/split/c/"))).length;
    expect(chunks).toBe(16);
  });
});
