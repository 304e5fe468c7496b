// Groups (v3 core: "Group metadata", "Implicit groups", "Storage: operations").
import {
  ContainsNodeError,
  createArray,
  createGroup,
  eraseNode,
  exists,
  type Group,
  MemoryStore,
  NodeNotFoundError,
  open,
  openGroup,
} from "@zarr/core";
import { describe, expect, it } from "vitest";

describe("groups", () => {
  it("creates explicit parents, lists children and walks the hierarchy", async () => {
    const store = new MemoryStore();
    const root = await createGroup(store, "", { attributes: { title: "t" } });
    await createGroup(store, "a/b/c");
    await createArray(store, "a/x", { shape: [2], dataType: "int8" });
    await createArray(store, "y", { shape: [3], dataType: "float32" });
    expect(store.map.has("a/zarr.json")).toBe(true);
    expect(store.map.has("a/b/zarr.json")).toBe(true);
    expect(await root.childNames()).toEqual(["a", "y"]);
    const paths: string[] = [];
    for await (const node of root.walk()) paths.push(`${node.kind}:${node.path}`);
    expect(paths).toEqual(["group:a", "group:a/b", "group:a/b/c", "array:a/x", "array:y"]);
    const shallow: string[] = [];
    for await (const node of root.walk({ maxDepth: 1 })) shallow.push(node.path);
    expect(shallow).toEqual(["a", "y"]);
    expect((await openGroup(store)).attrs).toEqual({ title: "t" });
  });

  it("opens implicit groups (no zarr.json, descendants exist)", async () => {
    const store = new MemoryStore();
    await createArray(store, "p/q/arr", { shape: [1], dataType: "uint8" });
    await store.erase("p/zarr.json");
    await store.erase("p/q/zarr.json");
    const g = (await open(store, "p")) as Group;
    expect(g.kind).toBe("group");
    expect(g.implicit).toBe(true);
    expect(await g.childNames()).toEqual(["q"]);
    await g.setAttributes({ now: "explicit" });
    expect(store.map.has("p/zarr.json")).toBe(true);
  });

  it("exists, get, contains, erase", async () => {
    const store = new MemoryStore();
    const root = await createGroup(store);
    await createArray(store, "g/arr", { shape: [1], dataType: "uint8" });
    expect(await exists(store, "g/arr")).toBe(true);
    expect(await exists(store, "g/none")).toBe(false);
    expect(await root.contains("g")).toBe(true);
    expect((await root.get("g/arr")).kind).toBe("array");
    await root.erase("g");
    expect(await exists(store, "g")).toBe(false);
    await createGroup(store, "h");
    await eraseNode(store, "h");
    await expect(openGroup(store, "h")).rejects.toBeInstanceOf(NodeNotFoundError);
  });

  it("opening the wrong node kind is a ContainsNodeError", async () => {
    const store = new MemoryStore();
    await createArray(store, "arr", { shape: [1], dataType: "uint8" });
    await expect(openGroup(store, "arr")).rejects.toBeInstanceOf(ContainsNodeError);
  });

  it("children names starting with __ are reserved and skipped", async () => {
    const store = new MemoryStore();
    const root = await createGroup(store);
    await store.set("__zarr_internal/x", new Uint8Array([1]));
    await createGroup(store, "ok");
    expect(await root.childNames()).toEqual(["ok"]);
  });
});
