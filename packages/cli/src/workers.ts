/**
 * The worker pool of the commands that decode or encode many chunks (`get`,
 * `copy`): `--workers N` threads run chunk codecs beside the main thread.
 * Workers start only when a chunk's codecs are worth sending to one
 * (compressed chunks of 64 KiB and more), so commands on uncompressed or small
 * chunks never start any.
 *
 * @module
 */
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { pathToFileURL } from "node:url";
import type { ChunkCodecWorkers } from "@zarr/core/codec";
import { WorkerPool } from "@zarr/workers";
import { CODEC_MODULES } from "./codec-modules.js";
import { UsageError } from "./command.js";

const require = createRequire(import.meta.url);

/** A pool per `--workers` (undefined for 0), and how to stop it. */
export interface CommandPool {
  readonly workers: ChunkCodecWorkers | undefined;
  close(): Promise<void>;
}

/** Parses `--workers` (a whole number from 0 to 1024; undefined: the pool's default size). */
export function parseWorkers(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) > 1024)
    throw new UsageError(`--workers must be a whole number from 0 to 1024, not "${value}"`);
  return Number(value);
}

/**
 * The pool of `size` workers (default: cores - 1), none for 0, and never more
 * than one per core: more threads than cores decode nothing faster, and each
 * costs a Node instance (about 14 MB and 0.15 s of CPU to start, all started
 * on first use).
 */
export function commandPool(size: number | undefined): CommandPool {
  if (size === 0) return { workers: undefined, close: async () => {} };
  const pool = new WorkerPool({
    ...(size === undefined ? {} : { size: Math.min(size, availableParallelism()) }),
    // By URL: a bare name would resolve from @zarr/workers, which does not depend on them.
    modules: CODEC_MODULES.map((m) => pathToFileURL(require.resolve(m)).href),
    defaultModules: false,
  });
  return { workers: pool, close: () => pool.close() };
}
