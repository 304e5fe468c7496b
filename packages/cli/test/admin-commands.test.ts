// zarr consolidate, zarr rm and zarr attrs on v2 and v3 hierarchies written
// here: output, exit codes, refusals, idempotence, consolidated metadata kept
// true, read-only stores, and zarr-python 2 reading what they write.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveStore } from "@zarr/cli";
import { createArray, createGroup, open } from "@zarr/core";
import { resolveStore } from "@zarr/core/store";
import { FileSystemStore } from "@zarr/store-fs";
import { findPython, pythonSkipReason, runPython } from "@zarr/test-utils";
import { createArrayV2, createGroupV2 } from "@zarr/v2-compat";
import { afterAll, describe, expect, it } from "vitest";
import { run } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "zarr-cli-admin-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MODULES = ["zarr", "numcodecs", "numpy"];
const python = findPython(MODULES);
if (!python) console.warn(pythonSkipReason(MODULES));

let counter = 0;

/** A v2 hierarchy: /, /a (array), /g (group), /g/b (array), /g/h (empty group). */
async function v2Hierarchy(): Promise<string> {
  const path = join(dir, `v2-${counter++}.zarr`);
  const store = new FileSystemStore(path);
  await createGroupV2(store, "", { attributes: { title: "v2 root" } });
  const a = await createArrayV2(store, "a", {
    shape: [4],
    chunks: [2],
    dtype: "<i4",
    attributes: { units: "m", scale: 1 },
  });
  await a.set(null, 7);
  await createGroupV2(store, "g");
  await createArrayV2(store, "g/b", { shape: [3], chunks: [3], dtype: "<f8" });
  await createGroupV2(store, "g/h");
  return path;
}

/** A v3 hierarchy with the same nodes. */
async function v3Hierarchy(): Promise<string> {
  const path = join(dir, `v3-${counter++}.zarr`);
  const store = new FileSystemStore(path);
  await createGroup(store, "", { attributes: { title: "v3 root" } });
  const a = await createArray(store, "a", {
    shape: [4],
    dataType: "int32",
    chunkShape: [2],
    attributes: { units: "m", scale: 1 },
  });
  await a.set(null, 7);
  await createGroup(store, "g");
  await createArray(store, "g/b", { shape: [3], dataType: "float64" });
  await createGroup(store, "g/h");
  return path;
}

const read = (path: string, key: string) => readFileSync(join(path, key));
const json = (path: string, key: string) => JSON.parse(read(path, key).toString("utf8"));

