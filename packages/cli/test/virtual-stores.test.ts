// The CLI on virtual and versioned data: `icechunk:` repositories (the
// icechunk project's own test repositories, by branch, tag and snapshot) and
// kerchunk references (`reference:` JSON version 1 with `gen`, pointing into a
// file of raw values), through tree, info, get, copy and serve. Copies are
// read back by zarr-python 2.13 where it can (Zarr v2 copies).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import "@zarr/codec-zstd/register";
import { openArray } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";
import { IcechunkStore } from "@zarr/store-icechunk";
import { findPython, pythonSkipReason, runPython } from "@zarr/test-utils";
import "@zarr/v2-compat/register";
import { afterAll, describe, expect, it } from "vitest";
import { run } from "./helpers.js";

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, "..", "bin", "zarr.js");
const fixtures = join(here, "..", "..", "store-icechunk", "test", "fixtures");
const dir = mkdtempSync(join(tmpdir(), "zarr-cli-virtual-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const repoV2 = join(fixtures, "test-repo-v2");
const split = join(fixtures, "split-repo-v2");

describe("icechunk: URLs (Icechunk spec 1 and 2 repositories)", () => {
  it("tree lists a branch's hierarchy; another branch and a tag show their own commits", async () => {
    const tree = await run("tree", `icechunk:${repoV2}?branch=my-branch`);
    expect(tree.code, tree.err).toBe(0);
    for (const node of ["group1", "small_chunks", "big_chunks", "group5", "inner"]) {
      expect(tree.out).toContain(node);
    }
    // The tag "it works!" is the commit that deleted one chunk of small_chunks.
    const tag = await run(
      "get",
      `icechunk:${repoV2}?tag=it%20works!`,
      "group1/small_chunks",
      "--json",
    );
    expect(tag.code, tag.err).toBe(0);
    expect(JSON.parse(tag.out).data).toEqual([84, 84, 84, 84, 8]);
    const main = await run("get", `icechunk:${repoV2}`, "group1/small_chunks", "--json");
    expect(JSON.parse(main.out).data).toEqual([84, 84, 84, 84, 84]);
  });

  it("a snapshot id selects that snapshot; a missing branch or tag is an error naming it", async () => {
    const store = await IcechunkStore.open(new FileSystemStore(repoV2), {
      version: { tag: "it works!" },
    });
    const id = store.info.snapshotId;
    const info = await run("info", `icechunk:${repoV2}?snapshot=${id}`, "group1/small_chunks");
    expect(info.code, info.err).toBe(0);
    expect(info.out).toMatch(/int8/);
    const missing = await run("tree", `icechunk:${repoV2}?branch=nope`);
    expect(missing.code).not.toBe(0);
    expect(missing.err).toMatch(/nope/);
    const deleted = await run("tree", `icechunk:${repoV2}?tag=deleted`);
    expect(deleted.code).not.toBe(0);
    expect(deleted.err).toMatch(/deleted/);
  });

  it("copy exports a snapshot to a plain Zarr v2 store that zarr-python reads", async (ctx) => {
    const out = join(dir, "split.zarr");
    const copied = await run("copy", `icechunk:${split}?branch=main`, out, "--format", "2", "-q");
    expect(copied.code, copied.err).toBe(0);
    const a = await openArray(new FileSystemStore(out), "group1/split");
    expect(Array.from((await a.get()).data as Float32Array)).toEqual(new Array(100).fill(14));
    const python = findPython(["zarr", "numpy"]);
    if (!python) return ctx.skip(pythonSkipReason(["zarr", "numpy"]));
    const printed = runPython(
      python,
      `import zarr, json; a = zarr.open(${JSON.stringify(out)}, "r")["group1/split"]; print(json.dumps([float(v) for v in a[:].ravel()]))`,
    );
    expect(JSON.parse(printed.toString())).toEqual(new Array(100).fill(14));
  });

  it("serve answers Zarr keys of a repository over HTTP", async () => {
    const child = spawn(process.execPath, [bin, "serve", `icechunk:${split}`, "--port", "0"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const base = await new Promise<string>((resolve, reject) => {
        let out = "";
        let err = "";
        child.stdout.on("data", (d) => {
          out += String(d);
          const m = /at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
          if (m) resolve(m[1]);
        });
        child.stderr.on("data", (d) => (err += String(d)));
        child.on("close", () => reject(new Error(`zarr serve exited: ${err}`)));
      });
      const meta = await fetch(new URL("group1/split/zarr.json", base));
      expect(meta.status).toBe(200);
      expect((await meta.json()).node_type).toBe("array");
      expect((await fetch(new URL("group1/split/c/9/9", base))).status).toBe(404);
    } finally {
      child.kill("SIGTERM");
    }
  });
});

describe("reference: URLs (kerchunk references)", () => {
  // 3 chunks of 4 float64 values, laid end to end in one file at offset 16.
  const values = Float64Array.from({ length: 12 }, (_, i) => i * 1.5 - 3);
  const data = join(dir, "values.bin");
  const refs = join(dir, "refs.json");
  writeFileSync(data, Buffer.concat([Buffer.alloc(16, 0xee), Buffer.from(values.buffer)]));
  writeFileSync(
    refs,
    JSON.stringify({
      version: 1,
      templates: { u: data },
      gen: [
        {
          key: "x/{{i}}",
          url: "{{u}}",
          offset: "{{16 + i * 32}}",
          length: 32,
          dimensions: { i: { stop: 3 } },
        },
      ],
      refs: {
        ".zgroup": JSON.stringify({ zarr_format: 2 }),
        "x/.zarray": JSON.stringify({
          zarr_format: 2,
          shape: [12],
          chunks: [4],
          dtype: "<f8",
          compressor: null,
          filters: null,
          fill_value: 0,
          order: "C",
        }),
        "x/.zattrs": JSON.stringify({ units: "m" }),
      },
    }),
  );

  it("tree, info and get read the referenced bytes", async () => {
    const tree = await run("tree", `reference:${refs}`);
    expect(tree.code, tree.err).toBe(0);
    expect(tree.out).toContain("x");
    const info = await run("info", `reference:${refs}`, "x");
    expect(info.out).toMatch(/float64/);
    const got = await run("get", `reference+json:${refs}`, "x", "--json");
    expect(got.code, got.err).toBe(0);
    expect(JSON.parse(got.out).data).toEqual(Array.from(values));
  });

  it("copy makes a plain Zarr v2 array that zarr-python reads element by element", async (ctx) => {
    const out = join(dir, "ref-copy.zarr");
    const copied = await run("copy", `reference:${refs}`, out, "--format", "2", "-q");
    expect(copied.code, copied.err).toBe(0);
    expect(JSON.parse(readFileSync(join(out, "x", ".zattrs"), "utf8"))).toEqual({ units: "m" });
    const python = findPython(["zarr", "numpy"]);
    if (!python) return ctx.skip(pythonSkipReason(["zarr", "numpy"]));
    const printed = runPython(
      python,
      `import zarr, json; a = zarr.open(${JSON.stringify(out)}, "r")["x"]; print(json.dumps(a[:].tolist()))`,
    );
    expect(JSON.parse(printed.toString())).toEqual(Array.from(values));
  });
});
