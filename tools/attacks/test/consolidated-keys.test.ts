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
  resolveStore,
} from "@zarr/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runZarr } from "../src/index.js";

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
  it.each(HOSTILE)("an entry named %j is a MetadataError when the group opens", async (name) => {
    const store = new MemoryStore();
    await resolveStore(store).set("zarr.json", v3Root({ ok: groupDoc, [name]: groupDoc }));
    await expect(openGroup(store)).rejects.toThrow(MetadataError);
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
  it.each(HOSTILE.map((n) => `${n}/.zgroup`))(
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
