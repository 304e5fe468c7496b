// zarr get streams: slabs of a selection read one after the other equal one
// read of the whole selection (every selection kind, every budget), text output
// beyond --max-elements is refused before reading, and --out -/--npy - write to
// standard output with the same bytes as a file.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Io, main } from "@zarr/cli";
import { createArray, MemoryStore, type ZarrArray } from "@zarr/core";
import { normalizeSelection, parseSelection, projectChunks } from "@zarr/core/internal";
import { FileSystemStore } from "@zarr/store-fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { slabs } from "../src/slabs.js";
import { run } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "zarr-cli-get-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("slabs of a selection", () => {
  let array: ZarrArray;
  beforeAll(async () => {
    array = await createArray(new MemoryStore(), "a", {
      shape: [7, 9, 11],
      dataType: "int32",
      chunkShape: [2, 4, 3],
    });
    await array.set(
      null,
      Int32Array.from({ length: 7 * 9 * 11 }, (_, i) => i),
    );
  });

  const selections = [
    ":",
    "1:6,::-2,[3,1,10,0]",
    "-1",
    "::-3,2,:",
    "[6,0,6],::2,3:11:4",
    "2,3,4",
    "5:0:-2,8:,::-1",
    "3:3",
  ];
  for (const text of selections) {
    it(`"${text}": slabs read in order equal one read, within every budget`, async () => {
      const selection = parseSelection(text);
      const whole = await array.get(selection);
      const sel = normalizeSelection(selection, array.shape);
      for (const budget of [1, 2, 5, 11, 40, 100, 10_000]) {
        const parts: number[] = [];
        for (const slab of slabs(sel, array.chunkShape, budget)) {
          expect(slab.elements).toBeLessThanOrEqual(budget);
          const got = await array.get(slab.selection);
          expect(got.data.length).toBe(slab.elements);
          parts.push(...(got.data as Int32Array));
        }
        expect(parts, `budget ${budget}`).toEqual([...(whole.data as Int32Array)]);
      }
    });
  }

  it("a slab touches at most twice maxChunks chunks (chunks of one element included)", async () => {
    const shape = [40, 30, 20];
    for (const chunkShape of [
      [1, 1, 1],
      [3, 1, 7],
      [40, 30, 1],
      [1, 30, 20],
    ]) {
      for (const text of [":", "::-3,5,:", "[1,39,2],::2,3:17", "7:33:5,::-1"]) {
        const sel = normalizeSelection(parseSelection(text), shape);
        for (const maxChunks of [1, 5, 64]) {
          let elements = 0;
          for (const slab of slabs(sel, chunkShape, 10_000, maxChunks)) {
            const s = normalizeSelection(slab.selection, shape);
            const touched = [...projectChunks(s, shape, chunkShape)].length;
            expect(touched, `${text} ${chunkShape} ${maxChunks}`).toBeLessThanOrEqual(
              2 * maxChunks,
            );
            elements += slab.elements;
          }
          expect(elements).toBe(sel.shape.reduce((a, b) => a * b, 1));
        }
      }
    }
  });

  it("slabs along a unit-step dimension are whole chunk rows when a chunk row fits", () => {
    const sel = normalizeSelection(parseSelection("1:7"), array.shape);
    const rows = [...slabs(sel, array.chunkShape, 4 * 99)].map((s) => {
      const d = (s.selection as unknown as { start: number; stop: number }[])[0];
      return [d.start, d.stop];
    });
    // Up to 4 rows a slab, chunk rows of 2: every slab but the last ends on a chunk boundary.
    expect(rows).toEqual([
      [1, 4],
      [4, 7],
    ]);
    const unaligned = normalizeSelection(parseSelection("1:7:2"), array.shape);
    expect([...slabs(unaligned, array.chunkShape, 2 * 99)].map((s) => s.elements)).toEqual([
      198, 99,
    ]);
  });
});

