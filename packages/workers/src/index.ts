/**
 * @zarr/workers: a worker pool for chunk codecs (worker_threads on Node, Web
 * Workers in browsers).
 *
 * ```ts
 * import "@zarr/codec-blosc/register";
 * import { openArray } from "@zarr/core";
 * import { WorkerPool } from "@zarr/workers";
 * const pool = new WorkerPool(); // cores - 1 workers, started on first use
 * const a = await openArray(store, "temps");
 * const { data } = await a.get(null, { workers: pool }); // same result as without
 * await pool.close();
 * ```
 *
 * `import "@zarr/workers/register"` makes a shared pool the default of every array.
 *
 * @packageDocumentation
 */
export {
  BUILTIN_YOUNG_GENERATION_MB,
  type ChunkCodecWorkers,
  DEFAULT_MIN_CHUNK_BYTES,
  DEFAULT_MODULES,
  WorkerPool,
  type WorkerPoolOptions,
} from "./pool.js";
export { defaultPool } from "./shared.js";
