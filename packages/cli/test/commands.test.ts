// Every zarr command against fixtures and files written here: output, exit
// codes, help, verify on corrupted data, serve over HTTP, EPIPE.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { COMMANDS, decodeNpy, encodeNpy, serveStore } from "@zarr/cli";
import { createArray, openArray } from "@zarr/core";
import { float32 } from "@zarr/core/internal";
import { resolveStore } from "@zarr/core/store";
import { FileSystemStore } from "@zarr/store-fs";
import { fixturesSkipReason, haveFixtures, repoRoot, zarritaFixtures } from "@zarr/test-utils";
import { afterAll, describe, expect, it } from "vitest";
import { run } from "./helpers.js";

const bin = join(repoRoot, "node_modules/.bin/zarr");
const example = join(repoRoot, "examples/data/weather.zarr");
const dir = mkdtempSync(join(tmpdir(), "zarr-cli-cmd-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const present = haveFixtures();
if (!present) console.warn(fixturesSkipReason);

describe("help, version and usage", () => {
  it("every command has --help with examples, exit 0", async () => {
    for (const c of COMMANDS) {
      const r = await run(c.name, "--help");
      expect(r.code, c.name).toBe(0);
      expect(r.out, c.name).toMatch(new RegExp(`^usage: zarr ${c.name} `));
      expect(r.out, c.name).toMatch(/\nexamples:\n {2}zarr /);
    }
    const top = await run("--help");
    expect(top.code).toBe(0);
    for (const c of COMMANDS) expect(top.out).toContain(`  ${c.name} `);
    expect((await run("help", "copy")).out).toBe(COMMANDS.find((c) => c.name === "copy")?.help);
  });
  it("--version, no command, unknown command and option", async () => {
    expect((await run("--version")).out).toMatch(/^\d+\.\d+\.\d+/);
    expect((await run()).code).toBe(1);
    const unknown = await run("frobnicate");
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/^zarr: usage: unknown command "frobnicate"/);
    expect((await run("tree", example, "--select", "1")).code).toBe(1);
    expect((await run("set", example)).code).toBe(1);
    // Options may come before the command name.
    const early = await run("--depth", "0", "tree", example);
    expect(early).toEqual({ code: 0, out: "/", err: "" });
  });
});

describe("info, tree and get on the bundled example", () => {
  it("tree", async () => {
    const r = await run("tree", example);
    expect(r.code).toBe(0);
    expect(r.out).toBe(
      [
        "/",
        "├── legacy",
        "│   ├── pressure [12, 32, 48] int16",
        "│   └── station_ids [5] int64",
        "├── masks",
        "│   └── land [32, 48] bool",
        "├── stations [5] string",
        "└── temperature [12, 32, 48] float32",
      ].join("\n"),
    );
  });
  it("info shows chunk and shard shapes, codecs, stored chunks and bytes", async () => {
    const r = await run("info", example, "temperature", "--json");
    const info = JSON.parse(r.out);
    expect(info).toMatchObject({
      node_type: "array",
      zarr_format: 3,
      shape: [12, 32, 48],
      data_type: "float32",
      chunk_shape: [3, 8, 8],
      shard_shape: [6, 16, 24],
      fill_value: "NaN",
      dimension_names: ["time", "lat", "lon"],
      stored_chunks: 8,
      grid_chunks: 8,
    });
    expect(info.compression_ratio).toBeGreaterThan(1);
    const legacy = JSON.parse((await run("info", example, "legacy/pressure", "--json")).out);
    expect(legacy.zarr_format).toBe(2);
    const text = await run("info", example, "legacy");
    expect(text.out).toMatch(/^path +\/legacy\nnode_type +group\nzarr_format +2/);
  });
  it("get --csv, --npy and --out", async () => {
    const csv = await run("get", example, "stations", "--csv");
    expect(csv.out).toBe("Reykjavík,Tromsø,São Paulo,東京,Nairobi");
    const grid = await run("get", example, "masks/land", "--select", "12:14,26:30", "--csv");
    expect(grid.out).toBe("true,true,false,false\ntrue,true,false,false");
    const npy = join(dir, "t.npy");
    expect(
      (await run("get", example, "temperature", "--select", "0,:2,:3", "--npy", npy)).code,
    ).toBe(0);
    const parsed = decodeNpy(new Uint8Array(readFileSync(npy)), npy);
    expect(parsed).toMatchObject({ descr: "<f4", fortranOrder: false, shape: [2, 3] });
    const json = JSON.parse(
      (await run("get", example, "temperature", "--select", "0,:2,:3", "--json")).out,
    );
    expect(Array.from(new Float32Array(parsed.body.slice().buffer))).toEqual(
      json.data.map((v: number) => Math.fround(v)),
    );
    expect((await run("get", example, "stations", "--npy", npy)).code).toBe(1);
  });
});

describe("set and create", () => {
  it("create from flags (v3 and v2), from a metadata document, groups", async () => {
    const store = join(dir, "made.zarr");
    const r = await run(
      "create",
      store,
      "t",
      "--shape",
      "6,8",
      "--dtype",
      "float32",
      "--chunks",
      "2,4",
      "--shards",
      "6,8",
      "--compressor",
      "blosc:lz4:5:shuffle",
      "--fill-value",
      "NaN",
      "--dimension-names",
      "y,x",
      "--attrs",
      '{"units": "K"}',
    );
    expect(r.err).toBe("");
    expect(r.out).toBe("created array /t");
    const meta = JSON.parse(readFileSync(join(store, "t/zarr.json"), "utf8"));
    expect(meta).toMatchObject({
      shape: [6, 8],
      data_type: "float32",
      fill_value: "NaN",
      dimension_names: ["y", "x"],
      attributes: { units: "K" },
      chunk_grid: { configuration: { chunk_shape: [6, 8] } },
    });
    expect(meta.codecs[0].configuration.codecs[1]).toMatchObject({
      name: "blosc",
      configuration: { cname: "lz4", typesize: 4 },
    });

    expect(
      (
        await run(
          "create",
          store,
          "v2",
          "--format",
          "2",
          "--shape",
          "10",
          "--dtype",
          ">i4",
          "--chunks",
          "5",
          "--compressor",
          "zstd:3",
        )
      ).code,
    ).toBe(0);
    const zarray = JSON.parse(readFileSync(join(store, "v2/.zarray"), "utf8"));
    expect(zarray).toMatchObject({
      dtype: ">i4",
      chunks: [5],
      compressor: { id: "zstd", level: 3 },
      order: "C",
    });

    expect((await run("create", store, "g/sub", "--group", "--attrs", '{"a": 1}')).code).toBe(0);
    expect(JSON.parse(readFileSync(join(store, "g/sub/zarr.json"), "utf8")).attributes).toEqual({
      a: 1,
    });

    const doc = join(dir, "doc.json");
    writeFileSync(doc, readFileSync(join(store, "t/zarr.json")));
    expect((await run("create", store, "t2", "--metadata", doc)).code).toBe(0);
    expect(JSON.parse(readFileSync(join(store, "t2/zarr.json"), "utf8"))).toEqual(meta);

    const exists = await run("create", store, "t", "--shape", "1", "--dtype", "int8");
    expect(exists.code).toBe(2);
    expect(exists.err).toMatch(/ContainsNodeError: .*"t"/);
    expect(
      (await run("create", store, "bad", "--shape", "4", "--dtype", "float32", "--chunks", "0"))
        .code,
    ).toBe(1);
    // v3: shard index at the start, v2-style keys; v2: no fill value.
    const k3 = [
      "--chunks",
      "2,2",
      "--shards",
      "4,4",
      "--index-location",
      "start",
      "--key-encoding",
      "v2",
    ];
    expect(
      (await run("create", store, "k", "--shape", "4,4", "--dtype", "int16", ...k3)).code,
    ).toBe(0);
    const k = JSON.parse(readFileSync(join(store, "k/zarr.json"), "utf8"));
    expect(k.chunk_key_encoding).toEqual({ name: "v2", configuration: { separator: "." } });
    expect(k.codecs[0].configuration.index_location).toBe("start");
    const n2 = ["--format", "2", "--shape", "3", "--dtype", "int8", "--fill-value", "null"];
    expect((await run("create", store, "n", ...n2)).code).toBe(0);
    expect(JSON.parse(readFileSync(join(store, "n/.zarray"), "utf8")).fill_value).toBe(null);
    expect((await run("create", store, "n3", ...n2.slice(2))).code).toBe(1);
  });

  it("0-d, empty and r<N> arrays create, copy to v2 and read back", async () => {
    const store = join(dir, "edge.zarr");
    expect((await run("create", store, "s", "--shape", "", "--dtype", "int32")).code).toBe(0);
    expect((await run("set", store, "s", "--value", "5")).code).toBe(0);
    expect(
      (await run("create", store, "e", "--shape", "0,5", "--dtype", "int32", "--chunks", "2,2"))
        .code,
    ).toBe(0);
    expect((await run("create", store, "r", "--shape", "3", "--dtype", "r16")).code).toBe(0);
    expect((await run("set", store, "r", "--select", "1", "--value", "[1,2]")).code).toBe(0);
    const v2 = join(dir, "edge-v2.zarr");
    const r = await run("copy", store, v2, "--format", "2");
    expect(r.err).toBe("");
    expect(r.out).toMatch(/^copied 3 arrays and 1 group: 2 chunks \(2 written\); 10 B of data/);
    expect((await run("get", v2, "s", "--json")).out).toBe('{"shape":[],"data":[5]}');
    expect((await run("get", v2, "e", "--json")).out).toBe('{"shape":[0,5],"data":[]}');
    expect(JSON.parse(readFileSync(join(v2, "r/.zarray"), "utf8")).fill_value).toBe("AAA=");
    const back = join(dir, "edge-v3.zarr");
    expect((await run("copy", v2, back, "--format", "3", "-q")).code).toBe(0);
    expect((await run("get", back, "s", "--json")).out).toBe('{"shape":[],"data":[5]}');
  });

  it("set --value and --from (.npy and raw), read back with get", async () => {
    const store = join(dir, "made.zarr");
    expect((await run("set", store, "t", "--select", "0", "--value", "1.5")).code).toBe(0);
    const npy = join(dir, "block.npy");
    const block = new Float32Array([1, 2, 3, 4]);
    writeFileSync(npy, encodeNpy(float32, block, [2, 2]));
    expect((await run("set", store, "t", "--select", "1:3,:2", "--from", npy)).code).toBe(0);
    const raw = join(dir, "row.bin");
    writeFileSync(raw, new Uint8Array(new Float32Array([9, 8, 7, 6, 5, 4, 3, 2]).buffer));
    expect((await run("set", store, "t", "--select", "5", "--from", raw)).code).toBe(0);
    const got = JSON.parse((await run("get", store, "t", "--select", "::1,:2", "--json")).out);
    expect(got.data).toEqual([1.5, 1.5, 1, 2, 3, 4, "NaN", "NaN", "NaN", "NaN", 9, 8]);
    expect((await run("set", store, "v2", "--value=-7")).code).toBe(0);
    expect(JSON.parse((await run("get", store, "v2", "--select", "9", "--json")).out).data).toEqual(
      [-7],
    );
    const wrongShape = await run("set", store, "t", "--select", "0", "--from", npy);
    expect(wrongShape.code).toBe(1);
    expect(wrongShape.err).toMatch(/block\.npy: shape \(2, 2\) does not fit/);
    expect((await run("set", store, "t", "--value", "1", "--from", raw)).code).toBe(1);
  });
});

describe.skipIf(!present)("verify", () => {
  it("passes on a good copy; names the corrupted chunk and the unexpected key, exit 2", async () => {
    const store = join(dir, "verify.zarr");
    cpSync(join(zarritaFixtures, "v3/data.zarr"), store, { recursive: true });
    const ok = await run("verify", store);
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/^ok: \d+ chunks in \d+ arrays decoded; 0 corrupt, 0 unexpected keys$/);

    // Flip a byte inside a gzip stream, and inside a shard whose index has a crc32c.
    const gz = join(store, "1d.contiguous.gzip.i2/c/0");
    const bytes = readFileSync(gz);
    bytes[bytes.length - 6] ^= 0xff;
    writeFileSync(gz, bytes);
    const shard = join(store, "2d.contiguous.compressed.sharded.i2/c/0/0");
    const sb = readFileSync(shard);
    sb[sb.length - 5] ^= 0x01;
    writeFileSync(shard, sb);
    writeFileSync(join(store, "1d.contiguous.raw.i2/c/junk"), "x");

    const bad = await run("verify", store);
    expect(bad.code).toBe(2);
    const lines = bad.out.split("\n");
    expect(lines.filter((l) => l.startsWith("corrupt")).map((l) => l.split(/\s+/)[1])).toEqual([
      "1d.contiguous.gzip.i2/c/0:",
      "2d.contiguous.compressed.sharded.i2/c/0/0:",
    ]);
    expect(lines).toContain("unexpected  1d.contiguous.raw.i2/c/junk");
    expect(lines.at(-1)).toMatch(/^FAILED: .* 2 corrupt, 1 unexpected key$/);
    const json = JSON.parse((await run("verify", store, "1d.contiguous.gzip.i2", "--json")).out);
    expect(json.corrupt).toEqual([
      { key: "1d.contiguous.gzip.i2/c/0", reason: expect.any(String) },
    ]);
  });
});

