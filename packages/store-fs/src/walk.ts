/**
 * Directory walking for the listing operations. Only regular files are keys
 * and only real directories are descended into: symbolic links, FIFOs,
 * sockets and devices are not part of the store and are skipped.
 *
 * @module
 */

import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { isValidKey, throwIfAborted } from "@zarr/core/store";
import { isNotFound } from "./fs-errors.js";
import { isTempName } from "./paths.js";
import { type Dir, openChild, type RootedTree, UnsafePathError } from "./tree.js";

/** A directory entry that can be part of a key. */
export interface Entry {
  name: string;
  kind: "file" | "dir";
}

/**
 * The entries of `dir` that are regular files or directories, sorted by name,
 * without temporary files and names that are not valid key segments.
 * `undefined` when the directory is gone.
 */
export async function readEntries(dir: Dir): Promise<Entry[] | undefined> {
  let dirents: Dirent[];
  try {
    dirents = await readdir(dir.self, { withFileTypes: true });
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
  const entries: Entry[] = [];
  for (const dirent of dirents) {
    const name = dirent.name;
    if (isTempName(name) || !isValidKey(name)) continue;
    // Dirent types come from the directory itself (lstat semantics): links are links.
    if (dirent.isFile()) entries.push({ name, kind: "file" });
    else if (dirent.isDirectory()) entries.push({ name, kind: "dir" });
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The directory of `segments` for listing: `undefined` when missing, not a directory, or reached through a link. */
export async function openListed(
  tree: RootedTree,
  segments: readonly string[],
): Promise<Dir | undefined> {
  try {
    return await tree.openDir(segments, false);
  } catch (error) {
    if (error instanceof UnsafePathError) return undefined;
    throw error;
  }
}

/**
 * Yields the key of every regular file under the directory `segments`, as
 * `keyPrefix + relative path`, depth first in name order.
 */
export async function* walkKeys(
  tree: RootedTree,
  segments: readonly string[],
  keyPrefix: string,
  signal?: AbortSignal,
): AsyncGenerator<string> {
  const dir = await openListed(tree, segments);
  if (dir === undefined) return;
  try {
    yield* walk(dir, keyPrefix, signal);
  } finally {
    await dir.close();
  }
}

async function* walk(
  dir: Dir,
  keyPrefix: string,
  signal: AbortSignal | undefined,
): AsyncGenerator<string> {
  throwIfAborted(signal, keyPrefix);
  const entries = await readEntries(dir);
  if (!entries) return; // removed while walking
  for (const entry of entries) {
    const key = keyPrefix + entry.name;
    if (entry.kind === "file") {
      yield key;
      continue;
    }
    const sub = await openChild(dir, entry.name);
    if (sub === undefined || typeof sub === "string") continue; // gone, or no longer a directory
    try {
      yield* walk(sub, `${key}/`, signal);
    } finally {
      await sub.close();
    }
  }
}
