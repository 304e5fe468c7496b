/**
 * Directory walking for the listing operations.
 *
 * @module
 */

import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { isValidKey, throwIfAborted } from "@zarr/core";
import { isNotFound } from "./fs-errors.js";
import { isTempName } from "./paths.js";

/** What a directory entry is, symbolic links resolved. */
export type EntryKind = "file" | "dir" | "other";

/** A directory entry that can be part of a key. */
export interface Entry {
  name: string;
  kind: EntryKind;
  /** `dev:ino` of a directory, to detect symbolic link cycles. */
  id?: string;
}

/**
 * The entries of `dir`, sorted by name, without temporary files, names that
 * are not valid key segments, and broken links. `undefined` when `dir` does
 * not exist or is not a directory.
 */
export async function readEntries(dir: string): Promise<Entry[] | undefined> {
  let dirents: Dirent[];
  try {
    dirents = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
  const entries: Entry[] = [];
  for (const dirent of dirents) {
    const name = dirent.name;
    if (isTempName(name) || !isValidKey(name)) continue;
    const kind = await entryKind(dir, dirent);
    if (kind !== "other") entries.push({ name, kind });
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

async function entryKind(dir: string, dirent: Dirent): Promise<EntryKind> {
  if (dirent.isFile()) return "file";
  if (dirent.isDirectory()) return "dir";
  if (!dirent.isSymbolicLink()) return "other";
  try {
    const target = await stat(join(dir, dirent.name));
    return target.isFile() ? "file" : target.isDirectory() ? "dir" : "other";
  } catch (error) {
    if (isNotFound(error) || (error as { code?: string }).code === "ELOOP") return "other";
    throw error;
  }
}

async function directoryId(dir: string): Promise<string | undefined> {
  try {
    const s = await stat(dir);
    return s.isDirectory() ? `${s.dev}:${s.ino}` : undefined;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/**
 * Yields the key of every file under `dir`, as `keyPrefix + relative path`,
 * depth first in name order. Symbolic links are followed; a link back to one of
 * its own ancestors (a cycle) is skipped.
 */
export async function* walkKeys(
  dir: string,
  keyPrefix: string,
  signal?: AbortSignal,
): AsyncGenerator<string> {
  const rootId = await directoryId(dir);
  if (rootId === undefined) return;
  yield* walk(dir, keyPrefix, new Set([rootId]), signal);
}

async function* walk(
  dir: string,
  keyPrefix: string,
  ancestors: ReadonlySet<string>,
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
    const path = join(dir, entry.name);
    const id = await directoryId(path);
    if (id === undefined || ancestors.has(id)) continue;
    yield* walk(path, `${key}/`, new Set([...ancestors, id]), signal);
  }
}
