// The zarr command on arrays whose metadata is huge and whose data is almost
// nothing: shapes of 10^9, 10^15 and 2^53-1 elements, grids of 10^12 and 2^106
// chunks, float64, uint8 and string data, v2 with both separators, v3 sharded.
// Each holds one stored chunk (written here with the CLI in-process, which
// touches only that chunk). Every command on them runs as its own process
// under the watchdog: it finishes within its time cap in bounded memory, or
// refuses early with exit 1/2 and a message naming the size; never a V8 fatal
// error (exit 134) or an untyped RangeError.
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { main } from "@zarr/cli";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeRun, type GuardedRun, runZarr } from "../src/index.js";

const LIMITS = { maxRssMiB: 400, timeoutMs: 30_000 };
const MAX = 2 ** 53 - 1;

const dir = mkdtempSync(join(tmpdir(), "zarr-attack-cli-huge-"));
const src = join(dir, "src.zarr");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The CLI in-process (fixtures only: commands that touch one chunk). */
async function cli(...argv: string[]): Promise<string> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    argv,
    (s) => out.push(s),
    (s) => err.push(s),
  );
  if (code !== 0) throw new Error(`zarr ${argv.join(" ")}: exit ${code}: ${err.join("\n")}`);
  return out.join("\n");
}

/** The arrays: create flags, and the one element written (selection, JSON value). */
const ARRAYS: Record<string, { create: string[]; at: string; value: string; grid: string }> = {
  f64: {
    create: ["--shape", "1000000000", "--dtype", "float64", "--chunks", "1000000"],
    at: "123",
    value: "1.5",
    grid: "1000",
  },
  u8: {
    create: ["--shape", "1000000000", "--dtype", "uint8", "--chunks", "1000000"],
    at: "500000123",
    value: "42",
    grid: "1000",
  },
  e15: {
    create: ["--shape", "1000000000000000", "--dtype", "float64", "--chunks", "1"],
    at: "-1",
    value: "2.5",
    grid: "1000000000000000",
  },
  max: {
    create: ["--shape", String(MAX), "--dtype", "uint8", "--chunks", "1"],
    at: String(MAX - 2),
    value: "7",
    grid: String(MAX),
  },
  cube: {
    create: ["--shape", "10000,10000,10000", "--dtype", "int32", "--chunks", "1,1,1"],
    at: "9999,0,5",
    value: "-9",
    grid: "1000000000000",
  },
  sq: {
    create: ["--shape", `${MAX},${MAX}`, "--dtype", "uint8", "--chunks", "1,1"],
    at: "5,5",
    value: "3",
    grid: String(BigInt(MAX) * BigInt(MAX)),
  },
  str: {
    create: ["--shape", "1000000000", "--dtype", "string", "--chunks", "1000"],
    at: "5",
    value: '"hello"',
    grid: "1000000",
  },
  sharded: {
    create: [
      "--shape",
      "1000000000000",
      "--dtype",
      "float64",
      "--chunks",
      "10",
      "--shards",
      "1000",
      "--compressor",
      "zstd:1",
    ],
    at: "123456789",
    value: "4.25",
    grid: "1000000000",
  },
  v2dot: {
    create: [
      "--format",
      "2",
      "--shape",
      "1000000000000000",
      "--dtype",
      "float64",
      "--chunks",
      "1",
      "--compressor",
      "gzip:1",
    ],
    at: "7",
    value: "6.5",
    grid: "1000000000000000",
  },
  v2slash: {
    create: [
      "--format",
      "2",
      "--separator",
      "/",
      "--shape",
      "10000,10000,10000",
      "--dtype",
      "int16",
      "--chunks",
      "1,1,1",
    ],
    at: "1,2,3",
    value: "11",
    grid: "1000000000000",
  },
};

beforeAll(async () => {
  await cli("create", src, "", "--group");
  for (const [name, a] of Object.entries(ARRAYS)) {
    await cli("create", src, name, ...a.create);
    await cli("set", src, name, `--select=${a.at}`, `--value=${a.value}`);
  }
}, 60_000);

/** Chunk files (everything but metadata documents) below `root`. */
function chunkFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (!/^(zarr\.json|\.zarray|\.zgroup|\.zattrs|\.zmetadata)$/.test(name))
        out.push(relative(root, p));
    }
  };
  if (existsSync(root)) walk(root);
  return out.sort();
}

/** Asserts a run was not killed, not a V8 crash, and had no untyped error. */
function sane(r: GuardedRun): void {
  const d = describeRun(r);
  expect(r.killed, d).toBeUndefined();
  expect(r.signal, d).toBeNull();
  expect(r.stderr, d).not.toMatch(
    /FATAL ERROR|heap out of memory|RangeError|Invalid (typed )?array length/,
  );
  expect(r.peakRssMiB, d).toBeLessThan(LIMITS.maxRssMiB);
}

