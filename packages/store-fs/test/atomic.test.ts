import { spawn } from "node:child_process";
import { join } from "node:path";
import { FileSystemStore } from "@zarr/store-fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir, tree } from "./helpers.js";

// Atomic replacement: a reader in this process or in another one must only
// ever see a complete old value or a complete new value.

const SIZE = 4 * 2 ** 20;
const WRITES = 40;

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ root, cleanup } = await tempDir());
});
afterEach(() => cleanup());

/** Each value is SIZE bytes of one fill byte; a torn read mixes two fill bytes or is short. */
const filled = (fill: number) => new Uint8Array(SIZE).fill(fill);

function isWhole(value: Uint8Array | undefined, size: number): boolean {
  if (!value || value.length !== size) return false;
  return Buffer.from(value.buffer, value.byteOffset, value.length).equals(
    Buffer.alloc(size, value[0]),
  );
}

/** A plain node process that reads the file with fs.readFileSync until told to stop. */
const CHILD = `
const fs = require("node:fs");
const [path, stop, size] = process.argv.slice(1);
let reads = 0, bad = 0;
while (!fs.existsSync(stop)) {
  const v = fs.readFileSync(path);
  reads++;
  if (v.length !== +size || !v.equals(Buffer.alloc(+size, v[0]))) bad++;
}
process.stdout.write(JSON.stringify({ reads, bad }));
`;

describe("FileSystemStore atomic writes", () => {
  it("concurrent readers (in-process and another process) never see a torn 4 MiB value", async () => {
    const store = new FileSystemStore(root);
    await store.set("chunk", filled(1));
    const stopFile = join(root, "..", "stop");
    const child = spawn(
      process.execPath,
      ["-e", CHILD, join(root, "chunk"), stopFile, String(SIZE)],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let childOut = "";
    child.stdout.on("data", (d) => {
      childOut += d;
    });
    const childDone = new Promise<void>((resolve) => child.on("close", () => resolve()));

    let done = false;
    const seen = new Set<number>();
    const reads = { full: 0, suffix: 0, torn: 0 };
    const reader = async (ranged: boolean) => {
      while (!done) {
        const value = ranged
          ? await store.get("chunk", { suffix: SIZE / 4 })
          : await store.get("chunk");
        if (isWhole(value, ranged ? SIZE / 4 : SIZE)) {
          seen.add(value![0]);
          reads[ranged ? "suffix" : "full"]++;
        } else reads.torn++;
      }
    };
    const writer = async () => {
      for (let i = 0; i < WRITES; i++) await store.set("chunk", filled(2 + (i % 250)));
      done = true;
    };
    await Promise.all([writer(), reader(false), reader(false), reader(true)]);
    const { writeFile } = await import("node:fs/promises");
    await writeFile(stopFile, "");
    await childDone;
    const childStats = JSON.parse(childOut) as { reads: number; bad: number };

    expect(reads.torn).toBe(0);
    expect(childStats.bad).toBe(0);
    expect(reads.full + reads.suffix).toBeGreaterThan(10);
    expect(childStats.reads).toBeGreaterThan(0);
    expect(seen.size).toBeGreaterThan(1); // readers did overlap with several writes
    expect((await store.get("chunk"))?.[0]).toBe(2 + ((WRITES - 1) % 250));
    expect(await tree(root)).toEqual(["chunk"]);
  });
});
