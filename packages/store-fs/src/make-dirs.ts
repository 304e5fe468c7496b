/**
 * `mkdir -p` that reports why a directory could not be made.
 *
 * @module
 */
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { errorCode } from "./fs-errors.js";

/**
 * Makes `path` and its missing parents. Node's recursive `mkdir` reports
 * ENOENT when a directory cannot be made on a read-only file system (EROFS;
 * Node 20 and 24), which reads as a missing path; on ENOENT this makes the
 * directories one at a time, from the root down, so the error thrown is the
 * one the system gave.
 */
export async function makeDirectories(path: string): Promise<void> {
  try {
    await mkdir(path, { recursive: true });
    return;
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw error;
  }
  const chain: string[] = [];
  for (let p = path; ; p = dirname(p)) {
    chain.push(p);
    if (dirname(p) === p) break;
  }
  for (const p of chain.reverse()) {
    try {
      await mkdir(p);
    } catch (error) {
      if (errorCode(error) !== "EEXIST") throw error;
    }
  }
}