async function zarr(...args: string[]): Promise<GuardedRun> {
  const r = await runZarr(args, LIMITS);
  sane(r);
  return r;
}

/** `zarr get --json` of one element, under the watchdog or (checking results only) in-process. */
async function element(store: string, path: string, at: string, guarded = false): Promise<unknown> {
  const args = ["get", store, path, `--select=${at}`, "--json"];
  let text: string;
  if (guarded) {
    const r = await zarr(...args);
    expect(r.code, describeRun(r)).toBe(0);
    text = r.stdout;
  } else {
    text = await cli(...args);
  }
  const { shape, data } = JSON.parse(text);
  expect(shape).toEqual([]);
  return data[0];
}

describe.concurrent("info and tree count stored chunks, not the grid", () => {
  for (const name of Object.keys(ARRAYS)) {
    it(`info ${name}: 1 stored chunk of the exact grid size`, async () => {
      const r = await zarr("info", src, name, "--json");
      expect(r.code, describeRun(r)).toBe(0);
      const info = JSON.parse(r.stdout);
      expect(info.stored_chunks).toBe(1);
      // A number while exact, a decimal string past 2^53: the exact count either way.
      const grid = BigInt(String(ARRAYS[name].grid));
      expect(info.grid_chunks).toBe(
        grid <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(grid) : grid.toString(),
      );
    });
  }

  it("tree lists every array with its shape", async () => {
    const r = await zarr("tree", src);
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stdout).toContain(`sq [${MAX}, ${MAX}] uint8`);
    expect(r.stdout).toContain("e15 [1000000000000000] float64");
  });
});

describe.concurrent("get of a whole huge array", () => {
  const refusals: [string, string, string][] = [
    ["f64", "--json", "1000000000 elements"],
    ["f64", "--csv", "1000000000 elements"],
    ["str", "--json", "1000000000 elements"],
    ["e15", "--csv", "1000000000000000 elements"],
    ["sq", "--json", "elements"],
  ];
  for (const [name, mode, size] of refusals) {
    it(`${mode} of ${name} refuses before allocating: exit 2, names the size, suggests --select/--out`, async () => {
      const r = await zarr("get", src, name, mode);
      expect(r.code, describeRun(r)).toBe(2);
      expect(r.stderr).toContain(size);
      expect(r.stderr).toMatch(/--select/);
      expect(r.stderr).toMatch(/--out/);
      expect(r.stdout).toBe("");
      expect(r.elapsedMs).toBeLessThan(10_000);
    });
  }

  it("--out of 5 x 10^8 uint8 elements (477 MiB, over the RSS cap) streams chunk rows to a file", async () => {
    const file = join(dir, "u8.bin");
    const r = await zarr("get", src, "u8", "--select", "100000000:600000000", "--out", file);
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stderr).toBe(""); // no progress line when stderr is not a terminal
    expect(statSync(file).size).toBe(5e8);
    const around = readFileSync(file).subarray(400000120, 400000126);
    expect([...around]).toEqual([0, 0, 0, 42, 0, 0]);
    rmSync(file);
  });

  it("--npy of 10^9 float64 elements (8 GB) streams to /dev/null in bounded memory", async () => {
    const r = await zarr("get", src, "f64", "--npy", "/dev/null");
    expect(r.code, describeRun(r)).toBe(0);
  });

  it("--out - and --npy - stream to standard output (480 MB through a 400 MiB cap)", async () => {
    const r = await zarr("get", src, "u8", "--select", "500000000:500000200", "--out", "-");
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stdout.length).toBe(200);
    expect(r.stdout.charCodeAt(123)).toBe(42);
    const big = await zarr("get", src, "f64", "--select", "0:60000000", "--npy", "-");
    expect(big.code, describeRun(big)).toBe(0);
    expect(big.stdout.slice(0, 8)).toContain("NUMPY");
  });

  it("--out - of 10^15 one-element chunks streams in bounded memory until stopped", async () => {
    // 8 PB to standard output is not refused (like cat /dev/zero); it must stream, not pile up.
    const r = await runZarr(["get", src, "e15", "--out", "-"], {
      maxRssMiB: 400,
      timeoutMs: 4_000,
    });
    expect(r.killed, describeRun(r)).toBe("time");
    expect(r.peakRssMiB, describeRun(r)).toBeLessThan(400);
    expect(r.stdout.length, describeRun(r)).toBeGreaterThan(0);
  });

  for (const [name, mode] of [
    ["e15", "--out"],
    ["max", "--npy"],
    ["cube", "--out"],
    ["sq", "--npy"],
  ] as const) {
    it(`${mode} FILE of ${name} refuses when the file cannot fit on its disk: exit 2, names the size`, async () => {
      const file = join(dir, `${name}.out`);
      const r = await zarr("get", src, name, mode, file);
      expect(r.code, describeRun(r)).toBe(2);
      expect(r.stderr).toMatch(/elements/);
      expect(r.stderr).toMatch(/is free there|more than the 2\^53 bytes/);
      expect(existsSync(file)).toBe(false);
    });
  }
});

