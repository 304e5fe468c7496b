/**
 * Opening files and directories under the store's root without ever leaving
 * it through a symbolic link, and reading only regular files.
 *
 * The rule: a key's path below the root may only run through real
 * directories, and a value is only ever read from a regular file. Symbolic
 * links (to anywhere, even inside the root), FIFOs, sockets and devices are
 * not part of the store.
 *
 * How it is enforced, on Linux (where `/proc/self/fd` exists):
 * - Values are opened with `O_NOFOLLOW` (a link at the key itself fails),
 *   `O_NONBLOCK` (opening a FIFO never waits for a writer) and `O_NOCTTY`;
 *   then the opened file is `fstat`ed (only regular files are read) and its
 *   real path, as the kernel knows it (`readlink /proc/self/fd/N`), must be
 *   exactly `<root>/<key>`: a link anywhere on the path makes it differ. The
 *   check is on the open descriptor, after the open, so a link swapped in at
 *   any moment cannot make a read return bytes from outside the root.
 * - Directories are opened the same way (`O_DIRECTORY | O_NOFOLLOW`, real
 *   path checked), and everything done in them afterwards (creating the
 *   temporary file, renaming it over the key, unlinking, creating and
 *   removing subdirectories, listing) goes through `/proc/self/fd/N/<name>`,
 *   which resolves against the open directory itself, like `openat(2)`: a
 *   link swapped in later is never followed.
 *
 * Elsewhere (macOS, Windows, Linux without /proc), each component is checked
 * with `lstat` before the operation, and values are opened with `O_NOFOLLOW`
 * and `O_NONBLOCK` where the platform has them: links placed beforehand are
 * refused the same way, but a link swapped in by someone writing inside the
 * root between the check and the operation is not caught.
 *
 * @module
 */

