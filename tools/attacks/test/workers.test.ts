// @zarr/workers under a hostile caller: a script whose only pending work is an
// awaited pool operation must not be ended by Node with "unsettled top-level
// await" (exit 13), and an idle pool must still let the process exit by itself.
// Each case is a fresh Node process (ES module, top-level await) under the watchdog.
import { describe, expect, it } from "vitest";
import { ATTACKS_DIR, describeRun, runGuarded } from "../src/index.js";

const LIMITS = { maxRssMiB: 400, timeoutMs: 20_000 };

/** Runs `code` as an ES module with top-level await, without any explicit exit. */
function script(code: string) {
  return runGuarded(process.execPath, ["--input-type=module", "-e", code], LIMITS, {
    cwd: ATTACKS_DIR,
  });
}

const SETUP = `
import "@zarr/codec-blosc/register";
import { createArray, MemoryStore } from "@zarr/core";
import { WorkerPool } from "@zarr/workers";
const pool = new WorkerPool({ size: 2, decode: true, minChunkBytes: 0 });
const store = new MemoryStore();
const array = await createArray(store, "a", {
  shape: [64, 64], dataType: "float64", chunkShape: [32, 32], fillValue: 0,
  codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 8, blocksize: 0 } }],
});
const values = Float64Array.from({ length: 64 * 64 }, (_, i) => i);
`;

describe("WorkerPool keeps the process alive while it is awaited", () => {
  it("await pool.warmUp() with nothing else pending resolves (no exit 13)", async () => {
    const r = await script(`
      import { WorkerPool } from "@zarr/workers";
      const pool = new WorkerPool({ size: 2 });
      await pool.warmUp();
      console.log("warm " + pool.pending);
    `);
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stdout.trim()).toBe("warm 0");
  });

  it("an idle pool after warmUp and jobs does not keep the process alive (exits without close)", async () => {
    const r = await script(`${SETUP}
      await pool.warmUp();
      await array.set(null, values, { workers: pool });
      const back = await array.get(null, { workers: pool });
      console.log("done " + back.data[4095]);
    `);
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.killed).toBeUndefined();
    expect(r.stdout.trim()).toBe("done 4095");
    expect(r.elapsedMs).toBeLessThan(10_000);
  });

  it("awaited decode and encode jobs settle with nothing else pending", async () => {
    // Warm up under a timer (so that this case checks the jobs, not warmUp).
    const r = await script(`${SETUP}
      const keep = setInterval(() => {}, 1000);
      await pool.warmUp();
      clearInterval(keep);
      const { cStrides } = await import("@zarr/core/internal");
      const chunk = { data: values.slice(0, 32 * 32), shape: [32, 32], stride: cStrides([32, 32]), dataType: array.dataType };
      const context = { format: 3, path: "a" };
      const encoding = pool.encode(array.codecs, chunk, context);
      if (encoding === undefined) throw new Error("the warm pool declined the encode job");
      const bytes = await encoding;
      const decoding = pool.decode(array.codecs, bytes, context);
      if (decoding === undefined) throw new Error("the warm pool declined the decode job");
      const decoded = await decoding;
      console.log("round trip " + decoded.data[1023]);
    `);
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stdout.trim()).toBe("round trip 1023");
  });

  it("await pool.close() resolves once the workers have stopped", async () => {
    const r = await script(`
      import { WorkerPool } from "@zarr/workers";
      const pool = new WorkerPool({ size: 2 });
      await pool.warmUp();
      const closing = pool.close();
      if (typeof closing?.then !== "function") throw new Error("close() is not awaitable");
      await closing;
      console.log("closed");
    `);
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stdout.trim()).toBe("closed");
  });

  it("await pool.close() while workers are still starting resolves", async () => {
    const r = await script(`
      import { WorkerPool } from "@zarr/workers";
      const pool = new WorkerPool({ size: 2 });
      const warming = pool.warmUp();
      await pool.close();
      await warming;
      console.log("closed cold");
    `);
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stdout.trim()).toBe("closed cold");
  });
});
