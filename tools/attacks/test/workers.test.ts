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

describe("WorkerPool under hostile use", () => {
  it("an aborted read into a shared out: nothing writes there after the rejection", async () => {
    // The worker decodes straight into the caller's shared memory; the read
    // rejects only once it is done (attack, 2026-11-27: up to every element
    // changed after the rejection).
    const r = await script(`
      import "@zarr/codec-zstd/register";
      import { createArray, MemoryStore } from "@zarr/core";
      import { WorkerPool } from "@zarr/workers";
      const pool = new WorkerPool({ size: 1, perWorker: 2 });
      const n = 4 * 512 * 512;
      const a = await createArray(new MemoryStore(), "a", {
        shape: [4 * 512, 512], dataType: "float32", chunkShape: [512, 512],
        codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 19 } }],
      });
      await a.set(null, Float32Array.from({ length: n }, (_, i) => Math.sin(i / 9) * 100), { workers: false });
      await a.get(null, { workers: pool, out: new Float32Array(new SharedArrayBuffer(n * 4)) });
      let late = 0;
      for (let trial = 0; trial < 6; trial++) {
        const out = new Float32Array(new SharedArrayBuffer(n * 4)).fill(-7);
        const controller = new AbortController();
        const read = a.get(null, { workers: pool, out, signal: controller.signal });
        setTimeout(() => controller.abort(), trial);
        const error = await read.then(() => null, (e) => e);
        if (error?.name !== "AbortError") throw new Error("expected an AbortError, got " + error);
        const atRejection = out.slice();
        await new Promise((resolve) => setTimeout(resolve, 150));
        while (pool.pending > 0) await new Promise((resolve) => setTimeout(resolve, 20));
        for (let i = 0; i < n; i++) if (!Object.is(out[i], atRejection[i])) { late++; break; }
      }
      await pool.close();
      console.log("late writes " + late);
    `);
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stdout.trim()).toBe("late writes 0");
  });

  it("absurd pool sizes are a ValueError, not a storm of threads", async () => {
    const r = await script(`
      import { WorkerPool } from "@zarr/workers";
      const names = [];
      for (const size of [1e12, 2 ** 40, Number.NaN, Infinity, -1]) {
        try { new WorkerPool({ size }); names.push("accepted"); } catch (e) { names.push(e.name); }
      }
      console.log(names.join(" "));
    `);
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.killed).toBeUndefined();
    expect(r.stdout.trim()).toBe("ValueError ValueError ValueError ValueError ValueError");
  });

  it("thousands of arrays through one pool: values right, workers keep a bounded set of pipelines", async () => {
    const r = await script(`
      import "@zarr/codec-zstd/register";
      import { createArray, MemoryStore } from "@zarr/core";
      import { WorkerPool } from "@zarr/workers";
      const pool = new WorkerPool({ size: 1, minChunkBytes: 0 });
      await pool.warmUp();
      const offered = [];
      const decodeTo = pool.decodeTo.bind(pool);
      pool.decodeTo = (...args) => { const p = decodeTo(...args); offered.push(p !== undefined); return p; };
      let wrong = 0;
      const first = [];
      for (let i = 0; i < 2000; i++) {
        const a = await createArray(new MemoryStore(), "a" + i, {
          shape: [16, 16], dataType: "float32", chunkShape: [16, 16],
          codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 1 } }],
        });
        await a.set(null, new Float32Array(256).fill(i), { workers: false });
        if (i < 10) first.push(a);
        if ((await a.get(null, { workers: pool })).data[255] !== i) wrong++;
      }
      // The first arrays' pipelines were dropped long ago: described again, still offloaded.
      for (const [i, a] of first.entries()) if ((await a.get(null, { workers: pool })).data[0] !== i) wrong++;
      const kept = offered.slice(-10).every(Boolean);
      await pool.close();
      console.log("wrong " + wrong + " offloaded " + kept);
    `);
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.killed).toBeUndefined();
    expect(r.stdout.trim()).toBe("wrong 0 offloaded true");
  });
});
