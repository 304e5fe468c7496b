// Consolidated metadata names the nodes of a hierarchy; a hostile copy must not
// name nodes outside it. Every key (v3 inline consolidated_metadata, v2
// .zmetadata) must be a node path below the group (v3 core: "Node names";
// v2: "Consolidated metadata"), and every name given to a Group method must
// stay below the group.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import "@zarr/v2-compat/register";
import {
  createArray,
  createGroup,
  InvalidKeyError,
  MemoryStore,
  MetadataError,
  open,
  openGroup,
} from "@zarr/core";
import { resolveStore } from "@zarr/core/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attack, describeRun, runZarr } from "../src/index.js";

const HOSTILE = [
  "../../etc",
  "a/../../b",
  "..",
  ".",
  "a/./b",
  "a//b",
  "a\\..\\b",
  "a\u0000b",
  "\ud800",
  "",
  "/",
];
/** Not node paths either, though a Group method may read them (normalized, or as missing). */
const NOT_NODE_PATHS = ["a/", "a/b/", "__x", "a/__y"];
const encoder = new TextEncoder();

function v3Root(entries: Record<string, object>) {
  return encoder.encode(
    JSON.stringify({
      zarr_format: 3,
      node_type: "group",
      attributes: {},
      consolidated_metadata: { kind: "inline", must_understand: false, metadata: entries },
    }),
  );
}

const groupDoc = { zarr_format: 3, node_type: "group", attributes: {} };

describe("v3 inline consolidated metadata", () => {
  it.each([...HOSTILE, ...NOT_NODE_PATHS])(
    "an entry named %j is a MetadataError when the group opens",
    async (name) => {
      const store = new MemoryStore();
      await resolveStore(store).set("zarr.json", v3Root({ ok: groupDoc, [name]: groupDoc }));
      await expect(openGroup(store)).rejects.toThrow(MetadataError);
    },
  );

  it("two entries for one node (a leading slash normalized away) are a MetadataError, whatever their order", async () => {
    for (const entries of [
      { a: groupDoc, "/a": groupDoc },
      { "/a": groupDoc, a: groupDoc },
    ]) {
      const store = new MemoryStore();
      await resolveStore(store).set("zarr.json", v3Root(entries));
      await expect(openGroup(store)).rejects.toThrow(/names the node "a" twice/);
    }
  });

  it("valid entries (nested, leading slash normalized) still open", async () => {
    const store = new MemoryStore();
    await resolveStore(store).set("zarr.json", v3Root({ a: groupDoc, "/a/b": groupDoc }));
    const g = await openGroup(store);
    expect(await g.childNames()).toEqual(["a"]);
    expect((await g.get("a/b")).kind).toBe("group");
  });
});

describe("v2 .zmetadata", () => {
  it.each([...HOSTILE, ...NOT_NODE_PATHS].map((n) => `${n}/.zgroup`))(
    "an entry named %j is a MetadataError",
    async (name) => {
      const store = new MemoryStore();
      const s = resolveStore(store);
      await s.set(".zgroup", encoder.encode('{"zarr_format":2}'));
      await s.set(
        ".zmetadata",
        encoder.encode(
          JSON.stringify({
            zarr_consolidated_format: 1,
            metadata: { ".zgroup": { zarr_format: 2 }, [name]: { zarr_format: 2 } },
          }),
        ),
      );
      await expect(
        (async () => {
          const g = await open(store);
          if (g.kind === "group") await g.children();
        })(),
      ).rejects.toThrow(MetadataError);
    },
  );
});

describe("names given to Group methods stay below the group", () => {
  it.each(HOSTILE.filter((n) => n !== "" && n !== "/"))("%j", async (name) => {
    const store = new MemoryStore();
    await createGroup(store, "g/sub");
    await createArray(store, "outside", { shape: [1], dataType: "uint8" });
    const g = await openGroup(store, "g/sub");
    await expect(g.get(name)).rejects.toThrow(InvalidKeyError);
    await expect(g.contains(name)).rejects.toThrow(InvalidKeyError);
    await expect(g.createGroup(name)).rejects.toThrow(InvalidKeyError);
    await expect(g.erase(name)).rejects.toThrow(InvalidKeyError);
  });
});

describe("deep consolidated hierarchies cost what they hold", () => {
  it("a chain of 5,000 nested groups (a 25 MB document) walks, lists and prints in seconds, without a stack overflow", async () => {
    const r = await attack(
      `const { MemoryStore, openGroup } = await import("@zarr/core");
       const { resolveStore } = await import("@zarr/core/store");
       const group = { zarr_format: 3, node_type: "group", attributes: {} };
       const metadata = {};
       for (let i = 0, p = ""; i < 5000; i++) { p = p ? p + "/g" : "g"; metadata[p] = group; }
       const store = new MemoryStore();
       await resolveStore(store).set("zarr.json", new TextEncoder().encode(JSON.stringify({
         ...group, consolidated_metadata: { kind: "inline", must_understand: false, metadata } })));
       const t0 = performance.now();
       const g = await openGroup(store);
       let n = 0;
       for await (const _ of g.walk()) n++;
       const deepest = await g.get(Object.keys(metadata).pop());
       return { n, deepest: deepest.kind, ms: Math.round(performance.now() - t0) };`,
      { maxRssMiB: 600, timeoutMs: 45_000 },
    );
    expect(r.error, describeRun(r)).toBeUndefined();
    expect(r.value).toMatchObject({ n: 5000, deepest: "group" });
    // Was cubic: 2,000 levels took 39 s, 3,000 more than 100 s.
    expect((r.value as { ms: number }).ms).toBeLessThan(15_000);
  });
});

describe("zarr tree on a hostile consolidated hierarchy", () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "zarr-attack-consolidated-"));
    await mkdir(join(root, "h"), { recursive: true });
    await writeFile(join(root, "h", "zarr.json"), v3Root({ "../../etc": groupDoc }));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it("exits 2 naming the document, lists nothing", async () => {
    const r = await runZarr(["tree", join(root, "h")], { maxRssMiB: 300, timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/zarr\.json/);
    expect(r.stdout).not.toMatch(/etc/);
  });
});