describe("zarr consolidate", () => {
  it("v2: writes .zmetadata as zarr-python 2 does, idempotently", async () => {
    const path = await v2Hierarchy();
    const r = await run("consolidate", path);
    expect(r).toEqual({ code: 0, out: "consolidated / (v2): 4 nodes in .zmetadata", err: "" });
    const doc = json(path, ".zmetadata");
    expect(doc.zarr_consolidated_format).toBe(1);
    expect(Object.keys(doc.metadata).sort()).toEqual([
      ".zattrs",
      ".zgroup",
      "a/.zarray",
      "a/.zattrs",
      "g/.zgroup",
      "g/b/.zarray",
      "g/h/.zgroup",
    ]);
    expect(doc.metadata["a/.zattrs"]).toEqual({ units: "m", scale: 1 });
    const first = read(path, ".zmetadata");
    expect((await run("consolidate", path)).code).toBe(0);
    expect(read(path, ".zmetadata").equals(first)).toBe(true);
  });

  it("v3: writes inline consolidated_metadata in zarr.json, idempotently", async () => {
    const path = await v3Hierarchy();
    const r = await run("consolidate", path);
    expect(r).toEqual({ code: 0, out: "consolidated / (v3): 4 nodes in zarr.json", err: "" });
    const doc = json(path, "zarr.json");
    expect(doc.attributes).toEqual({ title: "v3 root" });
    expect(doc.consolidated_metadata.kind).toBe("inline");
    expect(doc.consolidated_metadata.must_understand).toBe(false);
    expect(Object.keys(doc.consolidated_metadata.metadata)).toEqual(["a", "g", "g/b", "g/h"]);
    expect(doc.consolidated_metadata.metadata.a.node_type).toBe("array");
    const first = read(path, "zarr.json");
    expect((await run("consolidate", path)).code).toBe(0);
    expect(read(path, "zarr.json").equals(first)).toBe(true);
    // The tree is read through it.
    expect((await run("tree", path)).out).toContain("b [3] float64");
  });

  it("--json, and a subgroup", async () => {
    for (const [make, format] of [
      [v2Hierarchy, 2],
      [v3Hierarchy, 3],
    ] as const) {
      const path = await make();
      const r = await run("consolidate", path, "g", "--json");
      expect(r.code).toBe(0);
      const report: unknown = JSON.parse(r.out);
      expect(report).toStrictEqual({ path: "/g", format, nodes: 2 });
      const { nodes } = report as { nodes: unknown };
      expect(typeof nodes).toBe("number");
      expect(existsSync(join(path, format === 2 ? "g/.zmetadata" : "g/zarr.json"))).toBe(true);
      const root = await run("consolidate", path, "--json");
      expect(JSON.parse(root.out)).toStrictEqual({ path: "/", format, nodes: 4 });
    }
  });

  it("refuses an array, a missing node and a read-only store (exit 2)", async () => {
    const path = await v3Hierarchy();
    const array = await run("consolidate", path, "a");
    expect(array.code).toBe(2);
    expect(array.err).toBe(
      'zarr: ContainsNodeError: cannot consolidate "/a": it is an array, not a group',
    );
    const missing = await run("consolidate", path, "nope");
    expect(missing.code).toBe(2);
    expect(missing.err).toBe('zarr: NodeNotFoundError: no array or group at "nope"');
    const { server, url } = await serveStore(resolveStore(new FileSystemStore(path)), {
      log: () => {},
    });
    try {
      for (const argv of [
        ["consolidate", url],
        ["rm", url, "--path", "a"],
        ["attrs", url, "a", "--merge", '{"x": 1}'],
      ]) {
        const r = await run(...argv);
        expect(r.code, argv[0]).toBe(2);
        expect(r.err, argv[0]).toBe(
          `zarr: StoreCapabilityError: ${url} is a read-only store: zarr ${argv[0]} needs one it can write to`,
        );
      }
      // Reading attributes over HTTP works.
      const attrs = await run("attrs", url, "a");
      expect(attrs.code).toBe(0);
      expect(JSON.parse(attrs.out)).toEqual({ units: "m", scale: 1 });
    } finally {
      server.close();
    }
  });
});

