/**
 * `FileSystemStore.setFrom`: a gathering write of views laid end to end. The
 * kernel may write less than asked (a short `writev`), and Linux takes at most
 * 1,024 buffers per call; the writer resumes from the exact byte it stopped at.
 * Readers see the old value or the new one, never a mix (atomic replace).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileSystemStore } from "@zarr/store-fs";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { writeViews } from "../src/atomic.js";

const root = mkdtempSync(join(tmpdir(), "zarr-set-from-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A file handle whose writev writes at most `limits[i]` bytes on call i, and records the batch sizes. */
function shortWriter(limits: number[]) {
  const file: number[] = [];
  const batches: number[] = [];
  let call = 0;
  const handle = {
    async writev(buffers: Uint8Array[], position: number) {
      batches.push(buffers.length);
      expect(position).toBe(file.length);
      let budget = Math.max(1, limits[call++ % limits.length]);
      let written = 0;
      for (const b of buffers) {
        const n = Math.min(b.length, budget);
        for (let i = 0; i < n; i++) file.push(b[i]);
        written += n;
        budget -= n;
        if (n < b.length || budget === 0) break;
      }
      return { bytesWritten: written, buffers };
    },
  };
  return { handle: handle as unknown as FileHandle, file, batches };
}

describe("writeViews", () => {
  it("writes every byte once, in order, whatever the short writes", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 60 }),
        fc.array(fc.integer({ min: 1, max: 97 }), { minLength: 1, maxLength: 8 }),
        async (views, limits) => {
          const { handle, file } = shortWriter(limits);
          await writeViews(handle, views);
          expect(file).toEqual(views.flatMap((v) => Array.from(v)));
        },
      ),
      { seed: 3, numRuns: 300 },
    );
  });

  it("passes at most 1,024 views per call", async () => {
    const views = Array.from({ length: 2500 }, (_, i) => new Uint8Array([i & 255]));
    const { handle, file, batches } = shortWriter([1 << 20]);
    await writeViews(handle, views);
    expect(batches).toEqual([1024, 1024, 452]);
    expect(file).toEqual(views.map((v) => v[0]));
  });

  it("fails, rather than spinning, when the kernel writes nothing", async () => {
    const handle = {
      writev: async () => ({ bytesWritten: 0, buffers: [] }),
    } as unknown as FileHandle;
    await expect(writeViews(handle, [new Uint8Array(3)])).rejects.toThrow(/writev wrote 0/);
  });
});

describe("FileSystemStore.setFrom", () => {
  it("stores rows of a typed array, in shared memory too, and replaces the old value", async () => {
    const store = new FileSystemStore(root);
    for (const buffer of [new ArrayBuffer(4096), new SharedArrayBuffer(4096)]) {
      const data = new Uint8Array(buffer).map((_, i) => i * 7);
      const rows = Array.from({ length: 8 }, (_, r) => data.subarray(r * 512, r * 512 + 500));
      await store.set("c/0", new Uint8Array(9000).fill(1));
      await store.setFrom("c/0", rows);
      const expected = rows.flatMap((r) => Array.from(r));
      expect(Array.from(readFileSync(join(root, "c", "0")))).toEqual(expected);
    }
  });

  it("is a StoreError naming the key for a bad key or a view that is not a Uint8Array", async () => {
    const store = new FileSystemStore(root);
    await expect(store.setFrom("../escape", [new Uint8Array(1)])).rejects.toThrow(/escape/);
    await expect(store.setFrom("k", [new Uint16Array(1) as never])).rejects.toThrow(/"k"/);
    await expect(store.setFrom("k", "x" as never)).rejects.toThrow(/"k"/);
    await expect(store.get("k")).resolves.toBeUndefined();
  });
});
