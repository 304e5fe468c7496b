// Path safety: nothing a repository holds or a user gives can name a key
// outside the repository or a virtual chunk outside its container.
// - Node paths (common.fbs "node path": absolute, `/`-separated, canonical, no
//   `.`, `..` or empty segment) that are not canonical fail at open.
// - Ref names and snapshot ids never become keys outside refs/ and snapshots/.
// - Virtual chunk URLs must start with a configured container prefix and may
//   not climb out of it with `.`/`..` segments (also percent-encoded).
// - Keys given to the store are validated by core (InvalidKeyError).
import { InvalidKeyError, type MemoryStore, StoreError } from "@zarr/core";
import { resolveStore } from "@zarr/core/store";
import { IcechunkFormatError, IcechunkStore } from "@zarr/store-icechunk";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildRepository, makeId } from "./builder.js";

const group = { zarr_format: 3, node_type: "group" };

async function withNode(path: string) {
  const { store } = await buildRepository({
    specVersion: 2,
    nodes: [{ path, id: makeId(1, 8), zarrJson: group }],
    manifests: [],
  });
  return store;
}

/** Records every key read from the repository's store. */
function recording(store: MemoryStore): { store: MemoryStore; keys: string[] } {
  const keys: string[] = [];
  const get = store.get.bind(store);
  store.get = (key, range, options) => {
    keys.push(key);
    return get(key, range, options);
  };
  return { store, keys };
}

describe("node paths that are not canonical absolute paths fail at open", () => {
  it.each([
    ["a parent segment", "/../x"],
    ["a parent segment inside", "/a/../../x"],
    ["a current-directory segment", "/./a"],
    ["an empty segment", "/a//b"],
    ["a trailing slash", "/a/"],
    ["a relative path", "a"],
    ["a double leading slash", "//a"],
    ["a backslash", "/a\\b"],
    ["a NUL", "/a\u0000b"],
    ["a node named zarr.json", "/a/zarr.json"],
    ["an empty path", ""],
  ])("%s: %j", async (_, path) => {
    const err = await IcechunkStore.open(await withNode(path)).catch((e) => e);
    expect(err).toBeInstanceOf(IcechunkFormatError);
    expect(err.message).toContain(JSON.stringify(path));
  });

  it("random paths from dangerous pieces: valid nodes or rejected", async () => {
    const piece = fc.constantFrom("a", "..", ".", "", "\\", "zarr.json", "c", "\u0000", "ü");
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { minLength: 1, maxLength: 4 }), async (pieces) => {
        const path = `/${pieces.join("/")}`;
        try {
          const store = await IcechunkStore.open(await withNode(path));
          const [key] = store.nodes().map((n) => n.path);
          // "/" is the root node, key ""
          if (key !== "")
            expect(
              key.split("/").every((s) => s !== "" && s !== "." && s !== ".." && !s.includes("\\")),
            ).toBe(true);
        } catch (e) {
          expect(e).toBeInstanceOf(IcechunkFormatError);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("ref names and snapshot ids stay inside refs/ and snapshots/", () => {
  it.each(["../x", "a/../../b", "main/../../config", "..", "", "a\\b"])(
    "spec v1 branch and tag %j: not found",
    async (name) => {
      const { store, keys } = recording(
        (await buildRepository({ specVersion: 1, nodes: [], manifests: [] })).store,
      );
      for (const version of [{ branch: name }, { tag: name }]) {
        await expect(IcechunkStore.open(store, { version })).rejects.toThrow(StoreError);
      }
      for (const key of keys)
        expect(
          key === "repo" ||
            key === "config.yaml" ||
            /^refs\/(branch|tag)\.[^/]+\/ref\.json(\.deleted)?$/.test(key),
        ).toBe(true);
    },
  );

  it.each([
    "../../etc/passwd0000",
    "AAAAAAAAAA/AAAAAAAAA",
    "..%2F..%2F..%2Fxxxxx",
    "1CECHNKREP0F1RSTCMT",
  ])("snapshot id %j is rejected before any snapshot is read", async (id) => {
    const { store, keys } = recording(
      (await buildRepository({ specVersion: 2, nodes: [], manifests: [] })).store,
    );
    await expect(IcechunkStore.open(store, { version: { snapshot: id } })).rejects.toThrow(
      /Crockford/,
    );
    expect(keys.filter((k) => k.startsWith("snapshots/"))).toEqual([]);
  });
});

describe("virtual chunk URLs stay inside their container", () => {
  async function virtualAt(location: string) {
    const nodeId = makeId(1, 8);
    const manifestId = makeId(2);
    const { store } = await buildRepository({
      specVersion: 1,
      nodes: [
        {
          path: "/a",
          id: nodeId,
          zarrJson: group,
          shape: [[1, 1]],
          manifests: [{ id: manifestId, extents: [] }],
        },
      ],
      manifests: [
        {
          id: manifestId,
          arrays: [{ nodeId, refs: [{ index: [0], location, offset: 0, length: 4 }] }],
        },
      ],
      containersYaml:
        "virtual_chunk_containers:\n  d:\n    name: d\n    url_prefix: file:///data/ok/\n",
    });
    return IcechunkStore.open(store, { allowLocalFiles: true });
  }

  it.each([
    ["outside every container", "file:///etc/passwd", /lies in no virtual chunk container/],
    [
      "a sibling with the prefix as a name prefix",
      "file:///data/ok-not/x",
      /lies in no virtual chunk container/,
    ],
    ["a parent segment", "file:///data/ok/../secret", /".." segment/],
    ["a percent-encoded parent segment", "file:///data/ok/%2e%2E/secret", /".." segment/],
    ["a current-directory segment", "file:///data/ok/./x", /"\." segment/],
    ["a backslash", "file:///data/ok/..\\secret", /backslash/],
    ["an unknown vcc:// container", "vcc://other/x", /lies in no virtual chunk container/],
  ])("%s: %s", async (_, location, reason) => {
    const store = await virtualAt(location);
    const err = await store.get("a/c/0").catch((e) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect(err.message).toMatch(reason);
  });
});

describe("keys given to the store are validated by core", () => {
  it.each(["../zarr.json", "/zarr.json", "a/../zarr.json", "a//zarr.json", "a\\zarr.json"])(
    "%j",
    async (key) => {
      const { store: repo } = await buildRepository({
        specVersion: 2,
        nodes: [{ path: "/", id: makeId(0, 8), zarrJson: group }],
        manifests: [],
      });
      const store = resolveStore(await IcechunkStore.open(repo));
      await expect(store.get(key)).rejects.toThrow(InvalidKeyError);
    },
  );
});
