// `zarr get --out -` / `--npy -` into a reader that lags: the pipe stays full
// while the command reads on. Slabs smaller than standard output's 16 KiB
// buffer (one-byte elements in 2-byte inner chunks, steps) are where a write
// that resolved when merely queued let the next slab overwrite bytes still
// waiting (8,192 wrong bytes of 256 KiB, exit 0). Every case must deliver the
// exact bytes and exit 0, with and without workers, through a reader that
// sleeps first and one that stalls part-way. Each pipeline runs under the watchdog
// (the command itself under `timeout`).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createArray } from "@zarr/core";
import { FileSystemStore } from "@zarr/store-fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeRun, runGuarded, ZARR_BIN } from "../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "zarr-attack-cli-stdout-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const N = 262_144;
const value = (i: number) => (i * 7 + (i >> 9)) % 251;

beforeAll(async () => {
  const a = await createArray(new FileSystemStore(dir), "u8", {
    shape: [N],
    dataType: "uint8",
    chunkShape: [65_536],
    codecs: [
      {
        name: "sharding_indexed",
        configuration: { chunk_shape: [2], codecs: [{ name: "bytes" }] },
      },
    ],
  });
  await a.set(
    null,
    Uint8Array.from({ length: N }, (_, i) => value(i)),
  );
}, 60_000);

/** Readers of the pipe: one that sleeps while the command fills it, one that stops for 1.5 s after the first 64 KiB. */
const READERS = {
  sleeps: "sleep 1.5; cat",
  "stalls part-way": `${JSON.stringify(process.execPath)} -e ${JSON.stringify(
    "let seen = 0; process.stdin.on('data', (d) => { process.stdout.write(d); seen += d.length; if (seen >= 65536 && seen - d.length < 65536) { process.stdin.pause(); setTimeout(() => process.stdin.resume(), 1500); } });",
  )}`,
};

const CASES = [
  { name: "--out -", args: ["--out", "-"], npy: false, select: [] as string[], step: 1 },
  { name: "--npy -", args: ["--npy", "-"], npy: true, select: [], step: 1 },
  {
    name: "--out - of every third element",
    args: ["--out", "-"],
    npy: false,
    select: ["--select", "::3"],
    step: 3,
  },
  {
    name: "--out - with 2 workers",
    args: ["--out", "-", "--workers", "2"],
    npy: false,
    select: [],
    step: 1,
  },
];

describe("zarr get to standard output through a reader that lags", () => {
  for (const c of CASES) {
    for (const [reader, command] of Object.entries(READERS)) {
      it(`${c.name}, a reader that ${reader}: the exact bytes, exit 0`, async () => {
        const file = join(dir, `${c.name.replace(/\W+/g, "_")}-${reader}.bin`);
        const zarr = [process.execPath, ZARR_BIN, "get", dir, "u8", ...c.select, ...c.args]
          .map((a) => JSON.stringify(a))
          .join(" ");
        const script = `set -o pipefail; timeout -s KILL 40 ${zarr} | (${command}) > ${JSON.stringify(file)}`;
        const r = await runGuarded("bash", ["-c", script], { maxRssMiB: 100, timeoutMs: 50_000 });
        expect(r.code, describeRun(r)).toBe(0);
        let got = readFileSync(file);
        if (c.npy) got = got.subarray(10 + got.readUInt16LE(8)); // .npy 1.0: magic, version, header length
        const expected = Uint8Array.from({ length: Math.ceil(N / c.step) }, (_, k) =>
          value(k * c.step),
        );
        expect(got.length).toBe(expected.length);
        let wrong = 0;
        for (let i = 0; i < expected.length; i++) if (got[i] !== expected[i]) wrong++;
        expect(wrong).toBe(0);
      }, 60_000);
    }
  }
});