describe.concurrent("get, set with small selections", () => {
  for (const [name, a] of Object.entries(ARRAYS)) {
    it(`${name}: get --select reads the stored element back`, async () => {
      expect(await element(src, name, a.at, true)).toEqual(JSON.parse(a.value));
    });
  }

  it("--csv, --out and --npy of small selections", async () => {
    const csv = await zarr("get", src, "cube", "--select", "9999,0:2,4:7", "--csv");
    expect(csv.code, describeRun(csv)).toBe(0);
    expect(csv.stdout.trim()).toBe("0,-9,0\n0,0,0");
    const npy = join(dir, "sharded.npy");
    const r = await zarr("get", src, "sharded", "--select", "123456780:123456790", "--npy", npy);
    expect(r.code, describeRun(r)).toBe(0);
    const file = readFileSync(npy);
    expect(file.length).toBe(128 + 80);
    const body = new Float64Array(Uint8Array.from(file.subarray(128)).buffer);
    expect([...body]).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 4.25]);
    const raw = join(dir, "v2dot.bin");
    const out = await zarr("get", src, "v2dot", "--select", "5:9", "--out", raw);
    expect(out.code, describeRun(out)).toBe(0);
    expect([...new Float64Array(Uint8Array.from(readFileSync(raw)).buffer)]).toEqual([
      0, 0, 6.5, 0,
    ]);
  });

  it("set --from a 1.5 GB file for a 10-element selection: refused from its size, never loaded", async () => {
    const raw = join(dir, "huge.raw");
    const npy = join(dir, "huge.npy");
    writeFileSync(raw, "");
    truncateSync(raw, 1.5 * 2 ** 30); // sparse: no disk used
    // A valid .npy file of 10 float64 values, extended to 1.5 GB.
    await cli("get", src, "f64", "--select", "0:10", "--npy", npy);
    truncateSync(npy, 1.5 * 2 ** 30);
    for (const file of [raw, npy]) {
      const r = await zarr("set", src, "f64", "--select", "0:10", "--from", file);
      expect(r.code, describeRun(r)).toBe(1);
      expect(r.stderr).toMatch(/bytes/);
      expect(r.peakRssMiB).toBeLessThan(200);
    }
  });

  const sets: [string, string, string][] = [
    ["e15", "999999999999998", "1.25"],
    ["max", "0", "9"],
    ["cube", "0,9999,9999", "5"],
    ["sq", `${MAX - 1},${MAX - 1}`, "8"],
    ["v2slash", "9999,9999,9999", "-4"],
    ["sharded", "999999999999", "3.5"],
    ["str", "999999999", '"bye"'],
  ];
  for (const [name, at, value] of sets) {
    it(`set ${name} --select ${at} touches one chunk`, async () => {
      const store = join(dir, `set-${name}.zarr`);
      await cli("create", store, "a", ...ARRAYS[name].create);
      const r = await zarr("set", store, "a", `--select=${at}`, `--value=${value}`);
      expect(r.code, describeRun(r)).toBe(0);
      expect(chunkFiles(join(store, "a"))).toHaveLength(1);
      expect(await element(store, "a", at)).toEqual(JSON.parse(value));
    });
  }
});

describe.concurrent("create with huge shapes", () => {
  it("--shape 10^15 with the default chunks", async () => {
    const store = join(dir, "create1.zarr");
    const r = await zarr("create", store, "a", "--shape", "1000000000000000", "--dtype", "float64");
    expect(r.code, describeRun(r)).toBe(0);
    // The default chunk shape is one that can be read and written.
    const info = JSON.parse((await zarr("info", store, "a", "--json")).stdout);
    const elements = (info.chunk_shape as number[]).reduce((x, y) => x * y, 1);
    expect(elements * 8).toBeLessThanOrEqual(16 * 2 ** 20);
    const set = await zarr("set", store, "a", "--select=-1", "--value", "1");
    expect(set.code, describeRun(set)).toBe(0);
    expect(await element(store, "a", "-1")).toBe(1);
  });

  it("--shape 2^53-1 x 2^53-1 with chunks 1,1 (v2 and v3)", async () => {
    for (const format of ["2", "3"]) {
      const store = join(dir, `create-${format}.zarr`);
      const r = await zarr(
        "create",
        store,
        "a",
        "--format",
        format,
        "--shape",
        `${MAX},${MAX}`,
        "--dtype",
        "float64",
        "--chunks",
        "1,1",
      );
      expect(r.code, describeRun(r)).toBe(0);
    }
  });
});