describe("zarr get output modes", () => {
  beforeAll(async () => {
    const fs = new FileSystemStore(dir);
    const a = await createArray(fs, "a", {
      shape: [30, 40],
      dataType: "float64",
      chunkShape: [7, 9],
    });
    await a.set(
      null,
      Float64Array.from({ length: 1200 }, (_, i) => i / 4),
    );
    const s = await createArray(fs, "s", { shape: [5], dataType: "string", chunkShape: [2] });
    await s.set(null, ["a", 'b"', "c,d", "", "e"]);
  });

  it("--json and --csv beyond --max-elements: exit 2 before reading, naming the size", async () => {
    const r = await run("get", dir, "a", "--json", "--max-elements", "1000");
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err).toMatch(
      /^zarr: TooLargeError: --json: \/a \(1200 elements of float64\) is more than the 1000 elements .*--select.*--out FILE/,
    );
    const c = await run("get", dir, "a", "--csv", "--max-elements", "1199");
    expect(c.code).toBe(2);
    expect(c.err).toMatch(/--csv: \/a \(1200 elements/);
    const ok = await run("get", dir, "a", "--csv", "--max-elements", "1200");
    expect(ok.code).toBe(0);
    expect(ok.out.split("\n")).toHaveLength(30);
    const part = await run("get", dir, "a", "--json", "--select", "0:2", "--max-elements", "80");
    expect(part.code).toBe(0);
    expect(JSON.parse(part.out).shape).toEqual([2, 40]);
  });

  it("text streamed through io.write equals text through io.out", async () => {
    for (const args of [
      ["a", "--json"],
      ["a", "--csv", "--select", "::-3,5:30:4"],
      ["s", "--csv"],
      ["s", "--json"],
    ]) {
      const lines = await run("get", dir, ...args);
      expect(lines.code).toBe(0);
      let streamed = "";
      const io: Io = {
        out: (s) => {
          streamed += `${s}\n`;
        },
        write: async (d) => {
          streamed += typeof d === "string" ? d : Buffer.from(d).toString("latin1");
        },
        err: () => {},
        color: false,
        env: {},
      };
      expect(await main(["get", dir, ...args], io)).toBe(0);
      expect(streamed).toBe(`${lines.out}\n`);
    }
  });

  it("--out - and --npy - write the bytes of --out FILE and --npy FILE to io.write", async () => {
    const file = join(dir, "a.bin");
    const npy = join(dir, "a.npy");
    expect((await run("get", dir, "a", "--select", "3:29,::-1", "--out", file)).code).toBe(0);
    expect((await run("get", dir, "a", "--select", "3:29,::-1", "--npy", npy)).code).toBe(0);
    for (const [flag, expected] of [
      ["--out", readFileSync(file)],
      ["--npy", readFileSync(npy)],
    ] as const) {
      const chunks: Buffer[] = [];
      const io: Io = {
        out: () => {},
        write: async (d) => {
          chunks.push(Buffer.from(d));
        },
        err: () => {},
        color: false,
        env: {},
      };
      expect(await main(["get", dir, "a", "--select", "3:29,::-1", flag, "-"], io)).toBe(0);
      expect(Buffer.concat(chunks).equals(expected)).toBe(true);
    }
    // A line collector cannot take bytes; two outputs cannot share standard output.
    expect((await run("get", dir, "a", "--out", "-")).code).toBe(1);
    const both = await run("get", dir, "a", "--json", "--npy", "-");
    expect(both.code).toBe(1);
    expect(both.err).toMatch(/only one of/);
  });

  it("a read that fails part-way prints no text and leaves an existing --out/--npy file as it was", async () => {
    const fs = new FileSystemStore(dir);
    const b = await createArray(fs, "broken", {
      shape: [40],
      dataType: "int32",
      chunkShape: [4],
      codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }],
    });
    await b.set(null, 7);
    // The last chunk is damaged: every chunk before it reads (and would print) first.
    const last = join(dir, "broken", "c", "9");
    const bytes = readFileSync(last);
    bytes[0] ^= 0xff;
    writeFileSync(last, bytes);
    for (const flag of ["--json", "--csv"]) {
      const r = await run("get", dir, "broken", flag);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/CodecError/);
      expect(r.out).toBe("");
    }
    for (const flag of ["--out", "--npy"]) {
      const file = join(dir, `keep${flag}`);
      writeFileSync(file, "old content");
      const r = await run("get", dir, "broken", flag, file);
      expect(r.code).toBe(2);
      expect(readFileSync(file, "utf8")).toBe("old content");
      const fresh = join(dir, `fresh${flag}`);
      expect((await run("get", dir, "broken", flag, fresh)).code).toBe(2);
      expect(existsSync(fresh)).toBe(false);
    }
    // Nothing is left beside the files.
    expect(readdirSync(dir).filter((n) => n.includes("zarr-get"))).toEqual([]);
  });

  it("shows a progress line only when given one, and clears it", async () => {
    const lines: string[] = [];
    const io: Io = {
      out: () => {},
      err: () => {},
      progress: (l) => lines.push(l),
      color: false,
      env: {},
    };
    expect(await main(["get", dir, "a", "--out", join(dir, "p.bin")], io)).toBe(0);
    expect(lines[0]).toMatch(/^get 100% 1200\/1200 /);
    expect(lines.at(-1)).toBe("");
  });
});

