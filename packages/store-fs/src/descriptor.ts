/**
 * A file opened for reading, as a plain descriptor. Opens and reads go
 * through Node's callback API, or run synchronously when the store decides
 * so (see sync-reads.ts); the descriptor closes synchronously: `FileHandle`
 * costs several microseconds of main-thread work per open, read and close,
 * and a thread-pool trip to close, which dominate reads of small chunks.
 *
 * @module
 */
import { closeSync, open, openSync, read, readSync, readv, readvSync } from "node:fs";
import type { SyncTimer } from "./sync-reads.js";

export class ReadDescriptor {
  #open = true;

  private constructor(readonly fd: number) {}

  /** Opens `path` with `flags`; rejects with Node's error (its `code` set). */
  static open(path: string, flags: number): Promise<ReadDescriptor> {
    return new Promise((resolve, reject) => {
      open(path, flags, (error, fd) => (error ? reject(error) : resolve(new ReadDescriptor(fd))));
    });
  }

  /**
   * Opens `path` with `flags` on the calling thread (see `sync-reads.ts` for
   * when the store does), reporting the call's duration to `timer`; throws
   * Node's error.
   */
  static openNow(path: string, flags: number, timer: SyncTimer): ReadDescriptor {
    return new ReadDescriptor(timed(timer, () => openSync(path, flags)));
  }

  /**
   * Reads up to `length` bytes at `position` into `buffer[offset..]`; the bytes
   * read. With a `timer`, on the calling thread (a number; the call's
   * duration goes to the timer), else through the thread pool (a promise).
   */
  read(
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number,
    timer?: SyncTimer,
  ): number | Promise<number> {
    if (timer) return timed(timer, () => readSync(this.fd, buffer, offset, length, position));
    return new Promise((resolve, reject) => {
      read(this.fd, buffer, offset, length, position, (error, bytesRead) =>
        error ? reject(error) : resolve(bytesRead),
      );
    });
  }

  /** Reads into `views`, laid end to end, from `position` (one `preadv`); the bytes read, `timer` as with `read`. */
  readv(
    views: readonly Uint8Array[],
    position: number,
    timer?: SyncTimer,
  ): number | Promise<number> {
    if (timer) return timed(timer, () => readvSync(this.fd, views as Uint8Array[], position));
    return new Promise((resolve, reject) => {
      readv(this.fd, views as Uint8Array[], position, (error, bytesRead) =>
        error ? reject(error) : resolve(bytesRead),
      );
    });
  }

  /**
   * Closes the descriptor (once; later calls do nothing). Synchronous: closing
   * a descriptor opened for reading releases it without I/O.
   */
  close(): void {
    if (!this.#open) return;
    this.#open = false;
    try {
      closeSync(this.fd);
    } catch {
      // Already gone (EBADF) or interrupted: nothing was written, nothing is lost.
    }
  }
}

/** Runs the synchronous call `call`, reporting its duration to `timer`. */
function timed(timer: SyncTimer, call: () => number): number {
  const started = performance.now();
  try {
    return call();
  } finally {
    timer(performance.now() - started);
  }
}