describe("zarr rm", () => {
  for (const [name, make] of [
    ["v2", v2Hierarchy],
    ["v3", v3Hierarchy],
  ] as const) {
    it(`${name}: deletes an array, an empty group and, with --recursive, a group`, async () => {
      const path = await make();
      expect(existsSync(join(path, name === "v2" ? "a/0" : "a/c/0"))).toBe(true);
      const [arrayDoc, groupDoc] =
        name === "v2" ? [".zarray", ".zgroup"] : ["zarr.json", "zarr.json"];
      expect(await run("rm", path, "--path", "a")).toEqual({
        code: 0,
        out: "removed array /a",
        err: "",
      });
      expect(existsSync(join(path, "a", arrayDoc))).toBe(false);
      expect(existsSync(join(path, name === "v2" ? "a/0" : "a/c/0"))).toBe(false);
      expect((await run("rm", path, "--path", "/g/h/")).out).toBe("removed group /g/h");
      expect(existsSync(join(path, "g/h", groupDoc))).toBe(false);
      expect(existsSync(join(path, "g/b", arrayDoc))).toBe(true);
      expect((await run("rm", path, "--path", "g", "--recursive")).out).toBe("removed group /g");
      expect(existsSync(join(path, "g", groupDoc))).toBe(false);
      expect(existsSync(join(path, "g/b", arrayDoc))).toBe(false);
      expect((await run("tree", path)).out).toBe("/");
    });

    it(`${name}: refuses a non-empty group without --recursive, the root and a missing node`, async () => {
      const path = await make();
      const group = await run("rm", path, "--path", "g");
      expect(group.code).toBe(1);
      expect(group.err).toBe(
        'zarr: usage: "/g" is a group with 2 child nodes (b, h): pass --recursive to delete it and everything below it',
      );
      expect(existsSync(join(path, "g/b", name === "v2" ? ".zarray" : "zarr.json"))).toBe(true);
      for (const p of ["", "/"]) {
        const root = await run("rm", path, "--path", p, "--recursive");
        expect(root.code).toBe(1);
        expect(root.err).toBe(
          "zarr: usage: refusing to delete the root group (everything in the store): pass --root to do so",
        );
      }
      const none = await run("rm", path);
      expect(none.code).toBe(1);
      expect(none.err).toBe(
        "zarr: usage: zarr rm needs --path P (the node to delete), or --root to delete everything in the store",
      );
      const both = await run("rm", path, "--root", "--path", "a");
      expect(both.code).toBe(1);
      expect(both.err).toBe(
        "zarr: usage: --root deletes the whole store: it cannot be combined with --path a",
      );
      const positional = await run("rm", path, "g");
      expect(positional.code).toBe(1);
      expect(positional.err).toBe(
        "zarr: usage: zarr rm takes the node to delete as --path g, not as an argument",
      );
      const missing = await run("rm", path, "--path", "g/nothing");
      expect(missing.code).toBe(2);
      expect(missing.err).toBe('zarr: NodeNotFoundError: no array or group at "g/nothing"');
      // The root is a non-empty group: --root needs --recursive too.
      expect((await run("rm", path, "--root")).code).toBe(1);
      expect((await run("rm", path, "--root", "--recursive")).out).toBe("removed group /");
      expect((await run("tree", path)).code).toBe(2);
    });

    it(`${name}: updates the consolidated metadata of the groups above`, async () => {
      const path = await make();
      await run("consolidate", path);
      await run("consolidate", path, "g");
      const r = await run("rm", path, "--path", "g/b");
      expect(r.code).toBe(0);
      const [rootKey, gKey] =
        name === "v2" ? [".zmetadata", "g/.zmetadata"] : ["zarr.json", "g/zarr.json"];
      expect(r.out).toBe(
        [
          "removed array /g/b",
          `updated: consolidated /g (${name}): 1 node in ${gKey}`,
          `updated: consolidated / (${name}): 3 nodes in ${rootKey}`,
        ].join("\n"),
      );
      const listed =
        name === "v2"
          ? Object.keys(json(path, rootKey).metadata)
          : Object.keys(json(path, rootKey).consolidated_metadata.metadata);
      expect(listed.some((k) => k.startsWith("g/b"))).toBe(false);
      expect((await run("tree", path)).out).not.toContain(" b ");
    });
  }
});

