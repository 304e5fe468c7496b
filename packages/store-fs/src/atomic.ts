/**
 * Atomic file replacement: write a temporary file in the target's directory,
 * then `rename` it over the target. POSIX `rename` (and `MoveFileEx` with
 * replace on Windows) swaps the directory entry in one step, so a reader opens
 * either the old file or the new one, never a partly written one; a reader that
 * already has the old file open keeps reading the old contents.
 *
 * @module
 */

import { randomBytes } from "node:crypto";
import { mkdir, open, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { errorCode } from "./fs-errors.js";
import { TEMP_PREFIX } from "./paths.js";

/**
 * How often a write is retried when its directory is missing: once to create it,
 * then when a concurrent erase removes it again.
 */
const RETRIES = 6;

/**
 * Atomically replaces (or creates) the file at `target` in directory `dir` with
 * `value`, creating missing parent directories. With `durable`, the file and
 * then the directory are fsynced, so the new value survives a power loss once
 * this resolves.
 */
export async function writeFileAtomic(
  dir: string,
  target: string,
  value: Uint8Array,
  durable: boolean,
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const temp = join(dir, `${TEMP_PREFIX}${randomBytes(8).toString("hex")}`);
    let created = false;
    try {
      // Chunk writes mostly land in existing directories: create them only after
      // an open has failed for want of one (saves a syscall per write).
      if (attempt > 0) await mkdir(dir, { recursive: true });
      const handle = await open(temp, "wx");
      created = true;
      try {
        await handle.writeFile(value);
        if (durable) await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, target);
      created = false;
      if (durable) await syncDirectory(dir);
      return;
    } catch (error) {
      if (created) await rm(temp, { force: true }).catch(() => {});
      // The directory does not exist (yet, or any more: a concurrent erase removed
      // it between mkdir and open): create it and redo.
      if (errorCode(error) === "ENOENT" && !created && attempt < RETRIES) continue;
      throw error;
    }
  }
}

/** Fsyncs a directory so a rename in it is durable; a no-op where directories can't be opened (Windows). */
async function syncDirectory(dir: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(dir, "r");
    await handle.sync();
  } catch (error) {
    const code = errorCode(error);
    if (code !== "EISDIR" && code !== "EPERM" && code !== "EINVAL" && code !== "EBADF") throw error;
  } finally {
    await handle?.close();
  }
}
