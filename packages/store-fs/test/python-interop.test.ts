import { resolveStore } from "@zarr/core/store";
import { FileSystemStore } from "@zarr/store-fs";
import { findPython, pythonSkipReason, runPython } from "@zarr/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "./helpers.js";

// Interop with zarr-python's DirectoryStore (zarr 2.13): the same directory is
// the same set of keys and bytes for both implementations.

const MODULES = ["zarr", "numpy"];
const python = findPython(MODULES);
if (!python) console.warn(`@zarr/store-fs python interop: ${pythonSkipReason(MODULES)}`);

/** Dumps every key of a DirectoryStore as {key: base64}. */
const DUMP = `
import base64, json, sys, zarr
store = zarr.DirectoryStore(sys.argv[1])
print(json.dumps({k: base64.b64encode(store[k]).decode() for k in store.keys()}))
`;

const collect = async (it: AsyncIterable<string>) => {
  const out: string[] = [];
  for await (const x of it) out.push(x);
  return out.sort();
};

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ root, cleanup } = await tempDir());
});
afterEach(() => cleanup());

function dump(exe: string, path: string): Record<string, Uint8Array> {
  const script = `import sys; sys.argv = ["", ${JSON.stringify(path)}]\n${DUMP}`;
  const json = JSON.parse(runPython(exe, script).toString("utf8")) as Record<string, string>;
  return Object.fromEntries(
    Object.entries(json).map(([k, v]) => [k, new Uint8Array(Buffer.from(v, "base64"))]),
  );
}

describe.skipIf(!python)("FileSystemStore and zarr-python DirectoryStore", () => {
  it("reads what zarr-python wrote: same keys, same bytes", async () => {
    runPython(
      python!,
      `
import numpy as np, zarr
g = zarr.open_group(${JSON.stringify(root)}, mode="w")
g.attrs["title"] = "interop"
a = g.create_dataset("sub/data", shape=(10, 10), chunks=(4, 4), dtype="<i4")
a[:] = np.arange(100, dtype="<i4").reshape(10, 10)
g.create_dataset("nested", shape=(6,), chunks=(2,), dtype="f8", dimension_separator="/")[:] = 1.5
`,
    );
    const expected = dump(python!, root);
    const store = resolveStore(new FileSystemStore(root));
    expect(await collect(store.list())).toEqual(Object.keys(expected).sort());
    expect(Object.keys(expected)).toContain("nested/0"); // "/"-separated chunk keys are nested files
    for (const [key, value] of Object.entries(expected)) {
      expect(await store.get(key), key).toEqual(value);
      expect(await store.get(key, { suffix: 3 }), key).toEqual(value.subarray(-3));
    }
    expect(await store.listDir("sub/")).toEqual({ keys: [".zgroup"], prefixes: ["data"] });
  });

  it("zarr-python reads what FileSystemStore wrote", async () => {
    const store = resolveStore(new FileSystemStore(root));
    const values: Record<string, Uint8Array> = {
      ".zgroup": new TextEncoder().encode('{"zarr_format": 2}'),
      "grp with spaces/数据/.zattrs": new TextEncoder().encode("{}"),
      "a/c/0/0": Uint8Array.from({ length: 300 }, (_, i) => i & 0xff),
      "a/empty": new Uint8Array(0),
    };
    for (const [key, value] of Object.entries(values)) await store.set(key, value);
    await store.setPartialValues([{ key: "a/empty", offset: 2, value: Uint8Array.of(7) }]);
    values["a/empty"] = Uint8Array.of(0, 0, 7);
    const seen = dump(python!, root);
    expect(Object.keys(seen).sort()).toEqual(Object.keys(values).sort());
    for (const [key, value] of Object.entries(values)) expect(seen[key], key).toEqual(value);
  });
});