describe("zarr get writes a slab while it reads the next", () => {
  // 40 MiB of float64 in chunk rows of 1 MiB: several slabs (16 MiB each when writes overlap reads).
  const rows = 160;
  const cols = 32768;
  const value = (i: number) => (i % 1000) * 0.5 + Math.floor(i / cols);
  beforeAll(async () => {
    const a = await createArray(new FileSystemStore(dir), "big", {
      shape: [rows, cols],
      dataType: "float64",
      chunkShape: [4, cols],
      codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }],
    });
    await a.set(
      null,
      Float64Array.from({ length: rows * cols }, (_, i) => value(i)),
    );
    // A copy whose last chunk is damaged: every slab before it reads and is written first.
    const b = await createArray(new FileSystemStore(dir), "big-broken", {
      shape: [rows, cols],
      dataType: "float64",
      chunkShape: [4, cols],
      codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }],
    });
    await b.set(null, 1);
    const last = join(dir, "big-broken", "c", String(rows / 4 - 1), "0");
    const bytes = readFileSync(last);
    bytes[0] ^= 0xff;
    writeFileSync(last, bytes);
  }, 60_000);

  /** An io whose writes take `delayMs` each, recording them, and how many ran at once. */
  function slowIo(delayMs: number, failAt = -1) {
    const seen = { writes: [] as Buffer[], active: 0, maxActive: 0, calls: 0, activeAtEnd: -1 };
    const io: Io = {
      out: () => {},
      write: async (d) => {
        const call = seen.calls++;
        seen.active++;
        seen.maxActive = Math.max(seen.maxActive, seen.active);
        await new Promise((r) => setTimeout(r, delayMs));
        seen.active--;
        if (call === failAt) throw Object.assign(new Error("disk on fire"), { code: "EIO" });
        seen.writes.push(Buffer.from(d));
      },
      err: () => {},
      color: false,
      env: {},
    };
    return { io, seen };
  }

  it("--out - gets every slab in order, one write at a time, the bytes of --out FILE", async () => {
    const { io, seen } = slowIo(30);
    expect(await main(["get", dir, "big", "--out", "-"], io)).toBe(0);
    expect(seen.calls).toBeGreaterThanOrEqual(3);
    expect(seen.maxActive).toBe(1);
    const all = Buffer.concat(seen.writes);
    const values = new Float64Array(all.buffer, all.byteOffset, all.length / 8);
    expect(values.length).toBe(rows * cols);
    for (let i = 0; i < values.length; i += 997) expect(values[i]).toBe(value(i));
    expect(values[values.length - 1]).toBe(value(values.length - 1));
    const file = join(dir, "big.bin");
    expect((await run("get", dir, "big", "--out", file)).code).toBe(0);
    expect(readFileSync(file).equals(all)).toBe(true);
  }, 60_000);

  it("a write that fails stops the output: no later write, exit 2", async () => {
    const { io, seen } = slowIo(5, 1);
    const errors: string[] = [];
    const code = await main(["get", dir, "big", "--out", "-"], {
      ...io,
      err: (s) => errors.push(s),
    });
    expect(code).toBe(2);
    expect(errors.join("\n")).toMatch(/disk on fire/);
    expect(seen.calls).toBe(2); // the failed write was the last one
  }, 60_000);

  it("a read that fails after earlier slabs: their writes have ended when get returns", async () => {
    const { io, seen } = slowIo(80);
    const errors: string[] = [];
    const code = await main(["get", dir, "big-broken", "--out", "-"], {
      ...io,
      err: (s) => errors.push(s),
    });
    expect(code).toBe(2);
    expect(errors.join("\n")).toMatch(/CodecError/);
    expect(seen.active).toBe(0);
    expect(seen.calls).toBeGreaterThanOrEqual(1);
    // And a file is never left behind half-written.
    const file = join(dir, "big-broken.bin");
    expect((await run("get", dir, "big-broken", "--out", file)).code).toBe(2);
    expect(existsSync(file)).toBe(false);
  }, 60_000);
});

describe("zarr get --out - to a reader that lags (a real process)", () => {
  it("slabs smaller than the stream's buffer are not overwritten while queued: the exact bytes", async () => {
    // 256 Ki one-byte elements in inner chunks of 2 bytes: a slab holds about 4096
    // chunks, 8 KiB, under standard output's 16 KiB high-water mark, so a write
    // that stays queued must keep its slab from being reused.
    const n = 262_144;
    const a = await createArray(new FileSystemStore(dir), "lag", {
      shape: [n],
      dataType: "uint8",
      chunkShape: [65_536],
      codecs: [
        {
          name: "sharding_indexed",
          configuration: { chunk_shape: [2], codecs: [{ name: "bytes" }] },
        },
      ],
    });
    const expected = Uint8Array.from({ length: n }, (_, i) => (i * 7 + (i >> 9)) % 251);
    await a.set(null, expected);
    const bin = join(dirname(fileURLToPath(import.meta.url)), "../bin/zarr.js");
    const child = spawn(process.execPath, [bin, "get", dir, "lag", "--out", "-"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.pause(); // the pipe fills and stays full for a while
    await new Promise((r) => setTimeout(r, 1500));
    const parts: Buffer[] = [];
    child.stdout.on("data", (d: Buffer) => parts.push(d));
    child.stdout.resume();
    const code = await new Promise<number | null>((r) => child.on("close", r));
    expect(code).toBe(0);
    const got = Buffer.concat(parts);
    expect(got.length).toBe(n);
    let wrong = 0;
    for (let i = 0; i < n; i++) if (got[i] !== expected[i]) wrong++;
    expect(wrong).toBe(0);
  }, 60_000);
});
