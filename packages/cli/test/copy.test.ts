// zarr copy: format conversion of every zarrita fixture array, rechunking and
// resharding, --resume after SIGKILL, and --part processes running at once.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { createArray, createGroup, openArray } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";
import {
  fixturesSkipReason,
  haveFixtures,
  loadExpected,
  repoRoot,
  zarritaFixtures,
} from "@zarr/test-utils";
import { afterAll, describe, expect, it } from "vitest";
import { run, same } from "./helpers.js";

const bin = join(repoRoot, "node_modules/.bin/zarr");
const dir = mkdtempSync(join(tmpdir(), "zarr-cli-copy-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function getJson(store: string, path: string): Promise<{ shape: number[]; data: unknown[] }> {
  const r = await run("get", store, path, "--json");
  expect(r.err).toBe("");
  return JSON.parse(r.out);
}

/** Every file below `root` (relative path → bytes), skipping nothing. */
function files(root: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(root, p), readFileSync(p));
    }
  };
  walk(root);
  return out;
}

function spawnBin(args: string[]): {
  done: Promise<{ code: number | null; signal: string | null; out: string; err: string }>;
  kill: () => void;
} {
  const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const done = new Promise<{
    code: number | null;
    signal: string | null;
    out: string;
    err: string;
  }>((resolve) => child.on("close", (code, signal) => resolve({ code, signal, out, err })));
  return { done, kill: () => child.kill("SIGKILL") };
}

const present = haveFixtures();
if (!present) console.warn(fixturesSkipReason);

describe.skipIf(!present)("v2 → v3 of every zarrita v2 fixture array preserves values", () => {
  const expected = present ? loadExpected(2) : {};
  const src = join(zarritaFixtures, "v2/data.zarr");
  const dst = join(dir, "v2-to-v3");
  for (const key of Object.keys(expected)) {
    it(key, async () => {
      const r = await run("copy", src, dst, "--path", key, "--format", "3", "-q");
      if (key.endsWith("json2.O")) {
        // numpy object arrays with the json2 codec have no v3 data type: refused before writing.
        expect(r.code).toBe(2);
        expect(r.err).toMatch(/json2|no v3/);
        return;
      }
      expect(r.err).toBe("");
      expect(r.code).toBe(0);
      expect(JSON.parse(readFileSync(join(dst, key, "zarr.json"), "utf8")).zarr_format).toBe(3);
      const got = await getJson(dst, key);
      expect(got.shape).toEqual(expected[key].shape);
      expect(same(got.data, expected[key].data)).toBe(true);
    });
  }
});

describe.skipIf(!present)("v3 → v2 of every zarrita v3 fixture array preserves values", () => {
  const expected = present ? loadExpected(3) : {};
  const src = join(zarritaFixtures, "v3/data.zarr");
  const dst = join(dir, "v3-to-v2");
  for (const key of Object.keys(expected)) {
    it(key, async () => {
      const r = await run("copy", src, dst, "--path", key, "--format", "2", "-q");
      expect(r.code).toBe(0);
      expect(JSON.parse(readFileSync(join(dst, key, ".zarray"), "utf8")).zarr_format).toBe(2);
      const got = await getJson(dst, key);
      expect(got.shape).toEqual(expected[key].shape);
      expect(same(got.data, expected[key].data)).toBe(true);
      // And back to v3: the round trip keeps the values too.
      const back = join(dir, "v3-v2-v3");
      expect((await run("copy", dst, back, "--path", key, "--format", "3", "-q")).code).toBe(0);
      expect(same((await getJson(back, key)).data, expected[key].data)).toBe(true);
    });
  }
});

describe("a mixed v3/v2 hierarchy without layout flags", () => {
  it("copies byte for byte (each node keeps its format, codecs and chunks)", async () => {
    const example = join(repoRoot, "examples/data/weather.zarr");
    const dst = join(dir, "identical.zarr");
    expect((await run("copy", example, dst, "-q")).code).toBe(0);
    const a = files(example);
    const b = files(dst);
    expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
    for (const [k, v] of a) expect(b.get(k)?.equals(v), k).toBe(true);
  });
});

