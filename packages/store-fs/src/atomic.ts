/**
 * Atomic file replacement: write a temporary file in the target's directory,
 * then `rename` it over the target. POSIX `rename` (and `MoveFileEx` with
 * replace on Windows) swaps the directory entry in one step, so a reader opens
 * either the old file or the new one, never a partly written one; a reader that
 * already has the old file open keeps reading the old contents. `rename`
 * replaces whatever entry is at the target (a link is replaced, never written
 * through).
 *
 * @module
 */

import { randomBytes } from "node:crypto";
import { type FileHandle, open, rename, unlink } from "node:fs/promises";
import { errorCode } from "./fs-errors.js";
import { TEMP_PREFIX } from "./paths.js";
import { CREATE_FLAGS, type Dir, type RootedTree } from "./tree.js";

/**
 * How often a write is retried when its directory is missing: once to create it,
 * then when a concurrent erase removes it again.
 */
const RETRIES = 6;

/**
 * Atomically replaces (or creates) the file `name` in the directory
 * `dirSegments` of `tree` with `value` (one buffer, or views written end to end
 * by one gathering write), creating missing directories (never through a
 * symbolic link). With `durable`, the file and then the directory
 * are fsynced, so the new value survives a power loss once this resolves.
 */
export async function writeFileAtomic(
  tree: RootedTree,
  dirSegments: readonly string[],
  name: string,
  value: Uint8Array | readonly Uint8Array[],
  durable: boolean,
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    // Chunk writes mostly land in existing directories: the first open creates
    // nothing (saves syscalls); later attempts create what is missing.
    let dir: Dir | undefined;
    try {
      dir = await tree.openDir(dirSegments, attempt > 0, durable);
      if (dir === undefined) continue;
      await writeIn(dir, name, value, durable);
      return;
    } catch (error) {
      // The directory went away (a concurrent erase removed it): create it and redo.
      if (errorCode(error) === "ENOENT" && attempt < RETRIES) continue;
      throw error;
    } finally {
      await dir?.close();
    }
  }
}

async function writeIn(
  dir: Dir,
  name: string,
  value: Uint8Array | readonly Uint8Array[],
  durable: boolean,
) {
  const temp = dir.child(`${TEMP_PREFIX}${randomBytes(8).toString("hex")}`);
  const handle = await open(temp, CREATE_FLAGS, 0o666);
  let renamed = false;
  try {
    try {
      if (value instanceof Uint8Array) await handle.writeFile(value);
      else await writeViews(handle, value);
      if (durable) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, dir.child(name));
    renamed = true;
    if (durable) await dir.sync();
  } finally {
    if (!renamed) await unlink(temp).catch(() => {});
  }
}

/** Linux takes at most this many buffers per `writev` (IOV_MAX). */
const MAX_VIEWS_PER_WRITE = 1024;

/** Writes `views` end to end from the start of the new file `handle`, resuming after short writes (exported for tests). */
export async function writeViews(handle: FileHandle, views: readonly Uint8Array[]): Promise<void> {
  const pending = views.filter((view) => view.length > 0);
  let position = 0;
  let k = 0; // the first view not wholly written...
  let skip = 0; // ...and how much of it is
  while (k < pending.length) {
    const batch: Uint8Array[] = [];
    for (let j = k; j < pending.length && batch.length < MAX_VIEWS_PER_WRITE; j++) {
      batch.push(j === k ? pending[j].subarray(skip) : pending[j]);
    }
    const { bytesWritten } = await handle.writev(batch, position);
    if (!(bytesWritten > 0)) throw new Error(`writev wrote ${bytesWritten} bytes`);
    position += bytesWritten;
    let done = skip + bytesWritten;
    while (k < pending.length && done >= pending[k].length) done -= pending[k++].length;
    skip = done;
  }
}