describe("serve", () => {
  it("serves keys with Range (incl. suffix), CORS and 404", async () => {
    const store = resolveStore(new FileSystemStore(example));
    const { server, url } = await serveStore(store);
    try {
      const doc = await fetch(`${url}temperature/zarr.json`);
      expect(doc.status).toBe(200);
      expect(doc.headers.get("access-control-allow-origin")).toBe("*");
      expect((await doc.json()).node_type).toBe("array");
      const key = "temperature/c/0/0/0";
      const whole = new Uint8Array(await (await fetch(url + key)).arrayBuffer());
      const part = await fetch(url + key, { headers: { Range: "bytes=2-9" } });
      expect(part.status).toBe(206);
      expect(part.headers.get("content-range")).toBe(`bytes 2-9/${whole.length}`);
      expect(new Uint8Array(await part.arrayBuffer())).toEqual(whole.subarray(2, 10));
      const suffix = await fetch(url + key, { headers: { Range: "bytes=-16" } });
      expect(new Uint8Array(await suffix.arrayBuffer())).toEqual(whole.subarray(whole.length - 16));
      expect((await fetch(url + key, { headers: { Range: "bytes=99999999-" } })).status).toBe(416);
      expect((await fetch(`${url}nope`)).status).toBe(404);
      expect((await fetch(`${url}..%2F..%2Fetc%2Fpasswd`)).status).toBe(400);
      const pre = await fetch(url + key, { method: "OPTIONS" });
      expect(pre.status).toBe(204);
      expect(pre.headers.get("access-control-allow-headers")).toMatch(/range/);
      // A v3 array opens through the HTTP store over the served URL.
      const r = await run("get", url, "temperature", "--select", "0,0,:3", "--json");
      expect(r.code).toBe(0);
      expect(JSON.parse(r.out).shape).toEqual([3]);
    } finally {
      server.close();
    }
  });

  it("the bin prints the URL and stops on SIGTERM", async () => {
    const child = spawn(bin, ["serve", example], { stdio: ["ignore", "pipe", "pipe"] });
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (d) => {
        const m = /at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(String(d));
        if (m) resolve(m[1]);
      });
      child.on("error", reject);
    });
    expect((await fetch(`${url}zarr.json`)).status).toBe(200);
    const exit = new Promise<number | null>((resolve) =>
      child.on("close", (code) => resolve(code)),
    );
    child.kill("SIGTERM");
    expect(await exit).toBe(0);
  }, 15_000);
});