describe.skipIf(!present)("a whole hierarchy", () => {
  it("v2 → v2 keeps every array (json2 objects included) and the .zmetadata", async () => {
    const src = join(zarritaFixtures, "v2/data.zarr");
    const dst = join(dir, "v2-to-v2");
    const r = await run("copy", src, dst, "-q");
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(existsSync(join(dst, ".zmetadata"))).toBe(true);
    const expected = loadExpected(2);
    for (const key of Object.keys(expected)) {
      expect(readFileSync(join(dst, key, ".zarray")), key).toEqual(
        readFileSync(join(src, key, ".zarray")),
      );
      expect(same((await getJson(dst, key)).data, expected[key].data), key).toBe(true);
    }
    expect((await run("verify", dst)).code).toBe(0);
  });

  it("copies groups, attributes and consolidated metadata (v3 → v3)", async () => {
    const src = join(zarritaFixtures, "v3/data.zarr");
    const dst = join(dir, "whole");
    const r = await run("copy", src, dst, "--path", "consolidated", "--consolidate");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^copied 3 arrays and 2 groups: /);
    const doc = JSON.parse(readFileSync(join(dst, "consolidated/zarr.json"), "utf8"));
    expect(Object.keys(doc.consolidated_metadata.metadata).sort()).toEqual([
      "1d.chunked.i2",
      "2d.contiguous.i2",
      "nested",
      "nested/1d.i2",
    ]);
    const tree = await run("tree", dst, "consolidated");
    expect(tree.out).toBe((await run("tree", src, "consolidated")).out);
    // Copying again onto an existing node is refused without --overwrite or --resume.
    const again = await run("copy", src, dst, "--path", "consolidated");
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/--overwrite/);
    expect((await run("copy", src, dst, "--path", "consolidated", "--overwrite", "-q")).code).toBe(
      0,
    );
  });
});

describe("rechunking, resharding, codecs and byte order preserve values", () => {
  const src = join(dir, "src.zarr");
  const values = new Int32Array(37 * 23);
  for (let i = 0; i < values.length; i++) values[i] = ((i * 7919) % 10007) - 5000;

  it("setup", async () => {
    const a = await createArray(new FileSystemStore(src), "a", {
      shape: [37, 23],
      dataType: "int32",
      chunkShape: [5, 7],
      fillValue: 0,
      codecs: [
        { name: "bytes", configuration: { endian: "little" } },
        { name: "gzip", configuration: { level: 1 } },
      ],
    });
    await a.set(null, values);
  });

  const cases: [string, string[], (m: Record<string, unknown>) => void][] = [
    [
      "rechunk",
      ["--chunks", "10,4"],
      (m) => expect(m.chunk_grid).toMatchObject({ configuration: { chunk_shape: [10, 4] } }),
    ],
    [
      "shard",
      ["--shards", "20,12", "--chunks", "5,4", "--compressor", "zstd:3+crc32c"],
      (m) => {
        expect(m.chunk_grid).toMatchObject({ configuration: { chunk_shape: [20, 12] } });
        expect((m.codecs as { name: string }[])[0].name).toBe("sharding_indexed");
      },
    ],
    [
      "big-endian F order blosc",
      ["--endian", "big", "--order", "F", "--compressor", "blosc:lz4:5:bitshuffle"],
      (m) => {
        expect((m.codecs as { name: string }[]).map((c) => c.name)).toEqual([
          "transpose",
          "bytes",
          "blosc",
        ]);
      },
    ],
  ];
  for (const [name, flags, check] of cases) {
    it(name, async () => {
      const dst = join(dir, `re-${name.replace(/ /g, "-")}`);
      const r = await run("copy", src, dst, "--path", "a", ...flags, "-q");
      expect(r.err).toBe("");
      expect(r.code).toBe(0);
      check(JSON.parse(readFileSync(join(dst, "a/zarr.json"), "utf8")));
      const got = await (await openArray(new FileSystemStore(dst), "a")).get();
      expect(Array.from(got.data as Int32Array)).toEqual(Array.from(values));
      // Reshard the result again (shards of another shape), then unshard.
      const again = join(dir, `re2-${name.replace(/ /g, "-")}`);
      expect(
        (await run("copy", dst, again, "--path", "a", "--shards", "37,8", "--chunks", "37,2", "-q"))
          .code,
      ).toBe(0);
      expect(
        (await run("copy", again, `${again}-flat`, "--path", "a", "--shards", "none", "-q")).code,
      ).toBe(0);
      const back = await (await openArray(new FileSystemStore(`${again}-flat`), "a")).get();
      expect(Array.from(back.data as Int32Array)).toEqual(Array.from(values));
      expect((await run("verify", `${again}-flat`)).code).toBe(0);
    });
  }

  it("usage errors name the flag", async () => {
    const bad = await run("copy", src, join(dir, "bad"), "--chunks", "1,2,3", "--path", "a");
    expect(bad.code).toBe(1);
    expect(bad.err).toBe("zarr: usage: --chunks needs 2 values (one per dimension), got 3");
    expect((await run("copy", src, join(dir, "bad"), "--part", "4/4")).code).toBe(1);
    expect(
      (
        await run(
          "copy",
          src,
          join(dir, "bad"),
          "--format",
          "2",
          "--shards",
          "10,10",
          "--path",
          "a",
        )
      ).code,
    ).toBe(1);
  });
});

