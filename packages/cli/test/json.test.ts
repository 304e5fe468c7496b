// `--json` output of info and tree: typed fields (numbers stay numbers), the
// schema docs/cli.md documents, and the text form unchanged.
import { join } from "node:path";
import { repoRoot } from "@zarr/test-utils";
import { describe, expect, it } from "vitest";
import { run } from "./helpers.js";

const example = join(repoRoot, "examples/data/weather.zarr");

describe("zarr info --json", () => {
  it("stored and grid chunk counts are numbers; the text form says 'N of M'", async () => {
    const info = JSON.parse((await run("info", example, "temperature", "--json")).out);
    expect(info.stored_chunks).toBe(8);
    expect(info.grid_chunks).toBe(8);
    expect(typeof info.stored_bytes).toBe("number");
    expect(typeof info.compression_ratio).toBe("number");
    expect(info.zarr_format).toBe(3);
    const text = (await run("info", example, "temperature")).out;
    expect(text).toMatch(/\nstored_chunks +8 of 8\n/);
    expect(text).not.toMatch(/grid_chunks/);
  });

  it("a group's report has no chunk fields", async () => {
    const info = JSON.parse((await run("info", example, "--json")).out);
    expect(info).toMatchObject({ path: "/", node_type: "group", zarr_format: 3 });
    expect(info.stored_chunks).toBeUndefined();
  });
});

describe("zarr tree --json", () => {
  it("nests children with path, node_type, zarr_format, shape and data_type", async () => {
    const r = await run("tree", example, "--json");
    expect(r.code).toBe(0);
    const tree = JSON.parse(r.out);
    expect(tree).toMatchObject({ path: "/", node_type: "group", zarr_format: 3 });
    const names = tree.children.map((c: { path: string }) => c.path);
    expect(names).toEqual(["/legacy", "/masks", "/stations", "/temperature"]);
    const temperature = tree.children.find((c: { path: string }) => c.path === "/temperature");
    expect(temperature).toEqual({
      path: "/temperature",
      node_type: "array",
      zarr_format: 3,
      shape: [12, 32, 48],
      data_type: "float32",
    });
    const legacy = tree.children.find((c: { path: string }) => c.path === "/legacy");
    expect(legacy.zarr_format).toBe(2);
    expect(legacy.children.map((c: { path: string }) => c.path)).toContain("/legacy/pressure");
  });

  it("--depth limits the levels; a group cut off has no children field", async () => {
    const tree = JSON.parse((await run("tree", example, "--json", "--depth", "1")).out);
    const masks = tree.children.find((c: { path: string }) => c.path === "/masks");
    expect(masks).toEqual({ path: "/masks", node_type: "group", zarr_format: 3 });
    const top = JSON.parse((await run("tree", example, "--json", "--depth", "0")).out);
    expect(top.children).toBeUndefined();
  });

  it("of an array path, the array alone", async () => {
    const tree = JSON.parse((await run("tree", example, "masks/land", "--json")).out);
    expect(tree).toEqual({
      path: "/masks/land",
      node_type: "array",
      zarr_format: 3,
      shape: [32, 48],
      data_type: "bool",
    });
  });
});

describe("zarr copy --json", () => {
  it("prints the summary with numbers as numbers, and --resume counts what was already there", async () => {
    const { mkdtempSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const dir = mkdtempSync(join(tmpdir(), "zarr-cli-json-"));
    try {
      const dst = join(dir, "copy.zarr");
      const first = await run("copy", example, dst, "--path", "temperature", "--json");
      expect(first.code, first.err).toBe(0);
      const summary = JSON.parse(first.out);
      expect(summary).toMatchObject({
        part: 0,
        parts: 1,
        arrays: 1,
        groups: 0,
        chunks: 8,
        written: 8,
        unchanged: 0,
        rewritten: 0,
        empty: 0,
        data_bytes: 12 * 32 * 48 * 4,
      });
      expect(typeof summary.stored_bytes).toBe("number");
      expect(typeof summary.seconds).toBe("number");
      const again = JSON.parse(
        (await run("copy", example, dst, "--path", "temperature", "--resume", "--json")).out,
      );
      expect(again).toMatchObject({ chunks: 8, written: 0, unchanged: 8 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("zarr create --json and zarr rm --json", () => {
  it("say what was created and removed, and which consolidated metadata was rewritten", async () => {
    const { mkdtempSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const dir = mkdtempSync(join(tmpdir(), "zarr-cli-json-"));
    try {
      const store = join(dir, "s.zarr");
      const made = await run(
        "create",
        store,
        "/g/a/",
        "--shape",
        "3",
        "--dtype",
        "int8",
        "--format",
        "2",
        "--json",
      );
      expect(made.code, made.err).toBe(0);
      expect(JSON.parse(made.out)).toEqual({ created: "array", path: "/g/a" });
      expect(
        JSON.parse((await run("create", store, "h", "--group", "--format", "2", "--json")).out),
      ).toEqual({
        created: "group",
        path: "/h",
      });
      expect((await run("consolidate", store)).code).toBe(0);
      const removed = await run("rm", store, "--path", "g", "--recursive", "--json");
      expect(removed.code, removed.err).toBe(0);
      expect(JSON.parse(removed.out)).toEqual({
        removed: "group",
        path: "/g",
        consolidated: [{ path: "/", format: 2, nodes: 1 }],
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