describe("zarr attrs", () => {
  for (const [name, make, doc] of [
    ["v2", v2Hierarchy, (p: string) => `${p}/.zattrs`],
    ["v3", v3Hierarchy, (p: string) => `${p}/zarr.json`],
  ] as const) {
    const stored = (path: string, node: string) => {
      const key = node === "" ? doc("").slice(1) : doc(node);
      if (name === "v2") return existsSync(join(path, key)) ? json(path, key) : {};
      return json(path, key).attributes;
    };

    it(`${name}: prints, sets, merges and deletes on arrays and groups`, async () => {
      const path = await make();
      const shown = await run("attrs", path, "a");
      expect(shown.code).toBe(0);
      expect(JSON.parse(shown.out)).toEqual({ units: "m", scale: 1 });
      expect(JSON.parse((await run("attrs", path)).out)).toEqual({ title: `${name} root` });
      expect(JSON.parse((await run("attrs", path, "g")).out)).toEqual({});

      const merged = await run("attrs", path, "a", "--merge", '{"scale": 2, "long_name": "x"}');
      expect(merged.code).toBe(0);
      expect(JSON.parse(merged.out)).toEqual({ units: "m", scale: 2, long_name: "x" });
      expect(stored(path, "a")).toEqual({ units: "m", scale: 2, long_name: "x" });

      const deleted = await run("attrs", path, "a", "--delete", "units");
      expect(deleted.code).toBe(0);
      expect(stored(path, "a")).toEqual({ scale: 2, long_name: "x" });

      const set = await run("attrs", path, "g", "--set", '{"n": 12345678901234567890}');
      expect(set.code).toBe(0);
      expect(set.out).toBe('{\n  "n": 12345678901234567890\n}');
      expect(read(path, doc("g")).toString("utf8")).toContain("12345678901234567890");
      expect((await run("attrs", path, "", "--set", "{}")).code).toBe(0);
      expect(stored(path, "")).toEqual({});
      // The array's data is untouched.
      const a = await open(resolveStore(new FileSystemStore(path)), "a");
      expect(a.kind === "array" && Array.from((await a.get()).data as Int32Array)).toEqual([
        7, 7, 7, 7,
      ]);
    });

    it(`${name}: refusals and errors`, async () => {
      const path = await make();
      const missingKey = await run("attrs", path, "a", "--delete", "nope");
      expect(missingKey.code).toBe(2);
      expect(missingKey.err).toBe('zarr: error: no attribute "nope" at /a (it has: scale, units)');
      for (const [option, value, kind] of [
        ["--set", "[1, 2]", "an array"],
        ["--merge", '"text"', "a string"],
        ["--set", "3", "a number"],
        ["--merge", "null", "null"],
      ]) {
        const r = await run("attrs", path, "a", option, value);
        expect(r.code, `${option} ${value}`).toBe(1);
        expect(r.err).toBe(
          `zarr: usage: ${option} needs a JSON object ({"key": value, ...}), got ${kind}`,
        );
      }
      const bad = await run("attrs", path, "a", "--merge", "{units: 1}");
      expect(bad.code).toBe(1);
      expect(bad.err).toMatch(/^zarr: usage: --merge is not valid JSON: /);
      const two = await run("attrs", path, "a", "--set", "{}", "--delete", "units");
      expect(two.code).toBe(1);
      expect(two.err).toBe(
        "zarr: usage: use one of --set, --merge and --delete at a time, got --set and --delete",
      );
      expect(stored(path, "a")).toEqual({ units: "m", scale: 1 });
      const missing = await run("attrs", path, "nope");
      expect(missing.code).toBe(2);
      expect(missing.err).toBe('zarr: NodeNotFoundError: no array or group at "nope"');
    });

    it(`${name}: keeps consolidated metadata true`, async () => {
      const path = await make();
      await run("consolidate", path);
      const r = await run("attrs", path, "g/b", "--merge", '{"k": "v"}');
      expect(r.code).toBe(0);
      expect(r.err).toBe(
        `zarr: updated consolidated / (${name}): 4 nodes in ${name === "v2" ? ".zmetadata" : "zarr.json"}`,
      );
      const entry =
        name === "v2"
          ? json(path, ".zmetadata").metadata["g/b/.zattrs"]
          : json(path, "zarr.json").consolidated_metadata.metadata["g/b"].attributes;
      expect(entry).toEqual({ k: "v" });
      // A v2 group's own .zattrs is in its .zmetadata.
      if (name === "v2") {
        await run("attrs", path, "", "--merge", '{"edited": true}');
        expect(json(path, ".zmetadata").metadata[".zattrs"]).toEqual({
          title: "v2 root",
          edited: true,
        });
      }
    });
  }
});