describe.concurrent("copy follows stored chunks, not the grid", () => {
  /** Copies `name` with `flags`; the copy holds the stored element and `files` chunk files. */
  async function copied(name: string, flags: string[], files = 1): Promise<string> {
    const dst = join(dir, `copy-${name}-${flags.join("").replace(/[^a-z0-9]/gi, "")}.zarr`);
    const r = await zarr("copy", src, dst, "--path", name, ...flags);
    expect(r.code, describeRun(r)).toBe(0);
    expect(chunkFiles(join(dst, name))).toHaveLength(files);
    expect(await element(dst, name, ARRAYS[name].at)).toEqual(JSON.parse(ARRAYS[name].value));
    return dst;
  }

  for (const name of ["e15", "max", "cube", "sq", "str", "sharded", "v2dot", "v2slash"]) {
    it(`${name}: plain copy`, async () => {
      await copied(name, []);
    });
  }
  it("e15 --format 2 --compressor zstd:1", async () => {
    await copied("e15", ["--format", "2", "--compressor", "zstd:1"]);
  });
  it("v2dot --format 3 --compressor none", async () => {
    await copied("v2dot", ["--format", "3", "--compressor", "none"]);
  });
  it("v2slash --format 3 --shards 10,10,10: one shard", async () => {
    await copied("v2slash", ["--format", "3", "--shards", "10,10,10"]);
  });
  it("sharded --shards none: only the stored inner chunk's destination chunk", async () => {
    await copied("sharded", ["--shards", "none"]);
  });
  it("f64 rechunked to smaller chunks: only those overlapping the stored chunk hold data", async () => {
    // The source chunk [0, 10^6) holds one non-fill element: one destination chunk is stored.
    await copied("f64", ["--chunks", "1000"]);
  });
  it("cube rechunked to larger chunks: one chunk", async () => {
    await copied("cube", ["--chunks", "100,100,100", "--compressor", "gzip:1"]);
  });

  it("a destination chunk larger than --max-memory is refused before any work: exit 2, names the size", async () => {
    const dst = join(dir, "too-big.zarr");
    const r = await zarr("copy", src, dst, "--path", "f64", "--chunks", "1000000000");
    expect(r.code, describeRun(r)).toBe(2);
    expect(r.stderr).toMatch(
      /destination chunk \[1000000000\] is 7\.5 GiB decoded, more than --max-memory/,
    );
    expect(chunkFiles(join(dst, "f64"))).toEqual([]);
  });

  it("--part i/N: parts own disjoint grid ranges; together they copy the stored chunk once", async () => {
    const dst = join(dir, "parts.zarr");
    const runs = await Promise.all(
      [0, 1, 2].map((i) => zarr("copy", src, dst, "--path", "e15", "--part", `${i}/3`)),
    );
    for (const r of runs) expect(r.code, describeRun(r)).toBe(0);
    // The stored chunk is the last of the grid: part 2 owns it.
    expect(runs.map((r) => /(\d+) written/.exec(r.stdout)?.[1])).toEqual(["0", "0", "1"]);
    expect(chunkFiles(join(dst, "e15"))).toHaveLength(1);
    expect(await element(dst, "e15", "-1")).toBe(2.5);
  });

  it("--resume verifies the stored chunk and erases a destination chunk whose source is gone", async () => {
    const dst = await copied("cube", ["--compressor", "gzip:1"]);
    // A stray destination chunk where the source holds only the fill value.
    await cli("set", dst, "cube", "--select", "1,1,1", "--value", "77");
    const r = await zarr("copy", src, dst, "--path", "cube", "--compressor", "gzip:1", "--resume");
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stdout).toMatch(/1 already there/);
    expect(chunkFiles(join(dst, "cube"))).toHaveLength(1);
    expect(await element(dst, "cube", "1,1,1")).toBe(0);
  });

  it("a whole hierarchy of huge arrays copies and verifies", async () => {
    const dst = join(dir, "whole.zarr");
    const r = await zarr("copy", src, dst);
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stdout).toMatch(/10 arrays/);
    const v = await zarr("verify", dst);
    expect(v.code, describeRun(v)).toBe(0);
    expect(v.stdout).toMatch(/^ok: 10 chunks in 10 arrays/);
  });
});

describe("verify", () => {
  it("decodes the stored chunks of every huge array", async () => {
    const r = await zarr("verify", src, "--json");
    expect(r.code, describeRun(r)).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ arrays: 10, chunks: 10, corrupt: [], unexpected: [] });
  });
});