import { constants, existsSync, readlinkSync, realpathSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { lstat, mkdir, open, readlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { ReadDescriptor } from "./descriptor.js";
import { errorCode } from "./fs-errors.js";
import { makeDirectories } from "./make-dirs.js";
import {
  READ_DIRECTORY,
  READ_DONE,
  READ_MEMORY_GONE,
  READ_NOT_REGULAR,
  readNative,
} from "./native-read.js";

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const O_NOCTTY = constants.O_NOCTTY ?? 0;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;

/** Flags for opening a value: never follow a link at the key, never block on a FIFO. */
const READ_FLAGS = constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;
/** Flags for opening a directory to work in. */
const DIR_FLAGS = constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
/** Flags for creating a temporary file (never through a link, never an existing file). */
export const CREATE_FLAGS =
  constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW | O_NOCTTY;

/** How often a missing directory is created before giving up (concurrent erases remove empty ones). */
const MKDIR_ATTEMPTS = 6;

/**
 * Whether `/proc/self/fd` can be used: Linux, and not hidden by Node's
 * permission model (whose `existsSync` throws for a path it does not allow).
 */
function procFdUsable(): boolean {
  try {
    return process.platform === "linux" && existsSync("/proc/self/fd");
  } catch {
    return false;
  }
}

let useDescriptorPaths = procFdUsable();

/**
 * Switches between the race-free Linux mechanism and the portable checks (for
 * tests of the portable path; returns the previous setting).
 */
export function setDescriptorPaths(on: boolean): boolean {
  const previous = useDescriptorPaths;
  useDescriptorPaths = on && procFdUsable();
  return previous;
}

/** An entry on a key's path that the store refuses to go through or read. */
export class UnsafePathError extends Error {
  override name = "UnsafePathError";
}

/** File types in `st_mode` (POSIX). */
const S_IFMT = 0o170000;
const S_IFIFO = 0o010000;
const S_IFCHR = 0o020000;
const S_IFDIR = 0o040000;
const S_IFBLK = 0o060000;
const S_IFLNK = 0o120000;
const S_IFSOCK = 0o140000;

/** What an entry is, described for error messages, from its `st_mode`. */
function kindOfMode(mode: number): string {
  switch (mode & S_IFMT) {
    case S_IFIFO:
      return "a FIFO";
    case S_IFCHR:
      return "a character device";
    case S_IFDIR:
      return "a directory";
    case S_IFBLK:
      return "a block device";
    case S_IFLNK:
      return "a symbolic link";
    case S_IFSOCK:
      return "a socket";
    default:
      return "not a regular file";
  }
}

/** Why opening a value failed, as the store reports it; `undefined`: not found; `null`: rethrow. */
function openFailure(code: string | undefined): UnsafePathError | undefined | null {
  if (code === "ENOENT" || code === "ENOTDIR") return undefined;
  if (code === "ELOOP" || code === "EMLINK") {
    return new UnsafePathError(
      "the key is a symbolic link, or its path loops through links (the store never follows links)",
    );
  }
  if (code === "ENXIO") return new UnsafePathError("it is a socket, not a regular file");
  return null;
}

/** What the kernel appends to the path of an open file that was removed. */
const DELETED = Buffer.from(" (deleted)");

/** The error for a descriptor whose real path is `actual`, not the key's. */
function elsewhere(actual: string): UnsafePathError {
  return new UnsafePathError(
    `its real path is ${JSON.stringify(actual)}: a directory on the way is a symbolic link (the store never follows links)`,
  );
}

/** A value read whole by {@link RootedTree.readValue}. */
export interface ReadValue {
  /** The file's size. */
  readonly size: number;
  /** Bytes read into the views; `undefined` when nothing was read (the size did not match). */
  readonly bytesRead: number | undefined;
}

/**
 * A directory under the root, open for work inside it. `child(name)` names an
 * entry of this very directory (on Linux through its descriptor, so later
 * changes to the path above cannot redirect it).
 */
export interface Dir {
  /** A path for `node:fs` calls on the entry `name` of this directory. */
  child(name: string): string;
  /** A path for listing this directory. */
  readonly self: string;
  /** Fsyncs the directory (a no-op where directories cannot be opened). */
  sync(): Promise<void>;
  close(): Promise<void>;
}

class DescriptorDir implements Dir {
  readonly #handle: FileHandle;
  readonly self: string;
  constructor(handle: FileHandle) {
    this.#handle = handle;
    this.self = `/proc/self/fd/${handle.fd}`;
  }
  child(name: string): string {
    return `${this.self}/${name}`;
  }
  sync(): Promise<void> {
    return this.#handle.sync();
  }
  close(): Promise<void> {
    return this.#handle.close();
  }
}

class PathDir implements Dir {
  constructor(readonly self: string) {}
  child(name: string): string {
    return join(this.self, name);
  }
  async sync(): Promise<void> {
    let handle: FileHandle | undefined;
    try {
      handle = await open(this.self, "r");
      await handle.sync();
    } catch (error) {
      const code = errorCode(error);
      if (code !== "EISDIR" && code !== "EPERM" && code !== "EINVAL" && code !== "EBADF") {
        throw error;
      }
    } finally {
      await handle?.close();
    }
  }
  async close(): Promise<void> {}
}

/**
 * The real path of `root`: symbolic links resolved; for a root that does not
 * exist yet, the nearest existing ancestor resolved and the rest appended.
 */
export function realRoot(root: string): string {
  let existing = root;
  const rest: string[] = [];
  for (;;) {
    let real: Buffer;
    try {
      real = realpathSync.native(existing, { encoding: "buffer" });
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return root;
      rest.push(basename(existing));
      existing = parent;
      continue;
    }
    return join(asText(real), ...rest.reverse());
  }
}

/** A path a link or the root resolved to that is not valid UTF-8: a JavaScript string cannot name it. */
export class NonUtf8PathError extends Error {
  override name = "NonUtf8PathError";
}

/**
 * `path` as text, when decoding it loses nothing: an invalid UTF-8 byte
 * decodes to U+FFFD, which names another file (the one whose name holds
 * U+FFFD). Throws {@link NonUtf8PathError} otherwise.
 */
function asText(path: Buffer): string {
  const text = path.toString("utf8");
  if (!Buffer.from(text, "utf8").equals(path)) {
    throw new NonUtf8PathError(
      `the real path ${JSON.stringify(path.toString("latin1"))} is not valid UTF-8, so no string names it`,
    );
  }
  return text;
}

/** A value opened for reading: its descriptor and size. */
export interface OpenValue {
  readonly handle: ReadDescriptor;
  readonly size: number;
}

/** What `openChild` found. */
export type Child = Dir | "link" | "other" | undefined;

/** The store's root, with the operations that never leave it. */
export class RootedTree {
  /** The root's real path (links resolved once, at construction). */
  readonly root: string;
  /** The root's path as the kernel reports it for open descriptors (once known). */
  #kernelRoot: string | undefined;

  constructor(root: string) {
    this.root = realRoot(root);
  }

  #resolved: string | undefined;

  /** The root's real path (links resolved) once it exists; `undefined` while it does not. */
  resolvedRoot(): string | undefined {
    if (this.#resolved === undefined) {
      try {
        this.#resolved = asText(realpathSync.native(this.root, { encoding: "buffer" }));
      } catch {
        return undefined; // missing, or not nameable (reads are refused: see #findKernelRoot)
      }
    }
    return this.#resolved;
  }

  /** The absolute path of `segments` under the root. */
  path(segments: readonly string[]): string {
    return segments.length === 0 ? this.root : join(this.root, ...segments);
  }

  /**
   * Opens the value at `segments` for reading. `undefined` when nothing is
   * there or it is a directory (a prefix, not a key). Throws
   * {@link UnsafePathError} when the path runs through or ends at a link, or
   * the entry is not a regular file.
   */
  async openValue(segments: readonly string[]): Promise<OpenValue | undefined> {
    const path = this.path(segments);
    const fd = useDescriptorPaths;
    if (!fd) await this.#checkComponents(segments, true);
    let handle: ReadDescriptor;
    try {
      handle = await ReadDescriptor.open(path, READ_FLAGS);
    } catch (error) {
      const failure = openFailure(errorCode(error));
      if (failure === undefined) return undefined;
      throw failure ?? error;
    }
    try {
      if (fd) await this.#verify(handle, segments);
      // In the thread pool: on FUSE, fstat asks the server (GETATTR).
      const info = await handle.stat();
      if (info.isDirectory()) {
        await handle.close();
        return undefined;
      }
      if (!info.isFile()) {
        throw new UnsafePathError(`it is ${kindOfMode(info.mode)}, not a regular file`);
      }
      return { handle, size: info.size };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /**
   * Opens the directory at `segments` (`[]`: the root). With `create`,
   * missing directories are created (one at a time, each inside the one
   * opened before); otherwise `undefined` when it is missing or not a
   * directory. Throws {@link UnsafePathError} when a component is a link.
   */
  async openDir(
    segments: readonly string[],
    create: boolean,
    durable = false,
  ): Promise<Dir | undefined> {
    if (!useDescriptorPaths) {
      const found = await this.#checkComponents(segments, false);
      if (found === "missing" || found === "not a directory") {
        if (!create) return undefined;
        if (found === "not a directory") {
          throw new UnsafePathError("a component of the key's path is a file, not a directory");
        }
        await makeDirectories(this.path(segments));
        await this.#checkComponents(segments, false);
        // Each new directory's entry is in its parent: sync them all (root included).
        if (durable) {
          await new PathDir(dirname(this.root)).sync();
          for (let i = 0; i < segments.length; i++)
            await new PathDir(this.path(segments.slice(0, i))).sync();
        }
      }
      return new PathDir(this.path(segments));
    }
    let handle: FileHandle | undefined;
    try {
      handle = await open(this.path(segments), DIR_FLAGS);
    } catch (error) {
      const code = errorCode(error);
      if (code !== "ENOENT" && code !== "ENOTDIR" && code !== "ELOOP") throw error;
    }
    if (handle !== undefined) {
      try {
        await this.#verify(handle, segments);
      } catch (error) {
        await handle.close();
        throw error;
      }
      return new DescriptorDir(handle);
    }
    // Something on the path is missing, a file or a link: walk it one directory at a time.
    return this.#walkDirs(segments, create, durable);
  }

  /**
   * Opens `segments` one directory at a time, creating what is missing when
   * `create`; with `durable`, each directory that holds a new one is fsynced,
   * so that the new entry survives a power loss.
   */
  async #walkDirs(
    segments: readonly string[],
    create: boolean,
    durable: boolean,
  ): Promise<Dir | undefined> {
    let dir: Dir;
    try {
      dir = new DescriptorDir(await open(this.root, DIR_FLAGS));
    } catch (error) {
      const code = errorCode(error);
      if ((code === "ENOENT" || code === "ENOTDIR") && !create) return undefined;
      if (code !== "ENOENT") throw error;
      await makeDirectories(this.root);
      if (durable) await new PathDir(dirname(this.root)).sync();
      dir = new DescriptorDir(await open(this.root, DIR_FLAGS));
    }
    for (let i = 0; i < segments.length; i++) {
      let next: Child;
      try {
        next = await openChild(dir, segments[i]);
        // Create it; a concurrent erase pruning empty directories may remove it again at once.
        for (let attempt = 0; next === undefined && create && attempt < MKDIR_ATTEMPTS; attempt++) {
          try {
            await mkdir(dir.child(segments[i]));
            if (durable) await dir.sync();
          } catch (error) {
            if (errorCode(error) !== "EEXIST") throw error;
          }
          next = await openChild(dir, segments[i]);
        }
      } finally {
        await dir.close();
      }
      const where = JSON.stringify(segments.slice(0, i + 1).join("/"));
      if (next === "link") {
        throw new UnsafePathError(`${where} is a symbolic link (the store never follows links)`);
      }
      if (next === "other" || next === undefined) {
        if (!create) return undefined;
        throw new UnsafePathError(
          next === "other" ? `${where} is not a directory` : `${where} vanished while created`,
        );
      }
      dir = next;
    }
    return dir;
  }

  /** Throws unless the open `handle`'s real path is the root's `segments`. */
  async #verify(handle: { readonly fd: number }, segments: readonly string[]): Promise<void> {
    // Synchronous: /proc is kernel memory (no disk), cheaper than a thread-pool trip.
    // Bytes, not text: two paths whose bytes differ can decode to the same string
    // (invalid UTF-8 becomes U+FFFD), and only the bytes name the file.
    const actual = readlinkSync(`/proc/self/fd/${handle.fd}`, { encoding: "buffer" });
    const expected = Buffer.from(await this.#kernelPath(segments));
    if (actual.equals(expected) || actual.equals(Buffer.concat([expected, DELETED]))) return;
    throw elsewhere(actual.toString());
  }

  /** The path the kernel names the entry at `segments` by (as `readlink /proc/self/fd/N` does). */
  async #kernelPath(segments: readonly string[]): Promise<string> {
    const base = await this.#kernelBase();
    return segments.length === 0 ? base : `${base === "/" ? "" : base}/${segments.join("/")}`;
  }

  /**
   * Reads the value at `segments` whole into `views` (end to end) in one
   * thread-pool job, with the checks of {@link openValue}; with `exact`, only
   * when its size equals the views' total, otherwise when it fits. `null`
   * when nothing is there or it is a directory; `undefined` when native reads
   * are unavailable (the caller uses {@link openValue}). `bounce`: see
   * `readNative` (memory the caller alone holds, unless `views` are).
   */
  async readValue(
    segments: readonly string[],
    views: readonly Uint8Array[],
    exact: boolean,
    bounce: Uint8Array | null,
  ): Promise<ReadValue | null | undefined> {
    if (!useDescriptorPaths || segments.length === 0) return undefined;
    const expected = await this.#kernelPath(segments);
    const read = readNative(this.path(segments), expected, views, exact, bounce);
    if (read === undefined) return undefined;
    let outcome: Awaited<typeof read>;
    try {
      outcome = await read;
    } catch (error) {
      if ((error as { syscall?: string }).syscall !== "open") throw error;
      const failure = openFailure(errorCode(error));
      if (failure === undefined) return null;
      throw failure ?? error;
    }
    switch (outcome.status) {
      case READ_DONE:
        return { size: outcome.size, bytesRead: outcome.bytesRead };
      case READ_DIRECTORY:
        return null;
      case READ_NOT_REGULAR:
        throw new UnsafePathError(`it is ${kindOfMode(outcome.mode)}, not a regular file`);
      case "elsewhere":
        throw elsewhere(outcome.actual);
      case READ_MEMORY_GONE:
        throw new Error("the memory read into was detached or shrunk while the value was read");
      default:
        return { size: outcome.size, bytesRead: undefined };
    }
  }

  /** The root's path as the kernel names it (it can differ from `realpath` under some mounts). */
  #kernelBase(): Promise<string> {
    if (this.#kernelRoot !== undefined) return Promise.resolve(this.#kernelRoot);
    // One open of the root for all the reads that start before it is known.
    this.#kernelPending ??= this.#findKernelRoot().finally(() => {
      this.#kernelPending = undefined;
    });
    return this.#kernelPending;
  }

  #kernelPending: Promise<string> | undefined;

  async #findKernelRoot(): Promise<string> {
    let handle: FileHandle;
    try {
      handle = await open(this.root, DIR_FLAGS);
    } catch {
      return this.root; // not there yet: nothing under it either
    }
    try {
      const bytes = await readlink(`/proc/self/fd/${handle.fd}`, { encoding: "buffer" });
      let actual: string;
      try {
        actual = asText(bytes);
      } catch {
        // Not nameable as text: expect the root's own path, which the kernel's never equals.
        actual = this.root;
      }
      this.#kernelRoot = actual.endsWith(" (deleted)") ? this.root : actual;
    } finally {
      await handle.close();
    }
    return this.#kernelRoot;
  }

  /**
   * The portable check: `lstat` each component below the root. For a value
   * (`last`), a link or special file at the key itself is refused too.
   */
  async #checkComponents(
    segments: readonly string[],
    last: boolean,
  ): Promise<"ok" | "missing" | "not a directory"> {
    let path = this.root;
    for (let i = 0; i < segments.length; i++) {
      path = join(path, segments[i]);
      let info: Awaited<ReturnType<typeof lstat>>;
      try {
        info = await lstat(path);
      } catch (error) {
        const code = errorCode(error);
        if (code === "ENOENT") return "missing";
        if (code === "ENOTDIR") return "not a directory";
        throw error;
      }
      const where = JSON.stringify(segments.slice(0, i + 1).join("/"));
      if (info.isSymbolicLink()) {
        throw new UnsafePathError(`${where} is a symbolic link (the store never follows links)`);
      }
      const isLast = i === segments.length - 1;
      if (isLast && last) {
        if (!info.isFile() && !info.isDirectory()) {
          throw new UnsafePathError(`it is ${kindOfMode(info.mode)}, not a regular file`);
        }
      } else if (!info.isDirectory()) return "not a directory";
    }
    return "ok";
  }
}

/**
 * Opens the entry `name` of `dir` as a directory, never through a link:
 * the directory, `"link"`, `"other"` (a file, FIFO, ...), or `undefined` when
 * there is none.
 */
export async function openChild(dir: Dir, name: string): Promise<Child> {
  const path = dir.child(name);
  if (dir instanceof DescriptorDir) {
    try {
      return new DescriptorDir(await open(path, DIR_FLAGS));
    } catch (error) {
      const code = errorCode(error);
      if (code === "ENOENT") return undefined;
      if (code !== "ENOTDIR" && code !== "ELOOP") throw error;
    }
  }
  let info: Awaited<ReturnType<typeof lstat>>;
  try {
    info = await lstat(path);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
  if (info.isSymbolicLink()) return "link";
  // A directory here means it changed since the open failed: treat it as foreign.
  if (!info.isDirectory() || dir instanceof DescriptorDir) return "other";
  return new PathDir(path);
}