describe("fill-value meaning through conversions (v2 spec: fill_value null)", () => {
  it("a v2 array without a fill value stays one through --compressor, --chunks, v3 and back", async () => {
    const { createArrayV2 } = await import("@zarr/v2-compat");
    const root = join(dir, "nofill");
    const store = new FileSystemStore(root);
    const ints = await createArrayV2(store, "i", {
      shape: [6],
      chunks: [2],
      dtype: "|i1",
      fillValue: null,
      compressor: null,
    });
    await ints.set(null, Int8Array.of(0, 0, 5, 0, 0, 0)); // chunks 0 and 2 are all zero
    const strs = await createArrayV2(store, "s", {
      shape: [4],
      chunks: [2],
      dtype: "|O",
      filters: [{ id: "vlen-utf8" }],
      fillValue: null,
      compressor: null,
    });
    await strs.set(null, ["", "", "a", ""]); // chunk 0 is all ""
    const zarray = (p: string) => JSON.parse(readFileSync(join(p, ".zarray"), "utf8"));
    const steps: [string, string, string[]][] = [
      [root, join(dir, "nofill-gz"), ["--compressor", "gzip:1"]],
      [root, join(dir, "nofill-rechunk"), ["--chunks", "3"]],
      [root, join(dir, "nofill-v3"), ["--format", "3"]],
      [
        join(dir, "nofill-v3"),
        join(dir, "nofill-back"),
        ["--format", "2", "--compressor", "zstd:3"],
      ],
    ];
    for (const [src, dst, flags] of steps) {
      const r = await run("copy", src, dst, ...flags);
      expect(r.code, r.err).toBe(0);
    }
    for (const out of ["nofill-gz", "nofill-rechunk", "nofill-back"]) {
      for (const name of ["i", "s"]) {
        expect(zarray(join(dir, out, name)).fill_value, `${out}/${name}`).toBe(null);
      }
      // Chunks equal to the data type's default are stored: a missing chunk would
      // read as None (objects) or uninitialized memory in zarr-python.
      const keys = readdirSync(join(dir, out, "i")).filter((n) => !n.startsWith("."));
      expect(keys.length, out).toBe(out === "nofill-rechunk" ? 2 : 3);
      expect(readdirSync(join(dir, out, "s")).filter((n) => !n.startsWith(".")).length).toBe(2);
    }
    const v3 = JSON.parse(readFileSync(join(dir, "nofill-v3", "i", "zarr.json"), "utf8"));
    expect(v3.v2_fill_value).toEqual({ must_understand: false, value: null });
    expect((await getJson(join(dir, "nofill-back"), "s")).data).toEqual(["", "", "a", ""]);
    expect((await getJson(join(dir, "nofill-back"), "i")).data).toEqual([0, 0, 5, 0, 0, 0]);
  });
});