describe.skipIf(!python)("zarr-python 2 reads what zarr consolidate and zarr attrs write", () => {
  it("open_consolidated lists the same arrays; .attrs shows the merge", async () => {
    const path = await v2Hierarchy();
    expect((await run("consolidate", path)).code).toBe(0);
    const script = `
import json, zarr
root = zarr.open_consolidated(${JSON.stringify(path)}, mode="r")
def walk(g):
    for name, a in g.arrays(): arrays.append(a.path)
    for name, sub in g.groups(): walk(sub)
arrays = []
walk(root)
print(json.dumps({"arrays": sorted(arrays), "attrs": root["a"].attrs.asdict()}))
`;
    const listed = JSON.parse(runPython(python!, script).toString());
    expect(listed).toEqual({ arrays: ["a", "g/b"], attrs: { units: "m", scale: 1 } });

    expect((await run("attrs", path, "a", "--merge", '{"scale": 3, "note": "é"}')).code).toBe(0);
    const attrs = JSON.parse(
      runPython(
        python!,
        `import json, zarr\nprint(json.dumps(zarr.open(${JSON.stringify(path)}, mode="r")["a"].attrs.asdict()))`,
      ).toString(),
    );
    expect(attrs).toEqual({ units: "m", scale: 3, note: "é" });
    // Through the consolidated metadata (written again by zarr attrs) as well.
    const consolidated = JSON.parse(
      runPython(
        python!,
        `import json, zarr\nprint(json.dumps(zarr.open_consolidated(${JSON.stringify(path)}, mode="r")["a"].attrs.asdict()))`,
      ).toString(),
    );
    expect(consolidated).toEqual({ units: "m", scale: 3, note: "é" });
  });
});

describe("found by an attack on the CLI", () => {
  it("attrs of a v2 node reads its .zattrs, not a stale .zmetadata copy", async () => {
    const path = await v2Hierarchy();
    expect((await run("consolidate", path)).code).toBe(0);
    // Another writer changes .zattrs and leaves .zmetadata behind.
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(path, "a", ".zattrs"), JSON.stringify({ units: "m", scale: 1, k: 1 }));
    expect(JSON.parse((await run("attrs", path, "a")).out)).toEqual({ units: "m", scale: 1, k: 1 });
    const merged = await run("attrs", path, "a", "--merge", '{"z": 2}');
    expect(merged.code, merged.err).toBe(0);
    expect(json(path, "a/.zattrs")).toEqual({ units: "m", scale: 1, k: 1, z: 2 });
  });

  it('a v2 attribute named "__proto__" is written as data, not dropped', async () => {
    const path = await v2Hierarchy();
    const r = await run("attrs", path, "a", "--merge", '{"__proto__": {"p": 1}, "z": 1}');
    expect(r.code, r.err).toBe(0);
    const stored = json(path, "a/.zattrs");
    expect(Object.hasOwn(stored, "__proto__")).toBe(true);
    expect(Object.getOwnPropertyDescriptor(stored, "__proto__")?.value).toEqual({ p: 1 });
    expect(stored.z).toBe(1);
  });

  it("consolidate repairs a damaged v2 .zmetadata (it reads the nodes' own documents)", async () => {
    const path = await v2Hierarchy();
    const { writeFileSync } = await import("node:fs");
    for (const damaged of ["{garbage", '{"zarr_consolidated_format": 99, "metadata": {}}']) {
      writeFileSync(join(path, ".zmetadata"), damaged);
      const r = await run("consolidate", path);
      expect(r.code, r.err).toBe(0);
      expect(json(path, ".zmetadata").zarr_consolidated_format).toBe(1);
      expect(Object.keys(json(path, ".zmetadata").metadata)).toContain("a/.zarray");
    }
  });

  it("rm refuses a path with an empty segment before erasing anything", async () => {
    const path = await v2Hierarchy();
    const before = await run("tree", path);
    const r = await run("rm", path, "--path", "g//b");
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      'zarr: usage: --path "g//b" is not a node path (an empty, "." or ".." segment)',
    );
    expect((await run("tree", path)).out).toBe(before.out);
  });

  it("info adds up every stored chunk's bytes", async () => {
    const path = join(dir, `sizes-${counter++}.zarr`);
    const a = await createArray(new FileSystemStore(path), "a", {
      shape: [30],
      chunkShape: [10],
      dataType: "float64",
    });
    await a.set(
      null,
      Float64Array.from({ length: 30 }, (_, i) => i),
    );
    const info = JSON.parse((await run("info", path, "a", "--json")).out);
    expect(info.stored_chunks).toBe(3);
    expect(info.stored_bytes).toBe(3 * 10 * 8);
  });
});
