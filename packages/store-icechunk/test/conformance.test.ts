// core's store conformance suite (v3 core "Abstract store interface",
// read-only, listable) on repositories written by test/builder.ts.
//
// An Icechunk repository holds only Zarr keys (each node's zarr.json and
// chunk keys), while the suite stores arbitrary keys ("a/b", "k"). So each
// suite key K is stored as the zarr.json of a node at path K (the snapshot's
// `user_data`, served as stored), and a renaming view maps K <-> "K/zarr.json"
// (listDir: a child node is a key). Everything else (values, byte ranges,
// sizes, listing order, abort and key validation through core) is the
// IcechunkStore's own behaviour.
import type { AnyStore, ByteRange, DirListing, StoreOptions } from "@zarr/core/store";
import { storeConformanceCases } from "@zarr/core/store";
import { IcechunkStore } from "@zarr/store-icechunk";
import { describe, it } from "vitest";
import { buildRepository, makeId } from "./builder.js";

const META = "/zarr.json";
/** "a/b" -> "na/nb"; a trailing "/" (a prefix) stays. */
const encode = (key: string) =>
  key
    .split("/")
    .map((s) => (s === "" ? s : `n${s}`))
    .join("/");
const decode = (key: string) =>
  key
    .split("/")
    .map((s) => s.slice(1))
    .join("/");

function renamed(ice: IcechunkStore): AnyStore {
  return {
    get: (key: string, range?: ByteRange, options?: StoreOptions) =>
      ice.get(encode(key) + META, range, options),
    getSize: (key: string, options?: StoreOptions) => ice.getSize(encode(key) + META, options),
    async *list(options?: StoreOptions) {
      for await (const k of ice.list(options)) yield decode(k.slice(0, -META.length));
    },
    async *listPrefix(prefix: string, options?: StoreOptions) {
      for await (const k of ice.listPrefix(encode(prefix), options))
        yield decode(k.slice(0, -META.length));
    },
    async listDir(prefix: string, options?: StoreOptions): Promise<DirListing> {
      const inner = await ice.listDir(encode(prefix), options);
      const keys: string[] = [];
      const prefixes: string[] = [];
      for (const p of inner.prefixes) {
        const isKey = (await ice.getSize(`${encode(prefix)}${p}${META}`)) !== undefined;
        (isKey ? keys : prefixes).push(p.slice(1));
      }
      return { keys, prefixes };
    },
  };
}

describe("IcechunkStore conformance (repositories written by test/builder.ts)", () => {
  for (const c of storeConformanceCases({
    writable: false,
    async create(initial) {
      const nodes = [...initial].map(([key, value], i) => ({
        path: `/${encode(key)}`,
        id: makeId(i, 8),
        zarrJson: value,
      }));
      const { store } = await buildRepository({ specVersion: 2, nodes, manifests: [] });
      return renamed(await IcechunkStore.open(store));
    },
  })) {
    it(c.name, c.run);
  }
});