describe("--resume after SIGKILL, and --part processes", () => {
  const src = join(dir, "big.zarr");
  const rows = 600;
  const cols = 2048;

  it("setup", async () => {
    const store = new FileSystemStore(src);
    await createGroup(store, "", { attributes: { purpose: "resume test" } });
    const a = await createArray(store, "x", {
      shape: [rows, cols],
      dataType: "float32",
      chunkShape: [1, cols],
      fillValue: "NaN",
      codecs: [{ name: "bytes", configuration: { endian: "little" } }],
    });
    const v = new Float32Array(rows * cols);
    for (let i = 0; i < v.length; i++) v[i] = Math.sin(i / 97) * 1000;
    await a.set(null, v);
  });

  it("a copy killed half way and rerun with --resume completes, and verify passes", async () => {
    const dst = join(dir, "resumed.zarr");
    const chunkDir = join(dst, "x/c");
    const count = () => {
      try {
        // A kill during a write may leave a store-fs temporary file (never a partial chunk).
        return readdirSync(chunkDir).filter((n) => !n.startsWith(".zarr-tmp.")).length;
      } catch {
        return 0;
      }
    };
    const job = spawnBin(["copy", src, dst, "--jobs", "1", "--compressor", "gzip:9"]);
    let killedAt = -1;
    const poll = setInterval(() => {
      if (killedAt < 0 && count() >= 40) {
        killedAt = count();
        job.kill();
      }
    }, 5);
    const first = await job.done;
    clearInterval(poll);
    expect(first.signal).toBe("SIGKILL");
    expect(killedAt).toBeGreaterThan(0);
    const partial = count();
    expect(partial).toBeLessThan(rows);

    const resumed = spawnBin(["copy", src, dst, "--resume", "--compressor", "gzip:9"]);
    const second = await resumed.done;
    expect(second.err).toBe("");
    expect(second.code).toBe(0);
    const verified = Number(/(\d+) already there/.exec(second.out)?.[1] ?? 0);
    expect(verified).toBeGreaterThanOrEqual(partial - 1);
    expect(count()).toBe(rows);

    const verify = await run("verify", dst);
    expect(verify.code).toBe(0);
    expect(verify.out).toMatch(new RegExp(`^ok: ${rows} chunks in 1 array decoded`));
    const a = await (await openArray(new FileSystemStore(src), "x")).get();
    const b = await (await openArray(new FileSystemStore(dst), "x")).get();
    expect(
      Buffer.from((b.data as Float32Array).buffer).equals(
        Buffer.from((a.data as Float32Array).buffer),
      ),
    ).toBe(true);
  }, 30_000);

  it("4 --part processes at once into one destination equal a single copy", async () => {
    const flags = ["--shards", "40,2048", "--chunks", "10,512", "--compressor", "zstd:1", "-q"];
    const single = join(dir, "single.zarr");
    expect((await run("copy", src, single, ...flags)).code).toBe(0);
    const parted = join(dir, "parted.zarr");
    const parts = [0, 1, 2, 3].map((i) =>
      spawnBin(["copy", src, parted, "--part", `${i}/4`, ...flags]),
    );
    const results = await Promise.all(parts.map((p) => p.done));
    for (const r of results) {
      expect(r.err).toBe("");
      expect(r.code).toBe(0);
    }
    const a = files(single);
    const b = files(parted);
    expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
    for (const [k, v] of a) expect(b.get(k)?.equals(v), k).toBe(true);
    expect((await run("verify", parted)).code).toBe(0);
  }, 30_000);
});

