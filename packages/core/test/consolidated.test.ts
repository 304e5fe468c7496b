// v3 consolidated metadata (../shared/notes/v3-extensions.md "Consolidated
// metadata"): open uses it without listing, consolidate() writes it, writes
// through an opened hierarchy keep it true.
import { join } from "node:path";
import {
  CountingStore,
  consolidate,
  createArray,
  createGroup,
  type Group,
  MemoryStore,
  open,
  openGroup,
  type ZarrArray,
} from "@zarr/core";
import { parseJson } from "@zarr/core/internal";
import {
  fixturesSkipReason,
  haveFixtures,
  readOnlyDirStore,
  zarritaFixtures,
} from "@zarr/test-utils";
import { describe, expect, it } from "vitest";

async function walkPaths(g: Group): Promise<string[]> {
  const out: string[] = [];
  for await (const n of g.walk()) out.push(`${n.kind}:${n.path}`);
  return out;
}

describe.skipIf(!haveFixtures())("the zarr-python consolidated fixture", () => {
  if (!haveFixtures()) console.warn(fixturesSkipReason);
  it("opens the whole hierarchy with one read and no listing", async () => {
    const counting = new CountingStore(readOnlyDirStore(join(zarritaFixtures, "v3/data.zarr")));
    const g = (await open(counting, "consolidated")) as Group;
    expect(g.consolidated).toBe(true);
    expect(g.attrs).toEqual({ answer: 42 });
    expect(await walkPaths(g)).toEqual([
      "array:consolidated/1d.chunked.i2",
      "array:consolidated/2d.contiguous.i2",
      "group:consolidated/nested",
      "array:consolidated/nested/1d.i2",
    ]);
    expect(counting.counts.reads).toBe(1);
    expect(counting.counts.lists).toBe(0);
    const a = (await g.get("nested/1d.i2")) as ZarrArray;
    expect(Array.from((await a.get()).data as Int16Array)).toEqual([10, 20, 30, 40]);
  });
});

describe("consolidate and keep it true", () => {
  async function build(): Promise<MemoryStore> {
    const store = new MemoryStore();
    await createGroup(store, "", { attributes: { title: "root" } });
    await createArray(store, "a", { shape: [4], dataType: "int8" });
    await createArray(store, "g/b", { shape: [2, 2], dataType: "float32" });
    await createGroup(store, "g/h/i");
    return store;
  }

  it("writes every descendant into the root document, zarr-python's layout", async () => {
    const store = await build();
    await consolidate(store);
    const doc = parseJson(store.map.get("zarr.json")!, "zarr.json") as Record<string, never>;
    const cm = doc.consolidated_metadata as {
      kind: string;
      must_understand: boolean;
      metadata: Record<string, { node_type: string }>;
    };
    expect(cm.kind).toBe("inline");
    expect(cm.must_understand).toBe(false);
    expect(Object.keys(cm.metadata).sort()).toEqual(["a", "g", "g/b", "g/h", "g/h/i"]);
    expect(cm.metadata["g/b"].node_type).toBe("array");
    const counting = new CountingStore(store);
    const g = await openGroup(counting);
    expect(await walkPaths(g)).toEqual([
      "array:a",
      "group:g",
      "array:g/b",
      "group:g/h",
      "group:g/h/i",
    ]);
    expect(counting.counts.reads).toBe(1);
    expect(counting.counts.lists).toBe(0);
  });

  it("writes through the opened hierarchy update the consolidated copy", async () => {
    const store = await build();
    await consolidate(store);
    const root = await openGroup(store);
    const b = (await root.get("g/b")) as ZarrArray;
    await b.updateAttributes({ units: "m" });
    await b.resize([3, 3]);
    await root.createArray("new/c", { shape: [5], dataType: "uint16" });
    await root.setAttributes({ title: "renamed" });
    await root.erase("a");

    const counting = new CountingStore(store);
    const again = await openGroup(counting);
    expect(again.attrs).toEqual({ title: "renamed" });
    const b2 = (await again.get("g/b")) as ZarrArray;
    expect(b2.attrs).toEqual({ units: "m" });
    expect(b2.shape).toEqual([3, 3]);
    expect(await walkPaths(again)).toEqual([
      "group:g",
      "array:g/b",
      "group:g/h",
      "group:g/h/i",
      "group:new",
      "array:new/c",
    ]);
    expect(counting.counts.lists).toBe(0);
    // The consolidated copy agrees with the nodes' own documents.
    const direct = await openGroup(store, "", { consolidated: false });
    expect(await walkPaths(direct)).toEqual(await walkPaths(again));
  });

  it("writes around the hierarchy make it stale until consolidate runs again", async () => {
    const store = await build();
    await consolidate(store);
    await createArray(store, "outside", { shape: [1], dataType: "uint8" });
    expect(await (await openGroup(store)).childNames()).toEqual(["a", "g"]);
    expect(await (await openGroup(store, "", { consolidated: false })).childNames()).toEqual([
      "a",
      "g",
      "outside",
    ]);
    // A node missing from the copy still opens from its own document.
    expect((await (await openGroup(store)).get("outside")).kind).toBe("array");
    await consolidate(store);
    expect(await (await openGroup(store)).childNames()).toEqual(["a", "g", "outside"]);
  });
});