/** How `child` ends: its exit code, or the signal that ended it. */
function ended(child: ChildProcess): Promise<[number | null, string | null]> {
  return new Promise((resolve) => child.on("close", (code, by) => resolve([code, by])));
}

describe("process behaviour", () => {
  it("EPIPE: `zarr get … --csv | head -c 10` stops quietly with 141 (128 + SIGPIPE: partial output)", async () => {
    const store = join(dir, "big.zarr");
    const a = await createArray(new FileSystemStore(store), "a", {
      shape: [200000],
      dataType: "int32",
      chunkShape: [50000],
    });
    await a.set(null, 123456);
    const r = spawnSync(
      "bash",
      [
        "-c",
        `"${bin}" get "${store}" a --csv --select 0:200000 | head -c 10; exit \${PIPESTATUS[0]}`,
      ],
      {
        encoding: "utf8",
      },
    );
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("123456,123");
    expect(r.status).toBe(141);
  });

  // The CLI catches the signal to stop cleanly, then ends by it (which a shell
  // reports as 128 + its number: 130, 143), within about a second even while a
  // read ignores the signal.
  it.each([
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const)(
    "%s while a command waits for a store: ends by the signal (a shell's %i), saying it was interrupted",
    async (signal, _shellCode) => {
      let onRequest = () => {};
      const requested = new Promise<void>((resolve) => (onRequest = resolve));
      const server = createServer(() => onRequest()); // never answers
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const { port } = server.address() as AddressInfo;
      const child = spawn(bin, ["info", `http://127.0.0.1:${port}/a.zarr`], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      try {
        let err = "";
        child.stderr.on("data", (d) => (err += String(d)));
        const exit = ended(child);
        await requested;
        const sent = Date.now();
        child.kill(signal);
        expect(await exit).toEqual([null, signal]);
        expect(Date.now() - sent).toBeLessThan(5_000);
        expect(err).toContain("zarr: interrupted");
      } finally {
        child.kill("SIGKILL");
        server.closeAllConnections();
        server.close();
      }
    },
    20_000,
  );

  it("a signal ends a command blocked in a file system call (opening a FIFO nobody reads)", async () => {
    const fifo = join(dir, "no-reader.fifo");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    const store = join(dir, "fifo-src.zarr");
    const a = await createArray(new FileSystemStore(store), "a", {
      shape: [10],
      dataType: "int32",
      chunkShape: [5],
    });
    await a.set(null, 7);
    const child = spawn(bin, ["get", store, "a", "--out", fifo], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const exit = ended(child);
      await new Promise((r) => setTimeout(r, 1500)); // blocked in open()
      child.kill("SIGTERM");
      expect(await exit).toEqual([null, "SIGTERM"]);
    } finally {
      child.kill("SIGKILL");
    }
  }, 20_000);

  it("a reader gone from an output named as a file (/dev/stdout) stops quietly with 141; /dev/full is an I/O error (2)", async () => {
    const store = join(dir, "big.zarr");
    const r = spawnSync(
      "bash",
      [
        "-c",
        `"${bin}" get "${store}" a --out /dev/stdout | head -c 10 > /dev/null; exit \${PIPESTATUS[0]}`,
      ],
      { encoding: "utf8" },
    );
    expect(r.stderr).toBe("");
    expect(r.status).toBe(141);
    const full = spawnSync(
      "bash",
      ["-c", `"${bin}" get "${store}" a --select 0:3 --json > /dev/full`],
      {
        encoding: "utf8",
      },
    );
    expect(full.status).toBe(2);
    expect(full.stderr).toMatch(/^zarr: error: .*ENOSPC/);
  });

  it("errors are one line; --debug adds the stack; NO_COLOR and pipes get no escapes", () => {
    const r = spawnSync(bin, ["info", join(dir, "missing.zarr")], {
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      `zarr: error: ${JSON.stringify(join(dir, "missing.zarr"))} does not exist (no such file or directory)\n`,
    );
    const d = spawnSync(bin, ["info", join(dir, "missing.zarr"), "--debug"], { encoding: "utf8" });
    expect(d.stderr.split("\n").length).toBeGreaterThan(3);
    expect(d.stderr).toMatch(/\n\s+at /);
    expect(existsSync(join(dir, "missing.zarr"))).toBe(false);
  });

  it("open arrays written by the CLI with the library", async () => {
    const a = await openArray(new FileSystemStore(join(dir, "made.zarr")), "t");
    expect(a.shape).toEqual([6, 8]);
  });
});

describe("store options from flags and the environment", () => {
  it("maps flags and variables to the opener of the URL's scheme only", async () => {
    const { storeOptions } = await import("@zarr/cli");
    const env = {
      AWS_ENDPOINT_URL: "http://127.0.0.1:9000",
      AWS_REGION: "eu-west-1",
      GOOGLE_CLOUD_PROJECT: "proj",
      ZARR_HTTP_HEADERS: '{"Authorization": "Bearer t"}',
    };
    expect(storeOptions("s3://b/x.zarr", { "s3-path-style": true }, env)).toEqual({
      endpoint: "http://127.0.0.1:9000",
      region: "eu-west-1",
      forcePathStyle: true,
    });
    expect(
      storeOptions("s3://b/x.zarr", { "s3-region": "us-east-2", "s3-legacy-checksums": true }, env),
    ).toEqual({
      endpoint: "http://127.0.0.1:9000",
      region: "us-east-2",
      legacyChecksums: true,
    });
    expect(storeOptions("gs://b/x.zarr", { "gcs-endpoint": "http://127.0.0.1:1" }, env)).toEqual({
      apiEndpoint: "http://127.0.0.1:1",
      projectId: "proj",
    });
    expect(storeOptions("https://h/x.zarr", {}, env)).toEqual({
      headers: { Authorization: "Bearer t" },
    });
    expect(storeOptions("https://h/a.zip/x.zarr", {}, env)).toEqual({
      headers: { Authorization: "Bearer t" },
    });
    expect(storeOptions("zip:s3://b/a.zip!/x.zarr", {}, env)).toMatchObject({
      region: "eu-west-1",
    });
    // Wrapped locations take their own scheme's options; stores that follow chunk
    // references get every target scheme's, and local targets only when allowed.
    const ice = storeOptions("icechunk:s3://b/repo?branch=main", {}, env);
    expect(ice).toMatchObject({ endpoint: "http://127.0.0.1:9000", region: "eu-west-1" });
    expect(ice.allowLocalFiles).toBeUndefined();
    const virtual = ice.virtualStoreOptions as (url: string) => Record<string, unknown>;
    expect(virtual("https://h/data/")).toEqual({ headers: { Authorization: "Bearer t" } });
    expect(virtual("gs://g/data/")).toEqual({ projectId: "proj" });
    expect(
      storeOptions("icechunk:repo", { "allow-local-targets": true }, env).allowLocalFiles,
    ).toBe(true);
    const ref = storeOptions("reference:gs://g/refs.json", { "allow-local-targets": true }, env);
    expect(ref).toMatchObject({ projectId: "proj", allowLocalTargets: true });
    expect((ref.protocolOptions as Record<string, unknown>).s3).toMatchObject({
      region: "eu-west-1",
    });
    expect(storeOptions("data.zarr", { "s3-region": "x" }, env)).toEqual({});
    expect(() => storeOptions("https://h/x", {}, { ZARR_HTTP_HEADERS: "[1]" })).toThrow(
      /ZARR_HTTP_HEADERS/,
    );
  });
});

describe("progress line", () => {
  it("shows percent, count, throughput and ETA, at most every 100 ms, and clears", async () => {
    const { Progress, formatBytes, formatDuration } = await import("@zarr/cli");
    const lines: string[] = [];
    const p = new Progress(4, "copy", (l) => lines.push(l));
    p.tick(1, 1024);
    p.tick(1, 1024); // within 100 ms of the first: not drawn
    p.tick(2, 2048); // the last unit is always drawn
    p.finish();
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^copy {2}25% 1\/4 [\d.]+ (B|KiB|MiB)\/s ETA \d+:\d\d$/);
    expect(lines[1]).toMatch(/^copy 100% 4\/4 .* ETA 0:00$/);
    expect(lines[2]).toBe("");
    expect(formatBytes(1536)).toBe("1.5 KiB");
    expect(formatDuration(3725)).toBe("1:02:05");
    const silent = new Progress(2, "copy");
    silent.tick(2, 10); // no draw callback (pipe, CI): nothing happens
  });
});