describe("destinations and safety checks", () => {
  const example = join(repoRoot, "examples/data/weather.zarr");

  it("packs a hierarchy into a new .zip file that reads and verifies", async () => {
    const zip = join(dir, "packed.zip");
    const r = await run("copy", example, zip, "-q");
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect((await run("verify", zip)).code).toBe(0);
    expect((await run("tree", zip)).out).toBe((await run("tree", example)).out);
    expect((await run("get", zip, "legacy/pressure", "--json")).out).toBe(
      (await run("get", example, "legacy/pressure", "--json")).out,
    );
    expect((await run("copy", example, zip)).code).toBe(1); // exists
    expect((await run("copy", example, zip, "--resume")).code).toBe(1);
  });

  it("copies an array from an HTTP URL (zarr serve)", async () => {
    const { serveStore } = await import("@zarr/cli");
    const { resolveStore } = await import("@zarr/core/store");
    const { server, url } = await serveStore(resolveStore(new FileSystemStore(example)));
    try {
      const dst = join(dir, "from-http.zarr");
      expect((await run("copy", url, dst, "--path", "temperature", "-q")).code).toBe(0);
      expect((await run("get", dst, "temperature", "--json")).out).toBe(
        (await run("get", example, "temperature", "--json")).out,
      );
    } finally {
      server.close();
    }
  });

  it("refuses overlapping source and destination, and --resume under other flags", async () => {
    const dst = join(dir, "safety.zarr");
    expect((await run("copy", example, dst, "--path", "temperature", "-q")).code).toBe(0);
    const same = await run("copy", dst, `${dst}/`, "--overwrite");
    expect(same.code).toBe(1);
    expect(same.err).toMatch(/overlap/);
    const other = await run(
      "copy",
      example,
      dst,
      "--path",
      "temperature",
      "--resume",
      "--chunks",
      "2,4,4",
    );
    expect(other.code).toBe(1);
    expect(other.err).toMatch(/temperature\/zarr\.json differs/);
    const again = await run("copy", example, dst, "--path", "temperature", "--resume");
    expect(again.out).toMatch(/0 written, 8 already there/);
  });

  it("--metadata-only, then parts with --no-metadata", async () => {
    const dst = join(dir, "meta-first.zarr");
    const m = await run("copy", example, dst, "--metadata-only");
    expect(m.out).toBe("wrote the metadata of 5 arrays and 3 groups");
    for (const i of [0, 1, 2])
      expect(
        (await run("copy", example, dst, "--part", `${i}/3`, "--no-metadata", "-q")).code,
      ).toBe(0);
    expect((await run("verify", dst)).code).toBe(0);
    expect((await run("get", dst, "stations", "--json")).out).toBe(
      (await run("get", example, "stations", "--json")).out,
    );
  });
});

describe("cloud stores through flags", () => {
  it("copies to and from gs:// (the GCS emulator via --gcs-endpoint) and verifies", async () => {
    process.env.METADATA_SERVER_DETECTION = "none";
    const { startGcsEmulator } = await import("@zarr/test-utils");
    const emulator = await startGcsEmulator();
    try {
      emulator.createBucket("cli-bucket");
      const example = join(repoRoot, "examples/data/weather.zarr");
      const gcs = ["--gcs-endpoint", emulator.endpoint, "--gcs-project", "test"];
      const up = await run("copy", example, "gs://cli-bucket/w.zarr", ...gcs, "-q");
      expect(up.err).toBe("");
      expect(up.code).toBe(0);
      expect(emulator.object("cli-bucket", "w.zarr/temperature/zarr.json")).toBeDefined();
      expect((await run("verify", "gs://cli-bucket/w.zarr", ...gcs)).code).toBe(0);
      const down = join(dir, "from-gcs.zarr");
      expect((await run("copy", "gs://cli-bucket/w.zarr", down, ...gcs, "-q")).code).toBe(0);
      expect((await run("get", down, "legacy/station_ids", "--json")).out).toBe(
        (await run("get", example, "legacy/station_ids", "--json")).out,
      );
      const bad = await run("info", "gs://cli-bucket/w.zarr", "--s3-region", "x", ...gcs);
      expect(bad.code).toBe(0); // flags of other schemes are ignored
    } finally {
      await emulator.close();
    }
  }, 30_000);
});
